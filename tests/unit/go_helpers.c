/* Helpers of the Go tests (see go_helpers.h). */
#include "go_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct tg_fixture *fixtures;
static size_t nfixtures;
static bool loaded;

static const char *dir(void)
{
	const char *d = getenv("ELFFS_GO_FIXTURES");
	if (!d)
		fail_msg("ELFFS_GO_FIXTURES is not set");
	return d;
}

const char *tg_path(const char *name)
{
	return tb_keep_path(dir(), name);
}

char *tg_slurp(const char *name, size_t *len)
{
	size_t n;
	char *p = tb_slurp(tg_path(name), &n);
	char *s = realloc(p, n + 1);
	assert_non_null(s);
	s[n] = 0;
	if (len)
		*len = n;
	return s;
}

static void load(void)
{
	size_t len;
	char *text = tg_slurp("MANIFEST", &len);
	size_t cap = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		char name[256], kind[32], twin[512];
		if (sscanf(line, "%255s %31s %511s", name, kind, twin) != 3)
			fail_msg("MANIFEST: bad line %s", line);
		if (nfixtures == cap) {
			cap = cap ? 2 * cap : 64;
			fixtures = realloc(fixtures, cap * sizeof(*fixtures));
			assert_non_null(fixtures);
		}
		fixtures[nfixtures++] =
		        (struct tg_fixture){strdup(name), strdup(kind), strdup(twin)};
	}
	free(text);
	loaded = true;
}

size_t tg_fixtures(const struct tg_fixture **out)
{
	if (!loaded)
		load();
	if (nfixtures == 0) {
		print_message("no Go fixtures (the machine has no go tool)\n");
		skip();
	}
	*out = fixtures;
	return nfixtures;
}

const struct tg_fixture *tg_fixture(const char *name)
{
	const struct tg_fixture *f;
	size_t n = tg_fixtures(&f);
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	fail_msg("Go fixture %s is not in MANIFEST", name);
	return NULL;
}

char *tg_oracle(const char *args, const char *input, size_t inlen, size_t *len)
{
	char *in = tb_write_tmp("oracle-input", input ? input : "", input ? inlen : 0);
	char *qdir = tb_shell_quote(dir()), *qin = tb_shell_quote(in);
	char *cmd;
	if (asprintf(&cmd, "cd %s && ./oracle %s < %s", qdir, args, qin) < 0)
		fail_msg("asprintf");
	char *out = tb_run(cmd, len);
	unlink(in);
	free(cmd);
	free(qdir);
	free(qin);
	free(in);
	return out;
}

int tg_width(pfelf_file *f)
{
	return pfelf_header(f)->elfclass == 2 ? 16 : 8;
}

void tg_func_line(struct tg_text *t, int width, const pfelf_go_func *fn, const pfelf_go_pos *pos)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%0*llx\t%0*llx\t", width, (unsigned long long)fn->entry,
	                 width, (unsigned long long)fn->end);
	tg_put(t, b, (size_t)n);
	tg_put(t, fn->name.str, fn->name.len);
	tg_put(t, "\t", 1);
	tg_put(t, pos->file.str, pos->file.len);
	n = snprintf(b, sizeof(b), ":%d\n", pos->line);
	tg_put(t, b, (size_t)n);
}

void tg_pc_line(struct tg_text *t, int width, uint64_t pc, const pfelf_go_func *fn,
                const char *file, int32_t line)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "%0*llx\t", width, (unsigned long long)pc);
	tg_put(t, b, (size_t)n);
	if (!fn) {
		tg_put(t, "-\n", 2);
		return;
	}
	tg_put(t, fn->name.str, fn->name.len);
	tg_put(t, "\t", 1);
	tg_put(t, file, strlen(file));
	n = snprintf(b, sizeof(b), ":%d\n", line);
	tg_put(t, b, (size_t)n);
}

void tg_same_lines(const char *what, const char *got, const char *want)
{
	size_t line = 1;
	const char *g = got, *w = want;
	while (*g && *w) {
		size_t gl = strcspn(g, "\n"), wl = strcspn(w, "\n");
		if (gl != wl || memcmp(g, w, gl) != 0)
			fail_msg("%s: line %zu differs:\n  pfelf: %.*s\n  Go:    %.*s", what, line,
			         (int)gl, g, (int)wl, w);
		g += gl + (g[gl] == '\n');
		w += wl + (w[wl] == '\n');
		line++;
	}
	if (*g || *w)
		fail_msg("%s: %s has more lines from line %zu: %.80s", what, *g ? "pfelf" : "Go",
		         line, *g ? g : w);
}

void tg_put(struct tg_text *t, const char *s, size_t n)
{
	if (t->cap - t->len <= n) {
		while (t->cap - t->len <= n)
			t->cap = t->cap ? 2 * t->cap : 1 << 16;
		t->p = realloc(t->p, t->cap);
		assert_non_null(t->p);
	}
	memcpy(t->p + t->len, s, n);
	t->len += n;
	t->p[t->len] = 0;
}
