/*
 * The node table.
 *
 * Memory: nodes are 64-byte slots of slabs of SLAB_SLOTS (256 KiB,
 * mmap'ed, so an empty slab goes back to the system at once). A slot's
 * place is its id (slab index << SLAB_SHIFT | slot), and its inode number
 * says it: ino - 1 = sequence << SLOT_BITS | id. Finding a node by number
 * is thus an index, with no table of its own; each use of a slot takes the
 * next sequence of that slot (a slab mapped again starts above every
 * sequence its slots had), so a number is not given twice until one slot
 * has been used 2^36 times. The root is slot 0, sequence 0: FUSE_ROOT_ID.
 * Source nodes keep their name and lstat in a srcinfo (malloc); inner
 * nodes keep neither (nodes.h).
 *
 * Names: one chained hash table of the nodes that are current, keyed by
 * (parent number, keyed hash of the name). The hash is SipHash-2-4 with a
 * key drawn at start, so names a hostile file chose cannot pile up in one
 * bucket. Source nodes and the entries of a binary's directory (entries.h)
 * are compared by name too; files inside a binary's directories (sections/,
 * ...), which keep no name, by the hash and then by what they serve
 * (check_reuse_inner): two names whose hashes collide and that serve the
 * same bytes would share a node, which is harmless. When the thing a node
 * stands for goes away or changes kind, or a binary gets a fresh view, the
 * node is taken out of the name table (a later lookup creates a new node
 * with a new number) but lives on, with its old content, until the kernel
 * forgets it.
 *
 * Lifetime: refs counts the kernel's lookups (each successful lookup reply
 * adds one, forget removes nlookup) plus internal references: each child
 * holds one on its parent, and a handler holds one while it works on a
 * node. A node is freed when refs reaches 0; the root never is. All of it
 * is under one mutex; the read path does not take it (an open file keeps
 * what read needs in its own struct).
 */
#include "node/nodes.h"
#include "node/kinds.h"
#include "node/namekey.h"
#include "node/slots.h"

#include <errno.h>
#include <malloc.h>
#include <stddef.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MIN_BUCKETS   1024
#define REFS_MAX      (((uint64_t)1 << 48) - 1) /* sticky: such a node is never freed */
#define TRIM_MIN_FREE 4096 /* nodes freed before malloc_trim is worth its walk */
#define TRIM_BIN_FREE 1024 /* a binary counts as that many: its view goes with it */

_Static_assert(sizeof(struct node) == 64, "a node is one 64-byte slot");

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t freed_since_trim; /* nodes freed, binaries weighing TRIM_BIN_FREE */
static struct node **buckets;     /* the name table */
static size_t bmask;              /* buckets - 1 */
static size_t hashed_count;
static uint64_t next_gen = 1;
static struct node *root;
static const struct node_binary_ops *binaries; /* per-binary state, given at init */
static void (*free_hook)(struct node *n);      /* a source node with src->watch freed */

void nodes_lock(void)
{
	pthread_mutex_lock(&lock);
}

void nodes_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ references */

static uint64_t refs_of(const struct node *n)
{
	return (uint64_t)n->refs_hi << 32 | n->refs_lo;
}

static void refs_set(struct node *n, uint64_t r)
{
	n->refs_lo = (uint32_t)r;
	n->refs_hi = (uint16_t)(r >> 32);
}

static void refs_add(struct node *n, uint64_t c)
{
	uint64_t r = refs_of(n);
	refs_set(n, r == REFS_MAX || c > REFS_MAX - r ? REFS_MAX : r + c);
}

/* The live node of number ino (lock held), or NULL. */
static struct node *ino_find(uint64_t ino)
{
	struct node *n = slot_at(ino);
	return n && n->ino == ino && n->attached && refs_of(n) > 0 ? n : NULL;
}

/* ------------------------------------------------------------ name table */

const char *node_name(const struct node *n)
{
	if (node_is_source(n))
		return n->name;
	return node_kind_name((enum node_kind)n->kind);
}

int node_source_path(const struct node *n, char *buf, size_t size)
{
	size_t len = 0; /* with the NUL: a '/' after every name but the last */
	/* a source node below a non-source one (a remote view, debuginfod.h)
	 * has a path of its own name */
	for (const struct node *p = n; p->parent && node_is_source(p); p = p->parent)
		len += strlen(p->name) + 1;
	if (len == 0)
		len = 1;
	if (len > size)
		return -ENAMETOOLONG;
	size_t end = len - 1;
	buf[end] = '\0';
	for (const struct node *p = n; p->parent && node_is_source(p); p = p->parent) {
		size_t l = strlen(p->name);
		end -= l;
		memcpy(buf + end, p->name, l);
		if (end > 0)
			buf[--end] = '/';
	}
	return (int)(len - 1);
}

bool node_is_dir(const struct node *n)
{
	if (node_is_source(n))
		return n->kind != NK_LINK;
	if (n->kind == NK_BIDROOT || n->kind == NK_BIDDIR)
		return true;
	if (n->kind == NK_MEMBER)
		return true;
	return node_kind_is_dir((enum node_kind)n->kind);
}

static size_t bucket_of(uint64_t parent, uint64_t key)
{
	uint64_t h = key ^ parent * 0x9e3779b97f4a7c15ULL;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (size_t)h & bmask;
}

/* Whether x, found under the key of name, has that name (leaves keep none). */
static bool name_matches(const struct node *x, const char *name)
{
	if (node_kind_unnamed((enum node_kind)x->kind) || x->kind == NK_BIDROOT ||
	    x->kind == NK_BIDDIR || x->kind == NK_BIDLINK)
		return true;
	return strcmp(node_name(x), name) == 0;
}

static struct node *name_find(uint64_t parent, uint64_t key, const char *name)
{
	struct node *x = buckets[bucket_of(parent, key)];
	while (x && (x->parent->ino != parent || x->key != key || !name_matches(x, name)))
		x = x->hnext;
	return x;
}

/* Rebuild the name table with nb buckets; on ENOMEM keep the old ones. */
static void rehash(size_t nb)
{
	struct node **b = calloc(nb, sizeof(*b));
	if (!b)
		return;
	struct node **old = buckets;
	size_t oldn = bmask + 1;
	bmask = nb - 1;
	for (size_t i = 0; i < oldn; i++) {
		struct node *x = old[i];
		while (x) {
			struct node *next = x->hnext;
			struct node **s = &b[bucket_of(x->parent->ino, x->key)];
			x->hnext = *s;
			*s = x;
			x = next;
		}
	}
	free(old);
	buckets = b;
}

static void name_insert(struct node *n)
{
	struct node **s = &buckets[bucket_of(n->parent->ino, n->key)];
	n->hnext = *s;
	*s = n;
	n->hashed = true;
	if (++hashed_count > 2 * (bmask + 1))
		rehash(2 * (bmask + 1));
}

void node_unhash_locked(struct node *n)
{
	n->stale = true;
	if (!n->hashed)
		return;
	struct node **s = &buckets[bucket_of(n->parent->ino, n->key)];
	while (*s && *s != n)
		s = &(*s)->hnext;
	if (*s) {
		*s = n->hnext;
		hashed_count--;
	}
	n->hnext = NULL;
	n->hashed = false;
	if (bmask + 1 > MIN_BUCKETS && hashed_count < (bmask + 1) / 8)
		rehash((bmask + 1) / 2);
}

/* ----------------------------------------------------------------- nodes */

/* Source data of a new source node: its srcinfo and, for NK_BIN, its binary. */
static int source_parts(enum node_kind kind, const char *name, struct srcinfo **src,
                        struct binary **bin)
{
	size_t len = strlen(name);
	*src = calloc(1, sizeof(**src) + len + 1);
	*bin = kind == NK_BIN ? binaries->make() : NULL;
	if (!*src || (kind == NK_BIN && !*bin)) {
		free(*src);
		binaries->destroy(*bin);
		return -ENOMEM;
	}
	memcpy((*src)->name, name, len + 1);
	return 0;
}

struct node *node_new(enum node_kind kind, const char *name)
{
	struct srcinfo *src = NULL;
	struct binary *bin = NULL;
	if (node_kind_is_source(kind) && source_parts(kind, name, &src, &bin) < 0)
		return NULL;
	uint64_t key = name_key(name);
	nodes_lock();
	struct node *n = slot_take();
	if (n && src)
		src->gen = kind == NK_BIN ? next_gen++ : 0;
	nodes_unlock();
	if (!n) {
		free(src);
		binaries->destroy(bin);
		return NULL;
	}
	n->kind = (uint8_t)kind;
	n->key = key;
	if (src) {
		n->src = src;
		n->bin = bin;
		n->name = src->name;
	}
	return n;
}

void node_discard(struct node *n)
{
	if (!n)
		return;
	struct srcinfo *src = node_is_source(n) ? n->src : NULL;
	struct binary *bin = src ? n->bin : NULL;
	binaries->destroy(bin);
	if (src && src->watch && free_hook)
		free_hook(n);
	nodes_lock();
	if (n->attached) /* not a candidate a lookup did not need */
		freed_since_trim += bin ? TRIM_BIN_FREE : 1;
	slot_give(n);
	nodes_unlock();
	free(src);
}

void nodes_on_free(void (*hook)(struct node *n))
{
	free_hook = hook;
}

uint64_t node_next_gen_locked(void)
{
	return next_gen++;
}

int nodes_init(enum node_kind root_kind, const struct stat *st, const struct node_binary_ops *ops)
{
	binaries = ops;
	name_key_draw();
	bmask = MIN_BUCKETS - 1;
	buckets = calloc(MIN_BUCKETS, sizeof(*buckets));
	if (!buckets)
		return -ENOMEM;
	root = node_new(root_kind, "");
	if (!root || root->ino != FUSE_ROOT_ID)
		return -ENOMEM;
	refs_set(root, 1); /* never freed */
	root->attached = true;
	node_stat_set(root, st);
	root->src->checked_ns = elffs_now_ns();
	return 0;
}

/* Free what live slot n holds (at exit). */
static void slot_destroy(struct node *n)
{
	if ((n->attached || refs_of(n) > 0) && node_is_source(n)) {
		binaries->destroy(n->bin);
		free(n->src);
	}
}

void nodes_destroy(void)
{
	slots_destroy(slot_destroy);
	free(buckets);
	buckets = NULL;
	hashed_count = 0;
	root = NULL;
}

struct node *node_attach(struct node *parent, struct node *cand, node_reuse_fn reuse)
{
	nodes_lock();
	struct node *old = name_find(parent->ino, cand->key, node_name(cand));
	if (old && reuse(old, cand)) {
		refs_add(old, 1);
		nodes_unlock();
		node_discard(cand);
		return old;
	}
	if (old)
		node_unhash_locked(old);
	cand->parent = parent;
	cand->attached = true;
	refs_set(cand, 1);
	refs_add(parent, 1);
	name_insert(cand);
	nodes_unlock();
	return cand;
}

struct node *node_get(fuse_ino_t ino)
{
	nodes_lock();
	struct node *n = ino_find(ino);
	if (n)
		refs_add(n, 1);
	nodes_unlock();
	return n;
}

/* Drop count references from n and from each parent that hits zero. */
static void unref(struct node *n, uint64_t count)
{
	while (n) {
		nodes_lock();
		uint64_t r = refs_of(n);
		if (r != REFS_MAX)
			refs_set(n, r > count ? r - count : 0);
		if (refs_of(n) > 0 || n == root) {
			nodes_unlock();
			return;
		}
		node_unhash_locked(n);
		struct node *parent = n->parent;
		nodes_unlock();
		node_discard(n);
		n = parent;
		count = 1;
	}
}

void node_put(struct node *n)
{
	if (n)
		unref(n, 1);
}

void node_forget(fuse_ino_t ino, uint64_t nlookup)
{
	nodes_lock();
	struct node *n = ino_find(ino);
	if (n)
		refs_add(n, 1); /* pinned between the lookup and the drop */
	nodes_unlock();
	if (n)
		unref(n, nlookup > REFS_MAX ? REFS_MAX : nlookup + 1);
}

void nodes_trim(void)
{
	nodes_lock();
	bool due = freed_since_trim >= TRIM_MIN_FREE && freed_since_trim >= slots_live() / 4;
	if (due)
		freed_since_trim = 0;
	nodes_unlock();
	if (due)
		malloc_trim(0);
}

uint64_t node_child_ino(uint64_t parent, const char *name)
{
	uint64_t key = name_key(name);
	nodes_lock();
	struct node *n = name_find(parent, key, name);
	uint64_t ino = n ? n->ino : 0;
	nodes_unlock();
	return ino;
}

void node_stat_get(const struct node *n, struct stat *st)
{
	const struct srcstat *s = &n->src->st;
	memset(st, 0, sizeof(*st));
	st->st_dev = (dev_t)s->dev;
	st->st_ino = (ino_t)s->ino;
	st->st_size = (off_t)s->size;
	st->st_mode = (mode_t)s->mode;
	st->st_uid = (uid_t)s->uid;
	st->st_gid = (gid_t)s->gid;
	st->st_atim = (struct timespec){(time_t)s->atime, (long)s->atime_ns};
	st->st_mtim = (struct timespec){(time_t)s->mtime, (long)s->mtime_ns};
	st->st_ctim = (struct timespec){(time_t)s->ctime, (long)s->ctime_ns};
}

struct srcstat node_srcstat(const struct stat *st)
{
	return (struct srcstat){
	        .dev = (uint64_t)st->st_dev,
	        .ino = (uint64_t)st->st_ino,
	        .size = (int64_t)st->st_size,
	        .atime = (int64_t)st->st_atim.tv_sec,
	        .mtime = (int64_t)st->st_mtim.tv_sec,
	        .ctime = (int64_t)st->st_ctim.tv_sec,
	        .atime_ns = (uint32_t)st->st_atim.tv_nsec,
	        .mtime_ns = (uint32_t)st->st_mtim.tv_nsec,
	        .ctime_ns = (uint32_t)st->st_ctim.tv_nsec,
	        .mode = (uint32_t)st->st_mode,
	        .uid = (uint32_t)st->st_uid,
	        .gid = (uint32_t)st->st_gid,
	};
}

void node_stat_set(struct node *n, const struct stat *st)
{
	n->src->st = node_srcstat(st);
}

uint64_t nodes_count(void)
{
	nodes_lock();
	uint64_t c = slots_live();
	nodes_unlock();
	return c;
}
