/*
 * The one small hash set of pfelf and elffs: an open-addressing table of
 * ids (nonzero uint32_t, usually an array position + 1) keyed by a name
 * that the caller's name_of gives for each id, so the set owns no string.
 * Linear probing, sized once for at most n entries and then at most half
 * full. Header-only and private to this source tree: pfelf includes it as
 * it includes nothing of elffs, and elffs as it includes nothing of pfelf's
 * private headers.
 */
#ifndef NAMESET_H
#define NAMESET_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct nameset {
	uint32_t *slot; /* mask + 1 ids; 0 is an empty slot */
	size_t mask;
};

/* The name of id (never NULL for an id in the set). */
typedef const char *(*nameset_name_fn)(const void *ctx, uint32_t id);

/* FNV-1a, 64 bits, with the high bits folded into the low ones. */
static inline uint64_t nameset_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

/* Slots of a set for at most n ids: at least 16 and 2n, a power of two. */
static inline size_t nameset_slots(size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	return cap;
}

/* Bytes the table of a set for at most n ids takes. */
static inline size_t nameset_bytes(size_t n)
{
	return nameset_slots(n) * sizeof(uint32_t);
}

/* An empty set for at most n ids: 0 or -ENOMEM. */
static inline int nameset_init(struct nameset *s, size_t n)
{
	size_t cap = nameset_slots(n);
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = s->slot ? cap - 1 : 0;
	return s->slot ? 0 : -ENOMEM;
}

static inline void nameset_free(struct nameset *s)
{
	free(s->slot);
	s->slot = NULL;
	s->mask = 0;
}

/* The slot holding the id named name, or the empty slot where it would go. */
static inline size_t nameset_probe(const struct nameset *s, const char *name,
                                   nameset_name_fn name_of, const void *ctx)
{
	size_t i = nameset_hash(name) & s->mask;
	while (s->slot[i] && strcmp(name_of(ctx, s->slot[i]), name) != 0)
		i = (i + 1) & s->mask;
	return i;
}

/* The id named name, or 0 (also for a set never initialised). */
static inline uint32_t nameset_find(const struct nameset *s, const char *name,
                                    nameset_name_fn name_of, const void *ctx)
{
	return s->slot ? s->slot[nameset_probe(s, name, name_of, ctx)] : 0;
}

/* Add id under its name unless an id of that name is there: true when
 * added. At most the n ids of nameset_init may be added. */
static inline bool nameset_add(struct nameset *s, uint32_t id, nameset_name_fn name_of,
                               const void *ctx)
{
	size_t i = nameset_probe(s, name_of(ctx, id), name_of, ctx);
	if (s->slot[i])
		return false;
	s->slot[i] = id;
	return true;
}

#endif /* NAMESET_H */
