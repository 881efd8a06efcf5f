/*
 * The remote part of the .build-id directory under -o debuginfod
 * (debuginfod.h, docs/elffs.1 "Across machines"):
 *
 *     MOUNT/.build-id/<xx>/<rest>[.debug]  -> ../.remote/<xx><rest>[.debug]/elf
 *     MOUNT/.build-id/.remote/<id>[.debug]/   the view of the fetched file
 *
 * for an id SOURCE does not have (the local index always wins). A link is
 * made only once the fetched file is verified; .remote is looked up by
 * name and lists nothing, <xx>/ lists local ids only. A view is a binary
 * node (NK_BIN) whose file is the verified one in libdebuginfod's cache:
 * the same parse, binary cache and reads as a binary of SOURCE.
 */
#ifndef ELFFS_BUILDID_REMOTE_H
#define ELFFS_BUILDID_REMOTE_H

#include "buildid/debugsel.h"
#include "node/nodes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BIDREM_NAME    DSEL_REMOTE_DIR /* ".remote": where a binary's debug link leads too */
#define BIDREM_DIR_AUX 0x100u          /* aux of the .remote directory (NK_BIDDIR) */
#define BIDREM_LINK    (1ULL << 32)    /* in a link's aux: a remote entry's number below */

/* Whether dir/name is answered here (.remote, or a name inside it). */
bool bidrem_handles(const struct node *dir, const char *name);

/* Lookup of .remote in the index directory, or of a view inside it. */
int bidrem_lookup(struct node *dir, const char *name, struct node **out);

/* Lookup of <rest>[.debug] (id[0..len)) in <xx>/ that the local index
 * does not have: asks the servers. */
int bidrem_lookup_link(struct node *dir, const char *name, const uint8_t *id, unsigned len,
                       bool debug, struct node **out);

/* The link name in dir to verified entry e (dbgd_fetch's answer). */
int bidrem_link_node(struct node *dir, const char *name, uint32_t e, struct node **out);

/* Whether n is a link to a remote view, and its target. */
bool bidrem_is_link(const struct node *n);
ssize_t bidrem_readlink(const struct node *n, char *buf, size_t size);

/* Whether dir is .remote (its listing is empty). */
bool bidrem_is_dir(const struct node *dir);

/* The stall queue's device for a lookup of name in parent: DBGD_STALL_DEV
 * when it may ask a server, else 0 (the caller's own rule applies). */
uint64_t bidrem_lookup_dev(fuse_ino_t parent, const char *name);

/* user.elffs.debuginfod.* of the index directory: the value of name into
 * buf (XATTR_VALUE_MAX bytes), its length or -ENODATA; their names put
 * after the len bytes of a list in buf (xattr_table_list), its length. */
int bidrem_getxattr(const char *name, char *buf);
size_t bidrem_listxattr(char *buf, size_t size, size_t len);

#endif /* ELFFS_BUILDID_REMOTE_H */
