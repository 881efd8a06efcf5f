/*
 * Kernel cache invalidations, sent from a thread of their own: a handler
 * must not call fuse_lowlevel_notify_inval_entry() for a directory the
 * kernel holds locked while it waits for that very handler (a lookup),
 * so handlers only queue them here.
 */
#ifndef ELFFS_INVAL_H
#define ELFFS_INVAL_H

#include <stdbool.h>
#include <stdint.h>

/* Start the sender thread for session se; 0 or -errno. */
int inval_start(void *se);

/* Stop it (pending notifications are dropped). */
void inval_stop(void);

/* Drop nothing from now on (watching SOURCE: the timeouts are long). */
void inval_keep_all(void);

/* Whether a notification was lost for memory since the last call (only
 * under inval_keep_all): the caller then invalidates everything. */
bool inval_lost(void);

/* A count that moves whenever a change of SOURCE heard of (watch/)
 * reaches a node: taken before SOURCE is looked at, compared after, it
 * tells whether what was seen may be older than a change. */
uint64_t inval_seq(void);
void inval_seq_bump(void);

/* Queue: forget the dentry name of directory parent. */
void inval_entry(uint64_t parent, const char *name);

/* Queue: forget the attributes and cached data of ino. */
void inval_inode(uint64_t ino);

#endif /* ELFFS_INVAL_H */
