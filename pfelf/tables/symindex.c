/* A symbol with its version (pfelf_symbol), and lookups in a symbol table
 * through indexes built on first use: by name (entry indexes sorted by
 * name) and by address (defined, sized symbols sorted by address, with a
 * running maximum of their ends so that the search for the symbol
 * containing an address stops as soon as no earlier symbol can reach it). */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

struct sort_ctx {
	const pfelf_file *f;
	const struct pfelf__symtab *t;
};

/* The name of entry i ("" when bad), straight from the copied table. */
static const char *name_of(const pfelf_file *f, const struct pfelf__symtab *t, uint32_t i)
{
	const char *n = pfelf__sym_str(t, pfelf__u32(t->raw + (size_t)i * t->stride, f->msb));
	return n ? n : "";
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	int r = strcmp(name_of(c->f, c->t, x), name_of(c->f, c->t, y));
	return r ? r : (x > y) - (x < y);
}

/* Loader of the name index of table ctx. */
static int build_byname(pfelf_file *f, void *ctx)
{
	struct pfelf__symtab *t = ctx;
	uint32_t *idx = malloc(t->count ? (size_t)t->count * sizeof(*idx) : 1);
	if (!idx)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->count; i++)
		idx[i] = i;
	struct sort_ctx c = {f, t};
	qsort_r(idx, t->count, sizeof(*idx), cmp_name, &c);
	t->byname = idx;
	return 0;
}

/* Table t loaded, its versions too when it is .dynsym. */
static int table(pfelf_file *f, enum pfelf_symtab_kind k, struct pfelf__symtab **t,
                 const struct pfelf__versions **v)
{
	int ret = pfelf__symtab_get(f, (int)k, t);
	if (ret == 0 && k == PFELF_DYNSYM)
		ret = pfelf__versions_get(f, v);
	else
		*v = NULL;
	return ret;
}

static void decode(pfelf_file *f, struct pfelf__symtab *t, const struct pfelf__versions *v,
                   uint32_t i, pfelf_sym *s)
{
	pfelf__sym_decode(f, t, i, s);
	if (v)
		pfelf__sym_version(v, t, s);
}

static int rank_of(const pfelf_sym *s)
{
	if (s->shndx == SHN_UNDEF)
		return 1;
	return (s->versym & 0x8000) ? 2 : 3;
}

PFELF_API int pfelf_symbol_find(pfelf_file *f, enum pfelf_symtab_kind k, const char *name,
                                pfelf_sym *out)
{
	struct pfelf__symtab *t = NULL;
	const struct pfelf__versions *v = NULL;
	if (!name || !out)
		return -EINVAL;
	int ret = table(f, k, &t, &v);
	if (ret == 0)
		ret = pfelf__tables_once(f, &t->byname_state, build_byname, t);
	if (ret < 0)
		return ret;
	size_t lo = 0, hi = t->count; /* first entry whose name >= name */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(name_of(f, t, t->byname[mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	int best = 0;
	for (; lo < t->count && strcmp(name_of(f, t, t->byname[lo]), name) == 0; lo++) {
		pfelf_sym s;
		decode(f, t, v, t->byname[lo], &s);
		if (s.status & PFELF_SYM_BAD_NAME)
			continue;
		int r = rank_of(&s);
		if (r > best) { /* entries come by increasing index */
			best = r;
			*out = s;
		}
	}
	return best ? 0 : -ENOENT;
}

static bool addr_indexed(const pfelf_sym *s)
{
	bool in_section = s->shndx != SHN_UNDEF &&
	                  (s->shndx < SHN_LORESERVE ||
	                   (s->raw_shndx == SHN_XINDEX && !(s->status & PFELF_SYM_BAD_SHNDX)));
	bool typed = s->type == STT_NOTYPE || s->type == STT_OBJECT || s->type == STT_FUNC ||
	             s->type == STT_COMMON || s->type == STT_GNU_IFUNC;
	return in_section && typed && s->size > 0;
}

/* By start, then larger sizes first, then higher indexes first: walking
 * backwards from an address meets the best candidate first. */
static int cmp_addr(const void *a, const void *b)
{
	const struct pfelf__addr_ent *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->index < y->index) - (x->index > y->index);
}

/* Loader of the address index of table ctx. */
static int build_addr(pfelf_file *f, void *ctx)
{
	struct pfelf__symtab *t = ctx;
	struct pfelf__addr_ent *e = malloc(t->count ? (size_t)t->count * sizeof(*e) : 1);
	if (!e)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 0; i < t->count; i++) {
		pfelf_sym s;
		pfelf__sym_decode(f, t, i, &s);
		if (!addr_indexed(&s))
			continue;
		/* end is the last address, inclusive (size > 0 here), so that a
		 * symbol ending at 2^64-1 still contains its last byte */
		uint64_t end =
		        s.size - 1 > UINT64_MAX - s.value ? UINT64_MAX : s.value + (s.size - 1);
		e[n++] = (struct pfelf__addr_ent){.start = s.value, .end = end, .index = i};
	}
	qsort(e, n, sizeof(*e), cmp_addr);
	uint64_t max = 0;
	for (uint32_t i = 0; i < n; i++) {
		max = e[i].end > max ? e[i].end : max;
		e[i].maxend = max;
	}
	t->addr = e;
	t->addr_count = n;
	return 0;
}

PFELF_API int pfelf_symbol_at(pfelf_file *f, enum pfelf_symtab_kind k, uint64_t addr,
                              pfelf_sym *out)
{
	struct pfelf__symtab *t = NULL;
	const struct pfelf__versions *v = NULL;
	if (!out)
		return -EINVAL;
	int ret = table(f, k, &t, &v);
	if (ret == 0)
		ret = pfelf__tables_once(f, &t->addr_state, build_addr, t);
	if (ret < 0)
		return ret;
	size_t lo = 0, hi = t->addr_count; /* first entry that starts after addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->addr[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0 && t->addr[lo].maxend >= addr) {
		if (t->addr[lo].end >= addr) {
			decode(f, t, v, t->addr[lo].index, out);
			return 0;
		}
	}
	return -ENOENT;
}

PFELF_API int pfelf_symbol(pfelf_file *f, enum pfelf_symtab_kind t, uint32_t index, pfelf_sym *out)
{
	struct pfelf__symtab *tab = NULL;
	int ret = pfelf__symtab_get(f, (int)t, &tab);
	if (ret < 0)
		return ret;
	if (index >= tab->count)
		return -ENOENT;
	pfelf__sym_decode(f, tab, index, out);
	if (t == PFELF_DYNSYM) {
		const struct pfelf__versions *v;
		ret = pfelf__versions_get(f, &v);
		if (ret < 0)
			return ret;
		pfelf__sym_version(v, tab, out);
	}
	return 0;
}
