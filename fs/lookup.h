/* Making the nodes of a binary's view at lookup (ops_lookup.c, lookup_meta.c). */
#ifndef ELFFS_LOOKUP_H
#define ELFFS_LOOKUP_H

#include "nodes.h"
#include "view.h"

/*
 * A node of view v inside parent, of kind kind, serving file (owned by the
 * node, freed on failure) with st_size size; the kernel's reference. NULL
 * with errno ENOMEM.
 */
struct node *inner_node(struct node *parent, const struct bview *v, enum node_kind kind,
                        const char *name, struct nfile *file, uint64_t size);

/* A file of v serving len bytes at off of the source; NULL on ENOMEM. */
struct nfile *new_file(const struct bview *v, uint64_t off, uint64_t len);

/* Whether name is one of the entries lookup_meta.c makes in a binary's directory. */
bool meta_is_bin_child(const char *name);

/* info, symbols, symbol, build-id or decompressed of bin; NULL with errno set. */
struct node *meta_bin_child(struct node *bin, struct bview *v, const char *name);

/* An entry of symbol/ or decompressed/; NULL with errno set. */
struct node *meta_child(struct node *dir, struct bview *v, const char *name);

/* Copy the compression header of section index into f when it has one. */
void meta_set_chdr(const struct bview *v, uint32_t index, struct nfile *f);

#endif /* ELFFS_LOOKUP_H */
