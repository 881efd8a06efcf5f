/*
 * MOUNT/.build-id/<xx>/<rest>.debug of a binary that has no separate debug
 * file in SOURCE nor from the servers: the rest of the order of
 * buildid/debugsel.h (its debug link's file, its minidebuginfo.debug,
 * its go/debug), the same one function as its `debug` link:
 *
 *     <rest>.debug -> ../../<path of the debug link's file>/elf
 *     <rest>.debug -> ../../<path of the binary>/minidebuginfo.debug
 *
 * The binary is the index's winner of that id (bidx_lookup); it is read
 * (its build id, debug link, .gnu_debugdata) at the lookup, by its path.
 * Looked up by name only: <xx>/ lists the files SOURCE has. A link node
 * is an NK_BIDLINK whose aux has BIDDBG_LINK set, the binary's index slot
 * below and 30 bits of its target's hash above; its gen the binary's
 * serial.
 */
#ifndef ELFFS_BUILDID_DEBUG_H
#define ELFFS_BUILDID_DEBUG_H

#include "node/nodes.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define BIDDBG_LINK (1ULL << 33)

/* The link <rest>.debug in dir (an <xx>/) for id[0..len), once the index
 * and the servers have no debug file of it: 0 and *out, -ENOENT. */
int biddbg_lookup(struct node *dir, const char *name, const uint8_t *id, unsigned len,
                  struct node **out);

/* Whether n is such a link. */
bool biddbg_is_link(const struct node *n);

/* Its target again (-ENOENT when it leads elsewhere now), and in src
 * (PATH_MAX bytes) the path in SOURCE of the file whose access a reader
 * of it needs. Its length or -errno. */
ssize_t biddbg_readlink(const struct node *n, char *buf, size_t size, char *src);

#endif /* ELFFS_BUILDID_DEBUG_H */
