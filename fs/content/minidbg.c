/* minidebuginfo.debug (minidbg.h). */
#include "content/minidbg.h"
#include "base/membudget.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The compile unit every function goes in. */
#define UNIT_NAME "minidebuginfo"

/* The guess of the room a make needs (entries.h, make_guess): the inner
 * file and pfelf's tables of it (inner_cost), and what the writer holds
 * for the functions of its .symtab and of the binary's .dynsym (about 290
 * bytes a function: symbol, DIE, names four times, its entry in the list;
 * 25 to 45 bytes of .symtab and .strtab each), the binary's headers and
 * the file; a file that needs more is made again within four times as
 * much (dcache.h). */
#define GUESS_FIXED      ((uint64_t)1 << 20)
#define GUESS_PER_HEADER 256 /* a section or PT_LOAD copy */
#define GUESS_PER_INNER  8   /* a byte of the inner file (its .symtab, .strtab) */
#define GUESS_PER_DYN    8   /* a byte of the binary's .dynsym and .dynstr */

/* One function to write: [lo, hi) and its name (owned by a handle). */
struct fn {
	uint64_t lo, hi;
	const char *name;
	uint32_t order; /* its place among the tables: the first of an address wins */
	uint8_t flags;  /* PFELF_DBGW_* */
};

/* What one make holds, and how much of its room (the cache's reservation,
 * dcache.h) it has taken. */
struct build {
	struct vcore *c;
	struct bview *v;
	char *inner; /* the MiniDebugInfo decompressed */
	uint64_t inner_size;
	pfelf_file *in; /* opened from inner */
	struct fn *fns;
	size_t n, cap;
	uint64_t max, taken;
};

/* Take bytes of the room: 0, or -EFBIG (the cache tries a larger one). */
static int take(struct build *b, uint64_t bytes)
{
	if (bytes > b->max - b->taken)
		return -EFBIG;
	b->taken += bytes;
	return 0;
}

/* What the inner file of size bytes takes: its bytes, then pfelf's tables
 * of it (copies of its ranges). */
static uint64_t inner_cost(uint64_t size)
{
	return membudget_chunk(size ? size : 1) + 2 * size + (64 << 10);
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
	int ret = take(b, inner_cost(ch.size));
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
	int ret = take(b, membudget_chunk(b->cap * sizeof(*b->fns) + 1));
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

/* The writer, within the rest of the room: the file it makes stays. */
static int write_file(struct build *b, void **bytes, uint64_t *size)
{
	pfelf_dbgw *w = NULL;
	uint32_t unit;
	int ret = b->taken < b->max ? pfelf_dbgw_new(pfelf_header(b->c->f), b->max - b->taken, &w)
	                            : -EFBIG;
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

/* The MiniDebugInfo's error remembered for core c, or 0; with look, the
 * binary's .dynsym charged to it first (the make reads it; no room for it
 * is -ENOMEM: a larger room for the make would not help). */
static int known_error(struct vcore *c, bool look)
{
	pthread_mutex_lock(&c->lazy_lock);
	int ret = c->minidbg_err < 0 ? c->minidbg_err : 0;
	if (ret == 0 && look && view_charge_meta(c) < 0)
		ret = -ENOMEM;
	pthread_mutex_unlock(&c->lazy_lock);
	return ret;
}

/* Remember for core c what a make or a check said: -EIO is the file's,
 * 1 a stream that decodes; other errors are not kept. */
static void remember(struct vcore *c, int what)
{
	if (what != -EIO && what != 1)
		return;
	pthread_mutex_lock(&c->lazy_lock);
	if (c->minidbg_err == 0 || what == -EIO)
		c->minidbg_err = what;
	pthread_mutex_unlock(&c->lazy_lock);
}

int minidbg_make(struct bview *v, uint64_t max, void **bytes, uint64_t *size)
{
	struct vcore *c = view_core(v);
	if (!v->f || !v->ddata || v->outer)
		return -EIO; /* not a row of this view (entries.c: has_minidbg) */
	int ret = known_error(c, true);
	struct build b = {.c = c, .v = v, .max = max};
	if (ret == 0)
		ret = open_inner(&b);
	if (ret == 0)
		ret = collect(&b);
	if (ret == 0)
		ret = write_file(&b, bytes, size);
	pfelf_close(b.in);
	free(b.inner);
	free(b.fns);
	view_drop_pages(c);
	remember(c, ret == 0 ? 1 : ret); /* -EIO: the same next time */
	return ret;
}

int minidbg_error(struct bview *v)
{
	return known_error(view_core(v), false);
}

int minidbg_check(struct bview *v)
{
	struct vcore *c = view_core(v);
	uint32_t index;
	pfelf_chdr ch;
	if (!v->f || !v->ddata || v->outer)
		return -ENOENT;
	pthread_mutex_lock(&c->lazy_lock);
	int ret = c->minidbg_err;
	pthread_mutex_unlock(&c->lazy_lock);
	if (ret != 0)
		return ret < 0 ? ret : 0;
	ret = pfelf_gnu_debugdata(c->f, &index, &ch);
	/* room 0 for a stream over the cap: open_inner says EIO at once */
	uint64_t room = ret == 0 && ch.size <= MINIDBG_INNER_MAX ? inner_cost(ch.size) : 0;
	if (ret == 0 && (ret = view_charge(c, room)) == 0) {
		struct build b = {.c = c, .v = v, .max = room};
		ret = open_inner(&b);
		pfelf_close(b.in);
		free(b.inner);
		view_uncharge(c, room);
		view_drop_pages(c);
	}
	ret = ret == -ENOMEM || ret == -EFBIG ? ret : ret < 0 ? -EIO : 0;
	remember(c, ret == 0 ? 1 : ret);
	return ret;
}

uint64_t minidbg_guess(struct bview *v)
{
	uint32_t index;
	pfelf_chdr ch;
	const pfelf_shdr *dynsym, *dynstr;
	uint64_t guess = GUESS_FIXED +
	                 GUESS_PER_HEADER * ((uint64_t)view_core(v)->nsec + view_core(v)->nseg);
	if (pfelf_gnu_debugdata(v->f, &index, &ch) == 0)
		guess += inner_cost(ch.size) + GUESS_PER_INNER * ch.size;
	if (pfelf_section_by_name(v->f, ".dynsym", &dynsym) == 0 &&
	    pfelf_section_by_name(v->f, ".dynstr", &dynstr) == 0)
		guess += GUESS_PER_DYN * (dynsym->size + dynstr->size);
	return guess;
}
