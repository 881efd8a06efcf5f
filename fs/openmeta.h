/* Opening the files of the metadata views whose bytes are not the source's. */
#ifndef ELFFS_OPENMETA_H
#define ELFFS_OPENMETA_H

#include "dcache.h"
#include "nodes.h"
#include "view.h"

#include <stdbool.h>

/* Whether files of kind are opened through openmeta (info, symbols, decompressed/). */
static inline bool openmeta_kind(enum node_kind kind)
{
	return kind == NK_INFO || kind == NK_SYMBOLS || kind == NK_DECOMP;
}

/* Whether files of kind are generated texts, read through openmeta_read (info, symbols). */
static inline bool openmeta_generated(enum node_kind kind)
{
	return kind == NK_INFO || kind == NK_SYMBOLS;
}

/*
 * The bytes file node n serves, from its view v (referenced by the caller
 * for as long as the file is open): for a generated text nothing (*mem
 * stays NULL; reads go through openmeta_read), for a decompressed section
 * its bytes, held by *hold (dcache_release it). 0; -EIO when the text is
 * not the size the node showed; the errors of textview_size and
 * dcache_acquire.
 */
int openmeta(struct node *n, struct bview *v, const char **mem, struct dentry_data **hold);

/*
 * Write the len bytes at off of generated file kind of view v (pinned by
 * the caller for the call) into buf; off + len within the size the node
 * showed. 0, -EIO, -ENOMEM.
 */
int openmeta_read(enum node_kind kind, struct bview *v, uint64_t off, char *buf, size_t len);

#endif /* ELFFS_OPENMETA_H */
