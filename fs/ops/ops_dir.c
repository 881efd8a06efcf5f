/*
 * opendir, readdir, readdirplus, releasedir: served from the listing
 * opendir made (dirlist.h: a snapshot of a SOURCE or index directory, or
 * the names of a binary's view taken at each call). readdirplus gives the
 * entries of a SOURCE directory with their node and attributes (the lstat
 * the snapshot took to classify them), so that `ls -l` needs no LOOKUP per
 * entry. The entries of a binary's directories come with theirs only where
 * the daemon has a node for the name already (the kernel looked it up
 * before, and holds it): a second walk then needs no LOOKUP per entry to
 * revalidate what it holds, and a listing alone still makes no node (a
 * node per symbol of a listing would cost more than it saves).
 */
#include "ops/ops.h"
#include "cache/bincache.h"
#include "content/entries.h"
#include "source/access.h"
#include "tree/attr.h"
#include "tree/bidfs_kind.h"
#include "tree/check.h"
#include "tree/dirlist.h"
#include "tree/dirsnap.h"
#include "watch/watch.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/* d_ino of an entry without a node yet (as libfuse's high-level API uses). */
#define UNKNOWN_INO 0xffffffffULL

static void dirlist_free_link(struct hlink *h)
{
	dirlist_free((struct dirlist *)((char *)h - offsetof(struct dirlist, link)));
}

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_get(ino);
	struct dirlist *d = NULL;
	int ret = n ? access_check(req, n, ACCESS_LIST) : -ESTALE;
	if (ret == 0)
		ret = dirlist_open(n, &d);
	if (ret == 0 && check_cache_listing(n)) {
		fi->cache_readdir = 1; /* dropped by the watch's events (wapply.c) */
		/* a listing taken now replaces what the kernel may hold */
		fi->keep_cache = d->later && check_keep_listing(n);
	}
	node_put(n);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
		return;
	}
	handles_add(&d->link, dirlist_free_link);
	fi->fh = (uintptr_t)d;
	if (fuse_reply_open(req, fi) != 0)
		dirlist_free(d);
}

/* Entry number i of d: ".", "..", then the snapshot. */
static void entry(const struct dirlist *d, size_t i, const char **name, struct stat *st)
{
	st->st_mode = S_IFDIR;
	if (i < 2) {
		*name = i == 0 ? "." : "..";
		st->st_ino = i == 0 ? d->self : d->parent;
		return;
	}
	unsigned char type;
	*name = dirlist_name(d, i - 2, &type);
	uint64_t ino = node_child_ino(d->self, *name);
	st->st_ino = ino ? ino : UNKNOWN_INO;
	st->st_mode = DTTOIF(type);
}

/* The caller's filter of a SOURCE listing (access.h): a binary it cannot
 * read is left out, as any file it cannot read would be; 0 or -errno. */
static int filter_begin(fuse_req_t req, fuse_ino_t ino, struct access_filter *f)
{
	struct node *dir = node_get(ino);
	int ret = dir && dir->kind == NK_DIR ? access_filter_begin(req, dir, f) : 0;
	if (!dir || dir->kind != NK_DIR)
		*f = (struct access_filter){.on = false, .dirfd = -1, .caller = NULL};
	node_put(dir);
	return ret;
}

/* Whether entry i (from 2 on) of d is left out for the filter's caller. */
static bool hidden(const struct dirlist *d, size_t i, struct access_filter *f)
{
	int kind;
	uint64_t taken;
	unsigned char type;
	if (!f->on || i < 2 || !dirlist_srcstat(d, i - 2, &kind, &taken) || kind != NK_BIN)
		return false;
	return !access_filter_shows(f, dirlist_name(d, i - 2, &type));
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct dirlist *d = (struct dirlist *)(uintptr_t)fi->fh;
	struct access_filter f = {.on = false, .dirfd = -1, .caller = NULL};
	int ret = dirlist_ready(d);
	if (ret == 0)
		ret = filter_begin(req, ino, &f);
	char *buf = ret < 0 ? NULL : malloc(size ? size : 1);
	if (!buf) {
		access_filter_end(&f);
		fuse_reply_err(req, ret < 0 ? -ret : ENOMEM);
		return;
	}
	size_t used = 0;
	for (size_t i = off < 0 ? 0 : (size_t)off; i < d->n + 2; i++) {
		const char *name;
		struct stat st = {0};
		if (hidden(d, i, &f))
			continue;
		entry(d, i, &name, &st);
		size_t len =
		        fuse_add_direntry(req, buf + used, size - used, name, &st, (off_t)(i + 1));
		if (len > size - used)
			break;
		used += len;
	}
	access_filter_end(&f);
	fuse_reply_buf(req, buf, used);
	free(buf);
}

/* What readdirplus gives attributes with: the request, the directory, and
 * for a binary's directory its current view (pinned at the first entry
 * that needs it, as a lookup would take it; NULL when there is none). */
struct plus {
	fuse_req_t req;
	struct node *dir;
	bool first; /* the request at offset 0 */
	bool tried; /* view looked for */
	struct bview *v;
};

/* p's view, looked for once: NULL when the caller may not look into the
 * directory (so could not look its entries up), or its binary is gone or
 * now something without this directory (its entries then come without). */
static struct bview *plus_view(struct plus *p)
{
	if (!p->tried) {
		p->tried = true;
		if (access_check(p->req, p->dir, ACCESS_INTO) < 0 ||
		    check_node(p->dir) == -ENOENT || check_dir_view(p->dir, &p->v) < 0)
			p->v = NULL;
	}
	return p->v;
}

/* Whether name in a binary's directory dir (view v) is a row whose node
 * only a lookup makes (entries.h): `debug` may ask a server. */
static bool lookup_only(const struct node *dir, const struct bview *v, const char *name)
{
	const struct bin_entry *e = node_is_vroot(dir) ? entry_in(v, name) : NULL;
	return e && e->lookup_only;
}

/* The node of entry i of d (a listing of p->dir) with the kernel's
 * reference (held: a node of that name exists), or NULL when the entry
 * comes without attributes:
 * - in a binary's directory, an entry without a node yet (the kernel has
 *   not looked it up: a listing alone makes none), or one the current view
 *   no longer has;
 * - in SOURCE, past the first buffer, an entry without a node yet (as the
 *   kernel's own READDIRPLUS_AUTO would give: a listing makes nodes for its
 *   first buffer only), or a snapshot older than the attribute timeout (a
 *   LOOKUP then takes a fresh lstat);
 * - not from SOURCE nor a binary, or no memory. */
static struct node *plus_node(struct plus *p, const struct dirlist *d, size_t i, bool held)
{
	int kind;
	uint64_t taken;
	unsigned char type;
	struct node *dir = p->dir, *n;
	const char *name = dirlist_name(d, i, &type);
	if (!dir || bidfs_kind(dir->kind))
		return NULL;
	if (dir->kind != NK_DIR) {
		if (!held || !plus_view(p) || lookup_only(dir, p->v, name))
			return NULL;
		return view_child(dir, p->v, name, &n) == 0 ? n : NULL;
	}
	const struct srcstat *st = dirlist_srcstat(d, i, &kind, &taken);
	if (!st || elffs_now_ns() - taken >= elffs.timeout_ns || (!p->first && !held))
		return NULL;
	struct node *cand = node_new((enum node_kind)kind, name);
	if (!cand)
		return NULL;
	cand->src->st = *st;
	cand->src->checked_ns = taken;
	n = node_attach(dir, cand, check_reuse_listed);
	if (n) /* as a lookup would: its handle, unless a change was heard of since the snapshot */
		watch_hold(n, -1, NULL, d->snap->seq);
	return n;
}

/* How long the kernel may keep n's attributes: a SOURCE node's are as old
 * as its lstat (the snapshot's, which can be nearly a timeout old), so
 * they expire when a lookup's taken at that time would (none for a node
 * whose check is forced, checked_ns 0); an inner node's, the timeout, as a
 * lookup gives them (check_timeout: long on a watched file system). */
static double timeout_left(struct node *n)
{
	if (!node_is_source(n))
		return check_timeout(n);
	uint64_t timeout = check_timeout_ns(n);
	nodes_lock();
	uint64_t checked = n->src->checked_ns;
	nodes_unlock();
	uint64_t age = elffs_now_ns() - checked;
	return checked == 0 || age >= timeout ? 0.0 : (double)(timeout - age) / 1e9;
}

/* Entry number i of d with its node, if it has one: 0, or the size
 * fuse_add_direntry_plus wants when it does not fit (the node is then
 * forgotten again). */
static size_t add_plus(fuse_req_t req, struct plus *p, const struct dirlist *d, size_t i, char *buf,
                       size_t room, fuse_ino_t *ino)
{
	const char *name;
	struct fuse_entry_param e = {0};
	entry(d, i, &name, &e.attr);
	/* entry() gave the number of the node of that name, if there is one */
	struct node *n = i >= 2 ? plus_node(p, d, i - 2, e.attr.st_ino != UNKNOWN_INO) : NULL;
	if (n) {
		e.ino = n->ino;
		/* before the attributes: a check between the two errs short */
		e.attr_timeout = e.entry_timeout = timeout_left(n);
		if (e.entry_timeout > check_entry_timeout(n))
			e.entry_timeout = check_entry_timeout(n);
		attr_of(n, &e.attr);
	}
	size_t len = fuse_add_direntry_plus(req, buf, room, name, &e, (off_t)(i + 1));
	if (n && len > room)
		node_forget(n->ino, 1); /* not sent */
	*ino = n && len <= room ? n->ino : 0;
	return len;
}

void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	struct dirlist *d = (struct dirlist *)(uintptr_t)fi->fh;
	int ready = dirlist_ready(d);
	if (ready < 0) {
		fuse_reply_err(req, -ready);
		return;
	}
	/* an entry takes at least 24 + 128 bytes (struct fuse_direntplus) */
	size_t most = size / 152 + 1;
	char *buf = malloc(size ? size : 1);
	fuse_ino_t *sent = calloc(most, sizeof(*sent));
	struct plus p = {.req = req, .dir = node_get(ino), .first = off <= 0};
	if (!buf || !sent) {
		fuse_reply_err(req, ENOMEM);
		goto out;
	}
	struct access_filter f;
	int ret = filter_begin(req, ino, &f);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
		goto out;
	}
	size_t used = 0, nsent = 0;
	for (size_t i = off < 0 ? 0 : (size_t)off; i < d->n + 2 && nsent < most; i++) {
		fuse_ino_t got;
		if (hidden(d, i, &f))
			continue;
		size_t len = add_plus(req, &p, d, i, buf + used, size - used, &got);
		if (len > size - used)
			break;
		used += len;
		if (got)
			sent[nsent++] = got;
	}
	access_filter_end(&f);
	if (fuse_reply_buf(req, buf, used) != 0) /* the kernel did not get them */
		for (size_t k = 0; k < nsent; k++)
			node_forget(sent[k], 1);
out:
	if (p.v)
		bincache_release(p.v);
	node_put(p.dir);
	free(sent);
	free(buf);
}

void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	dirlist_free((struct dirlist *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}
