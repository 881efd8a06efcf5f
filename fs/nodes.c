/*
 * The node table.
 *
 * Inode numbering: every node gets its number from one 64-bit counter when
 * it is attached to the table (the root is FUSE_ROOT_ID, 1; the others count
 * up from 2). A number is never given twice during a mount, so it stays
 * the same for as long as its node lives and a stale number the kernel
 * still holds can never name another node; the FUSE generation stays 0.
 * A node is found by number (the ino hash) and, while it is current, by
 * (parent number, name) (the name hash). When the thing a node stands for
 * goes away or changes kind, or a binary gets a fresh view, the node is
 * taken out of the name hash (a later lookup creates a new node with a new
 * number) but lives on, with its old content, until the kernel forgets it.
 *
 * Lifetime: refs counts the kernel's lookups (each successful lookup reply
 * adds one, forget removes nlookup) plus internal references: each child
 * holds one on its parent, and a handler holds one while it works on a
 * node. A node is freed when refs reaches 0; the root never is. All of it
 * is under one mutex; the read path does not take it (an open file keeps
 * what read needs in its own struct).
 */
#include "nodes.h"
#include "bincache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct table {
	struct node **b;
	size_t mask; /* buckets - 1 (a power of two minus one) */
	size_t count;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct table by_ino;
static struct table by_name;
static uint64_t next_ino = FUSE_ROOT_ID + 1;
static struct node *root;

void nodes_lock(void)
{
	pthread_mutex_lock(&lock);
}

void nodes_unlock(void)
{
	pthread_mutex_unlock(&lock);
}

static uint64_t mix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return h;
}

static uint64_t name_hash(uint64_t parent, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL ^ mix(parent);
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return mix(h);
}

static struct node **ino_slot(const struct table *t, uint64_t ino)
{
	return &t->b[mix(ino) & t->mask];
}

static struct node **name_slot(const struct table *t, uint64_t parent, const char *name)
{
	return &t->b[name_hash(parent, name) & t->mask];
}

static int table_init(struct table *t, size_t buckets)
{
	t->b = calloc(buckets, sizeof(*t->b));
	t->mask = buckets - 1;
	t->count = 0;
	return t->b ? 0 : -ENOMEM;
}

/* Double the buckets when the chains get long; on ENOMEM keep the old ones. */
static void grow(struct table *t, bool names)
{
	if (t->count <= t->mask + 1)
		return;
	struct table n = {.b = calloc((t->mask + 1) * 2, sizeof(*t->b)), .mask = t->mask * 2 + 1};
	if (!n.b)
		return;
	for (size_t i = 0; i <= t->mask; i++) {
		struct node *x = t->b[i];
		while (x) {
			struct node *next = names ? x->name_next : x->ino_next;
			struct node **s = names ? name_slot(&n, x->parent->ino, x->name)
			                        : ino_slot(&n, x->ino);
			if (names)
				x->name_next = *s;
			else
				x->ino_next = *s;
			*s = x;
			x = next;
		}
	}
	free(t->b);
	t->b = n.b;
	t->mask = n.mask;
}

static struct node *ino_find(uint64_t ino)
{
	struct node *x = *ino_slot(&by_ino, ino);
	while (x && x->ino != ino)
		x = x->ino_next;
	return x;
}

static struct node *name_find(uint64_t parent, const char *name)
{
	struct node *x = *name_slot(&by_name, parent, name);
	while (x && (x->parent->ino != parent || strcmp(x->name, name) != 0))
		x = x->name_next;
	return x;
}

static void ino_insert(struct node *n)
{
	struct node **s = ino_slot(&by_ino, n->ino);
	n->ino_next = *s;
	*s = n;
	by_ino.count++;
	grow(&by_ino, false);
}

static void ino_remove(struct node *n)
{
	struct node **s = ino_slot(&by_ino, n->ino);
	while (*s && *s != n)
		s = &(*s)->ino_next;
	if (*s) {
		*s = n->ino_next;
		by_ino.count--;
	}
}

static void name_insert(struct node *n)
{
	struct node **s = name_slot(&by_name, n->parent->ino, n->name);
	n->name_next = *s;
	*s = n;
	n->hashed = true;
	by_name.count++;
	grow(&by_name, true);
}

void node_unhash_locked(struct node *n)
{
	n->stale = true;
	if (!n->hashed)
		return;
	struct node **s = name_slot(&by_name, n->parent->ino, n->name);
	while (*s && *s != n)
		s = &(*s)->name_next;
	if (*s) {
		*s = n->name_next;
		by_name.count--;
	}
	n->hashed = false;
}

struct node *node_new(enum node_kind kind, const char *name)
{
	struct node *n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->name = strdup(name);
	if (!n->name) {
		free(n);
		return NULL;
	}
	n->kind = kind;
	if (node_is_source(n) && !(n->st = calloc(1, sizeof(*n->st)))) {
		node_discard(n);
		return NULL;
	}
	return n;
}

void node_discard(struct node *n)
{
	if (!n)
		return;
	if (n->bin)
		binary_destroy(n->bin);
	if (n->file)
		free(n->file->text);
	free(n->file);
	free(n->st);
	free(n->name);
	free(n);
}

int nodes_init(enum node_kind root_kind, const struct stat *st)
{
	if (table_init(&by_ino, 1024) < 0 || table_init(&by_name, 1024) < 0)
		return -ENOMEM;
	root = node_new(root_kind, "");
	if (!root)
		return -ENOMEM;
	root->ino = FUSE_ROOT_ID;
	root->refs = 1; /* never freed */
	*root->st = *st;
	root->checked_ns = elffs_now_ns();
	if (root_kind == NK_BIN) {
		root->broot = root;
		root->bin = binary_new();
		if (!root->bin)
			return -ENOMEM;
	}
	ino_insert(root);
	return 0;
}

void nodes_destroy(void)
{
	for (size_t i = 0; by_ino.b && i <= by_ino.mask; i++) {
		struct node *x = by_ino.b[i];
		while (x) {
			struct node *next = x->ino_next;
			node_discard(x);
			x = next;
		}
	}
	free(by_ino.b);
	free(by_name.b);
	memset(&by_ino, 0, sizeof(by_ino));
	memset(&by_name, 0, sizeof(by_name));
	root = NULL;
}

struct node *node_attach(struct node *parent, struct node *cand, node_reuse_fn reuse)
{
	nodes_lock();
	struct node *old = name_find(parent->ino, cand->name);
	if (old && reuse(old, cand)) {
		old->refs++;
		nodes_unlock();
		node_discard(cand);
		return old;
	}
	if (old)
		node_unhash_locked(old);
	cand->ino = next_ino++;
	cand->parent = parent;
	cand->refs = 1;
	parent->refs++;
	if (cand->kind == NK_BIN)
		cand->broot = cand;
	ino_insert(cand);
	name_insert(cand);
	nodes_unlock();
	return cand;
}

struct node *node_get(fuse_ino_t ino)
{
	nodes_lock();
	struct node *n = ino_find(ino);
	if (n)
		n->refs++;
	nodes_unlock();
	return n;
}

void node_ref(struct node *n)
{
	nodes_lock();
	n->refs++;
	nodes_unlock();
}

/* Drop count references from n and from each parent that hits zero. */
static void unref(struct node *n, uint64_t count)
{
	while (n) {
		nodes_lock();
		n->refs = n->refs > count ? n->refs - count : 0;
		if (n->refs > 0 || n == root) {
			nodes_unlock();
			return;
		}
		ino_remove(n);
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
		n->refs++; /* pinned between the lookup and the drop */
	nodes_unlock();
	if (n)
		unref(n, nlookup + 1);
}

uint64_t node_child_ino(uint64_t parent, const char *name)
{
	nodes_lock();
	struct node *n = name_find(parent, name);
	uint64_t ino = n ? n->ino : 0;
	nodes_unlock();
	return ino;
}

uint64_t nodes_count(void)
{
	nodes_lock();
	uint64_t c = by_ino.count;
	nodes_unlock();
	return c;
}
