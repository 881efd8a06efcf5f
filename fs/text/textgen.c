/* Texts made of lines, indexed by a pass that keeps no line; reads by offset. */
#include "text/textgen.h"
#include "text/textline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int textindex_build(const struct textgen *g, struct textindex *x)
{
	char buf[TEXT_LINE_MAX];
	uint64_t nmark = g->nlines / TEXT_MARK_EVERY + 1;
	memset(x, 0, sizeof(*x));
	if (nmark > SIZE_MAX / sizeof(*x->mark) || !(x->mark = malloc(nmark * sizeof(*x->mark))))
		return -ENOMEM;
	uint64_t pos = 0;
	for (uint64_t i = 0; i < g->nlines; i++) {
		if (i % TEXT_MARK_EVERY == 0)
			x->mark[i / TEXT_MARK_EVERY] = pos;
		int n = g->line(g->ctx, i, buf);
		if (n < 0) {
			textindex_free(x);
			return n;
		}
		pos += (uint64_t)n;
	}
	if (g->nlines % TEXT_MARK_EVERY == 0)
		x->mark[nmark - 1] = pos; /* the end: a mark for the line after the last */
	x->nmark = nmark;
	x->nlines = g->nlines;
	x->size = pos;
	return 0;
}

/* The last mark at or before off. */
static uint64_t mark_before(const struct textindex *x, uint64_t off)
{
	uint64_t lo = 0, hi = x->nmark; /* mark[lo] <= off < mark[hi] */
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (x->mark[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Copy what line [pos, pos + n) of buf holds of [want, want + len) into dst. */
static size_t take(const char *buf, uint64_t pos, size_t n, uint64_t want, char *dst, size_t len)
{
	if (pos + n <= want)
		return 0;
	size_t from = (size_t)(want - pos);
	size_t k = n - from < len ? n - from : len;
	memcpy(dst, buf + from, k);
	return k;
}

int textindex_read(const struct textindex *x, const struct textgen *g, uint64_t off, char *dst,
                   size_t len)
{
	char buf[TEXT_LINE_MAX];
	if (g->nlines != x->nlines || off > x->size || len > x->size - off)
		return -EIO;
	uint64_t line = mark_before(x, off) * TEXT_MARK_EVERY;
	uint64_t pos = x->mark[line / TEXT_MARK_EVERY];
	size_t done = 0;
	while (done < len) {
		if (line >= x->nlines ||
		    (line % TEXT_MARK_EVERY == 0 && x->mark[line / TEXT_MARK_EVERY] != pos))
			return -EIO; /* not the text that was indexed */
		int n = g->line(g->ctx, line++, buf);
		if (n < 0)
			return n;
		done += take(buf, pos, (size_t)n, off + done, dst + done, len - done);
		pos += (uint64_t)n;
	}
	return 0;
}

void textindex_free(struct textindex *x)
{
	free(x->mark);
	memset(x, 0, sizeof(*x));
}
