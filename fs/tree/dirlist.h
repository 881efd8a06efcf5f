/*
 * Directory listings: what a directory handle (opendir to releasedir)
 * serves to readdir and readdirplus by position, within the memory budget
 * (membudget.h, MB_LISTINGS).
 *
 * - A directory of a binary's view (sections/, segments/, symbol/,
 *   decompressed/, members/) is streamed: the handle keeps a plain
 *   reference to the view (which the budget counts already, and which
 *   cannot be evicted while referenced) and readdir takes the name of
 *   entry i from it (entries.h: name_at, type_at). A binary's own
 *   directory keeps which rows of its table are present (a few bytes).
 * - A SOURCE directory, and a directory of the build-id index, is a
 *   snapshot taken at opendir: a SOURCE directory's listing reads entries
 *   and probes only the ELF magic of regular files (probe.h). Its names
 *   are kept in one arena, each entry in an 8-byte record, and a SOURCE
 *   entry's lstat in a srcstat (72 bytes: what readdirplus gives); every
 *   block is reserved in the budget before it grows, and the whole is given
 *   back when its last handle is released. Handles of one directory opened
 *   within the cache timeout of a snapshot share it (refcounted), so N
 *   opens of one directory cost one snapshot. The listing of a directory
 *   is the same for every caller; should it ever depend on the caller, the
 *   key of the sharing must include it.
 *
 * Each handle is charged too (its struct). A reservation that does not
 * fit makes opendir fail: ENOMEM, or EFBIG for a snapshot that alone
 * needs more than the whole budget.
 */
#ifndef ELFFS_DIRLIST_H
#define ELFFS_DIRLIST_H

#include "content/entries.h"
#include "base/handles.h"
#include "node/nodes.h"
#include "view/view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define DIRLIST_ROWS_MAX 16 /* rows of a binary's directory (entries.h), at most */

struct dsnap; /* a snapshot (dirsnap.h) */

struct dirlist {
	uint64_t self;   /* inode of the directory */
	uint64_t parent; /* inode of its parent */
	size_t n;        /* entries, "." and ".." not counted */
	/* A directory of a binary: streamed from view (a plain reference). */
	struct bview *view;
	const struct bin_entry *row;    /* a directory inside the view: its row */
	const struct bin_entry *rows;   /* the binary's own directory: its table */
	uint8_t pick[DIRLIST_ROWS_MAX]; /* ... and the rows of it that are listed */
	bool pinned;                    /* view is a pinned reference (while opening) */
	struct dsnap *snap;             /* a SOURCE or index directory: its snapshot */
	bool later;                     /* ... taken at the first read (dirlist_ready) */
	struct hlink link;              /* in the registry of handles once given to the kernel */
};

/* A listing of directory node dir (any directory kind); 0 or -errno. */
int dirlist_open(struct node *dir, struct dirlist **out);

/* d ready to be read: the snapshot of a directory whose listing the
 * kernel may cache (check_cache_listing) is taken at its first read, so an
 * open the kernel's cache then serves costs no listing of SOURCE. 0 or
 * -errno (-ESTALE: the directory's node is gone). */
int dirlist_ready(struct dirlist *d);

/* Release a listing (the snapshot goes with its last handle). */
void dirlist_free(struct dirlist *d);

/* Entry i (below d->n) of d: its name (valid while d lives) and d_type. */
const char *dirlist_name(const struct dirlist *d, size_t i, unsigned char *type);

/* The lstat of entry i of a SOURCE directory's listing, its node kind
 * (NK_DIR, NK_LINK or NK_BIN) and when it was taken; NULL for entries
 * without one (not from SOURCE). */
const struct srcstat *dirlist_srcstat(const struct dirlist *d, size_t i, int *kind,
                                      uint64_t *taken_ns);

#endif /* ELFFS_DIRLIST_H */
