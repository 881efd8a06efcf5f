/*
 * Access to SOURCE: every path is relative to the SOURCE descriptor, is
 * resolved without following any symlink (openat2 RESOLVE_NO_SYMLINKS |
 * RESOLVE_BENEATH where the kernel has it) and every last component is
 * opened with O_NOFOLLOW, so the daemon never follows a link of the tree.
 */
#ifndef ELFFS_SOURCE_H
#define ELFFS_SOURCE_H

#include "nodes.h"

#include <pfelf.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Where a source node lives: a directory descriptor and a name in it. */
struct srcloc {
	int dirfd;
	bool owned; /* dirfd is to be closed */
	const char *name;
};

/* The location of source node n (not the directory-mode root). */
int src_locate(const struct node *n, struct srcloc *loc);

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
 * Whether entry name of source directory dir is the mount point itself
 * (when it lies inside SOURCE): it is left out, so that the daemon never
 * looks into its own mount.
 */
bool src_is_mountpoint(const struct node *dir, const char *name);

/*
 * The size now of the file of binary node n, when the path still leads to
 * the file (dev, ino) of id: true and *size; false otherwise (replaced or
 * gone: that file can no longer change through SOURCE).
 */
bool src_current_size(const struct node *n, const pfelf_identity *id, uint64_t *size);

/* The identity of a stat result (what the shared-mapping registry keys on). */
void src_identity(const struct stat *st, pfelf_identity *id);

/* Whether two stat results describe the same file content (identity equal). */
bool src_same_identity(const struct stat *a, const struct stat *b);

#endif /* ELFFS_SOURCE_H */
