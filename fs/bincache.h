/*
 * The binary cache: at most one parsed view (one pfelf handle) per binary
 * at a time, shared by every lookup, open file and thread, refcounted.
 * Views nobody uses stay cached in an LRU; the least recently used idle
 * ones are closed when more than BINCACHE_MAX_HANDLES handles are alive, or
 * more than BINCACHE_MAX_FDS handles hold a descriptor (pread backend), so
 * neither mappings nor descriptors grow with the size of the tree. A view
 * in use is never closed.
 */
#ifndef ELFFS_BINCACHE_H
#define ELFFS_BINCACHE_H

#include "nodes.h"
#include "view.h"

#include <sys/stat.h>

#define BINCACHE_MAX_HANDLES 4096 /* mappings count against vm.max_map_count */
#define BINCACHE_MAX_FDS     256  /* pread-backed handles (descriptors) */

/* Per-binary state, owned by its NK_BIN node. */
struct binary *binary_new(void);
void binary_destroy(struct binary *b);

/*
 * The view of generation gen of binary root, whose source was expect
 * (lstat) at that generation; built (parsed) on first use. On success *out
 * holds a reference (bincache_release it). Errors: -EIO when pfelf refuses
 * the file's header, -ESTALE when the file is no longer the one of expect,
 * or the errno of open/mmap/malloc.
 */
int bincache_acquire(struct node *root, uint64_t gen, const struct stat *expect,
                     struct bview **out);

/* Take one more reference on a view. */
void bincache_ref(struct bview *v);

/* Drop a reference; an idle view joins the LRU. */
void bincache_release(struct bview *v);

/* Forget the binary's view if it is older than generation gen (users keep theirs). */
void bincache_invalidate(struct binary *b, uint64_t gen);

/* Live handles, and those holding a descriptor (statistics, tests). */
void bincache_stats(unsigned *live, unsigned *fds);

#endif /* ELFFS_BINCACHE_H */
