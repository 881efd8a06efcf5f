/*
 * The process-wide registry of shared mappings.
 *
 * Every handle of the same file identity (device, inode, size, mtime,
 * ctime) gets the same read-only MAP_SHARED mapping, counted by references
 * (handles and zero-copy views). The last reference unmaps it. A file that
 * changed has another identity, so it gets a fresh mapping while readers of
 * the old one keep theirs.
 */
#include "pfelf_i.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define NBUCKETS 1024

static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pfelf_mapping *buckets[NBUCKETS];
static uint64_t n_mappings, n_bytes;
static _Atomic long n_handles;
static _Atomic bool fail_mmap;

void pfelf__test_fail_mmap(bool fail)
{
	atomic_store(&fail_mmap, fail);
}

bool pfelf__mmap_should_fail(void)
{
	return atomic_load(&fail_mmap);
}

static unsigned bucket_of(const pfelf_identity *id)
{
	uint64_t h = id->dev * 0x9e3779b97f4a7c15ull ^ id->ino * 0xc2b2ae3d27d4eb4full;
	h ^= id->size + (uint64_t)id->mtime_nsec + ((uint64_t)id->ctime_sec << 17);
	h ^= h >> 29;
	return (unsigned)(h % NBUCKETS);
}

PFELF_API void pfelf_identity_of(const struct stat *st, pfelf_identity *id)
{
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_sec = st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
	id->ctime_sec = st->st_ctim.tv_sec;
	id->ctime_nsec = st->st_ctim.tv_nsec;
}

PFELF_API bool pfelf_identity_equal(const pfelf_identity *a, const pfelf_identity *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
	       a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec &&
	       a->ctime_sec == b->ctime_sec && a->ctime_nsec == b->ctime_nsec;
}

static int map_new(int fd, const pfelf_identity *id, struct pfelf_mapping **out)
{
	if (pfelf__mmap_should_fail() || id->size == 0 || id->size > SIZE_MAX)
		return -ENODEV;
	void *addr = mmap(NULL, (size_t)id->size, PROT_READ, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		return -errno;
	struct pfelf_mapping *m = calloc(1, sizeof(*m));
	if (!m) {
		munmap(addr, (size_t)id->size);
		return -ENOMEM;
	}
	m->id = *id;
	m->addr = addr;
	m->len = (size_t)id->size;
	m->refs = 1;
	*out = m;
	return 0;
}

/* The mapping of id with one more reference, or NULL (lock held). */
static struct pfelf_mapping *hold_locked(const pfelf_identity *id)
{
	struct pfelf_mapping *m = buckets[bucket_of(id)];
	while (m && !pfelf_identity_equal(&m->id, id))
		m = m->next;
	if (m)
		m->refs++;
	return m;
}

int pfelf__registry_get(int fd, const pfelf_identity *id, struct pfelf_mapping **out)
{
	unsigned b = bucket_of(id);
	int ret = 0;
	pthread_mutex_lock(&reg_lock);
	struct pfelf_mapping *m = hold_locked(id);
	if (!m) {
		ret = map_new(fd, id, &m);
		if (ret == 0) {
			m->next = buckets[b];
			buckets[b] = m;
			n_mappings++;
			n_bytes += m->len;
		}
	}
	pthread_mutex_unlock(&reg_lock);
	*out = ret == 0 ? m : NULL;
	return ret;
}

int pfelf__registry_find(const pfelf_identity *id, struct pfelf_mapping **out)
{
	pthread_mutex_lock(&reg_lock);
	struct pfelf_mapping *m = hold_locked(id);
	pthread_mutex_unlock(&reg_lock);
	*out = m;
	return m ? 0 : -ENOENT;
}

void pfelf__registry_hold(struct pfelf_mapping *m)
{
	pthread_mutex_lock(&reg_lock);
	m->refs++;
	pthread_mutex_unlock(&reg_lock);
}

void pfelf__registry_put(struct pfelf_mapping *m)
{
	if (!m)
		return;
	pthread_mutex_lock(&reg_lock);
	if (--m->refs > 0) {
		pthread_mutex_unlock(&reg_lock);
		return;
	}
	struct pfelf_mapping **pp = &buckets[bucket_of(&m->id)];
	while (*pp != m)
		pp = &(*pp)->next;
	*pp = m->next;
	n_mappings--;
	n_bytes -= m->len;
	pthread_mutex_unlock(&reg_lock);
	munmap(m->addr, m->len);
	free(m);
}

void pfelf__registry_handles(int delta)
{
	atomic_fetch_add(&n_handles, delta);
}

PFELF_API void pfelf_registry_stats_get(pfelf_registry_stats *st)
{
	pthread_mutex_lock(&reg_lock);
	st->mappings = n_mappings;
	st->mapped_bytes = n_bytes;
	pthread_mutex_unlock(&reg_lock);
	st->handles = (uint64_t)atomic_load(&n_handles);
}
