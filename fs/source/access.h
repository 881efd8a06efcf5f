/*
 * Access of other users to a shared mount (-o allow_other, allow_root):
 * what SOURCE denies a user, the mount denies the same user.
 *
 * The kernel's default_permissions checks the mode bits of the mount's own
 * nodes only: POSIX ACLs of SOURCE and directories of SOURCE a user cannot
 * search are invisible to it. So each request of a user other than root
 * and the daemon's own user is checked against SOURCE itself, by the
 * kernel, with that user's credentials: the worker thread takes the
 * caller's fsuid, fsgid and supplementary groups (per-thread system
 * calls; the fs capabilities go with the fsuid), resolves the source
 * node's path from SOURCE as every path is resolved there (source.h: no
 * symlink followed, never into our own mount; the search permission of
 * every directory on the way is checked as it is walked), asks
 * faccessat2(AT_EACCESS) for the entry itself, and takes the daemon's
 * credentials back.
 */
#ifndef ELFFS_ACCESS_H
#define ELFFS_ACCESS_H

#include "node/nodes.h"

#include <stdbool.h>
#include <stddef.h>

/* Set up at start: whether the mount is shared (allow_other or
 * allow_root), and whether this process can take other users'
 * credentials (CAP_SETUID and CAP_SETGID); logs once when it cannot. */
void access_init(bool shared);

/*
 * Whether the caller of req may do op on node n, as SOURCE would let it:
 * 0, -EACCES, or -ENOENT when n's source is not on its path any more (a
 * binary's view is checked against the file it shows). op is one of:
 *   ACCESS_SEE   getattr, xattrs, readlink of n (search on its directories;
 *                a binary's inner nodes: read permission of the binary)
 *   ACCESS_INTO  lookup in directory n (search on it; inside a binary: read)
 *   ACCESS_LIST  opendir of n (read and search on it; inside a binary: read)
 *   ACCESS_OPEN  open of file n (read permission of its binary)
 *   ACCESS_EXEC  open of file n to execute it (read and execute permission
 *                of its binary)
 * The nodes of the build-id index answer 0; their links are checked by
 * access_target().
 */
enum access_op { ACCESS_SEE, ACCESS_INTO, ACCESS_LIST, ACCESS_OPEN, ACCESS_EXEC };
int access_check(fuse_req_t req, const struct node *n, enum access_op op);

/*
 * A listing of SOURCE directory dir for the caller of req leaves out the
 * binaries that caller cannot read, as a file the daemon cannot read is left
 * out, ELF or not (else a listing would tell which unreadable files are
 * ELF). access_filter_begin: 0 (f->on false: the caller is exempt, show
 * all) or -errno; access_filter_shows: whether entry name is shown;
 * access_filter_end frees what begin took.
 */
struct access_filter {
	bool on;
	int dirfd;
	void *caller;
};
int access_filter_begin(fuse_req_t req, const struct node *dir, struct access_filter *f);
bool access_filter_shows(struct access_filter *f, const char *name);
void access_filter_end(struct access_filter *f);

/* Whether the caller of req may read the binary at relative path rel of
 * SOURCE ("dir/name"): 0 or -EACCES (the target of a .build-id link). */
int access_target(fuse_req_t req, const char *rel);

#endif /* ELFFS_ACCESS_H */
