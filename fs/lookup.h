/* Making the nodes of a binary's view at lookup (ops_lookup.c, lookup_meta.c). */
#ifndef ELFFS_LOOKUP_H
#define ELFFS_LOOKUP_H

#include "nodes.h"
#include "view.h"

/*
 * A new inner node of view v, of kind kind, named name, with st_size size
 * and aux (nodes.h), not attached yet; NULL (errno ENOMEM) on failure.
 */
struct node *inner_new(const struct bview *v, enum node_kind kind, const char *name, uint64_t size,
                       uint64_t aux);

/* The same, attached inside parent (or the equal node there), with the
 * kernel's reference. NULL with errno ENOMEM. */
struct node *inner_node(struct node *parent, const struct bview *v, enum node_kind kind,
                        const char *name, uint64_t size, uint64_t aux);

/* Whether name is one of the entries lookup_meta.c makes in a binary's directory. */
bool meta_is_bin_child(const char *name);

/* info, symbols, symbol, build-id or decompressed of bin; NULL with errno set. */
struct node *meta_bin_child(struct node *bin, struct bview *v, const char *name);

/* An entry of symbol/ or decompressed/; NULL with errno set. */
struct node *meta_child(struct node *dir, struct bview *v, const char *name);

#endif /* ELFFS_LOOKUP_H */
