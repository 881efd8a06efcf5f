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

/* A file whose text is a copy of len bytes at text (build-id). */
static struct node *copy_child(struct node *bin, struct bview *v, const char *name,
                               const char *text, size_t len)
{
	struct nfile *f = new_file(v, 0, len);
	if (f && !(f->text = malloc(len ? len : 1))) {
		free(f);
		f = NULL;
	}
	if (!f)
		return fail(-ENOMEM);
	memcpy(f->text, text, len);
	errno = ENOMEM;
	return inner_node(bin, v, NK_BUILDID, name, f, len);
}

/* info, symbols: generated texts whose size is known once they are indexed. */
static struct node *text_child(struct node *bin, struct bview *v, const char *name,
                               enum node_kind kind, enum text_kind text)
{
	uint64_t size;
	int ret = textview_size(v, text, &size);
	if (ret < 0)
		return fail(ret);
	struct nfile *f = new_file(v, 0, size);
	if (!f)
		return fail(-ENOMEM);
	errno = ENOMEM;
	return inner_node(bin, v, kind, name, f, size);
}

struct node *meta_bin_child(struct node *bin, struct bview *v, const char *name)
{
	errno = ENOMEM;
	if (strcmp(name, "info") == 0)
		return text_child(bin, v, name, NK_INFO, TEXT_INFO);
	if (strcmp(name, "symbols") == 0)
		return text_child(bin, v, name, NK_SYMBOLS, TEXT_SYMBOLS);
	if (strcmp(name, "symbol") == 0)
		return inner_node(bin, v, NK_SYMDIR, name, NULL, 0);
	if (strcmp(name, "build-id") == 0)
		return v->buildid ? copy_child(bin, v, name, v->buildid, v->buildid_len)
		                  : fail(-ENOENT);
	return v->ncomp ? inner_node(bin, v, NK_DECDIR, name, NULL, v->ncomp) : fail(-ENOENT);
}

void meta_set_chdr(const struct bview *v, uint32_t index, struct nfile *f)
{
	pfelf_chdr ch;
	if (!meta_compressed(v, index, &ch))
		return;
	f->compressed = true;
	f->ch_type = ch.type;
	f->ch_size = ch.size;
	f->index = index;
}

static struct node *symbol_child(struct node *dir, struct bview *v, const char *name)
{
	uint64_t off, len;
	int ret = symview_lookup(v, name, &off, &len);
	if (ret < 0)
		return fail(ret);
	struct nfile *f = new_file(v, off, len);
	errno = ENOMEM;
	return f ? inner_node(dir, v, NK_SYMBOL, name, f, len) : NULL;
}

static struct node *decomp_child(struct node *dir, struct bview *v, const char *name)
{
	int i = meta_find_compressed(v, name);
	if (i < 0)
		return fail(i);
	struct nfile *f = new_file(v, 0, 0);
	if (!f)
		return fail(-ENOMEM);
	meta_set_chdr(v, (uint32_t)i, f);
	f->len = f->ch_size;
	errno = ENOMEM;
	return inner_node(dir, v, NK_DECOMP, name, f, f->ch_size);
}

struct node *meta_child(struct node *dir, struct bview *v, const char *name)
{
	if (dir->kind == NK_SYMDIR)
		return symbol_child(dir, v, name);
	if (dir->kind == NK_DECDIR)
		return decomp_child(dir, v, name);
	return fail(-ENOENT);
}
