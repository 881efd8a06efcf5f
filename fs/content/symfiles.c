/*
 * The files of symbol/: one per defined symbol of size > 0 whose bytes are
 * in the file, named like sections (docs/architecture.md, "Symbol
 * views"): symtab symbols by index, then dynsym symbols (non-local with a
 * non-hidden version, non-local hidden, local; each by index); the first of
 * a name keeps it, later ones get "~<index in their table>"; odd names
 * get '/' -> '_' and "~<index>"; a made name that is taken gets "~<index>"
 * again. A dynsym symbol with the name, offset and size of the symtab
 * symbol that kept that name is the same symbol and is left out.
 */
#include "content/symview.h"
#include "base/membudget.h"
#include "view/view.h"
#include "text/naming.h"
#include "nameset.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

/* The file range of a section-relative symbol of an ET_REL file. */
static bool rel_range(pfelf_file *f, const pfelf_sym *s, uint64_t *off)
{
	const pfelf_shdr *sh;
	if (pfelf_section(f, s->shndx, &sh) < 0 || sh->type == SHT_NOBITS ||
	    (sh->status & PFELF_ST_OUT_OF_FILE) || (sh->flags & SHF_COMPRESSED))
		return false;
	if (s->value > sh->size || s->size > sh->size - s->value)
		return false;
	*off = sh->offset + s->value;
	return true;
}

/* Whether s gets a file, and its range. */
static bool sym_range(const struct vcore *v, const pfelf_sym *s, uint64_t *off)
{
	bool xindex = s->raw_shndx == SHN_XINDEX && !(s->status & PFELF_SYM_BAD_SHNDX);
	if (s->size == 0 || s->shndx == 0 || (s->shndx >= 0xff00 && !xindex) ||
	    s->type == STT_SECTION || s->type == STT_FILE || s->type == STT_TLS ||
	    (s->status & PFELF_SYM_BAD_NAME))
		return false;
	if (v->eh.type == ET_REL)
		return rel_range(v->f, s, off);
	if (v->eh.type != ET_EXEC && v->eh.type != ET_DYN)
		return false;
	uint64_t addr = s->value;
	if (v->eh.machine == EM_ARM && s->type == STT_FUNC)
		addr &= ~(uint64_t)1; /* Thumb bit */
	if (pfelf_vaddr_to_offset(v->f, addr, s->size, off) < 0)
		return false;
	return *off <= v->fsize && s->size <= v->fsize - *off;
}

/* Order class of a dynsym symbol among those of one name. */
static int dyn_class(const pfelf_sym *s)
{
	if (s->bind == STB_LOCAL)
		return 2;
	return s->ver_kind == PFELF_VER_HIDDEN ? 1 : 0;
}

/* A symbol that gets a file, while names are made (its name in the
 * parallel naming item). */
struct cand {
	uint64_t off, len;
	bool dyn;
};

struct builder {
	struct cand *c;
	struct naming_item *it;
	uint32_t n, cap;
};

static int add_cand(struct builder *b, const pfelf_sym *s, uint64_t off, bool dyn)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		struct cand *c = realloc(b->c, (size_t)cap * sizeof(*c));
		if (c)
			b->c = c;
		struct naming_item *it = realloc(b->it, (size_t)cap * sizeof(*it));
		if (it)
			b->it = it;
		if (!c || !it)
			return -ENOMEM;
		b->cap = cap;
	}
	char *name = strndup(s->name, NAMING_MAX + 1); /* longer names are cut anyway */
	if (!name)
		return -ENOMEM;
	b->c[b->n] = (struct cand){off, s->size, dyn};
	b->it[b->n++] = (struct naming_item){.name = name, .index = s->index};
	return 0;
}

static int collect(struct vcore *v, struct builder *b, enum pfelf_symtab_kind t, int cls)
{
	int n = pfelf_symbol_count(v->f, t);
	for (int i = 0; i < n; i++) {
		pfelf_sym s;
		uint64_t off;
		if (pfelf_symbol(v->f, t, (uint32_t)i, &s) < 0 || !sym_range(v, &s, &off))
			continue;
		if (t == PFELF_DYNSYM && dyn_class(&s) != cls)
			continue;
		if (add_cand(b, &s, off, t == PFELF_DYNSYM) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* A dynsym symbol with the name, offset and size of the symtab symbol
 * that kept that name is that symbol: left out. */
static bool same_symbol(void *ctx, uint32_t keeper, uint32_t dup)
{
	const struct builder *b = ctx;
	const struct cand *h = &b->c[keeper], *c = &b->c[dup];
	return c->dyn && !h->dyn && h->off == c->off && h->len == c->len;
}

/* The name of file id - 1: the key of the index of symbol/. */
static const char *file_key(const void *ctx, uint32_t id)
{
	const struct symview *sv = ctx;
	return sv->files[id - 1].name;
}

/* Move the kept candidates into v->sym->files and index them. */
static int publish(struct vcore *v, struct builder *b)
{
	struct symview *sv = v->sym;
	sv->files = calloc(b->n ? b->n : 1, sizeof(*sv->files));
	if (!sv->files || nameset_init(&sv->index, b->n) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < b->n; i++) {
		if (b->it[i].dropped)
			continue;
		sv->files[sv->nfiles] = (struct symfile){b->it[i].name, b->c[i].off, b->c[i].len};
		b->it[i].name = NULL;
		sv->nfiles++;
		nameset_add(&sv->index, sv->nfiles, file_key, sv);
	}
	return 0;
}

/* What the names of b and their index keep once published. */
static uint64_t files_cost(const struct builder *b)
{
	uint64_t bytes = membudget_chunk((b->n ? b->n : 1) * (uint64_t)sizeof(struct symfile)) +
	                 membudget_chunk(nameset_bytes(b->n));
	for (uint32_t i = 0; i < b->n; i++)
		if (!b->it[i].dropped && b->it[i].name)
			bytes += membudget_chunk(strlen(b->it[i].name) + 12);
	return bytes;
}

/* Build v->sym->files; *cost: what they keep. */
static int build_files(struct vcore *v, uint64_t *cost)
{
	struct builder b = {0};
	int ret = collect(v, &b, PFELF_SYMTAB, 0);
	for (int cls = 0; cls < 3 && ret == 0; cls++)
		ret = collect(v, &b, PFELF_DYNSYM, cls);
	if (ret == 0)
		ret = naming_resolve(b.it, b.n, same_symbol, &b);
	if (ret == 0) {
		*cost = files_cost(&b);
		ret = publish(v, &b);
	}
	for (uint32_t i = 0; i < b.n; i++)
		free(b.it[i].name);
	free(b.it);
	free(b.c);
	return ret;
}

/* Symbols of table t of v that get a file. */
static uint64_t count_files(struct vcore *v, enum pfelf_symtab_kind t)
{
	int n = pfelf_symbol_count(v->f, t);
	uint64_t files = 0;
	for (int i = 0; i < n; i++) {
		pfelf_sym s;
		uint64_t off;
		if (pfelf_symbol(v->f, t, (uint32_t)i, &s) == 0 && sym_range(v, &s, &off))
			files++;
	}
	return files;
}

/* An upper bound of what building the files of v takes, per symbol that
 * gets one: a candidate (in an array that doubles), a name of at most
 * NAMING_MAX bytes and two "~<index>", the sets of names while they are
 * made, the file and its index slots. */
static uint64_t files_bound(struct vcore *v)
{
	uint64_t n = count_files(v, PFELF_SYMTAB) + count_files(v, PFELF_DYNSYM);
	uint64_t per = 2 * (sizeof(struct cand) + sizeof(struct naming_item)) +
	               membudget_chunk(NAMING_MAX + 1 + 24) + 4 * sizeof(uint32_t) +
	               sizeof(struct symfile) + 4 * sizeof(uint32_t);
	return 4096 + n * per;
}

/* The files of core c (its lazy_lock held): built once, within the memory
 * budget. A refusal for lack of room (-ENOMEM) is not kept, the next call
 * tries again; one over the whole budget (-EFBIG) is. */
static int files_locked(struct vcore *c)
{
	if (c->sym->files_built)
		return c->sym->files_err;
	int ret = view_charge_meta(c);
	uint64_t bound = ret == 0 ? files_bound(c) : 0, cost = 0;
	if (ret == 0)
		ret = view_charge(c, bound);
	if (ret < 0) {
		c->sym->files_built = ret == -EFBIG;
		c->sym->files_err = ret;
		return ret;
	}
	c->sym->files_err = build_files(c, &cost);
	c->sym->files_built = true;
	uint64_t keep = c->sym->files_err < 0 ? 0 : cost < bound ? cost : bound;
	view_uncharge(c, bound - keep);
	view_drop_pages(c);
	return c->sym->files_err;
}

int symview_files(struct bview *v, const struct symfile **files, uint32_t *n)
{
	struct vcore *c = view_core(v);
	pthread_mutex_lock(&c->lazy_lock);
	int ret = files_locked(c);
	*files = c->sym->files;
	*n = ret == 0 ? c->sym->nfiles : 0;
	pthread_mutex_unlock(&c->lazy_lock);
	return ret;
}

/* Through the hash tables: 0 when the answer is certain, else -EAGAIN. */
static int fast_lookup(struct vcore *v, const char *name, uint64_t *off, uint64_t *len)
{
	pfelf_sym s;
	if (strchr(name, '~') || naming_is_odd(name))
		return -EAGAIN;
	int ret = pfelf_symbol_find(v->f, PFELF_SYMTAB, name, &s);
	if (ret == -ENOENT)
		ret = pfelf_symbol_lookup(v->f, name, &s);
	if (ret < 0 || !sym_range(v, &s, off))
		return -EAGAIN;
	*len = s.size;
	return 0;
}

static int table_lookup(struct vcore *v, const char *name, uint64_t *off, uint64_t *len)
{
	const struct symview *sv = v->sym;
	uint32_t i = nameset_find(&sv->index, name, file_key, sv);
	if (!i)
		return -ENOENT;
	*off = sv->files[i - 1].off;
	*len = sv->files[i - 1].len;
	return 0;
}

int symview_lookup(struct bview *v, const char *name, uint64_t *off, uint64_t *len)
{
	struct vcore *c = view_core(v);
	pthread_mutex_lock(&c->lazy_lock);
	int ret = view_charge_meta(c); /* the hash tables are pfelf's metadata */
	if (ret == 0)
		ret = c->sym->files_built && c->sym->files_err == 0
		              ? -EAGAIN
		              : fast_lookup(c, name, off, len);
	if (ret == -EAGAIN)
		ret = files_locked(c);
	if (ret == 0 && c->sym->files_built && c->sym->files_err == 0)
		ret = table_lookup(c, name, off, len);
	pthread_mutex_unlock(&c->lazy_lock);
	return ret;
}

int symview_init(struct vcore *c)
{
	c->sym = calloc(1, sizeof(*c->sym));
	return c->sym ? 0 : -ENOMEM;
}

void symview_free(struct vcore *c)
{
	struct symview *s = c->sym;
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nfiles; i++)
		free(s->files[i].name);
	free(s->files);
	nameset_free(&s->index);
	free(s);
	c->sym = NULL;
}
