/* A binary's `debug` link and its info lines (debugview.h). */
#include "content/debugview.h"
#include "buildid/debugsel.h"
#include "content/gotables.h"
#include "content/minidbg.h"
#include "node/namekey.h"
#include "node/nodes.h"
#include "text/textline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one binary's choice needs: its facts, the choice, its path. */
struct choice {
	struct dfacts f;
	struct dsel s;
	char path[PATH_MAX];
};

/* The path in SOURCE of binary node bin into buf, or NULL when it has no
 * place there that a link could lead from (a single-file mount, a remote
 * view, a nested view's directory). */
static const char *bin_path(const struct node *bin, char *buf, size_t size)
{
	if (!bin || bin->kind != NK_BIN || !bin->parent || !node_is_source(bin->parent))
		return NULL;
	return node_source_path(bin, buf, size) > 0 ? buf : NULL;
}

/* Whether minidebuginfo.debug can be made: its stream decoded when looked
 * at (once per core, minidbg_check), else what an earlier check or make
 * said. */
static void mini_fact(struct bview *v, bool look, struct dfacts *f)
{
	if (!f->mini)
		return;
	f->mini_err = look ? minidbg_check(v) : minidbg_error(v);
	f->mini = f->mini_err == 0;
}

/* Whether go/debug is there: its pclntab read when looked at (once per
 * core, goview_get), else what is known (a table not read yet most likely
 * holds together). */
static void go_fact(struct bview *v, bool look, struct dfacts *f)
{
	struct vcore *c = view_core(v);
	const struct goview *g = NULL;
	int ret = 0;
	if (!f->go)
		return;
	if (look) {
		ret = goview_get(v, &g);
	} else {
		pthread_mutex_lock(&c->lazy_lock);
		ret = c->gov && c->gov->loaded ? c->gov->table_err : 0;
		pthread_mutex_unlock(&c->lazy_lock);
	}
	if (ret == 0 && g)
		ret = g->table_err;
	f->go_err = ret;
	f->go = ret == 0;
}

/* The choice of binary node bin (v: its pinned view), looked at or
 * peeked at, into *out (malloc'd): 0; -ENOENT (v is no binary's own
 * view), -ENOMEM, -EFBIG (the binary's tables are over the budget). */
static int choose(const struct node *bin, struct bview *v, bool look, struct choice **out)
{
	if (!v || !v->f || v->outer || !bin || bin->kind != NK_BIN)
		return -ENOENT;
	struct choice *c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	struct vcore *core = view_core(v);
	pthread_mutex_lock(&core->lazy_lock);
	int ret = view_charge_meta(core); /* the debug link is one of pfelf's tables */
	pthread_mutex_unlock(&core->lazy_lock);
	const char *path = bin_path(bin, c->path, sizeof(c->path));
	if (ret == 0)
		ret = dsel_facts(v->f, path, false, &c->f);
	if (ret == 0)
		mini_fact(v, look, &c->f);
	if (ret == 0)
		go_fact(v, look, &c->f);
	if (ret == 0)
		ret = dsel_resolve(&c->f, look, path ? DS_BUILDID : DS_MINI, &c->s);
	if (ret < 0) {
		free(c);
		return ret;
	}
	*out = c;
	return 0;
}

bool debug_listed(const struct bview *v)
{
	struct choice *c = NULL;
	if (v)
		choose(v->root, (struct bview *)v, false, &c); /* peeks only */
	/* a debug link's file whose CRC is not checked yet most likely serves;
	 * a build id not looked up yet most likely does not (most binaries'
	 * debug files are elsewhere) */
	bool listed = c && (c->s.pick != DS_NSRC || c->s.st[DS_DEBUGLINK] == DST_UNKNOWN);
	free(c);
	return listed;
}

bool debug_fixed(const struct bview *v)
{
	struct choice *c = NULL;
	int ret = v ? choose(v->root, (struct bview *)v, false, &c) : -EINVAL;
	/* -ENOENT: a nested view, or no binary's own: debug is never listed */
	bool fixed = ret == -ENOENT || (ret == 0 && c->f.idlen == 0 && !c->f.link[0] &&
	                                !c->f.link_long && !c->f.mini && !c->f.go);
	free(c);
	return fixed;
}

int debug_link(struct node *bin, struct bview *v, char *buf, size_t size)
{
	struct choice *c;
	int n = choose(bin, v, true, &c);
	if (n < 0)
		return n;
	n = dsel_target(&c->s, &c->f, false, buf, size);
	free(c);
	return n;
}

int debug_readlink(struct node *n, struct bview *v, char *buf, size_t size, char *src)
{
	struct choice *c;
	int len = choose(node_vroot(n), v, true, &c);
	if (len < 0)
		return len;
	len = dsel_target(&c->s, &c->f, false, buf, size);
	const char *file = dsel_source_file(&c->s);
	snprintf(src, PATH_MAX, "%s", file ? file : "");
	free(c);
	if (len >= 0 && ((uint64_t)len != n->size || name_key(buf) != n->aux))
		len = -ENOENT; /* it leads elsewhere now: the kernel looks it up again */
	return len;
}

/* ---------------------------------------------------------- info lines */

static const char *const what[DS_NSRC] = {"build id", "debuginfod", "debuglink", DSEL_MINI_NAME,
                                          DSEL_GO_NAME};

/* "debug: ..." for the choice s into b. */
static void served_line(const struct dsel *s, struct linebuf *b)
{
	lb_printf(b, "debug: %s",
	          s->undecided ? "undecided (a lookup of debug decides), else " : "");
	if (s->pick == DS_NSRC)
		lb_printf(b, "none");
	else if (s->pick >= DS_MINI)
		lb_printf(b, "%s", what[s->pick]);
	else {
		lb_printf(b, "%s: ", what[s->pick]);
		lb_field(b, s->where);
	}
	lb_end(b);
}

/* Append the line of b to the tail's text (len bytes so far, cap). */
static int append(char **text, size_t *len, size_t *cap, const struct linebuf *b)
{
	if (*len + b->len + 1 > *cap) {
		size_t want = (*len + b->len + 1) * 2;
		char *t = realloc(*text, want);
		if (!t)
			return -ENOMEM;
		*text = t;
		*cap = want;
	}
	memcpy(*text + *len, b->p, b->len);
	*len += b->len;
	(*text)[*len] = '\0';
	return 0;
}

/* Whether no source applies to the binary at all (no build id, debug
 * link or MiniDebugInfo...): info then says nothing of debug. */
static bool nothing(const struct dsel *s)
{
	for (unsigned k = 0; k < DS_NSRC; k++)
		if (s->st[k] != DST_NONE)
			return false;
	return true;
}

/* The debug lines of s after the len bytes of *text. */
static int debug_lines(const struct dsel *s, char **text, size_t *len, size_t *cap)
{
	char line[TEXT_LINE_MAX];
	struct linebuf b = {line, 0};
	if (nothing(s))
		return 0;
	served_line(s, &b);
	int ret = append(text, len, cap, &b);
	for (unsigned k = 0; ret == 0 && k < DS_NSRC && k < (unsigned)s->pick + 1; k++) {
		if (k == (unsigned)s->pick || (s->st[k] != DST_NO && s->st[k] != DST_UNKNOWN))
			continue;
		b = (struct linebuf){line, 0};
		lb_printf(&b, "debug not taken: ");
		lb_field(&b, s->why[k]);
		lb_end(&b);
		ret = append(text, len, cap, &b);
	}
	return ret;
}

int info_node_tail(struct node *bin, struct bview *v, struct infotail *t)
{
	int ret = info_tail(bin, v, t);
	if (ret < 0 || !bin || bin->kind != NK_BIN || !v->f || v->outer || v->refused)
		return ret; /* a refused header's info is its one error line */
	struct choice *c = NULL;
	size_t len = 0, cap = 0;
	char *text = NULL;
	ret = choose(bin, v, false, &c);
	if (ret == 0)
		ret = debug_lines(&c->s, &text, &len, &cap);
	free(c);
	if (ret == 0 && !text && !t->len)
		return 0;       /* no line at all */
	if (ret == 0 && t->len) /* the "same build id" lines stay the last ones */
		ret = append(&text, &len, &cap, &(struct linebuf){t->text, t->len});
	info_tail_free(t);
	if (ret < 0) {
		free(text);
		return ret;
	}
	t->text = text;
	t->len = len;
	t->hash = name_key(text); /* the whole tail's: the same lines, the same node */
	return 0;
}
