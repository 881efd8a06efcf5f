/*
 * The last lines of `info` that depend on which binary node shows the
 * view, not on the parse: "same build id: <path>" for every other file
 * with the build id of this one (copies, hard links) when this one is the
 * winner of the build-id index (docs/architecture.md, "Lines of info from
 * the index"). Two hard links share one parse and one indexed text; each
 * binary node gets its own tail, made at lookup (for the node's size)
 * and again at open (kept by the open file).
 *
 * A shared mount (-o allow_other) has none: the lines name paths below
 * directories other users may not search, and info is one text for every
 * caller. Its size is in the attributes the kernel keeps per inode for
 * the cache timeout and gives to every caller's stat, and its pages are
 * in the page cache one caller's read fills and another's reads without
 * asking the daemon: lines filtered per caller would need a size that is
 * wrong for some callers and no page cache (docs/architecture.md, "Lines
 * of info from the index").
 */
#include "content/info.h"
#include "buildid/buildid_index.h"
#include "node/nodes.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

struct same {
	char *text;
	size_t len, cap;
	uint64_t shown;
	int err;
};

/* One "same build id" line, while the tail stays within INFO_SAME_MAX. */
static int add_line(void *ctx, const char *path)
{
	struct same *s = ctx;
	char line[TEXT_LINE_MAX];
	struct linebuf b = {line, 0};
	lb_printf(&b, "same build id: ");
	lb_field(&b, path);
	size_t n = (size_t)lb_end(&b);
	if (s->len + n > INFO_SAME_MAX)
		return 1; /* the rest is counted in one line */
	if (s->len + n > s->cap) {
		size_t cap = s->cap ? s->cap : 256;
		while (cap < s->len + n)
			cap *= 2;
		char *t = realloc(s->text, cap);
		if (!t) {
			s->err = -ENOMEM;
			return 1;
		}
		s->text = t;
		s->cap = cap;
	}
	memcpy(s->text + s->len, line, n);
	s->len += n;
	s->shown++;
	return 0;
}

/* The path of binary node bin relative to the mount's root ("dir/name");
 * its length, -ENOENT for the root (a single-file mount), -ENAMETOOLONG. */
static int bin_path(const struct node *bin, char *buf, size_t size)
{
	int ret = node_source_path(bin, buf, size);
	return ret == 0 ? -ENOENT : ret;
}

static uint64_t hash_of(const char *p, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL; /* FNV-1a */
	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)p[i]) * 0x100000001b3ULL;
	return h ? h : 1;
}

int info_tail(struct node *bin, struct bview *v, struct infotail *t)
{
	memset(t, 0, sizeof(*t));
	const struct infoplan *p = view_core(v)->infoplan;
	if (!elffs.buildid || elffs.others || !bin || bin->kind != NK_BIN || !p ||
	    p->bid_ret != 1 || !bidx_walked())
		return 0; /* no index (yet), a shared mount, no id it would index, or an
		             archive's member */
	char *path = malloc(PATH_MAX);
	if (!path)
		return -ENOMEM;
	struct same s = {0};
	int ret = bin_path(bin, path, PATH_MAX);
	if (ret >= 0)
		ret = bidx_same(p->bid.id, p->bid.len, p->bid.debug, path, add_line, &s);
	free(path);
	if (s.err)
		ret = s.err;
	if (ret == -ENOENT || ret == -ENAMETOOLONG)
		ret = 0;
	if (ret > 0 && s.shown < (uint64_t)ret) {
		char line[TEXT_LINE_MAX];
		struct linebuf b = {line, 0};
		lb_printf(&b, "same build id: %" PRIu64 " more", (uint64_t)ret - s.shown);
		size_t n = (size_t)lb_end(&b);
		char *q = realloc(s.text, s.len + n);
		if (!q)
			ret = -ENOMEM;
		else {
			memcpy(q + s.len, line, n);
			s.text = q;
			s.len += n;
		}
	}
	if (ret < 0) {
		free(s.text);
		return ret;
	}
	t->text = s.text;
	t->len = s.len;
	t->hash = s.len ? hash_of(s.text, s.len) : 0;
	return 0;
}

void info_tail_free(struct infotail *t)
{
	free(t->text);
	memset(t, 0, sizeof(*t));
}
