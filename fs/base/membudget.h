/*
 * The daemon's memory budget (-o memory=MB): what the caches may hold of
 * parsed views (pfelf's tables of a handle, the file names of sections,
 * segments and symbols, the indexes of the text views) and of decompressed
 * sections, and of directory listings (each directory handle, and the
 * snapshot of a SOURCE or index directory that handles share). Every such
 * allocation is reserved here first, from an estimate
 * that is an upper bound of what it will take; when a reservation does not
 * fit, the caches give back idle entries (least recently used first, views
 * and decompressed sections alike) until it does. What still does not fit
 * is refused: -EFBIG when it alone (with what its owner already holds)
 * needs more than the whole budget, -ENOMEM when the entries in use hold
 * the rest. Refusals are logged, at most one line per MEMBUDGET_LOG_EVERY_S
 * seconds.
 *
 * Nodes are not evicted (the kernel decides how many live): they are
 * counted in the reported total only, as the node counter's figure
 * (membudget_count_nodes) times MEMBUDGET_NODE_BYTES.
 */
#ifndef ELFFS_MEMBUDGET_H
#define ELFFS_MEMBUDGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MEMBUDGET_DEFAULT_MB  256     /* at most; a quarter of RAM on small machines */
#define MEMBUDGET_MIN_MB      1       /* -o memory= accepts 1 to MEMBUDGET_MAX_MB */
#define MEMBUDGET_MAX_MB      1048576 /* 1 TiB */
#define MEMBUDGET_NODE_BYTES  128     /* about: a node, a source node's name and lstat */
#define MEMBUDGET_LOG_EVERY_S 10

/* What a reservation is for (reported apart). */
enum membudget_kind {
	MB_VIEWS,        /* parsed views (bincache.c, view.c, textview.c, symfiles.c) */
	MB_DECOMPRESSED, /* decompressed sections and made files (dcache.c) */
	MB_LISTINGS,     /* directory handles and their snapshots (dirlist.c) */
	MB_NKINDS,
};

/* A cache that can give memory back: the age of its least recently used
 * idle entry, and the eviction of that entry (both take the cache's lock). */
struct membudget_source {
	/* Whether there is an idle entry; *stamp: when it was last used (ns). */
	bool (*oldest)(uint64_t *stamp);
	/* Free the least recently used idle entry; whether one was freed. */
	bool (*evict)(void);
};

/* The default budget in bytes: MEMBUDGET_DEFAULT_MB, or a quarter of the
 * physical memory when that is less (16 MiB at least). */
uint64_t membudget_default(void);

/* Set the budget (bytes; 0: the default). Called once, before serving. */
void membudget_init(uint64_t bytes);

/* The budget in bytes. */
uint64_t membudget_limit(void);

/* Register the cache of kind k as a source of evictions. */
void membudget_register(enum membudget_kind k, const struct membudget_source *s);

/* Count the live nodes with count for the reported total (the node table's
 * counter, given at start); none is reported before. */
void membudget_count_nodes(uint64_t (*count)(void));

/*
 * Reserve bytes for kind k, for an object that holds own bytes already
 * (what: its name, for the log). Never call it with a cache lock held:
 * it may evict. 0; -EFBIG when own + bytes exceed the budget; -ENOMEM
 * when the entries in use leave no room.
 */
int membudget_reserve(enum membudget_kind k, uint64_t bytes, uint64_t own, const char *what);

/* Give back bytes reserved for kind k. */
void membudget_release(enum membudget_kind k, uint64_t bytes);

/* What is held: the budget, views, decompressed sections, listings, and
 * the nodes' estimate (reported only). */
struct membudget_stats {
	uint64_t limit;
	uint64_t held[MB_NKINDS];
	uint64_t nodes;
};

/* Fill st with the current figures. */
void membudget_stats_get(struct membudget_stats *st);

/* An estimate of what malloc(n) takes from the heap (glibc: 8 bytes of
 * header, 16-byte granules, 32 bytes at least). */
static inline uint64_t membudget_chunk(uint64_t n)
{
	return n + 8 <= 32 ? 32 : (n + 8 + 15) & ~(uint64_t)15;
}

#endif /* ELFFS_MEMBUDGET_H */
