/* What finish puts in order: the functions by address (the symbol table,
 * and runs of a unit's functions for its DWARF ranges), functions and
 * files grouped by unit (counting sorts, so each group keeps the order
 * before), and the section copies by address for a symbol's st_shndx. */
#include "write/dbgw_i.h"

#include <stdlib.h>

static int by_lo(const void *a, const void *b, void *ctx)
{
	const struct dbgw_func *f = ((struct pfelf_dbgw *)ctx)->funcs.v;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	if (f[i].lo != f[j].lo)
		return f[i].lo < f[j].lo ? -1 : 1;
	if (f[i].hi != f[j].hi)
		return f[i].hi < f[j].hi ? -1 : 1;
	return i < j ? -1 : i > j;
}

static int by_addr(const void *a, const void *b)
{
	const struct dbgw_span *s = a, *t = b;
	if (s->addr != t->addr)
		return s->addr < t->addr ? -1 : 1;
	if (s->exec != t->exec)
		return s->exec ? 1 : -1; /* executable last: found first */
	return s->index < t->index ? -1 : s->index > t->index;
}

/* idx[first[g] .. first[g + 1]) = the positions p (0 .. n - 1) whose
 * group_of is g, in increasing p; first has ngroups + 1 entries. */
static void group(uint32_t *idx, uint32_t *first, size_t n, size_t ngroups,
                  uint32_t (*group_of)(struct pfelf_dbgw *w, size_t p), struct pfelf_dbgw *w)
{
	memset(first, 0, (ngroups + 1) * sizeof(*first));
	for (size_t p = 0; p < n; p++)
		first[group_of(w, p) + 1]++;
	for (size_t g = 0; g < ngroups; g++)
		first[g + 1] += first[g];
	for (size_t p = 0; p < n; p++)
		idx[first[group_of(w, p)]++] = (uint32_t)p;
	for (size_t g = ngroups; g > 0; g--)
		first[g] = first[g - 1];
	first[0] = 0;
}

static uint32_t unit_of_rank(struct pfelf_dbgw *w, size_t rank)
{
	return dbgw_func_at(w, w->by_addr[rank])->unit;
}

static uint32_t unit_of_file(struct pfelf_dbgw *w, size_t file)
{
	return dbgw_file_at(w, (uint32_t)file)->unit;
}

bool dbgw_next_run(struct pfelf_dbgw *w, uint32_t u, uint32_t *pos, uint64_t *lo, uint64_t *hi)
{
	uint32_t end = w->ufirst[u + 1] - w->ufirst[u];
	const uint32_t *rank = w->by_unit + w->ufirst[u];
	while (*pos < end) {
		const struct dbgw_func *f = dbgw_func_at(w, w->by_addr[rank[*pos]]);
		*lo = f->lo;
		*hi = f->hi;
		for ((*pos)++; *pos < end && rank[*pos] == rank[*pos - 1] + 1; (*pos)++) {
			f = dbgw_func_at(w, w->by_addr[rank[*pos]]);
			*hi = f->hi > *hi ? f->hi : *hi;
		}
		if (*hi > *lo)
			return true;
	}
	return false;
}

static void find_runs(struct pfelf_dbgw *w)
{
	for (uint32_t u = 0; u < w->units.n; u++) {
		struct dbgw_unit *un = dbgw_unit_at(w, u);
		uint32_t pos = 0;
		uint64_t lo, hi;
		un->nruns = 0;
		while (dbgw_next_run(w, u, &pos, &lo, &hi)) {
			if (un->nruns++ == 0) {
				un->lo = lo;
				un->hi = hi;
			}
		}
	}
}

/* The copies a symbol may be in: allocated, not TLS, not empty. */
static void find_spans(struct pfelf_dbgw *w)
{
	for (uint32_t i = 1; i < w->secs.n && !w->err; i++) {
		const struct dbgw_sec *s = dbgw_sec_at(&w->secs, i);
		if (!(s->flags & SHF_ALLOC) || (s->flags & SHF_TLS) || s->size == 0 ||
		    s->addr + s->size < s->addr)
			continue;
		struct dbgw_span *p = dbgw_arr_push(w, &w->spans);
		if (p) {
			p->addr = s->addr;
			p->end = s->addr + s->size;
			p->index = i;
			p->exec = (s->flags & SHF_EXECINSTR) != 0;
		}
	}
	if (!w->err && w->spans.n)
		qsort(w->spans.v, w->spans.n, sizeof(struct dbgw_span), by_addr);
}

uint16_t dbgw_shndx_of(struct pfelf_dbgw *w, uint64_t addr)
{
	const struct dbgw_span *s = w->spans.v;
	size_t lo = 0, hi = w->spans.n; /* the first span past addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Copies may overlap (bounded look back: a few nested ones at most). */
	for (size_t i = lo, steps = 0; i > 0 && steps < 16; i--, steps++)
		if (addr < s[i - 1].end)
			return (uint16_t)s[i - 1].index;
	return SHN_ABS;
}

int dbgw_order(struct pfelf_dbgw *w)
{
	size_t nf = w->funcs.n, nu = w->units.n, nfile = w->files.n;
	w->by_addr = dbgw_alloc(w, nf * sizeof(uint32_t));
	w->by_unit = dbgw_alloc(w, nf * sizeof(uint32_t));
	w->ufirst = dbgw_alloc(w, (nu + 1) * sizeof(uint32_t));
	w->file_by_unit = dbgw_alloc(w, nfile * sizeof(uint32_t));
	w->ffirst = dbgw_alloc(w, (nu + 1) * sizeof(uint32_t));
	if (w->err)
		return w->err;
	for (size_t i = 0; i < nf; i++)
		w->by_addr[i] = (uint32_t)i;
	qsort_r(w->by_addr, nf, sizeof(uint32_t), by_lo, w);
	group(w->by_unit, w->ufirst, nf, nu, unit_of_rank, w);
	group(w->file_by_unit, w->ffirst, nfile, nu, unit_of_file, w);
	find_runs(w);
	find_spans(w);
	w->nlocal = 0;
	for (size_t i = 0; i < nf; i++)
		w->nlocal += dbgw_func_at(w, (uint32_t)i)->bind == STB_LOCAL;
	return w->err;
}

void dbgw_order_free(struct pfelf_dbgw *w)
{
	size_t nf = w->funcs.n, nu = w->units.n, nfile = w->files.n;
	dbgw_release(w, w->by_addr, nf * sizeof(uint32_t));
	dbgw_release(w, w->by_unit, nf * sizeof(uint32_t));
	dbgw_release(w, w->ufirst, (nu + 1) * sizeof(uint32_t));
	dbgw_release(w, w->file_by_unit, nfile * sizeof(uint32_t));
	dbgw_release(w, w->ffirst, (nu + 1) * sizeof(uint32_t));
	w->by_addr = w->by_unit = w->ufirst = w->file_by_unit = w->ffirst = NULL;
	dbgw_arr_free(w, &w->spans);
}
