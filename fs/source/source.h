/*
 * Access to SOURCE: every path is relative to the SOURCE descriptor, is
 * resolved without following any symlink (openat2 RESOLVE_NO_SYMLINKS |
 * RESOLVE_BENEATH where the kernel has it) and every last component is
 * opened with O_NOFOLLOW, so the daemon never follows a link of the tree.
 * No call ever resolves a name into the daemon's own mount (known by its
 * device): such an entry answers -ELOOP, and is left out of the view.
 * Paths deeper than PATH_MAX are opened one directory at a time.
 */
#ifndef ELFFS_SOURCE_H
#define ELFFS_SOURCE_H

#include "node/nodes.h"

#include <pfelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Where a source node lives: a directory descriptor and a name in it. */
struct srcloc {
	int dirfd;
	bool owned; /* dirfd is to be closed */
	const char *name;
};

/*
 * The location of source node n (not the directory-mode root); -ELOOP when
 * the entry is our own mount (a bind mount of it), so that the caller may
 * fstatat it: only a mount made after this call could still be entered.
 */
int src_locate(const struct node *n, struct srcloc *loc);

/* How a source node whose parent is not a directory of SOURCE (a file
 * kept elsewhere: a remote view, debuginfod.h) is located; set once,
 * before the session runs. Without one such nodes are -ENOENT. */
typedef int (*src_foreign_locate_fn)(const struct node *n, struct srcloc *loc);
void src_set_foreign_locate(src_foreign_locate_fn fn);

/* Whether source node n is such a node: no path of SOURCE leads to it. */
bool src_is_foreign(const struct node *n);

/* Close what src_locate opened. */
void src_release(struct srcloc *loc);

/* Open source directory node dir (O_RDONLY or O_PATH in flags); an fd or -errno. */
int src_open_dir(const struct node *dir, int flags);

/* lstat of source node n; 0 or -errno. */
int src_lstat(const struct node *n, struct stat *st);

/* Open source file node n read-only, never following or blocking; fd or -errno. */
int src_open_file(const struct node *n);

/* The target of source symlink n into buf (NUL-ended); its length or -errno. */
ssize_t src_readlink(const struct node *n, char *buf, size_t size);

/*
 * Learn the device of our own mount from the session's /dev/fuse
 * descriptor (its fdinfo; on older kernels, from /proc/self/mountinfo).
 * Called at INIT: the kernel sends no other request before INIT is
 * answered, so it is known before any lookup.
 */
void src_learn_own_mount(int fusefd);

/* Whether dev is the device of our own mount. */
bool src_is_own_dev(dev_t dev);

/* -ELOOP when entry name of directory dirfd is our own mount, -errno when
 * it cannot be looked at, else 0 (nothing of the entry is opened). */
int src_check_entry(int dirfd, const char *name);

/* lstat of entry name of directory dirfd (a directory of SOURCE); -ELOOP
 * for our own mount. */
int src_statat(int dirfd, const char *name, struct stat *st);

/*
 * The same in one statx for a listing (probe_entry): AT_STATX_DONT_SYNC
 * never makes a FUSE file system (ours included) answer anything and takes
 * what the kernel has (a plain lstat on a local file system; the cached
 * attributes of a network one: lookups and re-checks take src_statat's).
 * A mount point (STATX_ATTR_MOUNT_ROOT), or a kernel that cannot tell, goes
 * src_statat's way.
 */
int src_statat_listed(int dirfd, const char *name, struct stat *st);

/* Open entry name of directory dirfd with flags (O_NOFOLLOW and O_CLOEXEC
 * added); -ELOOP for our own mount. A descriptor or -errno. */
int src_openat(int dirfd, const char *name, int flags);

/*
 * A file by its identity, not by its path: a file handle (name_to_handle_at)
 * taken while the file is open, reopened (open_by_handle_at, O_PATH) to see
 * the file's size now. The same file whatever was renamed, moved or
 * unlinked since, and no descriptor kept for it.
 */
struct src_handle;

/*
 * The handle of open file fd (lstat st) of binary node root. 0 and *out;
 * -EPERM when open_by_handle_at is not allowed (it needs
 * CAP_DAC_READ_SEARCH: a daemon not run by root), -EOPNOTSUPP when the file
 * system has no handles, or another -errno.
 */
int src_handle_of(int fd, const struct stat *st, const struct node *root, struct src_handle **out);

void src_handle_free(struct src_handle *h);

/*
 * The stat now of the file of identity id (dev, ino): through handle h, or
 * without one through the path of binary node n. 0 and *st, or -errno
 * (-ESTALE: the path leads to another file now).
 */
int src_stat_now(const struct src_handle *h, const struct node *n, const pfelf_identity *id,
                 struct stat *st);

/* The same as an identity (size, times) in *now. */
int src_identity_now(const struct src_handle *h, const struct node *n, const pfelf_identity *id,
                     pfelf_identity *now);

/* The same through a descriptor fd of that file (fstat). */
int src_fd_stat(int fd, const pfelf_identity *id, struct stat *st);

/* Whether the file of identity now was written since it had identity id:
 * another modification time (a rewrite in place, an append, a truncation)
 * or another change time (the same with the mtime put back by utimensat,
 * which no user can do to the ctime; also a chmod, chown, link or unlink
 * of the file). For a parse, which must see one file all along. */
bool src_written_since(const pfelf_identity *id, const pfelf_identity *now);

/* What stat shows of a file besides its bytes (size, mtime) that moves its
 * change time when it changes (its mode, owner and link count), with that
 * change time. */
struct src_attr {
	int64_t ctime_sec;
	uint32_t ctime_nsec;
	uint32_t mode;
	uint32_t uid;
	uint32_t gid;
	uint64_t nlink;
};

/* The attributes of a stat result. */
void src_attr_of(const struct stat *st, struct src_attr *a);

/* What became of a file since it had identity id and attributes attr. */
enum src_change {
	SRC_SAME,    /* the bytes and the change time it had */
	SRC_ATTR,    /* another change time and an attribute that shows (mode,
	                owner, link count: a chmod, chown, link, unlink or a
	                rename over it), its size and mtime as they were */
	SRC_CTIME,   /* another change time only: rewritten in place with its
	                times put back, or an attribute set to what it was, or
	                renamed (stat cannot tell them apart) */
	SRC_WRITTEN, /* another size or mtime: rewritten, appended to, truncated */
};

/* What became of the file of identity id (its bytes: size and mtime) since
 * it had attributes attr (their change time included), whose stat is st
 * now (the same dev and ino). */
enum src_change src_change_since(const pfelf_identity *id, const struct src_attr *attr,
                                 const struct stat *st);

/*
 * Whether the path of source node n names the file of identity id: 1; 0
 * when it names another file or none (a lookup on it gives ENOENT,
 * ENOTDIR, or ELOOP for a symlink or our own mount on the way); -errno
 * when it cannot be told. Never 0 for a node located elsewhere
 * (src_is_foreign: a remote view's file in the debuginfod cache, whose
 * locator answers ENOENT for a file it refused as for one gone): -EIO.
 */
int src_path_names(const struct node *n, const pfelf_identity *id);

/*
 * Whether a call that failed with err should be tried again: for EMFILE and
 * ENFILE, a few times, after the descriptor shedder gave back the idle
 * descriptors (and, from the second time on, a short wait for those of
 * other workers). Every opening function here does it already.
 */
bool src_fd_retry(int err, unsigned *tries);

/* What gives back idle descriptors when the process runs out of them (the
 * binary cache's idle handles), given at start; none before. */
void src_set_fd_shedder(void (*shed)(void));

/* The identity of a stat result (pfelf_identity_of: what the shared-mapping
 * registry keys on). */
void src_identity(const struct stat *st, pfelf_identity *id);

/* Whether two stat results describe the same file content (their
 * identities are pfelf_identity_equal). */
bool src_same_identity(const struct stat *a, const struct stat *b);

#endif /* ELFFS_SOURCE_H */
