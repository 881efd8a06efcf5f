/*
 * The build-id index of SOURCE: every ELF file below SOURCE
 * that has a GNU build id note, by that id. Built on first use by one walk
 * of SOURCE on a thread of its own (buildid_read.h: a few preads per file,
 * no mapping); until the walk is done, a query waits for it. Kept current:
 * a query more than the cache timeout after the last look at SOURCE has
 * that thread look again and waits for it, re-reading only what changed
 * (directories whose identity or mtime changed are listed again, indexed
 * files whose identity changed are read again); while SOURCE is watched
 * whole, only when a change was heard of (bidx_keep). The thread holds the
 * index's mutex only between system calls, and gives up on a file system
 * below SOURCE that does not answer within STALL_NS (stall.h). About 64
 * bytes an indexed file: an entry of 32 bytes, its name and id in one
 * pool, its place in the sorted order, and the directories.
 */
#ifndef ELFFS_BUILDID_INDEX_H
#define ELFFS_BUILDID_INDEX_H

#include "buildid/buildid_read.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum bidx_state { BIDX_IDLE, BIDX_WALKING, BIDX_DONE };

struct bidx_stats {
	enum bidx_state state;
	uint64_t files;     /* regular files read (walk and refreshes) */
	uint64_t indexed;   /* entries in the index now */
	uint64_t debug;     /* of which separate debug files */
	uint64_t leftout;   /* files left out now: malformed build id note */
	uint64_t errors;    /* files and directories that could not be read */
	uint64_t preads;    /* preads in total */
	uint64_t dirs;      /* directories known */
	uint64_t bytes;     /* memory the index holds */
	uint64_t walk_ns;   /* duration of the first walk */
	uint64_t refreshes; /* looks at SOURCE after the walk */
	uint64_t stalled;   /* calls into file systems below SOURCE that did not answer */
};

/* While every file system below SOURCE is watched (watch/), the index
 * serves a look at SOURCE for up to keep_ns instead of -o timeout, until
 * bidx_changed; 0 (the default): -o timeout. */
void bidx_keep(uint64_t keep_ns);

/* Something on a watched file system changed: the next query more than
 * -o timeout after the last look has the index look again. */
void bidx_changed(void);

/* Counters, without waiting for anything. */
void bidx_stats_get(struct bidx_stats *s);

/* Whether the first walk is done (bidx_same answers only then). */
bool bidx_walked(void);

/*
 * The winner among the files whose build id is id[0..len) and which are
 * (debug) or are not (!debug) separate debug files: the first relative
 * path in byte order. Its link target ("../../<path>/elf") into buf, its
 * slot and serial (what readlink gives back to bidx_target). The length
 * of the target, -ENOENT, -ENAMETOOLONG (the path is too long for a link),
 * or -ENOMEM. Starts or waits for the walk, refreshes when due.
 */
int bidx_lookup(const uint8_t *id, unsigned len, bool debug, char *buf, size_t size, uint32_t *slot,
                uint32_t *serial);

/* bidx_lookup, and with walk false a peek: -EAGAIN until the first walk
 * is done (never started nor waited for), then the tables as they are (a
 * refresh that is due is asked for, not waited for). */
int bidx_find(const uint8_t *id, unsigned len, bool debug, bool walk, char *buf, size_t size,
              uint32_t *slot, uint32_t *serial);

/*
 * The other files whose build id is id[0..len) and of the same kind
 * (debug) as the file at relative path path ("dir/name"), when path is
 * their winner (bidx_lookup's rule; paths too long for a link take no
 * part): each(ctx, p) for each other path p in byte order, until it
 * returns nonzero. Their number (each called for the first ones only);
 * 0 when path is not the winner, has no such other file, or the first
 * walk is not done (never started nor waited for here: the index is
 * answered as it is, refreshed when due); -ENOMEM. each runs without the
 * index's mutex.
 */
int bidx_same(const uint8_t *id, unsigned len, bool debug, const char *path,
              int (*each)(void *ctx, const char *path), void *ctx);

/* The target of what bidx_lookup gave (slot, serial), if that file is
 * still in the index as it was; its length or -ENOENT. */
int bidx_target(uint32_t slot, uint32_t serial, char *buf, size_t size);

/* Which first bytes some build id has (have[256]); 0 or -errno. */
int bidx_prefixes(bool have[256]);

/*
 * The names under <xx>/ for first byte b: "<rest>" for a binary, and
 * "<rest>.debug" for a debug file, each once, in order of the id; a
 * malloc'd array of malloc'd strings in *names, their count in *n.
 */
int bidx_names(uint8_t b, char ***names, size_t *n);

/* Stop the walk and free the index (at exit). */
void bidx_destroy(void);

#endif /* ELFFS_BUILDID_INDEX_H */
