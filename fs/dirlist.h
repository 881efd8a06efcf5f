/*
 * Directory listings: a snapshot taken at opendir and served by readdir
 * by position. A SOURCE directory's listing reads entries and probes only
 * the ELF magic of regular files (probe.h); a view directory lists the
 * names of its parsed view.
 */
#ifndef ELFFS_DIRLIST_H
#define ELFFS_DIRLIST_H

#include "handles.h"
#include "nodes.h"
#include "view.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

struct dent {
	const char *name;
	unsigned char type; /* DT_DIR, DT_REG, DT_LNK */
	unsigned char kind; /* SOURCE entries (i < nst): NK_DIR, NK_LINK or NK_BIN */
};

struct dirlist {
	uint64_t self;   /* inode of the directory */
	uint64_t parent; /* inode of its parent */
	size_t n;        /* entries, "." and ".." not counted */
	struct dent *e;
	char **owned;    /* names this listing allocated (SOURCE directories) */
	struct stat *st; /* SOURCE directories: the lstat of entries 0 to nst - 1 */
	size_t nst;
	uint64_t taken_ns;  /* when the lstats were taken (elffs_now_ns, before the first) */
	struct bview *view; /* names are the view's (a binary's directories) */
	bool pinned;        /* view is a pinned reference (while the listing is built) */
	struct hlink link;  /* in the registry of handles once given to the kernel */
};

/* A snapshot of directory node dir (any directory kind); 0 or -errno. */
int dirlist_open(struct node *dir, struct dirlist **out);

/* Free a snapshot. */
void dirlist_free(struct dirlist *d);

#endif /* ELFFS_DIRLIST_H */
