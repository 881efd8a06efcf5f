/*
 * The .build-id directory at the root of a directory mount:
 *
 *     MOUNT/.build-id/<xx>/<rest>         -> ../../<path>/<binary>/elf
 *     MOUNT/.build-id/<xx>/<rest>.debug   -> ../../<path>/<debug file>/elf
 *
 * the layout of /usr/lib/debug/.build-id, answered from the build-id index
 * (buildid_index.h). Its name is -o buildid=NAME (".build-id" by default;
 * -o buildid=off leaves it out); an entry of that name in SOURCE's root
 * hides it, whatever its kind (also one the view leaves out). Its nodes
 * (NK_BIDROOT, NK_BIDDIR, NK_BIDLINK) keep no name: a directory <xx> keeps
 * its byte, a link the index slot and serial of the file it leads to. The index directory's
 * extended attributes user.elffs.* tell the state of the index.
 */
#ifndef ELFFS_BUILDID_FS_H
#define ELFFS_BUILDID_FS_H

#include "tree/bidfs_kind.h"
#include "tree/dirsnap.h"
#include "node/nodes.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/types.h>

/* Whether name, looked up in the mount's root, is the index directory:
 * SOURCE's root has no entry of that name, of any kind (call after the
 * lookup in SOURCE failed: this looks at SOURCE's root again). */
bool bidfs_is_name(const struct node *dir, const char *name);

/* The index directory in the root (the kernel's reference); 0 or -errno. */
int bidfs_lookup_root(struct node *root, struct node **out);

/* A lookup in the index directory or one of its <xx>/. */
int bidfs_lookup(struct node *dir, const char *name, struct node **out);

/* Listing of the index directory or an <xx>/ into snapshot s. */
int bidfs_list(struct node *dir, struct dsnap *s);

/* Add the index directory to snapshot s of the mount's root (unless
 * SOURCE's root has an entry of that name, listed or not). */
int bidfs_list_root(struct dsnap *s);

/* The target of link n; its length or -errno. src (PATH_MAX bytes): set
 * for a link that leads to a binary's own debug file (buildid_debug.h) to
 * the path in SOURCE whose access its reader needs. */
ssize_t bidfs_readlink(struct node *n, char *buf, size_t size, char *src);

/* user.elffs.* of the index directory: the value of name into buf
 * (XATTR_VALUE_MAX bytes, xattrtab.h), its length or -ENODATA. */
int bidfs_getxattr(const struct node *n, const char *name, char *buf);

/* Their names, NUL-separated, into buf when size allows; the length. */
size_t bidfs_listxattr(int kind, char *buf, size_t size);

#endif /* ELFFS_BUILDID_FS_H */
