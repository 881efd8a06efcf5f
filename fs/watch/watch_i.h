/* What the files of fs/watch/ share (watch.h is the daemon's view). */
#ifndef ELFFS_WATCH_I_H
#define ELFFS_WATCH_I_H

#include "watch/watch.h"

#include <stdatomic.h>
#include <stddef.h>

#define WATCH_HANDLE_MAX 128 /* MAX_HANDLE_SZ */

/* A file handle as fanotify reports it: its file system's fsid, type, bytes. */
struct wfid {
	uint64_t fsid;
	int32_t type;
	uint32_t len;
	unsigned char bytes[WATCH_HANDLE_MAX];
};

/* wfs.c: mark the file systems below SOURCE on fanotify group fd and
 * publish the table of devices; log what is watched when log; *changed
 * whether the table differs from the one before (a mount elsewhere in the
 * mount table leaves it the same). The count watched, or -errno. */
int wfs_scan(int fd, bool log, bool *changed);
void wfs_destroy(void);
/* Whether device dev is watched, and its fsid. */
bool wfs_watched(uint64_t dev, uint64_t *fsid);

/* Whether every file system below SOURCE (and the one it lies in) is
 * watched, as of the last wfs_scan. */
bool wfs_whole(void);
/* A __kernel_fsid_t (statfs, fanotify) as one number. */
uint64_t wfs_fsid_of(const void *kernel_fsid);

/* wmap.c: the handle of n (dirfd/name as watch_hold), or -errno. */
int wmap_handle_of(struct node *n, int dirfd, const char *name, struct wfid *out);
/* Up to max inode numbers of nodes holding handle f into inos; the count
 * (more may exist when it is max). */
size_t wmap_find(const struct wfid *f, uint64_t *inos, size_t max);
/* Call each(ino, arg) with every inode number held (no lock held); 0 or
 * -ENOMEM (none called). */
int wmap_each(void (*each)(uint64_t ino, void *arg), void *arg);
uint64_t wmap_count(void);
/* Free source node n's entry, if it has one (nodes_on_free's hook). */
void wmap_forget(struct node *n);

/* wapply.c: what events do. */
/* An event about the object with handle obj (NULL: not given), and/or the
 * entry name of the directory with handle dir (NULL: not given). */
void wapply_event(uint64_t mask, const struct wfid *dir, const char *name, const struct wfid *obj);
/* Forget everything the kernel may hold (an overflow, a mount change);
 * 0 or -ENOMEM (to be tried again). */
int wapply_everything(void);

extern _Atomic uint64_t watch_n_events, watch_n_overflows, watch_n_remounts, watch_n_watched;

#endif /* ELFFS_WATCH_I_H */
