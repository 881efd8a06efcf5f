/*
 * The snapshot of a SOURCE directory or a directory of the build-id index
 * (dirlist.h): its names in one arena, each entry in an 8-byte record, and
 * a SOURCE entry's lstat in a srcstat (what readdirplus gives). Every
 * block is reserved in the memory budget (MB_LISTINGS) before it grows,
 * and the whole is given back with the last reference. A snapshot taken
 * within the cache timeout is shared by the handles of its directory.
 */
#ifndef ELFFS_DIRSNAP_H
#define ELFFS_DIRSNAP_H

#include "node/nodes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define DIRSNAP_WHAT "a directory listing" /* for the budget's log line */

/* One entry of a snapshot. */
struct dsent {
	uint32_t name;      /* offset of its name in the arena */
	unsigned char type; /* DT_DIR, DT_REG, DT_LNK */
	unsigned char kind; /* SOURCE entries (i < nst): NK_DIR, NK_LINK or NK_BIN */
};

/* A snapshot: its entries, their names and lstats, its sharing. */
struct dsnap {
	struct dsnap *next; /* in its bucket of the sharing registry (share_lock) */
	uint64_t key;       /* inode of the directory */
	uint64_t taken_ns;  /* when it was taken (elffs_now_ns, before the first lstat) */
	uint64_t seq;       /* inval_seq() before it was taken (watch_hold of its nodes) */
	unsigned refs;      /* handles (share_lock) */
	bool shared;        /* in the registry (share_lock) */
	bool partial;       /* a file was left out (its device did not answer): never shared */
	size_t n, cap;      /* entries, records allocated */
	struct dsent *e;
	size_t nst, stcap; /* SOURCE entries come first: the lstat of entries 0 to nst - 1 */
	struct srcstat *st;
	char *names; /* the arena: every name, NUL-terminated */
	size_t used, room;
	uint64_t cost; /* reserved in the budget (MB_LISTINGS) */
};

/* A new snapshot of directory key (its inode), with one reference; NULL
 * when the budget or memory refuses. */
struct dsnap *dsnap_new(uint64_t key);

/* Entry name of s with d_type type; from SOURCE (node kind kind, lstat
 * st) or not (st NULL: only after the SOURCE entries). 0, -ENOMEM or
 * -EFBIG. */
int dsnap_add(struct dsnap *s, const char *name, unsigned char type, unsigned char kind,
              const struct stat *st);

/* Whether s has an entry named name. */
bool dsnap_has(const struct dsnap *s, const char *name);

/* s complete: give back what its growth left unused. */
void dsnap_fit(struct dsnap *s);

/* Offer s (complete) to the handles of its directory opened after it. */
void dsnap_publish(struct dsnap *s);

/* The snapshot of directory key younger than window_ns (its cache
 * timeout), with a reference, or NULL. */
struct dsnap *dsnap_shared(uint64_t key, uint64_t window_ns);

/* Directory key changed: its snapshots are shared no more (watch/). */
void dsnap_forget(uint64_t key);

/* Drop a reference (NULL: none); the last frees s. */
void dsnap_put(struct dsnap *s);

#endif /* ELFFS_DIRSNAP_H */
