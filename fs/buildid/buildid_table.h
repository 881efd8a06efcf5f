/*
 * The tables of the build-id index, shared by its files (private to
 * buildid_index.c, buildid_table.c, buildid_walk.c, buildid_calls.c): entries of indexed
 * files and directories in arrays of slots, their names and ids in one
 * byte pool, all under ix.mu (the counters are atomic, read without it).
 */
#ifndef ELFFS_BUILDID_TABLE_H
#define ELFFS_BUILDID_TABLE_H

#include "buildid/buildid_read.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define NONE      UINT32_MAX
#define MAX_DEPTH 256 /* directories deeper than that are not walked (an error) */
#define F_LIVE    1u
#define F_DEBUG   2u
#define F_SEEN    4u

struct ent {
	uint32_t dir;  /* its directory */
	uint32_t name; /* pool offset, NUL-ended */
	uint32_t id;   /* pool offset of the id bytes */
	uint32_t next; /* next entry of its directory, or of the free list */
	uint64_t fp;   /* identity (dev, ino, size, mtime, ctime) hashed */
	uint32_t serial;
	uint8_t idlen;
	uint8_t flags;
	uint16_t pad;
};

/* A directory of SOURCE (0 is SOURCE itself). */
struct dir {
	uint32_t parent, name; /* pool offset */
	uint32_t child, sibling;
	uint32_t ents;
	uint32_t flags;
	uint64_t fp; /* identity and mtime; 0: never listed */
};

struct bidx {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started;
	_Atomic bool stop;
	struct ent *e;
	uint32_t ne, cape, freee;
	struct dir *d;
	uint32_t nd, capd, freed;
	char *pool;
	size_t npool, cappool, deadpool;
	uint32_t *order; /* live entries sorted by (id, debug) */
	uint32_t norder;
	bool dirty; /* order must be made again */
	uint32_t serial;
	uint64_t checked_ns;
	_Atomic int state;
	_Atomic uint64_t files, indexed, debug, leftout, errors, preads, dirs, bytes, walk_ns,
	        refreshes, stalled;
	/* refreshes: asked for by queries (want), made by the index's thread */
	pthread_cond_t wake; /* the thread waits on it for a refresh to make */
	bool want, refreshing;
	uint64_t looks; /* refreshes made */
	/* the watch (bidx_keep, bidx_changed): how long a look may serve
	 * without a change heard of (0: -o timeout), changes heard of, and
	 * their count when the last look began (ix.mu) */
	_Atomic uint64_t keep_ns, changes;
	uint64_t changes_seen;
};

extern struct bidx ix;

/* The name of an entry or a directory (in the pool: valid until the next
 * name is added). */
static inline const char *ent_name(const struct ent *e)
{
	return ix.pool + e->name;
}

static inline const char *dir_name(const struct dir *d)
{
	return ix.pool + d->name;
}

/* Keep ix.bytes current. */
void bidx_account(void);

/* A new directory name below parent (NONE: the root); its slot or NONE. */
uint32_t bidx_dir_new(uint32_t parent, const char *name);

/* Forget directory i and everything below it. */
void bidx_dir_free(uint32_t i);

/* Take entry i out of directory dir. */
void bidx_ent_free(uint32_t dir, uint32_t i);

/* Put file name of directory dir (identity hash fp) with build id b in
 * the index, as entry i read again (freed first) or a new one; 0 or
 * -ENOMEM. */
int bidx_ent_set(uint32_t dir, uint32_t i, const char *name, uint64_t fp, const struct bid_file *b);

/* Copy the live names and ids into a new pool when half of it is dead. */
void bidx_pool_compact(void);

#endif /* ELFFS_BUILDID_TABLE_H */
