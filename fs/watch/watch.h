/*
 * Watching SOURCE (-o watch=auto): a thread hears of every change of
 * SOURCE's file systems through fanotify (FAN_MARK_FILESYSTEM, events
 * reported with file handles and names) and tells the kernel and the
 * daemon's caches what to forget, so that nodes of a watched file system
 * live with the long timeout (-o watch_timeout) instead of -o timeout.
 *
 *   wfs.c     the file systems below SOURCE (mountinfo), their marks, the
 *             log line, which devices are watched
 *   wmap.c    the file handles of the source nodes the kernel holds
 *   wevent.c  the thread: reads events, mountinfo changes, overflows
 *   wapply.c  what an event does to the nodes it names
 */
#ifndef ELFFS_WATCH_H
#define ELFFS_WATCH_H

#include "node/nodes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Start watching (elffs.watch): mark SOURCE's file systems, log which are
 * watched and why others are not, start the thread. 0, or -errno when
 * nothing is watched (the mount then runs on -o timeout alone). */
int watch_start(void);

/* Stop the thread (before the invalidation thread stops). */
void watch_stop(void);

/* Free the handle map (after the node table). */
void watch_destroy(void);

/* Whether nodes of device dev are on a watched file system now. */
bool watch_dev(uint64_t dev);

/* A count that moves whenever an event reaches a node: taken before a
 * lookup looks at SOURCE, given to watch_hold after. */
uint64_t watch_seq(void);

/* Source node n (the kernel's reference held) was made or found by a
 * lookup that began at watch_seq() seq: keep its file handle, taken from
 * name in directory dirfd (or by its path from SOURCE when dirfd < 0),
 * when its device is watched. A node with a handle lives with the long
 * timeout (check_timeout_ns); one whose lookup may have raced with an
 * event about it keeps -o timeout until its next lookup. */
void watch_hold(struct node *n, int dirfd, const char *name, uint64_t seq);

/* Counters (the .build-id directory's user.elffs.watch_* attributes). */
struct watch_stats {
	uint64_t events;    /* events read */
	uint64_t overflows; /* queue overflows, each a full invalidation */
	uint64_t remounts;  /* mount table changes below SOURCE, each the same */
	uint64_t held;      /* file handles kept */
	uint64_t watched;   /* file systems watched */
};
void watch_stats_get(struct watch_stats *s);

/* user.elffs.watch_* of the build-id index directory: the value of name
 * into buf (XATTR_VALUE_MAX), its length or -ENODATA; the names appended
 * to buf (size bytes, len used) as xattr_table_list. */
int watch_getxattr(const char *name, char *buf);
size_t watch_listxattr(char *buf, size_t size, size_t len);

#endif /* ELFFS_WATCH_H */
