/* The function holding a pc: buckets of the text (each 2^shift bytes from
 * the first entry) give the functions that may hold a pc, a binary search
 * of those few entries the one. Without them, a search over the whole
 * function table misses the cache at most of its steps (14 for 14,045
 * functions). At most one bucket a function: the shift grows with the
 * text's span. */
#include "tables/go_i.h"

#include <stdlib.h>

#define BUCKET_SHIFT 12 /* 4 KiB of text: a few functions of Go */

int pfelf__go_buckets(struct pfelf__go *g)
{
	uint32_t n = g->pub.nfunc;
	if (n == 0 || g->pc[n] == g->pc[0])
		return 0; /* no pc is inside a function */
	uint64_t span = g->pc[n] - 1 - g->pc[0];
	unsigned shift = BUCKET_SHIFT;
	while (shift < 63 && (span >> shift) >= n)
		shift++;
	uint32_t nb = (uint32_t)(span >> shift) + 1;
	g->bucket = malloc((size_t)nb * sizeof(*g->bucket));
	if (!g->bucket)
		return -ENOMEM;
	/* bucket b: the last function entering at or before its first pc */
	uint32_t i = 0;
	for (uint32_t b = 0; b < nb; b++) {
		uint64_t start = g->pc[0] + ((uint64_t)b << shift);
		while (i + 1 < n && g->pc[i + 1] <= start)
			i++;
		g->bucket[b] = i;
	}
	g->nbucket = nb;
	g->bucket_shift = (uint8_t)shift;
	return 0;
}

int pfelf__go_search(const struct pfelf__go *g, uint64_t pc, uint32_t *index)
{
	uint32_t n = g->pub.nfunc;
	if (n == 0 || pc < g->pc[0] || pc >= g->pc[n] || !g->bucket)
		return -ENOENT;
	uint64_t b = (pc - g->pc[0]) >> g->bucket_shift;
	/* pc[lo] <= pc < pc[hi]: the next bucket's function enters at or
	 * before its first pc, which is past pc, so the one after it past pc */
	uint32_t lo = g->bucket[b];
	uint32_t hi = b + 1 < g->nbucket ? g->bucket[b + 1] + 1 : n;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (g->pc[mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	*index = lo;
	return 0;
}
