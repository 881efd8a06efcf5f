/*
 * The file handles of the source nodes the kernel holds on watched file
 * systems: one chained hash table from (fsid, handle) to the nodes' inode
 * numbers, so that an event about a file the kernel does not hold costs a
 * hash lookup. A node's handle is taken by its lookup (name_to_handle_at
 * of the name in the directory the lookup opened, AT_HANDLE_FID: the
 * encoding fanotify reports) and kept until the node is freed; two nodes
 * of one file (hard links, a directory bind-mounted twice) are two
 * entries with one handle.
 */
#include "watch/watch_i.h"
#include "node/nodes.h"
#include "base/inval.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#ifndef AT_HANDLE_FID
#define AT_HANDLE_FID 0x200
#endif
#define MIN_BUCKETS 1024

struct wnode {
	struct wnode *next;
	uint64_t ino;
	uint64_t hash;
	uint64_t fsid;
	int32_t type;
	uint32_t len;
	unsigned char bytes[];
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct wnode **buckets;
static size_t nbuckets, count;
static uint64_t seed;

static uint64_t hash_of(const struct wfid *f)
{
	if (!seed && getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint64_t)(uintptr_t)&seed ^ 0x9e3779b97f4a7c15ULL;
	uint64_t h = (seed ^ f->fsid) * 0x100000001b3ULL ^ (uint64_t)(uint32_t)f->type;
	for (uint32_t i = 0; i < f->len; i++)
		h = (h ^ f->bytes[i]) * 0x100000001b3ULL;
	return h ^ h >> 29;
}

static bool same(const struct wnode *w, const struct wfid *f)
{
	return w->fsid == f->fsid && w->type == f->type && w->len == f->len &&
	       memcmp(w->bytes, f->bytes, f->len) == 0;
}

/* Grow to twice the buckets when they hold two entries each (lock held). */
static void grow(void)
{
	size_t nb = nbuckets ? nbuckets * 2 : MIN_BUCKETS;
	if (count < 2 * nbuckets)
		return;
	struct wnode **b = calloc(nb, sizeof(*b));
	if (!b)
		return; /* longer chains, still right */
	for (size_t i = 0; i < nbuckets; i++)
		for (struct wnode *w = buckets[i], *next; w; w = next) {
			next = w->next;
			w->next = b[w->hash & (nb - 1)];
			b[w->hash & (nb - 1)] = w;
		}
	free(buckets);
	buckets = b;
	nbuckets = nb;
}

/* Take w out of the table (lock held). */
static void unlink_one(struct wnode *w)
{
	struct wnode **p = &buckets[w->hash & (nbuckets - 1)];
	while (*p && *p != w)
		p = &(*p)->next;
	if (*p) {
		*p = w->next;
		count--;
	}
}

/* name_to_handle_at into fh (room for WATCH_HANDLE_MAX bytes); 0 or -errno. */
static int handle_at(int dirfd, const char *name, struct file_handle *fh, int flags)
{
	int mnt;
	fh->handle_bytes = WATCH_HANDLE_MAX;
	if (name_to_handle_at(dirfd, name, fh, &mnt, flags) == 0)
		return 0;
	if (errno != EINVAL || !(flags & AT_HANDLE_FID))
		return -errno;
	/* before Linux 6.5: no AT_HANDLE_FID; the same encoding where there are handles */
	return handle_at(dirfd, name, fh, flags & ~AT_HANDLE_FID);
}

int wmap_handle_of(struct node *n, int dirfd, const char *name, struct wfid *out)
{
	char path[4096];
	int flags = AT_HANDLE_FID;
	if (dirfd < 0 && !n->parent && elffs.single_name) {
		dirfd = elffs.srcfd; /* file mode: the root is SOURCE's name in its directory */
		name = elffs.single_name;
	} else if (dirfd < 0) {
		int len = node_source_path(n, path, sizeof(path));
		if (len < 0)
			return len;
		dirfd = elffs.srcfd;
		name = path;
	}
	if (!name[0])
		flags |= AT_EMPTY_PATH;
	struct {
		struct file_handle fh;
		unsigned char room[WATCH_HANDLE_MAX];
	} h;
	int ret = handle_at(dirfd, name, &h.fh, flags);
	if (ret < 0)
		return ret;
	if (h.fh.handle_bytes > WATCH_HANDLE_MAX)
		return -EOVERFLOW;
	out->type = h.fh.handle_type;
	out->len = h.fh.handle_bytes;
	memcpy(out->bytes, h.fh.f_handle, out->len);
	return 0;
}

void wmap_forget(struct node *n)
{
	pthread_mutex_lock(&lock);
	struct wnode *w = n->src->watch;
	if (w)
		unlink_one(w);
	__atomic_store_n(&n->src->watch, NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	free(w);
}

/* A new entry of handle f (hash h) for ino into the table, or NULL (lock held). */
static struct wnode *insert(const struct wfid *f, uint64_t h, uint64_t ino)
{
	struct wnode *w = malloc(sizeof(*w) + f->len);
	grow();
	if (!w || !buckets) {
		free(w);
		return NULL;
	}
	*w = (struct wnode){.ino = ino, .hash = h, .fsid = f->fsid, .type = f->type, .len = f->len};
	memcpy(w->bytes, f->bytes, f->len);
	w->next = buckets[h & (nbuckets - 1)];
	buckets[h & (nbuckets - 1)] = w;
	count++;
	return w;
}

void watch_hold(struct node *n, int dirfd, const char *name, uint64_t seq)
{
	if (!elffs.watch || !node_is_source(n))
		return;
	nodes_lock();
	uint64_t dev = n->src->st.dev;
	bool has = n->src->watch != NULL;
	nodes_unlock();
	if (dirfd < 0 && has)
		return; /* a listing's node: kept as its lookup left it */
	struct wfid f;
	bool ok = wfs_watched(dev, &f.fsid) && wmap_handle_of(n, dirfd, name, &f) == 0;
	uint64_t h = ok ? hash_of(&f) : 0;
	pthread_mutex_lock(&lock);
	struct wnode *old = n->src->watch, *w = NULL;
	/* an event reached a node since the lookup began: perhaps this one,
	 * and its invalidation may pass the reply: -o timeout this time */
	ok = ok && inval_seq() == seq;
	if (ok && old && old->hash == h && same(old, &f)) {
		pthread_mutex_unlock(&lock);
		return;
	}
	if (ok)
		w = insert(&f, h, n->ino);
	if (old)
		unlink_one(old);
	__atomic_store_n(&n->src->watch, w, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&lock);
	free(old);
}

size_t wmap_find(const struct wfid *f, uint64_t *inos, size_t max)
{
	uint64_t h = hash_of(f);
	size_t k = 0;
	pthread_mutex_lock(&lock);
	for (struct wnode *w = nbuckets ? buckets[h & (nbuckets - 1)] : NULL; w && k < max;
	     w = w->next)
		if (w->hash == h && same(w, f))
			inos[k++] = w->ino;
	pthread_mutex_unlock(&lock);
	return k;
}

int wmap_each(void (*each)(uint64_t ino, void *arg), void *arg)
{
	pthread_mutex_lock(&lock);
	size_t n = 0;
	uint64_t *inos = malloc((count ? count : 1) * sizeof(*inos));
	for (size_t i = 0; inos && i < nbuckets; i++)
		for (struct wnode *w = buckets[i]; w; w = w->next)
			inos[n++] = w->ino;
	pthread_mutex_unlock(&lock);
	if (!inos)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) /* unlocked: each may free a node */
		each(inos[i], arg);
	free(inos);
	return 0;
}

uint64_t wmap_count(void)
{
	pthread_mutex_lock(&lock);
	uint64_t c = count;
	pthread_mutex_unlock(&lock);
	return c;
}

void watch_destroy(void)
{
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < nbuckets; i++)
		while (buckets[i]) {
			struct wnode *w = buckets[i];
			buckets[i] = w->next;
			free(w);
		}
	free(buckets);
	buckets = NULL;
	nbuckets = count = 0;
	pthread_mutex_unlock(&lock);
	wfs_destroy();
}
