/*
 * The cache of decompressed sections (decompressed/<name>) and of the
 * files the daemon makes whole (EB_MADE rows, entries.h:
 * minidebuginfo.debug, go/debug):
 * filled on open (a made file also on lookup, which needs its size),
 * shared by the open files of one section or file (and by the links of
 * one file: the key is the core view's serial), kept in an LRU within the
 * daemon's memory budget (membudget.h), where idle entries are given back
 * with idle views, least recently used first. Entries in use are never
 * evicted.
 */
#ifndef ELFFS_DCACHE_H
#define ELFFS_DCACHE_H

#include "node/node.h"
#include "view/view.h"

#include <stddef.h>
#include <stdint.h>

/* Sections decompressed at most (larger ones: EIO, like a corrupt stream). */
#define DCACHE_MAX_SECTION ((uint64_t)64 << 20)

struct dentry_data;

/* Give the memory budget the idle entries to evict; once, at start. */
void dcache_init(void);

/*
 * The decompressed bytes of section index of view v (pinned): *data (size
 * bytes, the section's ch_size) held until dcache_release(*e). Entries are
 * keyed by v's core, which the hard links of a file share. Errors: -EIO
 * (ch_size over DCACHE_MAX_SECTION; the stream is corrupt, of an unknown
 * type, or not ch_size bytes long), -EFBIG (over the whole memory budget),
 * -ENOMEM (no room in the budget beside what is in use, or malloc).
 */
int dcache_get(struct bview *v, uint32_t index, uint64_t size, const char **data,
               struct dentry_data **e);

/* dcache_get for callers that still pass the binary's inode (not used). */
static inline int dcache_acquire(struct bview *v, uint64_t ino, uint32_t index, uint64_t size,
                                 const char **data, struct dentry_data **e)
{
	(void)ino;
	return dcache_get(v, index, size, data, e);
}

/*
 * The bytes of the file of kind k (an EB_MADE row) of view v (pinned):
 * *data (*size bytes) held until dcache_release(*e). Made by the row's
 * make on a miss, within reservations of the budget that start at the
 * row's guess and grow fourfold after each -EFBIG of the make up to the
 * whole budget; the entry then keeps what its bytes cost. A view whose
 * file was written while it was made gives -EIO. Errors: -EFBIG (more
 * than the whole budget), -ENOMEM (no room beside what is in use, or
 * malloc), -EIO (the make's other errors).
 */
int dcache_made(struct bview *v, enum node_kind k, const char **data, uint64_t *size,
                struct dentry_data **e);

/* Drop a reference (NULL is allowed). */
void dcache_release(struct dentry_data *e);

/* Free the idle entries of the core view of that serial (it is being freed). */
void dcache_forget(uint64_t serial);

/* Free every idle entry (at exit). */
void dcache_destroy(void);

#endif /* ELFFS_DCACHE_H */
