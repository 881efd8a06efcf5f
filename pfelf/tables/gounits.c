/* The compile units of a pclntab. From Go 1.16 the linker writes, per
 * compile unit, the list of its files into cutab, and each function's
 * record says where its unit's list starts (cuOffset): the units are the
 * distinct starts, in table order, each running to the next one. Made once
 * from the records, 4 bytes per unit kept. A Go 1.2 table is one unit: its
 * file table. */
#include "tables/go_i.h"

#include <stdlib.h>

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* The distinct cuOffsets of the records into cu, sorted. */
static int collect(const struct pfelf__go *g, uint32_t *cu, uint32_t *ncu)
{
	uint64_t entries = (g->cu_end - g->cu_at) / 4;
	uint32_t n = 0;
	for (uint32_t i = 0; i < g->pub.nfunc; i++) {
		uint32_t c = g->rec[i].cuoff;
		if (c == UINT32_MAX)
			continue;
		if (c > entries)
			return -EINVAL;
		if (n == 0 || cu[n - 1] != c)
			cu[n++] = c;
	}
	qsort(cu, n, sizeof(*cu), cmp_u32);
	uint32_t k = 0;
	for (uint32_t i = 0; i < n; i++)
		if (k == 0 || cu[k - 1] != cu[i])
			cu[k++] = cu[i];
	*ncu = k;
	return 0;
}

static int load_units(pfelf_file *f, void *ctx)
{
	(void)f;
	struct pfelf__go *g = ctx;
	uint32_t n = g->pub.version == PFELF_GO_V12 ? 1 : g->pub.nfunc;
	uint32_t *cu = malloc(((size_t)n + 1) * sizeof(*cu));
	if (!cu)
		return -ENOMEM;
	int ret = 0;
	if (g->pub.version == PFELF_GO_V12)
		cu[0] = 0;
	else
		ret = collect(g, cu, &n);
	if (ret < 0) {
		free(cu);
		return ret;
	}
	uint32_t *small = realloc(cu, ((size_t)n + 1) * sizeof(*cu));
	g->cu = small ? small : cu;
	g->ncu = n;
	return 0;
}

static int units(pfelf_file *f, struct pfelf__go **out)
{
	int ret = pfelf__go_get(f, out);
	if (ret == 0)
		ret = pfelf__tables_once(f, &(*out)->cu_state, load_units, *out);
	return ret;
}

PFELF_API int pfelf_go_cu_count(pfelf_file *f)
{
	struct pfelf__go *g;
	int ret = units(f, &g);
	return ret < 0 ? ret : (int)g->ncu;
}

PFELF_API int pfelf_go_cu_get(pfelf_file *f, uint32_t index, pfelf_go_cu *out)
{
	struct pfelf__go *g;
	int ret = units(f, &g);
	if (ret < 0)
		return ret;
	if (index >= g->ncu)
		return -ENOENT;
	uint64_t entries = (g->cu_end - g->cu_at) / 4;
	uint64_t next = index + 1 < g->ncu ? g->cu[index + 1] : entries;
	out->index = index;
	out->offset = g->cu[index];
	out->nfiles = (uint32_t)(next - g->cu[index]);
	return 0;
}

PFELF_API int pfelf_go_cu_find(pfelf_file *f, uint32_t cu_offset)
{
	struct pfelf__go *g;
	int ret = units(f, &g);
	if (ret < 0)
		return ret;
	uint32_t lo = 0, hi = g->ncu;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->cu[mid] < cu_offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < g->ncu && g->cu[lo] == cu_offset ? (int)lo : -ENOENT;
}
