/*
 * The data part of the walk: zero-copy references, copying reads and views
 * of a range, each compared byte for byte with the input; the errors of
 * ranges outside the file; views that outlive their handle.
 */
#include "walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define END_PIECE ((uint64_t)512) /* bytes compared at each end of a range past the budget */

/* Compare [off, off+len) of the input with the bytes at p. */
static void same_bytes(const struct walk *w, uint64_t off, const void *p, size_t len)
{
	WALK_CHECK(len == 0 || memcmp(p, w->data + off, len) == 0);
}

/* Compare len bytes at position pos of descriptor fd with the input. */
static void same_fd_bytes(struct walk *w, int fd, uint64_t pos, size_t len)
{
	while (len > 0) {
		size_t n = len < WALK_SCRATCH ? len : WALK_SCRATCH;
		ssize_t got = pread(fd, w->scratch, n, (off_t)pos);
		WALK_CHECK(got == (ssize_t)n);
		same_bytes(w, pos, w->scratch, n);
		pos += n;
		len -= n;
	}
}

/* pfelf_read of [off, off+len) in scratch-sized pieces. */
static void read_piece(struct walk *w, uint64_t off, size_t len)
{
	while (len > 0) {
		size_t n = len < WALK_SCRATCH ? len : WALK_SCRATCH;
		WALK_CHECK(pfelf_read(w->f, off, w->scratch, n) == (ssize_t)n);
		same_bytes(w, off, w->scratch, n);
		off += n;
		len -= n;
	}
}

/* Compare the piece [off, off+len) of a reference or view based at base. */
static void ref_piece(struct walk *w, const pfelf_ref *r, uint64_t base, uint64_t off, size_t len)
{
	if (r->ptr)
		same_bytes(w, off, (const uint8_t *)r->ptr + (off - base), len);
	else
		same_fd_bytes(w, r->fd, r->pos + (off - base), len);
}

/* The pieces of [off, off+len) to compare: all of it while the budget
 * lasts, else both ends. Calls fn(w, ctx, piece_off, piece_len). */
static void pieces(struct walk *w, uint64_t off, uint64_t len,
                   void (*fn)(struct walk *, const void *, uint64_t, size_t), const void *ctx)
{
	if (len <= w->budget) {
		w->budget -= (size_t)len;
		fn(w, ctx, off, (size_t)len);
		return;
	}
	uint64_t head = len < END_PIECE ? len : END_PIECE;
	fn(w, ctx, off, (size_t)head);
	uint64_t tail = len - head < END_PIECE ? len - head : END_PIECE;
	fn(w, ctx, off + len - tail, (size_t)tail);
}

struct ref_ctx {
	const pfelf_ref *ref;
	uint64_t base;
};

static void ref_fn(struct walk *w, const void *ctx, uint64_t off, size_t len)
{
	const struct ref_ctx *c = ctx;
	ref_piece(w, c->ref, c->base, off, len);
}

static void read_fn(struct walk *w, const void *ctx, uint64_t off, size_t len)
{
	read_piece(w, off, len);
}

/* A view of [off, off+len) with flags: check it, compare it, release it. */
static void walk_view(struct walk *w, uint64_t off, uint64_t len, unsigned flags)
{
	pfelf_view v;
	memset(&v, 0x5a, sizeof(v));
	int ret = pfelf_view_get(w->f, off, (size_t)len, flags, &v);
	bool copy = (flags & PFELF_VIEW_COPY) || w->backend == PFELF_BACKEND_PREAD;
	if (copy && len > PFELF_VIEW_MAX_COPY) {
		WALK_CHECK(ret == -E2BIG);
		return;
	}
	WALK_CHECK(ret == 0);
	WALK_CHECK(v.len == len && v.data != NULL && v.copied == copy);
	if (w->backend == PFELF_BACKEND_MEMORY && !copy)
		WALK_CHECK(v.data == w->data + (off < w->size ? off : w->size));
	pfelf_ref r = {.ptr = v.data, .fd = -1, .pos = off, .len = (size_t)len};
	struct ref_ctx c = {&r, off};
	pieces(w, off, len, ref_fn, &c);
	pfelf_view_release(&v);
	WALK_CHECK(v.data == NULL && v.len == 0);
	pfelf_view_release(&v); /* a released view is fine */
}

void walk_range(struct walk *w, uint64_t off, uint64_t len)
{
	pfelf_ref r;
	memset(&r, 0x5a, sizeof(r));
	WALK_CHECK(pfelf_get_ref(w->f, off, (size_t)len, &r) == 0);
	WALK_CHECK(r.len == len);
	/* An empty range anywhere refers to the end of the file. */
	uint64_t at = off < w->size ? off : w->size;
	if (w->backend == PFELF_BACKEND_PREAD)
		WALK_CHECK(r.ptr == NULL && r.fd >= 0 && r.pos == at);
	else
		WALK_CHECK(r.ptr != NULL && r.fd == -1);
	if (w->backend == PFELF_BACKEND_MEMORY)
		WALK_CHECK(r.ptr == w->data + at);
	struct ref_ctx c = {&r, off};
	pieces(w, off, len, ref_fn, &c);
	pieces(w, off, len, read_fn, NULL);
	walk_view(w, off, len, 0);
	walk_view(w, off, len, PFELF_VIEW_COPY);
	if (off + len == w->size) {
		/* One byte more is outside. */
		WALK_CHECK(pfelf_read(w->f, off, w->scratch, 0) == 0);
		WALK_CHECK(pfelf_get_ref(w->f, off, (size_t)len + 1, &r) == -EINVAL);
		pfelf_view v;
		WALK_CHECK(pfelf_view_get(w->f, off, (size_t)len + 1, 0, &v) == -EINVAL);
	}
	walk_mix(w, len);
}

void walk_bad_range(struct walk *w, uint64_t off, uint64_t len)
{
	pfelf_ref r;
	pfelf_view v;
	WALK_CHECK(pfelf_get_ref(w->f, off, (size_t)len, &r) == -EINVAL);
	WALK_CHECK(pfelf_view_get(w->f, off, (size_t)len, 0, &v) == -EINVAL);
	WALK_CHECK(pfelf_view_get(w->f, off, (size_t)len, PFELF_VIEW_COPY, &v) == -EINVAL);
	uint8_t b[1];
	WALK_CHECK(len > 0); /* empty ranges are never outside */
	WALK_CHECK(pfelf_read(w->f, off, b, 1) == (off < w->size ? 1 : -EINVAL));
	/* A scratch-sized read stays cheap even for a huge len. */
	size_t n = len < WALK_SCRATCH ? (size_t)len : WALK_SCRATCH;
	ssize_t ret = pfelf_read(w->f, off, w->scratch, n);
	bool inside = off <= w->size && n <= w->size - off;
	WALK_CHECK(inside ? ret == (ssize_t)n : ret == -EINVAL);
	if (inside)
		same_bytes(w, off, w->scratch, n);
}

/* Ranges at and past the ends of the file, and bad arguments. */
void walk_data_bounds(struct walk *w)
{
	uint8_t b[2];
	pfelf_ref r;
	pfelf_view v;
	WALK_CHECK(pfelf_read(w->f, w->size, b, 0) == 0);
	WALK_CHECK(pfelf_read(w->f, w->size, b, 1) == -EINVAL);
	WALK_CHECK(pfelf_read(w->f, w->size - 1, b, 2) == -EINVAL);
	WALK_CHECK(pfelf_read(w->f, UINT64_MAX, b, 1) == -EINVAL);
	WALK_CHECK(pfelf_read(w->f, 1, b, SIZE_MAX) == -EINVAL);
	WALK_CHECK(pfelf_read(w->f, 0, NULL, 1) == -EINVAL);
	WALK_CHECK(pfelf_read(w->f, w->size - 1, b, 1) == 1 && b[0] == w->data[w->size - 1]);
	WALK_CHECK(pfelf_get_ref(w->f, w->size, 0, &r) == 0 && r.len == 0);
	WALK_CHECK(pfelf_get_ref(w->f, w->size + 1, 0, &r) == 0 && r.len == 0);
	WALK_CHECK(pfelf_get_ref(w->f, UINT64_MAX, 0, &r) == 0 && r.len == 0);
	WALK_CHECK(pfelf_read(w->f, UINT64_MAX, b, 0) == 0);
	WALK_CHECK(pfelf_get_ref(w->f, w->size + 1, 1, &r) == -EINVAL);
	WALK_CHECK(pfelf_get_ref(w->f, UINT64_MAX, 2, &r) == -EINVAL);
	WALK_CHECK(pfelf_get_ref(w->f, 0, 0, NULL) == -EINVAL);
	WALK_CHECK(pfelf_view_get(w->f, 2, SIZE_MAX - 1, 0, &v) == -EINVAL);
	WALK_CHECK(pfelf_view_get(w->f, 0, 1, 0, NULL) == -EINVAL);
	WALK_CHECK(pfelf_view_get(w->f, w->size, 0, PFELF_VIEW_COPY, &v) == 0 && v.len == 0);
	pfelf_view_release(&v);
	pfelf_view_release(NULL);
	walk_range(w, 0, w->size < 64 ? w->size : 64);
}

/* Views of the whole file and of its header outlive the handle. */
void walk_views_after_close(pfelf_file *f, const uint8_t *data, size_t size)
{
	pfelf_view all, head;
	WALK_CHECK(pfelf_view_get(f, 0, size, 0, &all) == 0);
	WALK_CHECK(pfelf_view_get(f, 0, 16, PFELF_VIEW_COPY, &head) == 0 && head.copied);
	pfelf_close(f);
	WALK_CHECK(all.len == size && memcmp(all.data, data, size) == 0);
	WALK_CHECK(head.len == 16 && memcmp(head.data, data, 16) == 0);
	pfelf_view_release(&all);
	pfelf_view_release(&head);
}
