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

#include "nodes.h"
#include "view.h"

#include <sys/stat.h>

/*
 * Whether n still shows its source, re-checking it (or the binary it
 * belongs to) when due. 0; -ESTALE when n shows something that is gone or
 * older (the kernel then looks the path up again).
 */
int check_node(struct node *n);

/* Make the next check of source node n look at the source. */
void check_force(struct node *n);

/*
 * The view of the binary that n (a binary root or a node inside one)
 * shows, with a reference. Errors: -ESTALE (n is of an older generation),
 * -ENOENT (file-mode SOURCE gone), -EIO (pfelf refused the header), or
 * those of bincache_acquire.
 */
int check_view(struct node *n, struct bview **out);

/*
 * node_attach policy for a source node just looked up (cand has kind and
 * st): reuse old when it is of the same kind, taking the new attributes;
 * a binary whose identity changed moves to a new generation.
 */
bool check_reuse_source(struct node *old, struct node *cand);

/* node_attach policy for nodes inside a binary: same kind and generation. */
bool check_reuse_inner(struct node *old, struct node *cand);

#endif /* ELFFS_CHECK_H */
