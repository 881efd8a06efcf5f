/*
 * Change detection. Every source node remembers the lstat it was built
 * from and when it was taken; once the timeout (-o timeout) has passed,
 * the next lookup, getattr, open or opendir that needs it looks at the
 * source again. A node whose source is gone or became another kind of
 * file goes stale (out of the name table; the kernel's dentry is
 * invalidated); a binary whose identity (dev, ino, size, mtime, ctime)
 * changed gets a new generation: the nodes of its old view go stale and a
 * fresh view is parsed on the next use.
 */
#ifndef ELFFS_CHECK_H
#define ELFFS_CHECK_H

#include "node/nodes.h"
#include "view/view.h"

#include <sys/stat.h>

/*
 * Whether n still shows its source, re-checking it (or the binary it
 * belongs to) when due. 0; -ENOENT when its source (or its binary's) is
 * gone or now another kind of file; -ESTALE when n is a node of an older
 * generation of its binary (the kernel then walks the path again and gets
 * the current node).
 */
int check_node(struct node *n);

/* How long the kernel may keep n's entry and attributes, and the interval
 * of its re-checks: -o watch_timeout for nodes of a source node whose
 * file handle the watch thread follows (watch/watch.h), else -o timeout. */
uint64_t check_timeout_ns(const struct node *n);
double check_timeout(const struct node *n);

/* How long the kernel may keep n's entry: check_timeout, but -o timeout
 * under allow_other, where a cached entry spares another caller the
 * daemon's per-caller check of the lookup (docs/security.md). */
double check_entry_timeout(const struct node *n);

/* Whether the kernel may keep n's listing (FOPEN_CACHE_DIR) until an event
 * drops it, on a private mount (under allow_other every caller's listing
 * is filtered for it): a watched SOURCE directory, or a directory inside a
 * watched binary's view (sections/, symbol/, members/, go/: the names of
 * its generation; a new generation has new inodes), or a watched binary's
 * own directory whose last listing was its view's alone (node.h: fixed;
 * else its debug entry may change with other files). Not the index's. */
bool check_cache_listing(const struct node *n);

/* check_cache_listing but for a binary's own directory's last listing
 * (whether a listing of it is worth asking debug_fixed). */
bool check_listing_watched(const struct node *n);

/* Whether the kernel may go on with the listing of n it cached
 * (FOPEN_KEEP_CACHE at an open): not when the last listing taken of n left
 * a file out because its device did not answer (probe.h): no event tells
 * when that device answers again, so each open lists it afresh until one
 * is whole. */
bool check_keep_listing(const struct node *n);

/* Make the next check of source node n look at the source. */
void check_force(struct node *n);

/*
 * The view of n's generation of the binary that n (a binary root or a node
 * inside one) shows, with a pinned reference. Errors: -ESTALE (n is of an
 * older generation), -ENOENT (the binary is gone), -EIO (pfelf refused the
 * header, or the file changed while it was opened), or the errno of
 * open/mmap/malloc.
 */
int check_view(struct node *n, struct bview **out);

/* As check_view, but the view of the binary n is part of: an archive's
 * for the nodes of its members (their extended attributes). */
int check_binary_view(struct node *n, struct bview **out);

/* The view a lookup or listing in directory dir reads: the current view
 * of its binary, or of the archive member dir is part of (-ENOENT when
 * dir is a member of an older generation, or a directory the view's kind
 * has not: symbol/ of an ELF file that is an archive now, members/ of an
 * archive that is an ELF file now). Errors as check_current_view. */
int check_dir_view(struct node *dir, struct bview **out);

/*
 * The view of the current generation of binary root, with a pinned
 * reference; a file that changes while it is opened is looked at again (a
 * few times). Errors as check_view but -ESTALE.
 */
int check_current_view(struct node *root, struct bview **out);

/*
 * user.elffs.refused of binary root: why its current generation's header
 * is refused (parsing it if need be), its text into buf (size bytes, no
 * NUL); its length, -ERANGE, -ENODATA when the view is made of an accepted
 * header, or the errno of check_current_view when it failed for another
 * reason.
 */
int check_refused(struct node *root, char *buf, size_t size);

/*
 * Opens and ESTALE. An open of a node of an older generation answers
 * -ESTALE: the kernel then walks the path again with LOOKUP_REVAL and
 * opens the node that lookup gives, once, in the same system call. If the
 * file changes again in between, that second open would meet an older
 * generation too, and a second -ESTALE would reach the caller. So the
 * daemon remembers which thread (the request's pid, a thread id) got
 * -ESTALE: check_open_retry(tid), called at the start of every open, says
 * (once) that this open is that thread's second try, and
 * check_refuse_open() then answers -EIO. ESTALE never reaches a caller; a
 * file that changes faster than an open gives EIO (docs/architecture.md).
 */
bool check_open_retry(int tid);

/* The answer to an open that met an older generation: -ESTALE, or -EIO
 * when retry (check_open_retry said this open is a second try). */
int check_refuse_open(int tid, bool retry);

/*
 * node_attach policy for a source node just looked up (cand has kind and
 * st): reuse old when it is of the same kind, taking the new attributes;
 * a binary whose identity changed moves to a new generation.
 */
bool check_reuse_source(struct node *old, struct node *cand);

/*
 * The same for a source node from a directory listing (readdirplus): cand's
 * st was taken at cand->src->checked_ns, perhaps before old's last check;
 * old is then kept as it is (what it has is newer), else it takes cand's
 * attributes as check_reuse_source, as of when they were taken.
 */
bool check_reuse_listed(struct node *old, struct node *cand);

/* node_attach policy for nodes inside a binary: same kind and generation. */
bool check_reuse_inner(struct node *old, struct node *cand);

#endif /* ELFFS_CHECK_H */
