/* minidebuginfo.debug (minidbg.h). */
#include "content/minidbg.h"
#include "base/membudget.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The compile unit every function goes in. */
#define UNIT_NAME "minidebuginfo"

/* One function to write: [lo, hi) and its name (owned by a handle). */
struct fn {
	uint64_t lo, hi;
	const char *name;
	uint32_t order; /* its place among the tables: the first of an address wins */
	uint8_t flags;  /* PFELF_DBGW_* */
};

/* What one build holds, and what it reserved. */
struct build {
	struct vcore *c;
	struct bview *v;
	char *inner; /* the MiniDebugInfo decompressed */
	uint64_t inner_size;
	pfelf_file *in; /* opened from inner */
	struct fn *fns;
	size_t n, cap;
	uint64_t names; /* bytes of the names of fns */
	uint64_t charged;
};

static int charge(struct build *b, uint64_t bytes)
{
	int ret = view_charge(b->c, bytes);
	if (ret == 0)
		b->charged += bytes;
	return ret;
}

/* The MiniDebugInfo of the core, decompressed and opened. */
static int open_inner(struct build *b)
{
	uint32_t index;
	pfelf_chdr ch;
	const pfelf_shdr *sh;
	if (pfelf_gnu_debugdata(b->c->f, &index, &ch) < 0 || ch.size > MINIDBG_INNER_MAX ||
	    pfelf_section(b->c->f, index, &sh) < 0)
		return -EIO;
	/* the bytes, then pfelf's tables of the inner file (copies of its ranges) */
	int ret = charge(b, membudget_chunk(ch.size ? ch.size : 1) + 2 * ch.size + (64 << 10));
	if (ret < 0)
		return ret;
	b->inner = malloc(ch.size ? ch.size : 1);
	if (!b->inner)
		return -ENOMEM;
	b->inner_size = ch.size;
	ssize_t n = pfelf_section_decompress(b->c->f, index, b->inner, ch.size);
	if (n >= 0 && view_changed(b->v, sh->offset + sh->size)) /* the zeros of a cut page */
		n = -EIO;
	if (n < 0 || (uint64_t)n != ch.size)
		return n == -ENOMEM ? -ENOMEM : -EIO;
	ret = pfelf_open_memory(b->inner, ch.size, 0, &b->in);
	return ret == -ENOMEM ? ret : ret < 0 ? -EIO : 0;
}

/* Add the defined functions with a size of table t of f. */
static void add_table(struct build *b, pfelf_file *f, enum pfelf_symtab_kind t, uint32_t *order)
{
	int count = pfelf_symbol_count(f, t);
	for (int i = 1; i < count && b->n < b->cap; i++) {
		pfelf_sym s;
		if (pfelf_symbol(f, t, (uint32_t)i, &s) < 0 ||
		    (s.type != STT_FUNC && s.type != STT_GNU_IFUNC) || s.size == 0 ||
		    s.shndx == SHN_UNDEF || s.shndx >= SHN_LORESERVE || !s.name[0] ||
		    s.value > UINT64_MAX - s.size)
			continue;
		uint8_t flags = s.bind == STB_LOCAL  ? PFELF_DBGW_LOCAL
		                : s.bind == STB_WEAK ? PFELF_DBGW_WEAK
		                                     : PFELF_DBGW_GLOBAL;
		b->fns[b->n++] = (struct fn){s.value, s.value + s.size, s.name, (*order)++, flags};
		b->names += strlen(s.name);
	}
}

static int by_address(const void *x, const void *y)
{
	const struct fn *a = x, *c = y;
	if (a->lo != c->lo)
		return a->lo < c->lo ? -1 : 1;
	return a->order < c->order ? -1 : a->order > c->order;
}

/* The functions of the MiniDebugInfo and of the binary's .dynsym. */
static int collect(struct build *b)
{
	int ni = pfelf_symbol_count(b->in, PFELF_SYMTAB);
	int nd = pfelf_symbol_count(b->c->f, PFELF_DYNSYM);
	b->cap = (size_t)(ni > 0 ? ni : 0) + (size_t)(nd > 0 ? nd : 0);
	int ret = charge(b, membudget_chunk(b->cap * sizeof(*b->fns) + 1));
	if (ret < 0)
		return ret;
	b->fns = malloc(b->cap ? b->cap * sizeof(*b->fns) : 1);
	if (!b->fns)
		return -ENOMEM;
	uint32_t order = 0;
	add_table(b, b->in, PFELF_SYMTAB, &order);
	add_table(b, b->c->f, PFELF_DYNSYM, &order);
	qsort(b->fns, b->n, sizeof(*b->fns), by_address);
	return 0;
}

/* What the writer may hold: its tables, a few bytes a function and of
 * each name (symbol, string table, DWARF), the binary's section and
 * program headers, and the file it makes. */
static uint64_t writer_bound(const struct build *b)
{
	return ((uint64_t)1 << 20) + 192 * (uint64_t)b->n + 4 * b->names +
	       256 * ((uint64_t)b->c->nsec + b->c->nseg);
}

static int write_file(struct build *b, void **bytes, uint64_t *size)
{
	uint64_t max = writer_bound(b);
	pfelf_dbgw *w = NULL;
	uint32_t unit;
	int ret = charge(b, max);
	if (ret == 0)
		ret = pfelf_dbgw_new(pfelf_header(b->c->f), max, &w);
	if (ret == 0)
		ret = pfelf_dbgw_copy_layout(w, b->c->f);
	if (ret == 0)
		ret = pfelf_dbgw_unit(w, UNIT_NAME, sizeof(UNIT_NAME) - 1, 0, &unit);
	for (size_t i = 0; ret == 0 && i < b->n; i++) {
		const struct fn *f = &b->fns[i];
		if (i > 0 && f->lo == b->fns[i - 1].lo)
			continue; /* an alias of the function before */
		ret = pfelf_dbgw_func(w, unit, f->lo, f->hi, f->name, strlen(f->name), f->flags);
		if (ret == -EINVAL)
			ret = 0; /* one the file cannot hold (past 32 bits in ELF32): left out */
	}
	if (ret == 0)
		ret = pfelf_dbgw_finish(w, bytes, size);
	pfelf_dbgw_free(w);
	return ret == -ENOMEM || ret == -EFBIG ? ret : ret < 0 ? -EIO : 0;
}

/* Make the file of core c (its lazy_lock held) into c->minidbg. */
static int build(struct vcore *c, struct bview *v)
{
	struct build b = {.c = c, .v = v};
	void *bytes = NULL;
	uint64_t size = 0;
	int ret = open_inner(&b);
	if (ret == 0)
		ret = collect(&b);
	if (ret == 0)
		ret = write_file(&b, &bytes, &size);
	pfelf_close(b.in);
	free(b.inner);
	free(b.fns);
	uint64_t keep = ret == 0 ? membudget_chunk(size ? size : 1) : 0;
	if (keep > b.charged) /* not expected: the writer held the file within its bound */
		ret = charge(&b, keep - b.charged);
	if (ret < 0) {
		free(bytes);
		view_uncharge(c, b.charged);
		return ret;
	}
	view_uncharge(c, b.charged - keep);
	c->minidbg = bytes;
	c->minidbg_size = size;
	view_drop_pages(c);
	return 0;
}

int minidbg_bytes(struct bview *v, const char **data, uint64_t *size)
{
	struct vcore *c = view_core(v);
	if (!v->f || !v->ddata || v->outer)
		return -ENOENT;
	pthread_mutex_lock(&c->lazy_lock);
	int ret = c->minidbg ? 0 : c->minidbg_err;
	if (!c->minidbg && ret == 0) {
		ret = view_charge_meta(c); /* the binary's .dynsym */
		if (ret == 0)
			ret = build(c, v);
		if (ret == -EIO)
			c->minidbg_err = ret; /* the file's: the same next time */
	}
	if (ret == 0) {
		*data = c->minidbg;
		*size = c->minidbg_size;
	}
	pthread_mutex_unlock(&c->lazy_lock);
	return ret;
}

void minidbg_free(struct vcore *c)
{
	free(c->minidbg);
	c->minidbg = NULL;
}
