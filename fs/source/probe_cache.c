/* The cache of ELF magic answers (probe_cache.h). */
#include "source/probe_cache.h"
#include "base/membudget.h"
#include "source/probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define WAYS       8          /* tags of a bucket: 64 bytes */
#define FIRST_TAGS (1u << 16) /* 512 KiB */
#define CACHE_WHAT "the cache of ELF magic answers"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *tags;      /* buckets * WAYS; 0: free */
static size_t buckets;      /* a power of two */
static size_t used;         /* tags in use */
static uint64_t key[2];     /* of the hash, drawn at the first use */
static atomic_bool growing; /* one growth at a time */
static bool overflowed;     /* a tag took the place of another since the last growth */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The tag of id: a keyed hash, bit 0 clear (the answer goes there), never 0. */
static uint64_t tag_of(const pfelf_identity *id)
{
	const uint64_t f[] = {id->dev,
	                      id->ino,
	                      id->size,
	                      (uint64_t)id->mtime_sec,
	                      (uint64_t)id->mtime_nsec,
	                      (uint64_t)id->ctime_sec,
	                      (uint64_t)id->ctime_nsec};
	uint64_t h = key[0];
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		h = mix(h ^ f[i] ^ key[1]);
	h &= ~(uint64_t)1;
	return h ? h : 2;
}

/* The two buckets tag t may live in, of a table of n buckets (from
 * different bits of t). A tag goes to the one with more room, and the
 * table grows at half full: then a bucket practically never overflows
 * (with one bucket a tag and growth at three quarters, 8-way buckets
 * overflowed often enough that a second walk of /usr/share read 3,680
 * files again). */
static uint64_t *bucket_of(uint64_t *tab, size_t n, uint64_t t, int which)
{
	t &= ~(uint64_t)1; /* not the answer: a tag and its lookup key agree */
	uint64_t bits = which ? t >> 40 ^ t << 7 : t >> 32;
	return tab + (bits & (n - 1)) * WAYS;
}

/* The place of tag t (its answer bit aside) in tab, or NULL. */
static uint64_t *find_tag(uint64_t *tab, size_t n, uint64_t t)
{
	for (int which = 0; which < 2; which++) {
		uint64_t *b = bucket_of(tab, n, t, which);
		for (size_t i = 0; i < WAYS; i++)
			if ((b[i] & ~(uint64_t)1) == (t & ~(uint64_t)1))
				return &b[i];
	}
	return NULL;
}

/* The first free place of bucket b, and how many are free. */
static uint64_t *free_place(uint64_t *b, size_t *nfree)
{
	uint64_t *first = NULL;
	*nfree = 0;
	for (size_t i = 0; i < WAYS; i++)
		if (!b[i]) {
			(*nfree)++;
			first = first ? first : &b[i];
		}
	return first;
}

/* Put tag t (with its answer bit) into tab (lock held): 1 when it took a
 * free place, 0 when it was there already, -1 when both buckets were full
 * and it took the place of another. */
static int put_tag(uint64_t *tab, size_t n, uint64_t t)
{
	uint64_t *at = find_tag(tab, n, t);
	if (at) {
		*at = t;
		return 0;
	}
	size_t f0, f1;
	uint64_t *p0 = free_place(bucket_of(tab, n, t, 0), &f0);
	uint64_t *p1 = free_place(bucket_of(tab, n, t, 1), &f1);
	at = f1 > f0 ? p1 : p0;
	if (at) {
		*at = t;
		return 1;
	}
	bucket_of(tab, n, t, (int)(t >> 8 & 1))[(t >> 9) % WAYS] = t; /* full: forget one */
	return -1;
}

/* The table's first size: FIRST_TAGS, or ELFFS_PROBE_CACHE_FIRST (a power
 * of two from WAYS to FIRST_TAGS: the tests make the table grow with a
 * small tree). */
static size_t first_tags(void)
{
	const char *env = getenv("ELFFS_PROBE_CACHE_FIRST");
	char *end;
	unsigned long n = env ? strtoul(env, &end, 10) : 0;
	if (!env || !*env || *end || n < WAYS || n > FIRST_TAGS || (n & (n - 1)))
		return FIRST_TAGS;
	return n;
}

static bool cache_start(void)
{
	if (tags)
		return true;
	if (getrandom(key, sizeof(key), GRND_NONBLOCK) != (ssize_t)sizeof(key)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		key[0] = mix((uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32);
		key[1] = mix(key[0] ^ (uint64_t)(uintptr_t)&ts);
	}
	size_t first = first_tags();
	tags = calloc(first, sizeof(*tags));
	buckets = tags ? first / WAYS : 0;
	return tags != NULL;
}

int probe_cache_get(const pfelf_identity *id)
{
	int ret = -1;
	pthread_mutex_lock(&lock);
	if (tags) {
		uint64_t *at = find_tag(tags, buckets, tag_of(id));
		if (at)
			ret = (int)(*at & 1);
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

/* Double the table when it is more than half full or a tag had
 * to take the place of another, the growth reserved first (with no lock
 * held: a reservation may evict). */
static void cache_grow(void)
{
	pthread_mutex_lock(&lock);
	size_t n = buckets;
	bool want = n && (used > n * WAYS / 2 || overflowed) && n * WAYS < PROBE_CACHE_MAX_TAGS;
	pthread_mutex_unlock(&lock);
	if (!want || atomic_exchange(&growing, true))
		return;
	uint64_t bytes = (uint64_t)n * WAYS * sizeof(uint64_t); /* what doubling adds */
	uint64_t *tab = NULL;
	if (membudget_reserve(MB_LISTINGS, bytes, bytes, CACHE_WHAT) == 0 &&
	    !(tab = calloc(2 * n * WAYS, sizeof(*tab))))
		membudget_release(MB_LISTINGS, bytes);
	pthread_mutex_lock(&lock);
	if (tab && buckets != n) { /* another growth came between: this one is late */
		pthread_mutex_unlock(&lock);
		free(tab);
		membudget_release(MB_LISTINGS, bytes);
		tab = NULL;
		pthread_mutex_lock(&lock);
	}
	if (tab) {
		size_t u = 0;
		bool over = false;
		for (size_t i = 0; i < n * WAYS; i++)
			if (tags[i]) {
				int put = put_tag(tab, 2 * n, tags[i]);
				u += put > 0;
				over |= put < 0;
			}
		free(tags);
		tags = tab;
		buckets = 2 * n;
		used = u;
		overflowed = over;
	}
	pthread_mutex_unlock(&lock);
	atomic_store(&growing, false);
}

void probe_cache_put(const pfelf_identity *id, bool elf)
{
	pthread_mutex_lock(&lock);
	if (cache_start()) {
		int put = put_tag(tags, buckets, tag_of(id) | (elf ? 1 : 0));
		used += put > 0;
		overflowed |= put < 0;
	}
	pthread_mutex_unlock(&lock);
	cache_grow();
}
