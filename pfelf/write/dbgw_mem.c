/* The debug-file writer's memory: every byte it holds is charged against
 * its bound first; growing arrays, byte buffers in the target's order,
 * and pools of names kept once each. */
#include "write/dbgw_i.h"

#include <stdlib.h>
#include <string.h>

static void fail(struct pfelf_dbgw *w, int err)
{
	if (!w->err)
		w->err = err;
}

int dbgw_usable(const pfelf_dbgw *w)
{
	if (!w || w->done)
		return -EINVAL;
	return w->err;
}

int dbgw_charge(struct pfelf_dbgw *w, int64_t delta)
{
	if (delta > 0 && (uint64_t)delta > w->max - w->held)
		return -EFBIG;
	w->held += (uint64_t)delta;
	if (w->held > w->peak)
		w->peak = w->held;
	return 0;
}

void *dbgw_alloc(struct pfelf_dbgw *w, size_t n)
{
	if (n > INT64_MAX || dbgw_charge(w, (int64_t)n) < 0) {
		fail(w, -EFBIG);
		return NULL;
	}
	void *p = malloc(n ? n : 1);
	if (!p) {
		dbgw_charge(w, -(int64_t)n);
		fail(w, -ENOMEM);
	}
	return p;
}

void dbgw_release(struct pfelf_dbgw *w, void *p, size_t n)
{
	if (!p)
		return;
	free(p);
	dbgw_charge(w, -(int64_t)n);
}

/* Reallocate *p from old to new bytes, charged: 0 or -errno, also set as
 * the writer's error. */
static int resize(struct pfelf_dbgw *w, void **p, size_t old, size_t new)
{
	if (new > INT64_MAX || dbgw_charge(w, (int64_t)(new - old)) < 0) {
		fail(w, -EFBIG);
		return -EFBIG;
	}
	void *q = realloc(*p, new);
	if (!q) {
		dbgw_charge(w, -(int64_t)(new - old));
		fail(w, -ENOMEM);
		return -ENOMEM;
	}
	*p = q;
	return 0;
}

/* Grow *p of *cap bytes to at least need bytes, doubling. */
static int grow(struct pfelf_dbgw *w, void **p, size_t *cap, size_t need)
{
	size_t ncap = *cap ? *cap : 256;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2) {
			fail(w, -EFBIG);
			return -EFBIG;
		}
		ncap *= 2;
	}
	int ret = resize(w, p, *cap, ncap);
	if (ret == 0)
		*cap = ncap;
	return ret;
}

void *dbgw_arr_push(struct pfelf_dbgw *w, struct dbgw_arr *a)
{
	if (w->err)
		return NULL;
	if (a->n == a->cap) {
		size_t ncap = a->cap ? a->cap * 2 : 16;
		if (ncap > SIZE_MAX / a->elem) {
			fail(w, -EFBIG);
			return NULL;
		}
		if (resize(w, &a->v, a->cap * a->elem, ncap * a->elem) < 0)
			return NULL;
		a->cap = ncap;
	}
	uint8_t *e = (uint8_t *)a->v + a->n * a->elem;
	memset(e, 0, a->elem);
	a->n++;
	return e;
}

void dbgw_arr_free(struct pfelf_dbgw *w, struct dbgw_arr *a)
{
	dbgw_release(w, a->v, a->cap * a->elem);
	a->v = NULL;
	a->n = a->cap = 0;
}

/* Reallocate *p from old down to new bytes; kept as it is when realloc
 * fails (nothing is lost). */
static void shrink(struct pfelf_dbgw *w, void **p, size_t *cap, size_t new)
{
	if (!*p || new == 0 || new >= *cap)
		return;
	void *q = realloc(*p, new);
	if (!q)
		return;
	dbgw_charge(w, -(int64_t)(*cap - new));
	*p = q;
	*cap = new;
}

void dbgw_arr_trim(struct pfelf_dbgw *w, struct dbgw_arr *a)
{
	size_t bytes = a->cap * a->elem;
	shrink(w, &a->v, &bytes, a->n * a->elem);
	a->cap = bytes / a->elem;
}

void dbgw_buf_trim(struct dbgw_buf *b)
{
	if (b->mode == DBGW_GROW)
		shrink(b->w, (void **)&b->p, &b->cap, b->len);
}

void dbgw_buf_init(struct dbgw_buf *b, struct pfelf_dbgw *w, enum dbgw_mode mode)
{
	memset(b, 0, sizeof(*b));
	b->w = w;
	b->mode = mode;
}

void dbgw_buf_free(struct dbgw_buf *b)
{
	if (b->mode == DBGW_GROW)
		dbgw_release(b->w, b->p, b->cap);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Room for n more bytes at b->p + b->len: the pointer, or NULL (counting,
 * or a failed write). */
static uint8_t *room(struct dbgw_buf *b, size_t n)
{
	if (b->w->err)
		return NULL;
	if (b->mode == DBGW_COUNT) {
		b->len += n;
		return NULL;
	}
	if (n > b->cap - b->len) {
		if (b->mode == DBGW_FIXED || n > SIZE_MAX - b->len) {
			fail(b->w, -EOVERFLOW); /* the measured size was wrong */
			return NULL;
		}
		if (grow(b->w, (void **)&b->p, &b->cap, b->len + n) < 0)
			return NULL;
	}
	uint8_t *p = b->p + b->len;
	b->len += n;
	return p;
}

void dbgw_put(struct dbgw_buf *b, const void *src, size_t n)
{
	uint8_t *p = room(b, n);
	if (p && src)
		memcpy(p, src, n);
	else if (p)
		memset(p, 0, n);
}

void dbgw_u8(struct dbgw_buf *b, uint8_t v)
{
	dbgw_put(b, &v, 1);
}

void dbgw_u16(struct dbgw_buf *b, uint16_t v)
{
	uint8_t *p = room(b, 2);
	for (int i = 0; p && i < 2; i++)
		p[b->w->msb ? 1 - i : i] = (uint8_t)(v >> (8 * i));
}

void dbgw_u32(struct dbgw_buf *b, uint32_t v)
{
	uint8_t *p = room(b, 4);
	for (int i = 0; p && i < 4; i++)
		p[b->w->msb ? 3 - i : i] = (uint8_t)(v >> (8 * i));
}

void dbgw_u64(struct dbgw_buf *b, uint64_t v)
{
	uint8_t *p = room(b, 8);
	for (int i = 0; p && i < 8; i++)
		p[b->w->msb ? 7 - i : i] = (uint8_t)(v >> (8 * i));
}

void dbgw_addr(struct dbgw_buf *b, uint64_t v)
{
	if (b->w->is64)
		dbgw_u64(b, v);
	else
		dbgw_u32(b, (uint32_t)v);
}

void dbgw_uleb(struct dbgw_buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		dbgw_u8(b, v ? c | 0x80 : c);
	} while (v);
}

void dbgw_sleb(struct dbgw_buf *b, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;
		v >>= 7; /* arithmetic: gcc and clang shift signed values so */
		bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		dbgw_u8(b, done ? c : c | 0x80);
		if (done)
			return;
	}
}

void dbgw_pad(struct dbgw_buf *b, uint64_t align)
{
	if (align > 1 && (b->len & (align - 1)))
		dbgw_put(b, NULL, (size_t)(align - (b->len & (align - 1))));
}

/* ------------------------------------------------------------------ pools */

static const char *pool_name(const void *ctx, uint32_t id)
{
	const struct dbgw_pool *p = ctx;
	return (const char *)p->bytes.p + id - 1;
}

void dbgw_pool_init(struct dbgw_pool *p, struct pfelf_dbgw *w)
{
	memset(p, 0, sizeof(*p));
	dbgw_buf_init(&p->bytes, w, DBGW_GROW);
	dbgw_u8(&p->bytes, 0);
}

void dbgw_pool_free(struct dbgw_pool *p)
{
	dbgw_pool_trim(p);
	dbgw_buf_free(&p->bytes);
}

void dbgw_pool_trim(struct dbgw_pool *p)
{
	if (p->set.slot)
		dbgw_charge(p->bytes.w, -(int64_t)nameset_bytes(p->set_cap));
	nameset_free(&p->set);
	p->set_cap = p->n = 0;
	p->closed = true;
	dbgw_buf_trim(&p->bytes);
}

/* Room in the set for one more name: a new set of twice the size, the
 * old names added again. */
static int pool_room(struct dbgw_pool *p)
{
	struct pfelf_dbgw *w = p->bytes.w;
	if (p->n < p->set_cap)
		return 0;
	size_t cap = p->set_cap ? p->set_cap * 2 : 64;
	struct nameset s;
	int64_t delta = (int64_t)nameset_bytes(cap) - (int64_t)nameset_bytes(p->set_cap);
	if (!p->set.slot)
		delta = (int64_t)nameset_bytes(cap);
	if (dbgw_charge(w, delta) < 0) {
		fail(w, -EFBIG);
		return -EFBIG;
	}
	if (nameset_init(&s, cap) < 0) {
		dbgw_charge(w, -delta);
		fail(w, -ENOMEM);
		return -ENOMEM;
	}
	for (size_t i = 0; p->set.slot && i <= p->set.mask; i++)
		if (p->set.slot[i])
			nameset_add(&s, p->set.slot[i], pool_name, p);
	nameset_free(&p->set);
	p->set = s;
	p->set_cap = cap;
	return 0;
}

int dbgw_pool_add(struct dbgw_pool *p, const char *s, size_t len, uint32_t *off)
{
	struct pfelf_dbgw *w = p->bytes.w;
	*off = 0;
	if (p->closed) { /* trimmed for the file: no name is added after */
		fail(w, -EOVERFLOW);
		return w->err;
	}
	if (len == 0)
		return w->err;
	size_t nul = 0;
	for (size_t i = 0; i < len; i++)
		nul += s[i] == 0;
	size_t start = p->bytes.len, need = len + nul + 1;
	if (need > UINT32_MAX - 1 - start) {
		fail(w, -EFBIG); /* offsets are 32 bits in .strtab and DWARF */
		return -EFBIG;
	}
	if (pool_room(p) < 0)
		return w->err;
	for (size_t i = 0; i < len; i++) {
		if (s[i])
			dbgw_u8(&p->bytes, (uint8_t)s[i]);
		else
			dbgw_put(&p->bytes, "^@", 2);
	}
	dbgw_u8(&p->bytes, 0);
	if (w->err)
		return w->err;
	uint32_t id = nameset_find(&p->set, (const char *)p->bytes.p + start, pool_name, p);
	if (id) {
		p->bytes.len = start; /* kept already: forget the new copy */
		*off = id - 1;
		return 0;
	}
	nameset_add(&p->set, (uint32_t)start + 1, pool_name, p);
	p->n++;
	*off = (uint32_t)start;
	return 0;
}
