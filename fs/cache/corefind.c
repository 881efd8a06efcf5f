/* The binary cache's table of cores by file identity (under the cache's lock). */
#include "cache/corefind.h"

#include <string.h>

#define ID_BUCKETS 4096 /* buckets of the table */

static struct vcore *by_id[ID_BUCKETS];

static size_t id_bucket(const pfelf_identity *id)
{
	uint64_t h = id->ino * 0x9e3779b97f4a7c15ULL;
	h ^= id->dev + (h << 6) + (h >> 2);
	h ^= (uint64_t)id->mtime_nsec + id->size;
	return (size_t)(h ^ (h >> 29)) % ID_BUCKETS;
}

struct vcore *core_find(const pfelf_identity *id)
{
	struct vcore *c = by_id[id_bucket(id)];
	while (c && memcmp(&c->id, id, sizeof(*id)) != 0)
		c = c->hash_next;
	return c;
}

void core_insert(struct vcore *c)
{
	size_t i = id_bucket(&c->id);
	c->hash_next = by_id[i];
	by_id[i] = c;
}

void core_remove(struct vcore *c)
{
	struct vcore **p = &by_id[id_bucket(&c->id)];
	while (*p && *p != c)
		p = &(*p)->hash_next;
	if (*p)
		*p = c->hash_next;
}
