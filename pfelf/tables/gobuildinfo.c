/* The build info as `go version -m` (Go 1.19) prints it: the raw version
 * and module text (golang.c) parsed as runtime/debug.ParseBuildInfo parses
 * it and written back as BuildInfo.String writes it, each line after a
 * tab. Made once per handle, kept until pfelf_close(). */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

struct span {
	const char *p;
	size_t n;
};

/* A module line ("mod", "dep") and its replacement ("=>"), the fields
 * after the word, tab-separated. */
struct bi_mod {
	struct span line;
	struct span rep;
	bool has_rep;
};

struct bi {
	struct span path;
	struct bi_mod main;
	bool has_main;
	struct bi_mod *deps;
	size_t ndeps;
	struct span *builds; /* after "build\t" */
	size_t nbuilds;
};

static bool prefix(struct span l, const char *word, struct span *rest)
{
	size_t n = strlen(word);
	if (l.n < n || memcmp(l.p, word, n) != 0)
		return false;
	rest->p = l.p + n;
	rest->n = l.n - n;
	return true;
}

static size_t fields(struct span s)
{
	size_t n = 1;
	for (size_t i = 0; i < s.n; i++)
		n += s.p[i] == '\t';
	return n;
}

/* strconv's quoteKey and quoteValue: whether the text must be quoted. */
static bool needs_quote(const char *s, size_t n, bool key)
{
	if (key && n == 0)
		return true;
	for (size_t i = 0; i < n; i++)
		if (strchr(key ? "= \t\r\n\"`" : " \t\r\n\"`", s[i]) && s[i])
			return true;
	return false;
}

/* A build setting: its key and raw value (the text after '='), the key
 * unquoted into *key when it is quoted. 0, or -EINVAL as ParseBuildInfo. */
static int setting(struct span kv, struct pfelf__go_text *key, struct span *k, struct span *raw)
{
	if (kv.n == 0 || kv.p[0] == '=')
		return -EINVAL;
	if (kv.p[0] == '`' || kv.p[0] == '"') {
		int q = pfelf__go_quoted_prefix(kv.p, kv.n);
		if (q < 0 || (size_t)q == kv.n || kv.p[q] != '=')
			return -EINVAL;
		key->len = 0;
		pfelf__go_unquote(key, kv.p, (size_t)q);
		*k = (struct span){key->len ? key->p : "", key->len};
		*raw = (struct span){kv.p + q + 1, kv.n - (size_t)q - 1};
		return 0;
	}
	const char *eq = memchr(kv.p, '=', kv.n);
	if (!eq || needs_quote(kv.p, (size_t)(eq - kv.p), true))
		return -EINVAL;
	*k = (struct span){kv.p, (size_t)(eq - kv.p)};
	*raw = (struct span){eq + 1, kv.n - (size_t)(eq - kv.p) - 1};
	return 0;
}

/* The value of a setting unquoted into *val (raw when not quoted). */
static int value(struct span raw, struct pfelf__go_text *val, struct span *v)
{
	*v = raw;
	if (raw.n > 0 && (raw.p[0] == '`' || raw.p[0] == '"')) {
		val->len = 0;
		if (pfelf__go_unquote(val, raw.p, raw.n) < 0)
			return -EINVAL;
		*v = (struct span){val->len ? val->p : "", val->len};
	} else if (needs_quote(raw.p, raw.n, false)) {
		return -EINVAL;
	}
	return 0;
}

static int check_build(struct span kv)
{
	struct pfelf__go_text key = {0}, val = {0};
	struct span k, raw, v;
	int ret = setting(kv, &key, &k, &raw);
	if (ret == 0)
		ret = value(raw, &val, &v);
	if (key.oom || val.oom)
		ret = -ENOMEM;
	free(key.p);
	free(val.p);
	return ret;
}

/* One line into b (ParseBuildInfo's switch); *last is the module a "=>"
 * line replaces. */
static int parse_line(struct bi *b, struct span l, struct bi_mod **last)
{
	struct span r;
	if (prefix(l, "path\t", &r)) {
		b->path = r;
	} else if (prefix(l, "mod\t", &r) || prefix(l, "dep\t", &r)) {
		size_t n = fields(r);
		if (n != 2 && n != 3)
			return -EINVAL;
		*last = l.p[0] == 'm' ? &b->main : &b->deps[b->ndeps++];
		**last = (struct bi_mod){.line = r};
		b->has_main |= l.p[0] == 'm';
	} else if (prefix(l, "=>\t", &r)) {
		if (fields(r) != 3 || !*last)
			return -EINVAL;
		(*last)->rep = r;
		(*last)->has_rep = true;
		*last = NULL;
	} else if (prefix(l, "build\t", &r)) {
		int ret = check_build(r);
		if (ret < 0)
			return ret;
		b->builds[b->nbuilds++] = r;
	}
	return 0;
}

static int parse(struct bi *b, const char *mod, size_t len)
{
	size_t lines = 0;
	for (size_t i = 0; i < len; i++)
		lines += mod[i] == '\n';
	memset(b, 0, sizeof(*b));
	b->deps = malloc((lines + 1) * sizeof(*b->deps));
	b->builds = malloc((lines + 1) * sizeof(*b->builds));
	if (!b->deps || !b->builds)
		return -ENOMEM;
	struct bi_mod *last = NULL;
	const char *p = mod, *end = mod + len;
	const char *nl;
	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p)))) {
		int ret = parse_line(b, (struct span){p, (size_t)(nl - p)}, &last);
		if (ret < 0)
			return ret;
		p = nl + 1;
	}
	return 0;
}

/* "\t<word>\t<path>\t<version>" then "\t<sum>\n", or, when replaced,
 * "\n\t=>\t..." and the empty line Go 1.19's String writes after it. */
static void put_mod(struct pfelf__go_text *t, const char *word, struct span line, bool tail)
{
	size_t n = fields(line);
	pfelf__go_put(t, "\t", 1);
	pfelf__go_put(t, word, strlen(word));
	pfelf__go_put(t, "\t", 1);
	pfelf__go_put(t, line.p, line.n);
	if (n == 2 && tail)
		pfelf__go_put(t, "\t", 1); /* an empty sum */
}

static void put_module(struct pfelf__go_text *t, const char *word, const struct bi_mod *m)
{
	if (!m->has_rep) {
		put_mod(t, word, m->line, true);
		pfelf__go_put(t, "\n", 1);
		return;
	}
	struct span pv = m->line; /* path and version, without the sum */
	if (fields(pv) == 3)
		while (pv.p[--pv.n] != '\t')
			;
	put_mod(t, word, pv, false);
	pfelf__go_put(t, "\n", 1);
	put_mod(t, "=>", m->rep, true);
	pfelf__go_put(t, "\n\t\n", 3);
}

static void put_build(struct pfelf__go_text *t, struct span kv)
{
	struct pfelf__go_text key = {0}, val = {0};
	struct span k, raw, v;
	setting(kv, &key, &k, &raw); /* checked by check_build */
	value(raw, &val, &v);
	pfelf__go_put(t, "\tbuild\t", 7);
	if (needs_quote(k.p, k.n, true))
		pfelf__go_quote(t, k.p, k.n);
	else
		pfelf__go_put(t, k.p, k.n);
	pfelf__go_put(t, "=", 1);
	if (needs_quote(v.p, v.n, false))
		pfelf__go_quote(t, v.p, v.n);
	else
		pfelf__go_put(t, v.p, v.n);
	pfelf__go_put(t, "\n", 1);
	t->oom |= key.oom || val.oom;
	free(key.p);
	free(val.p);
}

/* Whether m is Go's zero Module: no path, version or sum, no replacement. */
static bool mod_empty(const struct bi_mod *m)
{
	return !m->has_rep && m->line.n == fields(m->line) - 1;
}

static void format(struct pfelf__go_text *t, const struct bi *b)
{
	if (b->path.n) {
		pfelf__go_put(t, "\tpath\t", 6);
		pfelf__go_put(t, b->path.p, b->path.n);
		pfelf__go_put(t, "\n", 1);
	}
	if (b->has_main && !mod_empty(&b->main))
		put_module(t, "mod", &b->main);
	for (size_t i = 0; i < b->ndeps; i++)
		put_module(t, "dep", &b->deps[i]);
	for (size_t i = 0; i < b->nbuilds; i++)
		put_build(t, b->builds[i]);
}

static int load_buildinfo(pfelf_file *f, void *ctx)
{
	(void)ctx;
	uint8_t *raw;
	const char *vers, *mod;
	size_t vlen, mlen;
	int ret = pfelf__go_raw_buildinfo(f, &raw, &vers, &vlen, &mod, &mlen);
	if (ret == -ENOENT)
		return 0; /* remembered: no build info */
	if (ret < 0)
		return ret;
	struct bi b;
	struct pfelf__go_text t = {0};
	ret = parse(&b, mod, mlen);
	if (ret == 0) {
		pfelf__go_put(&t, vers, vlen);
		pfelf__go_put(&t, "\n", 1);
		format(&t, &b);
		ret = t.oom ? -ENOMEM : 0;
	}
	free(b.deps);
	free(b.builds);
	free(raw);
	if (ret < 0) {
		free(t.p);
		return ret;
	}
	f->tables->gobi = t.p;
	f->tables->gobi_len = t.len;
	return 0;
}

PFELF_API int pfelf_go_buildinfo(pfelf_file *f, const char **text, size_t *len)
{
	int ret = pfelf__tables(f);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->gobi_state, load_buildinfo, NULL);
	if (ret < 0)
		return ret;
	if (!f->tables->gobi)
		return -ENOENT;
	*text = f->tables->gobi;
	*len = f->tables->gobi_len;
	return 0;
}
