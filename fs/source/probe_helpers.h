/*
 * The batches of the probe (probe.h: "A directory's entries are
 * classified together"): their entries, the steps that answer them and
 * the helper threads (probe_helpers.c), private to the batch's files
 * (probe_batch.c: a batch and the listing's thread; probe_uring.c: the
 * reads submitted together).
 */
#ifndef ELFFS_PROBE_HELPERS_H
#define ELFFS_PROBE_HELPERS_H

#include "source/probe.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum { IT_NEW, IT_TAKEN, IT_MAGIC, IT_FOREIGN, IT_FOREIGN_TAKEN, IT_DONE };

struct pitem {
	uint32_t name; /* offset in the batch's arena */
	unsigned char d_type;
	int dirfd; /* its directory (probe_batch_add_at), or -1: the batch's */
	_Atomic int state;
	int kind;
	uint64_t found_ns; /* IT_FOREIGN: when it was found on another device */
	struct stat st;
};

struct probe_batch {
	struct probe_batch *next; /* in the pool's list while it has work (probe_pool.mu) */
	bool listed;              /* in that list (probe_pool.mu) */
	unsigned refs;            /* the listing and the helpers inside (probe_pool.mu) */
	bool closed;              /* the listing went on, without what is left (probe_pool.mu) */
	bool alone;               /* probe_batch_alone: no helpers, foreign files not read */
	atomic_bool stalled;      /* a file was left out: its device did not answer */
	int dirfd;                /* the listing's (valid while it waits) */
	int ffd;                  /* a copy of it for the foreign files (probe_pool.mu), or -1 */
	dev_t dev;                /* of the directory */
	size_t n, cap;
	_Atomic size_t take;  /* the next entry to take */
	_Atomic size_t done;  /* entries answered */
	_Atomic size_t magic; /* entries waiting for the reads together (IT_MAGIC) */
	size_t *fq;           /* foreign entries to read (probe_pool.mu) */
	size_t fq_n, fq_taken;
	struct pitem *it;
	char *names;
	size_t nused, nroom;
};

/* The helper threads and the batches they may take (probe_helpers.c). */
struct probe_pool {
	pthread_mutex_t mu;
	pthread_cond_t work; /* helpers wait for work */
	pthread_cond_t done; /* listings wait for their batch */
	struct probe_batch *list;
	unsigned threads, idle;
	bool cond_ready;
	size_t helpers; /* woken for a directory: PROBE_HELPERS, or ELFFS_PROBE_HELPERS */
	size_t depth;   /* reads together: a 16th of the descriptors, 1 to 64 */
};

extern struct probe_pool probe_pool;

/* The directory of item it of b. */
int probe_dir_of(const struct probe_batch *b, const struct pitem *it);

/* Free b (its last reference gone). */
void probe_batch_free(struct probe_batch *b);

/* Drop a reference (probe_pool.mu held); whether it was the last. */
bool probe_put_locked(struct probe_batch *b);

/* Entry i answered (by anyone). */
void probe_finish(struct probe_batch *b, size_t i, int kind);

/* The first step of entry i: its lstat, and its magic when it is on the
 * directory's device (or known); a foreign one is read by a helper. */
void probe_step(struct probe_batch *b, size_t i, bool helper);

/* Helpers for want more entries (probe_pool.mu held): the idle ones are
 * woken, and new ones started while fewer than want are idle. */
void probe_wake_helpers(size_t want);

/* Put b in the pool's list (probe_pool.mu held). */
void probe_offer(struct probe_batch *b);

/* The pool's first use (probe_pool.mu held). */
void probe_pool_start(void);

/* Whether the magic reads of a batch's own device are submitted together
 * (liburing): then they wait (IT_MAGIC) until every lstat is taken. */
#ifdef ELFFS_URING
#define PROBE_URING 1
#else
#define PROBE_URING 0
#endif

#endif /* ELFFS_PROBE_HELPERS_H */
