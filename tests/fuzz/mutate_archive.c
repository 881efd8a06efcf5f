/*
 * LLVMFuzzerCustomMutator for fuzz_archive: the input's member headers are
 * found (each size field read as the archive reader would, up to 256
 * headers) and one of them, the "//" table or the symbol index is changed:
 * a numeric field set to a boundary value (0, 1, the value ±1, the bytes
 * left, 10 nines, blank, a sign, a letter), the name set to a special
 * member's or to "/N" or "#1/N" near the table's or member's size, the
 * header magic broken, an index count or offset set to another header's
 * offset ±1 or a huge value, a name table's '\n' or NUL removed, the file
 * cut at or near a header, a member copied to the end, the magic switched
 * between "!<arch>" and "!<thin>". One time in eight libFuzzer's byte
 * mutator does the work.
 */
#include "fuzz.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_HDRS 256

struct rng64 {
	uint64_t s;
};

static uint64_t next(struct rng64 *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s;
}

static uint64_t below(struct rng64 *r, uint64_t n)
{
	return n ? next(r) % n : 0;
}

struct hdrs {
	uint64_t off[MAX_HDRS];
	uint64_t size[MAX_HDRS];
	unsigned n;
};

static uint64_t field_num(const uint8_t *p, size_t w, unsigned base)
{
	uint64_t v = 0;
	for (size_t i = 0; i < w && p[i] >= '0' && p[i] < '0' + base; i++)
		v = v * base + (uint64_t)(p[i] - '0');
	return v;
}

static void find_hdrs(const uint8_t *d, size_t size, struct hdrs *h)
{
	h->n = 0;
	uint64_t off = 8;
	bool thin = size >= 8 && memcmp(d, "!<thin>\n", 8) == 0;
	while (h->n < MAX_HDRS && off + 60 <= size) {
		uint64_t sz = field_num(d + off + 48, 10, 10);
		h->off[h->n] = off;
		h->size[h->n++] = sz;
		bool special = d[off] == '/' && !(d[off + 1] >= '0' && d[off + 1] <= '9');
		uint64_t step = thin && !special ? 0 : sz + (sz & 1);
		if (step > size)
			break;
		off += 60 + step;
	}
}

/* Write text into a field of width w, left-justified, space padded. */
static void set_field(uint8_t *p, size_t w, const char *text)
{
	memset(p, ' ', w);
	size_t n = strlen(text);
	memcpy(p, text, n < w ? n : w);
}

static const struct {
	unsigned off, w, base;
} fields[] = {{16, 12, 10}, {28, 6, 10}, {34, 6, 10}, {40, 8, 8}, {48, 10, 10}};

static void mut_number(struct rng64 *r, uint8_t *d, size_t size, const struct hdrs *h)
{
	uint64_t at = h->off[below(r, h->n)];
	unsigned f = (unsigned)below(r, 5);
	if (below(r, 2))
		f = 4; /* the size field most often */
	uint8_t *p = d + at + fields[f].off;
	uint64_t cur = field_num(p, fields[f].w, fields[f].base);
	uint64_t left = size - at - 60;
	char text[32];
	switch (below(r, 9)) {
	case 0:
		snprintf(text, sizeof(text), "0");
		break;
	case 1:
		snprintf(text, sizeof(text), "1");
		break;
	case 2:
		snprintf(text, sizeof(text), "%llu", (unsigned long long)cur + 1);
		break;
	case 3:
		snprintf(text, sizeof(text), "%llu", (unsigned long long)(cur ? cur - 1 : 0));
		break;
	case 4:
		snprintf(text, sizeof(text), "%llu", (unsigned long long)left + below(r, 3));
		break;
	case 5:
		snprintf(text, sizeof(text), "9999999999");
		break;
	case 6:
		text[0] = '\0';
		break;
	case 7:
		snprintf(text, sizeof(text), "-%llu", (unsigned long long)below(r, 100));
		break;
	default:
		snprintf(text, sizeof(text), "%llu%c", (unsigned long long)cur,
		         "x 8:/\0"[below(r, 6)]);
		break;
	}
	set_field(p, fields[f].w, text);
}

/* The size of the "//" table, when the input has one among its headers. */
static uint64_t table_size(const uint8_t *d, const struct hdrs *h)
{
	for (unsigned i = 0; i < h->n; i++)
		if (memcmp(d + h->off[i], "//  ", 4) == 0)
			return h->size[i];
	return 64;
}

static void mut_name(struct rng64 *r, uint8_t *d, size_t size, const struct hdrs *h)
{
	unsigned i = (unsigned)below(r, h->n);
	uint8_t *p = d + h->off[i];
	static const char *const special[] = {
	        "/",     "//",          "/SYM64/", "__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64",
	        "#1/20", "ARFILENAMES/"};
	char text[32];
	uint64_t t = table_size(d, h);
	switch (below(r, 6)) {
	case 0:
		set_field(p, 16, special[below(r, sizeof(special) / sizeof(special[0]))]);
		return;
	case 1: /* a long-name reference near the table's end */
		snprintf(text, sizeof(text), "/%llu", (unsigned long long)(t + below(r, 5) - 2));
		break;
	case 2:
		snprintf(text, sizeof(text), "/%llu", (unsigned long long)below(r, t + 1));
		break;
	case 3: /* a BSD name near the member's size */
		snprintf(text, sizeof(text), "#1/%llu",
		         (unsigned long long)(h->size[i] + below(r, 5) - 2));
		break;
	case 4:
		snprintf(text, sizeof(text), "#1/%llu", (unsigned long long)below(r, 40));
		break;
	default: /* a short name without its end, or with a NUL */
		for (unsigned k = 0; k < 16; k++)
			p[k] = (uint8_t) "abcdefghijklmno/"[below(r, 16)];
		if (below(r, 2))
			p[below(r, 16)] = 0;
		return;
	}
	(void)size;
	set_field(p, 16, text);
}

static void put_be(uint8_t *p, unsigned w, uint64_t v)
{
	for (unsigned i = 0; i < w; i++)
		p[w - 1 - i] = (uint8_t)(v >> (8 * i));
}

/* The GNU symbol index (first header "/" or "/SYM64/"): count or an offset. */
static void mut_index(struct rng64 *r, uint8_t *d, size_t size, const struct hdrs *h)
{
	uint64_t at = h->off[0];
	unsigned w = memcmp(d + at, "/SYM64/", 7) == 0 ? 8 : 4;
	uint64_t data = at + 60, len = h->size[0];
	if (len > size - data)
		len = size - data;
	if (len < w)
		return;
	uint64_t count = 0;
	for (unsigned i = 0; i < w; i++)
		count = count << 8 | d[data + i];
	uint64_t v;
	switch (below(r, 5)) {
	case 0:
		v = count + below(r, 3) - 1;
		break;
	case 1:
		v = below(r, 2) ? UINT64_MAX >> (64 - 8 * w) : (len - w) / w;
		break;
	case 2:
		v = h->off[below(r, h->n)] + below(r, 3) - 1;
		break;
	default:
		v = below(r, size + 1);
		break;
	}
	uint64_t slot = below(r, 2) || count == 0 ? 0 : 1 + below(r, count);
	if (slot * w + w <= len)
		put_be(d + data + slot * w, w, v);
	else
		put_be(d + data, w, v);
}

/* A byte of a table (index strings, "//" names): '\n', '/' or NUL changed. */
static void mut_table(struct rng64 *r, uint8_t *d, size_t size, const struct hdrs *h)
{
	unsigned i = (unsigned)below(r, h->n < 2 ? h->n : 2);
	uint64_t data = h->off[i] + 60, len = h->size[i];
	if (data >= size)
		return;
	if (len > size - data)
		len = size - data;
	for (unsigned tries = 0; tries < 16 && len; tries++) {
		uint64_t k = data + below(r, len);
		if (d[k] == '\n' || d[k] == '/' || d[k] == 0) {
			d[k] = (uint8_t) "A\n/\0"[below(r, 4)];
			return;
		}
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct rng64 r = {seed * 0x9e3779b97f4a7c15ull + 1};
	struct hdrs h;
	if (size < 8 || below(&r, 8) == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	find_hdrs(data, size, &h);
	if (h.n == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	switch (below(&r, 9)) {
	case 0:
	case 1:
		mut_number(&r, data, size, &h);
		return size;
	case 2:
	case 3:
		mut_name(&r, data, size, &h);
		return size;
	case 4:
		mut_index(&r, data, size, &h);
		return size;
	case 5:
		mut_table(&r, data, size, &h);
		return size;
	case 6: { /* cut at or near a header */
		uint64_t at = h.off[below(&r, h.n)] + below(&r, 64);
		return at < size ? (size_t)at : size;
	}
	case 7: { /* copy a header and its bytes to the end */
		unsigned i = (unsigned)below(&r, h.n);
		uint64_t len = 60 + h.size[i] + (h.size[i] & 1);
		if (h.off[i] + len > size || len > max_size - size)
			return size;
		memcpy(data + size, data + h.off[i], (size_t)len);
		return size + (size_t)len;
	}
	default:
		if (below(&r, 4) == 0)
			data[58 + h.off[below(&r, h.n)]] = 'X';
		else
			memcpy(data, below(&r, 2) ? "!<thin>\n" : "!<arch>\n", 8);
		return size;
	}
}
