/* The tables of the build-id index (buildid_table.h). */
#include "buildid/buildid_table.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bidx ix = {.mu = PTHREAD_MUTEX_INITIALIZER,
                  .cv = PTHREAD_COND_INITIALIZER,
                  .wake = PTHREAD_COND_INITIALIZER,
                  .freee = NONE,
                  .freed = NONE};

void bidx_account(void)
{
	atomic_store(&ix.bytes, (uint64_t)ix.cape * sizeof(struct ent) +
	                                (uint64_t)ix.capd * sizeof(struct dir) + ix.cappool +
	                                (uint64_t)ix.norder * sizeof(uint32_t));
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	uint32_t c = *cap ? *cap * 2 : 256;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Put n bytes in the pool; its offset, or NONE. */
static uint32_t pool_put(const void *s, size_t n)
{
	if (ix.npool + n > UINT32_MAX)
		return NONE;
	if (ix.npool + n > ix.cappool) {
		size_t c = ix.cappool ? ix.cappool * 2 : 4096;
		while (c < ix.npool + n)
			c *= 2;
		char *p = realloc(ix.pool, c);
		if (!p)
			return NONE;
		ix.pool = p;
		ix.cappool = c;
	}
	memcpy(ix.pool + ix.npool, s, n);
	ix.npool += n;
	return (uint32_t)(ix.npool - n);
}

uint32_t bidx_dir_new(uint32_t parent, const char *name)
{
	uint32_t i = ix.freed;
	if (i != NONE) {
		ix.freed = ix.d[i].sibling;
	} else {
		if (grow((void **)&ix.d, &ix.capd, ix.nd + 1, sizeof(struct dir)) < 0)
			return NONE;
		i = ix.nd++;
	}
	uint32_t off = pool_put(name, strlen(name) + 1);
	if (off == NONE) {
		ix.d[i].sibling = ix.freed;
		ix.freed = i;
		return NONE;
	}
	ix.d[i] = (struct dir){.parent = parent,
	                       .name = off,
	                       .child = NONE,
	                       .sibling = NONE,
	                       .ents = NONE,
	                       .flags = F_LIVE | F_SEEN};
	if (parent != NONE) {
		ix.d[i].sibling = ix.d[parent].child;
		ix.d[parent].child = i;
	}
	atomic_fetch_add(&ix.dirs, 1);
	return i;
}

void bidx_ent_free(uint32_t dir, uint32_t i)
{
	struct ent *e = &ix.e[i];
	for (uint32_t *p = &ix.d[dir].ents; *p != NONE; p = &ix.e[*p].next)
		if (*p == i) {
			*p = e->next;
			break;
		}
	ix.deadpool += strlen(ent_name(e)) + 1 + e->idlen;
	atomic_fetch_sub(&ix.indexed, 1);
	if (e->flags & F_DEBUG)
		atomic_fetch_sub(&ix.debug, 1);
	e->flags = 0;
	e->next = ix.freee;
	ix.freee = i;
	ix.dirty = true;
}

/* Forget directory i and everything below it. */
void bidx_dir_free(uint32_t i)
{
	while (ix.d[i].child != NONE)
		bidx_dir_free(ix.d[i].child);
	while (ix.d[i].ents != NONE)
		bidx_ent_free(i, ix.d[i].ents);
	uint32_t parent = ix.d[i].parent;
	for (uint32_t *p = &ix.d[parent].child; parent != NONE && *p != NONE; p = &ix.d[*p].sibling)
		if (*p == i) {
			*p = ix.d[i].sibling;
			break;
		}
	ix.deadpool += strlen(dir_name(&ix.d[i])) + 1;
	ix.d[i].flags = 0;
	ix.d[i].sibling = ix.freed;
	ix.freed = i;
	atomic_fetch_sub(&ix.dirs, 1);
}

/* Put file name of directory dir (identity fp) with build id b in the
 * index, as entry i (an existing one read again) or a new one. */
int bidx_ent_set(uint32_t dir, uint32_t i, const char *name, uint64_t fp, const struct bid_file *b)
{
	if (i != NONE)
		bidx_ent_free(dir, i);
	i = ix.freee;
	if (i != NONE) {
		ix.freee = ix.e[i].next;
	} else {
		if (grow((void **)&ix.e, &ix.cape, ix.ne + 1, sizeof(struct ent)) < 0)
			return -ENOMEM;
		i = ix.ne++;
	}
	uint32_t noff = pool_put(name, strlen(name) + 1);
	uint32_t ioff = noff == NONE ? NONE : pool_put(b->id, b->len);
	if (ioff == NONE) {
		ix.e[i].flags = 0;
		ix.e[i].next = ix.freee;
		ix.freee = i;
		return -ENOMEM;
	}
	if (++ix.serial == 0)
		ix.serial = 1;
	ix.e[i] = (struct ent){.dir = dir,
	                       .name = noff,
	                       .id = ioff,
	                       .next = ix.d[dir].ents,
	                       .fp = fp,
	                       .serial = ix.serial,
	                       .idlen = b->len,
	                       .flags = (uint8_t)(F_LIVE | F_SEEN | (b->debug ? F_DEBUG : 0))};
	ix.d[dir].ents = i;
	atomic_fetch_add(&ix.indexed, 1);
	if (b->debug)
		atomic_fetch_add(&ix.debug, 1);
	ix.dirty = true;
	return 0;
}

static size_t copy_to(char *dst, size_t at, uint32_t *off, size_t len)
{
	memcpy(dst + at, ix.pool + *off, len);
	*off = (uint32_t)at;
	return at + len;
}

/* Copy the live names and ids into a new pool when half of it is dead. */
void bidx_pool_compact(void)
{
	if (ix.deadpool < 65536 || ix.deadpool < ix.npool / 2)
		return;
	size_t need = ix.npool - ix.deadpool, at = 0;
	char *p = malloc(need ? need : 1);
	if (!p)
		return; /* next time */
	for (uint32_t i = 0; i < ix.nd; i++)
		if (ix.d[i].flags & F_LIVE)
			at = copy_to(p, at, &ix.d[i].name, strlen(dir_name(&ix.d[i])) + 1);
	for (uint32_t i = 0; i < ix.ne; i++)
		if (ix.e[i].flags & F_LIVE) {
			at = copy_to(p, at, &ix.e[i].name, strlen(ent_name(&ix.e[i])) + 1);
			at = copy_to(p, at, &ix.e[i].id, ix.e[i].idlen);
		}
	free(ix.pool);
	ix.pool = p;
	ix.npool = at;
	ix.cappool = need ? need : 1;
	ix.deadpool = 0;
}
