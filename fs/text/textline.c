/* One line of a generated text view: bounded writers, fields cut with a marker. */
#include "text/textline.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Room left before the newline. */
static size_t room(const struct linebuf *b)
{
	return TEXT_LINE_MAX - 1 - b->len;
}

void lb_printf(struct linebuf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b->p + b->len, room(b) + 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		b->len += (size_t)n < room(b) ? (size_t)n : room(b);
}

void lb_field_cut(struct linebuf *b, const char *s, size_t shown, size_t full)
{
	if (shown > TEXT_FIELD_MAX)
		shown = TEXT_FIELD_MAX;
	if (shown > room(b))
		shown = room(b);
	char *p = b->p + b->len, *end = p + shown;
	memcpy(p, s, shown);
	for (char *q = p; (q = memchr(q, '\n', (size_t)(end - q))); q++)
		*q = '?';
	for (char *q = p; (q = memchr(q, '\r', (size_t)(end - q))); q++)
		*q = '?';
	b->len += shown;
	if (full > shown)
		lb_printf(b, "...[cut, %zu bytes]", full);
}

void lb_field(struct linebuf *b, const char *s)
{
	size_t full = strlen(s);
	lb_field_cut(b, s, full, full);
}

int lb_end(struct linebuf *b)
{
	b->p[b->len++] = '\n';
	return (int)b->len;
}

void fb_add(struct fieldbuf *x, const char *s)
{
	size_t n = strlen(s);
	size_t k = n < TEXT_FIELD_MAX - x->shown ? n : TEXT_FIELD_MAX - x->shown;
	memcpy(x->buf + x->shown, s, k);
	x->shown += k;
	x->full += n;
}

/* Whether byte c is written as "^" and c + 0x40. */
static inline bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* Sixteen bytes at a time (GCC's generic vectors: SSE2 on x86-64, NEON on
 * AArch64, plain words elsewhere): a lane is all ones where its byte is a
 * control. A SWAR loop of 8 bytes, and before it strcspn with the 33
 * controls, made the text views of 64 KiB names 1.5-3x slower than strlen. */
typedef unsigned char bytes16 __attribute__((vector_size(16)));
typedef uint64_t words2 __attribute__((vector_size(16)));

/* Comparisons with scalars and a lane view of the mask, not memset and
 * memcpy of the constants: the same code at -O2, and at -O0 (the ASan
 * build) no call into the sanitizer's memset and memcpy per 16 bytes. */
static inline bool block_has_control(const unsigned char *s, uint64_t *lo, uint64_t *hi)
{
	bytes16 v;
	__builtin_memcpy(&v, s, 16);
	words2 m = (words2)((v < 0x20) | (v == 0x7f));
	*lo = m[0];
	*hi = m[1];
	return (*lo | *hi) != 0;
}

/* The number of control bytes (is_control) among the len bytes at s. */
static size_t count_controls(const unsigned char *s, size_t len)
{
	size_t n = 0, i = 0;
	uint64_t lo, hi;
	for (; i + 16 <= len; i += 16)
		if (block_has_control(s + i, &lo, &hi))
			n += (size_t)(__builtin_popcountll(lo) + __builtin_popcountll(hi)) / 8;
	for (; i < len; i++)
		n += is_control(s[i]);
	return n;
}

/* The length of the run of bytes at s (len of them) before the first
 * control byte (or len). */
static size_t plain_run(const unsigned char *s, size_t len)
{
	size_t i = 0;
	uint64_t lo, hi;
	while (i + 16 <= len && !block_has_control(s + i, &lo, &hi))
		i += 16;
	while (i < len && !is_control(s[i]))
		i++;
	return i;
}

size_t fb_add_shown(struct fieldbuf *x, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s), i = 0;
	/* shown: one byte each, two for a control (^ and the byte + 0x40) */
	size_t controls = count_controls(p, len), n = len + controls;
	if (!controls) { /* the name as it is: no run to look for */
		size_t room = TEXT_FIELD_MAX - x->shown, c = len < room ? len : room;
		memcpy(x->buf + x->shown, p, c);
		x->shown += c;
		x->full += n;
		return n;
	}
	/* the shown part in runs (an escape may be cut in two, as fb_add cuts) */
	while (i < len && x->shown < TEXT_FIELD_MAX) {
		size_t k = plain_run(p + i, len - i), room = TEXT_FIELD_MAX - x->shown;
		size_t c = k < room ? k : room;
		memcpy(x->buf + x->shown, p + i, c);
		x->shown += c;
		i += c;
		if (c < k || i >= len)
			break;
		x->buf[x->shown++] = '^'; /* p[i] is a control */
		if (x->shown < TEXT_FIELD_MAX)
			x->buf[x->shown++] = (char)(p[i] + 0x40);
		i++;
	}
	x->full += n;
	return n;
}

void lb_fieldbuf(struct linebuf *b, const struct fieldbuf *x)
{
	lb_field_cut(b, x->buf, x->shown, x->full);
}
