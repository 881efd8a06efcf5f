/* Snapshots of a directory's entries, shared while fresh (dirsnap.h). */
#include "tree/dirsnap.h"
#include "base/elffs.h"
#include "base/membudget.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SHARE_BUCKETS  64
#define NAMES_FIRST    4096         /* bytes of the first arena block */
#define RECORDS_FIRST  64           /* entries of the first record blocks */
#define MALLOC_MMAPPED (128 * 1024) /* membudget.c's fixed mmap threshold */

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dsnap *shared[SHARE_BUCKETS];

/* What a block of n bytes takes: a heap chunk, or whole pages once glibc
 * maps it on its own (membudget_init fixes the threshold). */
static uint64_t block_cost(size_t n)
{
	if (n == 0)
		return 0;
	if (n + 16 >= MALLOC_MMAPPED)
		return ((uint64_t)n + 16 + 4095) & ~(uint64_t)4095;
	return membudget_chunk(n);
}

/* Resize block *p from *cap to c elements of sz bytes, the difference
 * reserved (or given back) first; 0, -ENOMEM or -EFBIG. */
static int resize(struct dsnap *s, void **p, size_t *cap, size_t c, size_t sz)
{
	uint64_t was = block_cost(*cap * sz), will = block_cost(c * sz);
	if (will > was) {
		int ret = membudget_reserve(MB_LISTINGS, will - was, s->cost, DIRSNAP_WHAT);
		if (ret < 0)
			return ret;
		s->cost += will - was;
	}
	void *q = c ? realloc(*p, c * sz) : NULL;
	if (c && !q) {
		if (will > was) {
			membudget_release(MB_LISTINGS, will - was);
			s->cost -= will - was;
		}
		return -ENOMEM;
	}
	if (!c)
		free(*p);
	if (will < was) {
		membudget_release(MB_LISTINGS, was - will);
		s->cost -= was - will;
	}
	*p = q;
	*cap = c;
	return 0;
}

/* Room for want elements in block *p (doubling). */
static int room_for(struct dsnap *s, void **p, size_t *cap, size_t want, size_t sz, size_t first)
{
	if (want <= *cap)
		return 0;
	size_t c = *cap ? *cap : first;
	while (c < want) {
		if (c > SIZE_MAX / 2 / sz)
			return -ENOMEM;
		c *= 2;
	}
	return resize(s, p, cap, c, sz);
}

struct dsnap *dsnap_new(uint64_t key)
{
	uint64_t cost = membudget_chunk(sizeof(struct dsnap));
	if (membudget_reserve(MB_LISTINGS, cost, 0, DIRSNAP_WHAT) < 0)
		return NULL;
	struct dsnap *s = calloc(1, sizeof(*s));
	if (!s) {
		membudget_release(MB_LISTINGS, cost);
		return NULL;
	}
	s->key = key;
	s->refs = 1;
	s->cost = cost;
	s->taken_ns = elffs_now_ns();
	return s;
}

static void dsnap_free(struct dsnap *s)
{
	free(s->e);
	free(s->st);
	free(s->names);
	membudget_release(MB_LISTINGS, s->cost);
	free(s);
}

int dsnap_add(struct dsnap *s, const char *name, unsigned char type, unsigned char kind,
              const struct stat *st)
{
	size_t len = strlen(name) + 1;
	if (s->used + len > UINT32_MAX || (st && s->nst != s->n))
		return -ENOMEM;
	int ret = room_for(s, (void **)&s->names, &s->room, s->used + len, 1, NAMES_FIRST);
	if (ret == 0)
		ret = room_for(s, (void **)&s->e, &s->cap, s->n + 1, sizeof(*s->e), RECORDS_FIRST);
	if (ret == 0 && st)
		ret = room_for(s, (void **)&s->st, &s->stcap, s->nst + 1, sizeof(*s->st),
		               RECORDS_FIRST);
	if (ret < 0)
		return ret;
	memcpy(s->names + s->used, name, len);
	s->e[s->n++] = (struct dsent){(uint32_t)s->used, type, kind};
	s->used += len;
	if (st)
		s->st[s->nst++] = node_srcstat(st);
	return 0;
}

/* A shrinking realloc stays in place: a heap chunk is split, a mapped
 * block remapped. */
void dsnap_fit(struct dsnap *s)
{
	resize(s, (void **)&s->names, &s->room, s->used, 1);
	resize(s, (void **)&s->e, &s->cap, s->n, sizeof(*s->e));
	resize(s, (void **)&s->st, &s->stcap, s->nst, sizeof(*s->st));
}

/* Older ones leave the registry (their handles keep them). */
struct dsnap *dsnap_shared(uint64_t key, uint64_t window_ns)
{
	uint64_t now = elffs_now_ns();
	pthread_mutex_lock(&share_lock);
	struct dsnap **p = &shared[key % SHARE_BUCKETS], *s;
	while ((s = *p)) {
		if (s->key == key && now - s->taken_ns < window_ns) {
			s->refs++;
			break;
		}
		if (s->key == key) {
			*p = s->next;
			s->shared = false;
			continue;
		}
		p = &s->next;
	}
	pthread_mutex_unlock(&share_lock);
	return s;
}

void dsnap_forget(uint64_t key)
{
	pthread_mutex_lock(&share_lock);
	struct dsnap **p = &shared[key % SHARE_BUCKETS], *s;
	while ((s = *p)) {
		if (s->key == key) {
			*p = s->next;
			s->shared = false;
			continue;
		}
		p = &s->next;
	}
	pthread_mutex_unlock(&share_lock);
}

void dsnap_publish(struct dsnap *s)
{
	if (elffs.timeout_ns == 0)
		return;
	pthread_mutex_lock(&share_lock);
	s->next = shared[s->key % SHARE_BUCKETS];
	shared[s->key % SHARE_BUCKETS] = s;
	s->shared = true;
	pthread_mutex_unlock(&share_lock);
}

void dsnap_put(struct dsnap *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&share_lock);
	bool last = --s->refs == 0;
	if (last && s->shared) {
		struct dsnap **p = &shared[s->key % SHARE_BUCKETS];
		while (*p != s)
			p = &(*p)->next;
		*p = s->next;
	}
	pthread_mutex_unlock(&share_lock);
	if (last)
		dsnap_free(s);
}

bool dsnap_has(const struct dsnap *s, const char *name)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->names + s->e[i].name, name) == 0)
			return true;
	return false;
}
