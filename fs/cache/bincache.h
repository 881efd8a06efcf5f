/*
 * The binary cache: one parsed view per file identity (dev, ino, size,
 * mtime, ctime), shared by every binary node of that identity (hard links,
 * in any directory) and by every lookup, open file, listing and thread,
 * refcounted.
 *
 * A parse is a *core* view; each binary at each generation holds an
 * *alias* of it (view.h), which is what callers get: its gen is the
 * binary's, its root the binary's node (to open the file again), its owner
 * the binary whose current view it is. A link that changes (replaced,
 * rewritten) gets a new identity and so another core; the others keep
 * theirs, and open files keep the alias (and core) they hold.
 *
 * A core's pfelf handle (its mapping, or its descriptor under the pread
 * backend) is separate from the view's lifetime: a *pinned* reference needs
 * the handle open (lookups, opens, a read in progress); a plain reference
 * (an open file or a listing between calls) only keeps the view. Handles
 * of cores nobody pins wait in an LRU; the least recently used are closed
 * while more than BINCACHE_MAX_HANDLES are open, or more of them hold a
 * descriptor than a quarter of the soft RLIMIT_NOFILE (at most
 * BINCACHE_MAX_FDS), and a core only its binaries' current aliases
 * reference (idle) goes with its handle. A call that runs out of
 * descriptors makes every idle one go (bincache_shed_fds) and tries again
 * (src_fd_retry). Pinning a view whose handle was closed opens the source
 * again through its binary's path (it must still have the identity the
 * view was built from). So neither mappings nor descriptors grow with the
 * number of binaries or of open files: files opened through a mapping keep
 * their pin (their reads take no lock), files read with pread pin for each
 * read.
 *
 * Cores are reserved in the memory budget (membudget.h) when built; idle
 * ones are given back to it, least recently unpinned first, when a
 * reservation does not fit.
 */
#ifndef ELFFS_BINCACHE_H
#define ELFFS_BINCACHE_H

#include "node/nodes.h"
#include "view/view.h"
#include "cache/members.h"
#include "cache/refused.h"

#include <sys/stat.h>

#define BINCACHE_MAX_HANDLES 4096 /* mappings count against vm.max_map_count */
#define BINCACHE_MAX_FDS     256  /* pread-backed handles (descriptors), at most */

/* Per-binary state, owned by its NK_BIN node: a new one, or NULL. */
struct binary *binary_new(void);

/* Free b, dropping its view (what users hold stays theirs). */
void binary_destroy(struct binary *b);

/*
 * The view of generation gen of binary root, whose source was expect
 * (lstat) at that generation: an alias of the core of that identity, which
 * is parsed on first use. On success *out holds a pinned reference
 * (bincache_release it); an ELF file whose header pfelf refuses gets a
 * view of its bytes only (v->refused). Errors: -EIO when pfelf refuses an
 * archive's header, -ESTALE when the file is no longer the one of expect,
 * -EFBIG when the view alone needs more than the memory budget (both
 * remembered for the generation), -ENOMEM when it does not fit beside the
 * views in use, or the errno of open/mmap/malloc.
 */
int bincache_acquire(struct node *root, uint64_t gen, const struct stat *expect,
                     struct bview **out);

/*
 * Why binary root's header was refused at generation gen, when
 * bincache_acquire answered -EIO for that reason: its text (no NUL) into buf (size bytes);
 * its length, -ENODATA (not refused, or refused for no reason pfelf could
 * name), -ERANGE. The user.elffs.refused attribute of its directory.
 */
int bincache_refused(struct node *root, uint64_t gen, char *buf, size_t size);

/* Drop a pinned reference (NULL is allowed). */
void bincache_release(struct bview *v);

/* Turn a pinned reference into a plain one (the handle may then be closed). */
void bincache_unpin(struct bview *v);

/* Drop a plain reference (NULL is allowed). */
void bincache_unref(struct bview *v);

/*
 * Take a pinned reference on a view the caller holds a plain reference on,
 * opening its handle again if it was closed. 0; -ENOENT when the binary
 * is gone (nothing, or no directory, on its path), -EIO when it cannot be
 * opened or changed since the view was built.
 */
int bincache_pin(struct bview *v);

/* Forget the binary's view if it is older than generation gen (users keep
 * theirs; the other links of the file keep the core). */
void bincache_invalidate(struct binary *b, uint64_t gen);

/* Close every idle handle that holds a descriptor (the process ran out). */
void bincache_shed_fds(void);

/* Give the memory budget the cache's idle cores to evict, and source
 * access the shedder of idle descriptors; once, at start. */
void bincache_init(void);

#endif /* ELFFS_BINCACHE_H */
