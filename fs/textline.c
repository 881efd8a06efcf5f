/* One line of a generated text view: bounded writers, fields cut with a marker. */
#include "textline.h"

#include <stdarg.h>
#include <stdbool.h>
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

size_t fb_add_shown(struct fieldbuf *x, const char *s)
{
	static const char controls[] = "\001\002\003\004\005\006\007\010\011\012\013\014\015"
	                               "\016\017\020\021\022\023\024\025\026\027\030\031\032"
	                               "\033\034\035\036\037\177";
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	/* the shown part, byte by byte (an escape may be cut in two, as fb_add cuts) */
	for (; *p && x->shown < TEXT_FIELD_MAX; p++) {
		if (is_control(*p)) {
			x->buf[x->shown++] = '^';
			if (x->shown < TEXT_FIELD_MAX)
				x->buf[x->shown++] = (char)(*p + 0x40);
			n += 2;
		} else {
			x->buf[x->shown++] = (char)*p;
			n++;
		}
	}
	/* the rest is only counted, by libc's strcspn (a 64 KiB name of each of
	 * 20,000 symbols must cost little more than its strlen) */
	for (const char *q = (const char *)p; *q;) {
		size_t k = strcspn(q, controls);
		n += k;
		q += k;
		if (*q) {
			n += 2;
			q++;
		}
	}
	x->full += n;
	return n;
}

void lb_fieldbuf(struct linebuf *b, const struct fieldbuf *x)
{
	lb_field_cut(b, x->buf, x->shown, x->full);
}
