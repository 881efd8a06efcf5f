/* Lookup of the metadata views: info, symbols, symbol/, build-id, decompressed/. */
#include "lookup.h"
#include "meta.h"
#include "symview.h"
#include "textview.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

bool meta_is_bin_child(const char *name)
{
	return strcmp(name, "symbols") == 0 || strcmp(name, "symbol") == 0 ||
	       strcmp(name, "build-id") == 0 || strcmp(name, "decompressed") == 0;
}

static struct node *fail(int err)
{
	errno = -err;
	return NULL;
}

/* info, symbols: generated texts whose size is known once they are indexed. */
static struct node *text_child(struct node *bin, struct bview *v, const char *name,
                               enum node_kind kind, enum text_kind text)
{
	uint64_t size;
	int ret = textview_size(v, text, &size);
	if (ret < 0)
		return fail(ret);
	errno = ENOMEM;
	return inner_node(bin, v, kind, name, size, 0);
}

struct node *meta_bin_child(struct node *bin, struct bview *v, const char *name)
{
	errno = ENOMEM;
	if (strcmp(name, "info") == 0)
		return text_child(bin, v, name, NK_INFO, TEXT_INFO);
	if (strcmp(name, "symbols") == 0)
		return text_child(bin, v, name, NK_SYMBOLS, TEXT_SYMBOLS);
	if (strcmp(name, "symbol") == 0)
		return inner_node(bin, v, NK_SYMDIR, name, 0, 0);
	if (strcmp(name, "build-id") == 0) /* its text is the view's, copied at open */
		return v->buildid ? inner_node(bin, v, NK_BUILDID, name, v->buildid_len, 0)
		                  : fail(-ENOENT);
	return v->ncomp ? inner_node(bin, v, NK_DECDIR, name, v->ncomp, 0) : fail(-ENOENT);
}

static struct node *symbol_child(struct node *dir, struct bview *v, const char *name)
{
	uint64_t off, len;
	int ret = symview_lookup(v, name, &off, &len);
	if (ret < 0)
		return fail(ret);
	errno = ENOMEM;
	return inner_node(dir, v, NK_SYMBOL, name, len, off);
}

static struct node *decomp_child(struct node *dir, struct bview *v, const char *name)
{
	int i = meta_find_compressed(v, name);
	pfelf_chdr ch;
	if (i < 0 || !meta_compressed(v, (uint32_t)i, &ch))
		return fail(i < 0 ? i : -ENOENT);
	errno = ENOMEM;
	return inner_node(dir, v, NK_DECOMP, name, ch.size, (uint64_t)i);
}

struct node *meta_child(struct node *dir, struct bview *v, const char *name)
{
	if (dir->kind == NK_SYMDIR)
		return symbol_child(dir, v, name);
	if (dir->kind == NK_DECDIR)
		return decomp_child(dir, v, name);
	return fail(-ENOENT);
}
