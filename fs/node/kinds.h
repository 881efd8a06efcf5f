/*
 * What the node table knows of each kind of inner node: the name of an
 * entry's node, whether it is a directory, and whether its nodes keep no
 * name (the files inside a binary's directories, found by key and what
 * they serve). The entries table says it once at start (entries_init);
 * each answer is then an index.
 */
#ifndef ELFFS_NODE_KINDS_H
#define ELFFS_NODE_KINDS_H

#include "node/node.h"

#include <stdbool.h>

/* Kind k is the node of entry name, a directory or not (the first call for
 * a kind counts). */
void node_kind_set(enum node_kind k, const char *name, bool dir);

/* Nodes of kind k keep no name (the files of a directory entry). */
void node_kind_set_unnamed(enum node_kind k);

/* The entry name of kind k, "" for kinds that are no entry. */
const char *node_kind_name(enum node_kind k);

/* Whether kind k is the node of a directory entry. */
bool node_kind_is_dir(enum node_kind k);

/* Whether nodes of kind k keep no name. */
bool node_kind_unnamed(enum node_kind k);

#endif /* ELFFS_NODE_KINDS_H */
