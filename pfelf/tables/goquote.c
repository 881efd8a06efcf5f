/* Go's string literals as the build info's settings use them, with the
 * rules of Go 1.19's strconv: Unquote and QuotedPrefix of "..." and `...`
 * literals, Quote (printable runes kept, the others escaped), and UTF-8
 * decoded as unicode/utf8 decodes it (an invalid byte is one rune
 * U+FFFD). */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

#define RUNE_ERROR 0xfffdu

void pfelf__go_put(struct pfelf__go_text *t, const char *s, size_t n)
{
	if (t->oom)
		return;
	if (n >= t->cap - t->len || !t->p) {
		size_t cap = t->cap ? t->cap : 256;
		while (cap - t->len <= n)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (!p) {
			t->oom = true;
			return;
		}
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = 0;
}

/* The rune at s (n > 0 bytes) into *r: its length; 1 with RUNE_ERROR for
 * a byte that starts no valid UTF-8 sequence (utf8.DecodeRuneInString). */
static size_t decode_rune(const uint8_t *s, size_t n, uint32_t *r)
{
	uint8_t c = s[0];
	*r = RUNE_ERROR;
	if (c < 0x80) {
		*r = c;
		return 1;
	}
	size_t len = c >= 0xc2 && c <= 0xdf   ? 2
	             : c >= 0xe0 && c <= 0xef ? 3
	             : c >= 0xf0 && c <= 0xf4 ? 4
	                                      : 0;
	uint8_t lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	uint8_t hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (len == 0 || n < len || s[1] < lo || s[1] > hi)
		return 1;
	uint32_t v = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if (i > 1 && (s[i] < 0x80 || s[i] > 0xbf))
			return 1;
		v = v << 6 | (s[i] & 0x3f);
	}
	*r = v;
	return len;
}

/* r as UTF-8 into b: its length (utf8.EncodeRune: invalid runes as U+FFFD). */
static size_t encode_rune(uint32_t r, char b[4])
{
	if (r > 0x10ffff || (r >= 0xd800 && r <= 0xdfff))
		r = RUNE_ERROR;
	if (r < 0x80) {
		b[0] = (char)r;
		return 1;
	}
	size_t n = r < 0x800 ? 2 : r < 0x10000 ? 3 : 4;
	static const uint8_t lead[] = {0, 0, 0xc0, 0xe0, 0xf0};
	for (size_t i = n - 1; i > 0; i--, r >>= 6)
		b[i] = (char)(0x80 | (r & 0x3f));
	b[0] = (char)(lead[n] | r);
	return n;
}

static int unhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* One escape after the backslash at s[0] (n bytes from it) of a literal
 * quoted with q (strconv.UnquoteChar): its length, the rune in *r and
 * whether it is a rune or a byte (\x, octal) in *byte. -EINVAL when bad. */
static int escape(const char *s, size_t n, char q, uint32_t *r, bool *byte)
{
	static const char simple[] = "a\ab\bf\fn\nr\rt\tv\v\\\\";
	*byte = false;
	if (n < 2)
		return -EINVAL;
	const char *e = strchr(simple, s[1]);
	if (s[1] && e && (e - simple) % 2 == 0) {
		*r = (uint8_t)e[1];
		return 2;
	}
	if (s[1] == '\'' || s[1] == '"') {
		*r = (uint8_t)s[1];
		return s[1] == q ? 2 : -EINVAL;
	}
	size_t digits = s[1] == 'x' ? 2 : s[1] == 'u' ? 4 : s[1] == 'U' ? 8 : 0;
	bool octal = s[1] >= '0' && s[1] <= '7';
	if (octal)
		digits = 2;
	if (!digits || n - 2 < digits)
		return -EINVAL;
	uint32_t v = octal ? (uint32_t)(s[1] - '0') : 0;
	for (size_t i = 0; i < digits; i++) {
		int d = octal ? (s[2 + i] >= '0' && s[2 + i] <= '7' ? s[2 + i] - '0' : -1)
		              : unhex(s[2 + i]);
		if (d < 0)
			return -EINVAL;
		v = octal ? v << 3 | (uint32_t)d : v << 4 | (uint32_t)d;
	}
	if ((octal && v > 255) ||
	    (!octal && s[1] != 'x' && (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))))
		return -EINVAL;
	*r = v;
	*byte = octal || s[1] == 'x';
	return (int)(2 + digits);
}

/* The literal at s: its length, its value appended to t when t is not
 * NULL; -EINVAL when s does not start with one (strconv's unquote). */
static int literal(struct pfelf__go_text *t, const char *s, size_t n)
{
	if (n < 2 || (s[0] != '"' && s[0] != '`'))
		return -EINVAL;
	const char *end = memchr(s + 1, s[0], n - 1);
	if (s[0] == '`') { /* raw: carriage returns dropped, nothing else */
		if (!end)
			return -EINVAL;
		for (const char *p = s + 1; t && p < end; p++)
			if (*p != '\r')
				pfelf__go_put(t, p, 1);
		return (int)(end - s + 1);
	}
	size_t i = 1;
	while (i < n && s[i] != '"') {
		uint32_t r;
		bool byte = false;
		int k;
		if (s[i] == '\n')
			return -EINVAL;
		if (s[i] == '\\')
			k = escape(s + i, n - i, '"', &r, &byte);
		else
			k = (int)decode_rune((const uint8_t *)s + i, n - i, &r);
		if (k < 0)
			return k;
		char b[4];
		if (t && byte)
			pfelf__go_put(t, (const char *)&(uint8_t){(uint8_t)r}, 1);
		else if (t)
			pfelf__go_put(t, b, encode_rune(r, b));
		i += (size_t)k;
	}
	return i < n ? (int)i + 1 : -EINVAL;
}

int pfelf__go_unquote(struct pfelf__go_text *t, const char *s, size_t n)
{
	int k = literal(NULL, s, n);
	if (k < 0 || (size_t)k != n)
		return -EINVAL;
	literal(t, s, n);
	return 0;
}

int pfelf__go_quoted_prefix(const char *s, size_t n)
{
	return literal(NULL, s, n);
}

void pfelf__go_quote(struct pfelf__go_text *t, const char *s, size_t n)
{
	static const char hex[] = "0123456789abcdef";
	static const char named[] = "\aa\bb\ff\nn\rr\tt\vv";
	pfelf__go_put(t, "\"", 1);
	for (size_t i = 0; i < n;) {
		uint32_t r;
		size_t k = decode_rune((const uint8_t *)s + i, n - i, &r);
		char b[12];
		const char *e = r && r < 0x80 ? strchr(named, (int)r) : NULL;
		if (k == 1 && r == RUNE_ERROR) {
			b[0] = '\\', b[1] = 'x', b[2] = hex[(uint8_t)s[i] >> 4],
			b[3] = hex[(uint8_t)s[i] & 15];
			pfelf__go_put(t, b, 4);
		} else if (r == '"' || r == '\\') {
			b[0] = '\\', b[1] = (char)r;
			pfelf__go_put(t, b, 2);
		} else if (pfelf__go_isprint(r)) {
			pfelf__go_put(t, s + i, k);
		} else if (e && (e - named) % 2 == 0) {
			b[0] = '\\', b[1] = e[1];
			pfelf__go_put(t, b, 2);
		} else {
			int digits = r < ' ' || r == 0x7f ? 2 : r < 0x10000 ? 4 : 8;
			b[0] = '\\', b[1] = digits == 2 ? 'x' : digits == 4 ? 'u' : 'U';
			for (int d = 0; d < digits; d++)
				b[2 + d] = hex[(r >> (4 * (digits - 1 - d))) & 15];
			pfelf__go_put(t, b, 2 + (size_t)digits);
		}
		i += k;
	}
	pfelf__go_put(t, "\"", 1);
}
