/*
 * The cache of decompressed sections (decompressed/<name>): filled on
 * open, shared by the open files of one section (and by the links of one
 * file: the key is the core view's serial), kept in an LRU within a
 * memory budget of DCACHE_BUDGET bytes of decompressed data. Entries in
 * use are never evicted.
 */
#ifndef ELFFS_DCACHE_H
#define ELFFS_DCACHE_H

#include "view.h"

#include <stddef.h>
#include <stdint.h>

#define DCACHE_BUDGET ((uint64_t)64 << 20)

struct dentry_data;

/*
 * The decompressed bytes of section index of view v (pinned): *data (size
 * bytes, the section's ch_size) held until dcache_release(*e). ino (the
 * binary's inode) is not used: entries are keyed by v's core, which the
 * hard links of a file share. Errors: -EIO (ch_size over the budget),
 * -ENOMEM (the budget is held by sections in use, or malloc), -EIO (the
 * stream is corrupt, of an unknown type, or not ch_size bytes long).
 */
int dcache_acquire(struct bview *v, uint64_t ino, uint32_t index, uint64_t size, const char **data,
                   struct dentry_data **e);

/* Drop a reference (NULL is allowed). */
void dcache_release(struct dentry_data *e);

/* Free the idle entries of the core view of that serial (it is being freed). */
void dcache_forget(uint64_t serial);

/* Free every idle entry (at exit). */
void dcache_destroy(void);

#endif /* ELFFS_DCACHE_H */
