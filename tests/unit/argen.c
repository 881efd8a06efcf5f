/* The ar writer of the archive tests (see argen.h). */
#include "argen.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct out {
	uint8_t *p;
	size_t len, cap;
	bool fail;
};

static void put(struct out *o, const void *s, size_t n)
{
	if (o->fail)
		return;
	if (n > o->cap - o->len) {
		size_t cap = o->cap ? o->cap : 4096;
		while (n > cap - o->len)
			cap *= 2;
		uint8_t *p = realloc(o->p, cap);
		if (!p) {
			o->fail = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
}

static void put_word(struct out *o, uint64_t v, unsigned w, bool be)
{
	uint8_t b[8];
	for (unsigned i = 0; i < w; i++)
		b[be ? w - 1 - i : i] = (uint8_t)(v >> (8 * i));
	put(o, b, w);
}

/* A 60-byte header: name field as given (padded with spaces). */
static void header(struct out *o, const char *name, uint64_t date, unsigned uid, unsigned gid,
                   unsigned mode, uint64_t size)
{
	char h[128];
	snprintf(h, sizeof(h), "%-16.16s%-12llu%-6u%-6u%-8o%-10llu`\n", name,
	         (unsigned long long)date, uid, gid, mode, (unsigned long long)size);
	put(o, h, 60);
}

static void pad(struct out *o, uint64_t size, char c)
{
	if (size & 1)
		put(o, &c, 1);
}

static size_t padded(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

/* BSD: does name go in a "#1/LEN" header; its padded length. */
static bool bsd_long(const char *name)
{
	return strlen(name) > 16 || strchr(name, ' ');
}

static uint8_t *finish(struct out *o, size_t *len)
{
	if (o->fail) {
		free(o->p);
		return NULL;
	}
	*len = o->len;
	return o->p;
}

static uint8_t *gnu(bool is64, const struct argen_member *m, size_t n, const struct argen_sym *s,
                    size_t ns, size_t *len, uint64_t *offsets)
{
	struct out o = {0};
	unsigned w = is64 ? 8 : 4;
	size_t idx = w + ns * w, tbl = 0;
	for (size_t i = 0; i < ns; i++)
		idx += strlen(s[i].name) + 1;
	for (size_t i = 0; i < n; i++)
		if (strlen(m[i].name) > 15)
			tbl += strlen(m[i].name) + 2;
	uint64_t *hoff = calloc(n + 1, sizeof(*hoff));
	size_t *tbloff = calloc(n + 1, sizeof(*tbloff));
	if (!hoff || !tbloff) {
		free(hoff);
		free(tbloff);
		return NULL;
	}
	uint64_t at = 8 + (ns ? 60 + padded(idx, 2) : 0) + (tbl ? 60 + padded(tbl, 2) : 0);
	size_t t = 0;
	for (size_t i = 0; i < n; i++) {
		hoff[i] = at;
		at += 60 + padded(m[i].len, 2);
		if (strlen(m[i].name) > 15) {
			tbloff[i] = t;
			t += strlen(m[i].name) + 2;
		}
	}
	put(&o, "!<arch>\n", 8);
	if (ns) {
		header(&o, is64 ? "/SYM64/" : "/", 0, 0, 0, 0, idx);
		put_word(&o, ns, w, true);
		for (size_t i = 0; i < ns; i++)
			put_word(&o, hoff[s[i].member], w, true);
		for (size_t i = 0; i < ns; i++)
			put(&o, s[i].name, strlen(s[i].name) + 1);
		pad(&o, idx, '\0');
	}
	if (tbl) {
		char h[128];
		snprintf(h, sizeof(h), "%-48s%-10zu`\n", "//", tbl);
		put(&o, h, 60);
		for (size_t i = 0; i < n; i++) {
			if (strlen(m[i].name) > 15) {
				put(&o, m[i].name, strlen(m[i].name));
				put(&o, "/\n", 2);
			}
		}
		pad(&o, tbl, '\n');
	}
	for (size_t i = 0; i < n; i++) {
		char name[32];
		if (strlen(m[i].name) > 15)
			snprintf(name, sizeof(name), "/%zu", tbloff[i]);
		else
			snprintf(name, sizeof(name), "%s/", m[i].name);
		header(&o, name, ARGEN_DATE(i), ARGEN_UID(i), ARGEN_GID(i), ARGEN_MODE(i),
		       m[i].len);
		put(&o, m[i].data, m[i].len);
		pad(&o, m[i].len, '\n');
	}
	if (offsets)
		memcpy(offsets, hoff, n * sizeof(*hoff));
	free(hoff);
	free(tbloff);
	return finish(&o, len);
}

static uint8_t *bsd(bool is64, const struct argen_member *m, size_t n, const struct argen_sym *s,
                    size_t ns, size_t *len, uint64_t *offsets)
{
	struct out o = {0};
	unsigned w = is64 ? 8 : 4;
	const char *symdef = is64 ? "__.SYMDEF_64 SORTED" : "__.SYMDEF SORTED";
	size_t symdef_len = 20; /* what binutils and Apple write: "#1/20" */
	size_t strsize = 0;
	for (size_t i = 0; i < ns; i++)
		strsize += strlen(s[i].name) + 1;
	strsize = padded(strsize, w);
	size_t idx = symdef_len + w + ns * 2 * w + w + strsize;
	uint64_t *hoff = calloc(n + 1, sizeof(*hoff));
	if (!hoff)
		return NULL;
	uint64_t at = 8 + (ns ? 60 + padded(idx, 2) : 0);
	for (size_t i = 0; i < n; i++) {
		hoff[i] = at;
		size_t nl = bsd_long(m[i].name) ? padded(strlen(m[i].name) + 1, 8) : 0;
		at += 60 + padded(nl + m[i].len, 2);
	}
	put(&o, "!<arch>\n", 8);
	if (ns) {
		char name[32];
		snprintf(name, sizeof(name), "#1/%zu", symdef_len);
		header(&o, name, 0, 0, 0, 0100644, idx);
		char zero[16] = {0};
		put(&o, symdef, strlen(symdef));
		put(&o, zero, symdef_len - strlen(symdef));
		put_word(&o, ns * 2 * w, w, false);
		size_t strx = 0;
		for (size_t i = 0; i < ns; i++) {
			put_word(&o, strx, w, false);
			put_word(&o, hoff[s[i].member], w, false);
			strx += strlen(s[i].name) + 1;
		}
		put_word(&o, strsize, w, false);
		for (size_t i = 0; i < ns; i++)
			put(&o, s[i].name, strlen(s[i].name) + 1);
		put(&o, zero, strsize - strx);
		pad(&o, idx, '\0');
	}
	for (size_t i = 0; i < n; i++) {
		char name[32];
		size_t nl = 0;
		if (bsd_long(m[i].name)) {
			nl = padded(strlen(m[i].name) + 1, 8);
			snprintf(name, sizeof(name), "#1/%zu", nl);
		} else {
			snprintf(name, sizeof(name), "%s", m[i].name);
		}
		header(&o, name, ARGEN_DATE(i), ARGEN_UID(i), ARGEN_GID(i), ARGEN_MODE(i),
		       nl + m[i].len);
		if (nl) {
			char zero[8] = {0};
			put(&o, m[i].name, strlen(m[i].name));
			put(&o, zero, nl - strlen(m[i].name));
		}
		put(&o, m[i].data, m[i].len);
		pad(&o, nl + m[i].len, '\n');
	}
	if (offsets)
		memcpy(offsets, hoff, n * sizeof(*hoff));
	free(hoff);
	return finish(&o, len);
}

uint8_t *argen_build(enum argen_format fmt, const struct argen_member *m, size_t n,
                     const struct argen_sym *s, size_t ns, size_t *len, uint64_t *offsets)
{
	if (fmt == ARGEN_GNU || fmt == ARGEN_GNU64)
		return gnu(fmt == ARGEN_GNU64, m, n, s, ns, len, offsets);
	return bsd(fmt == ARGEN_BSD64, m, n, s, ns, len, offsets);
}
