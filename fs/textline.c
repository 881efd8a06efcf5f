/* One line of a generated text view: bounded writers, fields cut with a marker. */
#include "textline.h"

#include <stdarg.h>
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

size_t fb_add_shown(struct fieldbuf *x, const char *s)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		size_t k = 0;
		while (p[k] >= 0x20 && p[k] != 0x7f)
			k++;
		if (k) {
			char run[64];
			size_t m = k < sizeof(run) - 1 ? k : sizeof(run) - 1;
			memcpy(run, p, m);
			run[m] = 0;
			fb_add(x, run);
			p += m;
			n += m;
			continue;
		}
		char esc[3] = {'^', (char)(*p + 0x40), 0};
		fb_add(x, esc);
		p++;
		n += 2;
	}
	return n;
}

void lb_fieldbuf(struct linebuf *b, const struct fieldbuf *x)
{
	lb_field_cut(b, x->buf, x->shown, x->full);
}
