/*
 * Kernel cache invalidations, sent from a thread of their own. A
 * notification already pending is not queued twice (a table of the
 * pending ones by inode and name): a flood of events about the nodes the
 * kernel holds costs one notification per node. Without watching, at most
 * MAX_PENDING wait and the cache timeouts do the rest; with watching
 * (inval_keep_all) nothing is dropped: the queue is bounded by the nodes
 * the kernel holds, and a notification that finds no memory makes the
 * watch thread invalidate everything (inval_lost).
 */
#include "base/inval.h"
#include "base/elffs.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 4096 /* without watching: beyond that, the cache timeouts do the work */
#define MIN_BUCKETS 256

struct item {
	struct item *next;  /* in the queue */
	struct item *hnext; /* in its bucket of the pending table */
	uint64_t ino;
	uint64_t hash;
	char name[]; /* empty for an inode invalidation */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct item *head, *tail;
static struct item **buckets;
static size_t nbuckets;
static size_t pending;
static bool running, stopping, keep_all;
static atomic_bool lost;
static _Atomic uint64_t seq;
static pthread_t thread;
static struct fuse_session *session;

static uint64_t hash_of(uint64_t ino, const char *name)
{
	uint64_t h = ino * 0x9e3779b97f4a7c15ULL;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ^ h >> 31;
}

static void send_one(struct item *it)
{
	if (it->name[0])
		fuse_lowlevel_notify_inval_entry(session, it->ino, it->name, strlen(it->name));
	else
		fuse_lowlevel_notify_inval_inode(session, it->ino, 0, 0);
}

/* Take it out of the pending table (lock held). */
static void unpend(struct item *it)
{
	struct item **p = &buckets[it->hash & (nbuckets - 1)];
	while (*p != it)
		p = &(*p)->hnext;
	*p = it->hnext;
	pending--;
}

static void *run(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!stopping) {
		struct item *it = head;
		if (!it) {
			pthread_cond_wait(&cond, &lock);
			continue;
		}
		head = it->next;
		if (!head)
			tail = NULL;
		unpend(it);
		pthread_mutex_unlock(&lock);
		send_one(it);
		free(it);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return arg;
}

int inval_start(void *se)
{
	session = se;
	stopping = false;
	nbuckets = MIN_BUCKETS;
	buckets = calloc(nbuckets, sizeof(*buckets));
	if (!buckets)
		return -ENOMEM;
	int ret = pthread_create(&thread, NULL, run, NULL);
	if (ret) {
		free(buckets);
		buckets = NULL;
		return -ret;
	}
	running = true;
	return 0;
}

void inval_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	running = false;
	while (head) {
		struct item *it = head;
		head = it->next;
		free(it);
	}
	tail = NULL;
	pending = 0;
	free(buckets);
	buckets = NULL;
}

void inval_keep_all(void)
{
	pthread_mutex_lock(&lock);
	keep_all = true;
	pthread_mutex_unlock(&lock);
}

uint64_t inval_seq(void)
{
	return atomic_load(&seq);
}

void inval_seq_bump(void)
{
	atomic_fetch_add(&seq, 1);
}

bool inval_lost(void)
{
	return atomic_exchange(&lost, false);
}

/* Twice the buckets when they hold two each (lock held; none: longer chains). */
static void grow(void)
{
	if (pending < 2 * nbuckets)
		return;
	size_t nb = 2 * nbuckets;
	struct item **b = calloc(nb, sizeof(*b));
	if (!b)
		return;
	for (size_t i = 0; i < nbuckets; i++)
		for (struct item *it = buckets[i], *next; it; it = next) {
			next = it->hnext;
			it->hnext = b[it->hash & (nb - 1)];
			b[it->hash & (nb - 1)] = it;
		}
	free(buckets);
	buckets = b;
	nbuckets = nb;
}

/* Whether the same notification is pending (lock held). */
static bool is_pending(uint64_t ino, const char *name, uint64_t h)
{
	for (struct item *it = buckets[h & (nbuckets - 1)]; it; it = it->hnext)
		if (it->hash == h && it->ino == ino && strcmp(it->name, name) == 0)
			return true;
	return false;
}

static void queue(uint64_t ino, const char *name)
{
	size_t len = strlen(name);
	uint64_t h = hash_of(ino, name);
	pthread_mutex_lock(&lock);
	if (!running || stopping || is_pending(ino, name, h) ||
	    (!keep_all && pending >= MAX_PENDING)) {
		pthread_mutex_unlock(&lock);
		return;
	}
	struct item *it = malloc(sizeof(*it) + len + 1);
	if (!it) {
		atomic_store(&lost, keep_all);
		pthread_mutex_unlock(&lock);
		return;
	}
	it->next = NULL;
	it->ino = ino;
	it->hash = h;
	memcpy(it->name, name, len + 1);
	grow();
	it->hnext = buckets[h & (nbuckets - 1)];
	buckets[h & (nbuckets - 1)] = it;
	if (tail)
		tail->next = it;
	else
		head = it;
	tail = it;
	pending++;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
}

void inval_entry(uint64_t parent, const char *name)
{
	if (name[0])
		queue(parent, name);
}

void inval_inode(uint64_t ino)
{
	queue(ino, "");
}
