/* A reader of one pclntab: windows of PFELF__GO_WIN bytes over the table,
 * one per kind of read (names, the two pc-value tables of a function, the
 * file names of a Go 1.2 table), filled when reading on, and PFELF__GO_PEEKS
 * small peeks filled where a read jumps to, least recently used first out;
 * every window is looked in before one is filled through the kernel
 * (pfelf__read_range). And the NUL-ended strings it copies out. Walking
 * every function with its entry's position reads 0.2 times a function (the
 * compile tool of Go 1.19: 2,630 reads for 14,045 functions); a random
 * lookup reads its name and its pc-value tables: 2 reads. */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

/* The slots of r in its arena, each kind reading from its window first. */
static void reader_init(pfelf_go_reader *r, pfelf_file *f, struct pfelf__go *g)
{
	uint8_t *at = r->arena;
	r->f = f;
	r->g = g;
	for (int k = 0; k < PFELF__GO_SLOTS; k++) {
		r->slot[k].cap = k < GO_W_COUNT ? PFELF__GO_WIN : PFELF__GO_PEEK;
		r->slot[k].buf = at;
		at += r->slot[k].cap;
	}
	for (int k = 0; k < GO_W_COUNT; k++)
		r->hot[k] = (uint8_t)k;
}

PFELF_API int pfelf_go_reader_open(pfelf_file *f, pfelf_go_reader **out)
{
	struct pfelf__go *g;
	int ret = pfelf__go_get(f, &g);
	if (ret < 0)
		return ret;
	/* a lookup's reads in one process_vm_readv rather than a pread each
	 * (mapping failed: pread) */
	if (f->ops->kind == PFELF_BACKEND_MMAP)
		(void)pfelf__mmap_ensure(f);
	pfelf_go_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	reader_init(r, f, g);
	*out = r;
	return 0;
}

PFELF_API void pfelf_go_reader_close(pfelf_go_reader *r)
{
	if (!r)
		return;
	free(r->name.buf);
	free(r->file.buf);
	free(r);
}

/* Bytes slot x holds from file offset at on. */
static uint64_t held(const struct pfelf__go_slot *x, uint64_t at)
{
	return at >= x->off && at - x->off < x->len ? x->off + x->len - at : 0;
}

/* Whether a read of kind w at at reads on past what its window holds. */
static bool onward(const pfelf_go_reader *r, int w, uint64_t at)
{
	const struct pfelf__go_slot *x = &r->slot[w];
	return x->len && at >= x->off && at - x->off <= 2 * (uint64_t)x->len;
}

/* The least recently used peek. */
static struct pfelf__go_slot *lru_peek(pfelf_go_reader *r)
{
	struct pfelf__go_slot *old = &r->slot[GO_W_COUNT];
	for (int k = GO_W_COUNT + 1; k < PFELF__GO_SLOTS; k++)
		if (r->slot[k].used < old->used)
			old = &r->slot[k];
	return old;
}

/* The slot to fill for a read of kind w at at: window w when reading on
 * past it (or for more than a peek holds), else the least recently used
 * peek. */
static struct pfelf__go_slot *victim(pfelf_go_reader *r, int w, uint64_t at, size_t need)
{
	return onward(r, w, at) || need > PFELF__GO_PEEK ? &r->slot[w] : lru_peek(r);
}

int pfelf__go_bytes(pfelf_go_reader *r, int w, uint64_t at, uint64_t lim, size_t need,
                    const uint8_t **p, size_t *avail)
{
	uint64_t room = at < lim ? lim - at : 0;
	struct pfelf__go_slot *x = &r->slot[r->hot[w]];
	uint64_t have = held(x, at);
	for (int k = 0; have < need && have < room && k < PFELF__GO_SLOTS; k++) {
		if (held(&r->slot[k], at) > have) {
			x = &r->slot[k];
			have = held(x, at);
		}
	}
	if (have < need && have < room) {
		x = victim(r, w, at, need);
		uint64_t n = room < x->cap ? room : x->cap;
		x->len = 0;
		int ret = pfelf__read_range(r->f, at, x->buf, (size_t)n);
		if (ret < 0)
			return ret;
		x->off = at;
		x->len = (uint32_t)n;
		have = n;
	}
	x->used = ++r->clock;
	r->hot[w] = (uint8_t)(x - r->slot);
	*p = have ? x->buf + (at - x->off) : x->buf;
	*avail = (size_t)(have < room ? have : room);
	return 0;
}

/* A slot a prefetch fills: the file range it is to hold. */
struct fill {
	struct pfelf__go_slot *x;
	uint64_t at, len;
};

/* Whether the len bytes at at are held by a slot (touched: not a victim
 * of this prefetch) or by a fill planned (a peek's grown to them when
 * both fit in it). */
static bool planned(pfelf_go_reader *r, struct fill *fl, unsigned nf, uint64_t at, uint64_t len)
{
	for (int k = 0; k < PFELF__GO_SLOTS; k++) {
		if (held(&r->slot[k], at) >= len) {
			r->slot[k].used = ++r->clock;
			return true;
		}
	}
	for (unsigned i = 0; i < nf; i++) {
		uint64_t lo = fl[i].at < at ? fl[i].at : at;
		uint64_t end = fl[i].at + fl[i].len, hi = end > at + len ? end : at + len;
		bool peek = fl[i].x->cap == PFELF__GO_PEEK;
		if (lo == fl[i].at && hi == end) /* inside it */
			return true;
		if (peek && hi - lo <= PFELF__GO_PEEK) {
			fl[i].at = lo;
			fl[i].len = hi - lo;
			return true;
		}
	}
	return false;
}

/* The slot for a prefetch of kind w at at that no fill uses yet. */
static struct pfelf__go_slot *fill_slot(pfelf_go_reader *r, const struct fill *fl, unsigned nf,
                                        int w, uint64_t at)
{
	if (onward(r, w, at)) {
		bool taken = false;
		for (unsigned i = 0; i < nf; i++)
			taken |= fl[i].x == &r->slot[w];
		if (!taken)
			return &r->slot[w];
	}
	return lru_peek(r); /* the fills' peeks were touched: another */
}

/* The fills of fl in one read; none holds anything when it fails. */
static int fill_all(pfelf_go_reader *r, const struct fill *fl, unsigned nf)
{
	struct pfelf__span s[GO_W_COUNT];
	if (nf == 0)
		return 0;
	for (unsigned i = 0; i < nf; i++)
		s[i] = (struct pfelf__span){fl[i].at, fl[i].x->buf, (size_t)fl[i].len};
	int ret = pfelf__read_spans(r->f, s, nf);
	if (ret < 0)
		return ret;
	for (unsigned i = 0; i < nf; i++) {
		fl[i].x->off = fl[i].at;
		fl[i].x->len = (uint32_t)fl[i].len;
	}
	return 0;
}

int pfelf__go_prefetch(pfelf_go_reader *r, const struct pfelf__go_want *want, unsigned n)
{
	struct fill fl[GO_W_COUNT];
	unsigned nf = 0;
	for (unsigned i = 0; i < n && nf < GO_W_COUNT; i++) {
		const struct pfelf__go_want *q = &want[i];
		if (q->at >= q->lim)
			continue;
		uint64_t room = q->lim - q->at;
		uint64_t len = room < PFELF__GO_GUESS ? room : PFELF__GO_GUESS;
		if (planned(r, fl, nf, q->at, len))
			continue;
		struct pfelf__go_slot *x = fill_slot(r, fl, nf, q->w, q->at);
		if (x->cap == PFELF__GO_WIN)
			len = room < x->cap ? room : x->cap;
		x->len = 0;
		x->used = ++r->clock;
		fl[nf++] = (struct fill){x, q->at, len};
	}
	return fill_all(r, fl, nf);
}

/* Make room for n + 1 bytes in s. */
static int str_room(struct pfelf__go_str *s, size_t n)
{
	if (n < s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 256;
	while (cap <= n)
		cap *= 2;
	if (cap > PFELF_GO_NAME_MAX + 1)
		cap = PFELF_GO_NAME_MAX + 1;
	char *p = realloc(s->buf, cap);
	if (!p)
		return -ENOMEM;
	s->buf = p;
	s->cap = (uint32_t)cap;
	return 0;
}

int pfelf__go_string(pfelf_go_reader *r, int w, uint64_t off, uint64_t lim, struct pfelf__go_str *s,
                     uint32_t *n)
{
	size_t len = 0;
	if (off >= lim)
		return -ERANGE;
	while (off < lim) {
		const uint8_t *p;
		size_t avail;
		int ret = pfelf__go_bytes(r, w, off, lim, 1, &p, &avail);
		if (ret < 0)
			return ret;
		const uint8_t *nul = memchr(p, 0, avail);
		size_t take = nul ? (size_t)(nul - p) : avail;
		if (len + take > PFELF_GO_NAME_MAX)
			return -EINVAL;
		if ((ret = str_room(s, len + take)) < 0)
			return ret;
		memcpy(s->buf + len, p, take);
		len += take;
		if (nul) {
			s->buf[len] = 0;
			*n = (uint32_t)len;
			return 0;
		}
		off += avail;
	}
	return -ERANGE;
}
