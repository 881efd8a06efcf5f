/* Opening the files of the metadata views whose bytes are not the source's. */
#ifndef ELFFS_OPENMETA_H
#define ELFFS_OPENMETA_H

#include "dcache.h"
#include "nodes.h"
#include "view.h"

#include <stdbool.h>

/* Whether files of kind are opened through openmeta (symbols, decompressed/). */
static inline bool openmeta_kind(enum node_kind kind)
{
	return kind == NK_SYMBOLS || kind == NK_DECOMP;
}

/*
 * The bytes file node n serves, from its view v (referenced by the caller
 * for as long as *mem is used): the symbols text, or a decompressed section
 * held by *hold (dcache_release it). 0; -EIO when the symbols text is not
 * the size the node showed; the errors of symview_text and dcache_acquire.
 */
int openmeta(struct node *n, struct bview *v, const char **mem, struct dentry_data **hold);

#endif /* ELFFS_OPENMETA_H */
