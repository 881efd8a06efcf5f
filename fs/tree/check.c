/* Change detection: re-checking sources and moving binaries to new generations. */
#include "tree/check.h"
#include "content/arview.h"
#include "cache/bincache.h"
#include "cache/debugdata.h"
#include "content/entries.h"
#include "tree/bidfs_kind.h"
#include "base/errors.h"
#include "base/inval.h"
#include "source/probe.h"
#include "source/source.h"

#include <errno.h>
#include <stdatomic.h>

/* Binary root b changed identity (table lock held). */
static void new_generation(struct node *b)
{
	b->src->gen = node_next_gen_locked();
	b->fixed = false; /* its listing is taken again (and the kernel's dropped) */
	inval_inode(b->ino);
	for (size_t i = 0; i < entries_n; i++) /* every name a binary can have */
		inval_entry(b->ino, entries[i].name);
	for (size_t i = 0; i < ar_entries_n; i++) /* or an archive */
		inval_entry(b->ino, ar_entries[i].name);
}

/* Source node s is gone or of another kind now (table lock held). */
static void gone(struct node *s)
{
	if (!s->parent) { /* file-mode root: stays, empty */
		if (!s->absent)
			new_generation(s);
		s->absent = true;
		return;
	}
	if (!s->stale)
		inval_entry(s->parent->ino, s->name);
	node_unhash_locked(s);
}

/* Source node s is still of its kind: take its fresh lstat st (table lock held). */
static void update(struct node *s, const struct stat *st)
{
	struct stat old;
	node_stat_get(s, &old);
	if (s->kind == NK_BIN && (s->absent || !src_same_identity(&old, st)))
		new_generation(s);
	s->absent = false;
	node_stat_set(s, st);
	s->src->checked_ns = elffs_now_ns();
}

/* The kind source node s shows as now (stat in st), or -errno. */
static int current_kind(struct node *s, struct stat *st)
{
	if (!s->parent && !elffs.single_name) {
		int r = src_lstat(s, st);
		return r < 0 ? r : NK_DIR;
	}
	struct srcloc loc;
	int ret = src_locate(s, &loc);
	if (ret < 0)
		return ret;
	/* src_statat: a mount point is answered from the kernel's attributes */
	if ((ret = src_statat(loc.dirfd, loc.name, st)) == 0) {
		struct stat old;
		nodes_lock();
		node_stat_get(s, &old);
		bool same = s->kind == NK_BIN && !s->absent && src_same_identity(&old, st);
		nodes_unlock();
		ret = same ? NK_BIN : probe_classify(loc.dirfd, loc.name, st);
	}
	src_release(&loc);
	return ret;
}

static void recheck(struct node *s)
{
	struct stat st;
	int kind = current_kind(s, &st);
	if (kind < 0 && !err_unreachable(kind))
		return; /* EMFILE, ENOMEM...: try again next time */
	uint64_t gen;
	nodes_lock();
	if (kind == (int)s->kind)
		update(s, &st);
	else
		gone(s);
	gen = s->stale ? UINT64_MAX : node_gen(s);
	nodes_unlock();
	if (s->kind == NK_BIN)
		bincache_invalidate(s->bin, gen);
}

/* The source node whose changes n follows: itself or its binary; NULL
 * when n shows more than that node's file. */
static const struct node *source_of(const struct node *n)
{
	/* the index's nodes, and what reads other files than its binary: the
	 * debug link's target (debug), info's lines from the index and the
	 * debug link (a change of those files names no node of this one), but
	 * for a binary that has neither (fixed, dirlist.c) */
	if (bidfs_kind(n->kind) || n->kind == NK_DEBUG)
		return NULL;
	const struct node *s = node_is_source(n) ? n : node_broot((struct node *)n);
	if (n->kind == NK_INFO && s) {
		nodes_lock();
		bool fixed = n->parent == s && s->fixed;
		nodes_unlock();
		return fixed ? s : NULL;
	}
	return s;
}

uint64_t check_timeout_ns(const struct node *n)
{
	const struct node *s = source_of(n);
	return s && __atomic_load_n(&s->src->watch, __ATOMIC_ACQUIRE) ? elffs.watch_timeout_ns
	                                                              : elffs.timeout_ns;
}

double check_timeout(const struct node *n)
{
	const struct node *s = source_of(n);
	return s && __atomic_load_n(&s->src->watch, __ATOMIC_ACQUIRE) ? elffs.watch_timeout
	                                                              : elffs.timeout;
}

bool check_listing_watched(const struct node *n)
{
	if (elffs.others || !node_is_dir(n))
		return false;
	/* a watched SOURCE directory, or a directory of a watched binary's
	 * view (its names are its generation's: a new one has new inodes) */
	const struct node *s = source_of(n);
	return s && __atomic_load_n(&s->src->watch, __ATOMIC_ACQUIRE) != NULL;
}

bool check_cache_listing(const struct node *n)
{
	if (!check_listing_watched(n))
		return false;
	nodes_lock();
	bool fixed = n->fixed;
	nodes_unlock();
	return fixed || !node_is_vroot(n); /* else its debug entry may change */
}

bool check_keep_listing(const struct node *n)
{
	nodes_lock();
	bool partial = n->partial;
	nodes_unlock();
	return !partial;
}

double check_entry_timeout(const struct node *n)
{
	return elffs.others ? elffs.timeout : check_timeout(n);
}

static bool due(struct node *s)
{
	uint64_t timeout = check_timeout_ns(s);
	nodes_lock();
	/* checked_ns 0: forced (check_force), however soon after boot */
	bool d = !s->stale &&
	         (s->src->checked_ns == 0 || elffs_now_ns() - s->src->checked_ns >= timeout);
	nodes_unlock();
	return d;
}

int check_node(struct node *n)
{
	if (bidfs_kind(n->kind)) /* the index looks at SOURCE itself */
		return 0;
	struct node *s = node_is_source(n) ? n : node_broot(n);
	if (due(s))
		recheck(s);
	nodes_lock();
	int ret = s->stale || (n != s && s->absent) ? -ENOENT
	          : n != s && n->gen != node_gen(s) ? -ESTALE
	                                            : 0;
	nodes_unlock();
	return ret;
}

void check_force(struct node *n)
{
	nodes_lock();
	n->src->checked_ns = 0;
	nodes_unlock();
}

/* The generation of n and its source's lstat; -ENOENT, -ESTALE or 0. */
static int generation(struct node *n, uint64_t *gen, struct stat *st)
{
	struct node *root = node_broot(n);
	nodes_lock();
	*gen = node_gen(root);
	int ret = root->stale || root->absent ? -ENOENT : node_gen(n) != *gen ? -ESTALE : 0;
	node_stat_get(root, st);
	nodes_unlock();
	return ret;
}

/* The view of n in the view *out of its binary (pinned; ret: how it was
 * got): the same, or the view of the archive member n is part of, or of
 * the MiniDebugInfo of its binary (gnu_debugdata/). */
static int into_member(struct node *n, int ret, struct bview **out)
{
	struct node *m = node_vroot(n);
	if (ret < 0 || !m || (m->kind != NK_MEMBER && m->kind != NK_DDATA))
		return ret;
	struct bview *a = *out;
	ret = m->gen != a->gen       ? -ENOENT
	      : m->kind == NK_MEMBER ? arview_member(a, (uint32_t)m->aux, out)
	                             : ddview_get(a, out);
	if (ret < 0) {
		bincache_release(a);
		*out = NULL; /* callers that go on without a view must not see a */
	}
	return ret;
}

int check_view(struct node *n, struct bview **out)
{
	return into_member(n, check_binary_view(n, out), out);
}

/* Whether directory dir is one of the rows of view v: a binary replaced
 * by an archive or the reverse keeps the kernel's nodes of the other kind
 * (symbol/, members/) until it forgets them, and their rows read a view of
 * the other kind as their own (an archive's has no ELF handle). */
static bool dir_fits(const struct node *dir, const struct bview *v)
{
	if (node_is_vroot(dir))
		return true;
	size_t n;
	const struct bin_entry *rows = entry_rows(v, &n);
	const struct bin_entry *e = entry_of_kind((enum node_kind)dir->kind);
	for (size_t i = 0; e && i < n; i++)
		if (&rows[i] == e)
			return true;
	return false;
}

int check_dir_view(struct node *dir, struct bview **out)
{
	int ret = into_member(dir, check_current_view(node_broot(dir), out), out);
	if (ret == 0 && !dir_fits(dir, *out)) {
		bincache_release(*out);
		*out = NULL;
		ret = -ENOENT;
	}
	return ret;
}

int check_binary_view(struct node *n, struct bview **out)
{
	uint64_t gen;
	struct stat st;
	struct node *root = node_broot(n);
	int ret = generation(n, &gen, &st);
	if (ret == 0)
		ret = bincache_acquire(root, gen, &st, out);
	if (ret == -ESTALE && node_gen(n) == gen) { /* the file changed under the open */
		check_force(root);
		ret = -EIO;
	}
	return ret;
}

int check_current_view(struct node *root, struct bview **out)
{
	for (int tries = 0; tries < 3; tries++) {
		uint64_t gen;
		struct stat st;
		check_node(root);
		int ret = generation(root, &gen, &st);
		if (ret == 0)
			ret = bincache_acquire(root, gen, &st, out);
		if (ret != -ESTALE)
			return ret;
		check_force(root); /* the file changed since its last lstat */
	}
	return -EIO;
}

int check_refused(struct node *root, char *buf, size_t size)
{
	struct bview *v;
	int ret = check_current_view(root, &v);
	if (ret == 0) { /* a view of the bytes only has its reason */
		ret = v->refused ? refused_copy(v->refused, buf, size) : -ENODATA;
		bincache_release(v);
		return ret;
	}
	if (ret != -EIO)
		return ret;
	nodes_lock();
	uint64_t gen = node_gen(root);
	nodes_unlock();
	int len = bincache_refused(root, gen, buf, size);
	return len == -ENODATA ? -EIO : len;
}

/* Threads whose last open was answered ESTALE, by thread id modulo the size
 * (a collision only turns one later ESTALE into EIO, or the reverse). */
#define RETRY_SLOTS 256
static _Atomic int estale_tid[RETRY_SLOTS];

bool check_open_retry(int tid)
{
	if (tid <= 0)
		return false;
	_Atomic int *slot = &estale_tid[(unsigned)tid % RETRY_SLOTS];
	int want = tid;
	return atomic_load_explicit(slot, memory_order_relaxed) == tid &&
	       atomic_compare_exchange_strong(slot, &want, 0);
}

int check_refuse_open(int tid, bool retry)
{
	if (retry)
		return -EIO;
	if (tid > 0)
		atomic_store(&estale_tid[(unsigned)tid % RETRY_SLOTS], tid);
	return -ESTALE;
}

bool check_reuse_source(struct node *old, struct node *cand)
{
	if (old->stale || old->kind != cand->kind)
		return false;
	struct stat st;
	node_stat_get(cand, &st);
	update(old, &st);
	return true;
}

bool check_reuse_listed(struct node *old, struct node *cand)
{
	/* a watched node is kept current by the watch (an event forces its
	 * check): a listing's older lstat must not undo a forced check */
	if (!old->stale && (old->src->checked_ns >= cand->src->checked_ns || old->src->watch))
		return true;
	if (!check_reuse_source(old, cand))
		return false;
	old->src->checked_ns = cand->src->checked_ns;
	return true;
}

bool check_reuse_inner(struct node *old, struct node *cand)
{
	return !old->stale && old->kind == cand->kind && old->gen == cand->gen &&
	       old->size == cand->size && old->aux == cand->aux;
}
