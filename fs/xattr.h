/*
 * The read-only extended attributes of section and segment files: their
 * header fields as text under user.elf.* (SPEC section 3). Other nodes
 * have none.
 */
#ifndef ELFFS_XATTR_H
#define ELFFS_XATTR_H

#include "nodes.h"

#include <stddef.h>

#define XATTR_VALUE_MAX 128

/*
 * The NUL-separated list of attribute names of a node of kind kind, file f
 * (user.elf.ch_type and user.elf.ch_size only for compressed sections), into
 * buf (when size allows); returns the length of the whole list.
 */
size_t xattr_list(enum node_kind kind, const struct nfile *f, char *buf, size_t size);

/*
 * The value of attribute name for file f of kind kind into buf (at least
 * XATTR_VALUE_MAX bytes; no NUL counted); its length, or -ENODATA.
 */
int xattr_value(enum node_kind kind, const struct nfile *f, const char *name, char *buf);

#endif /* ELFFS_XATTR_H */
