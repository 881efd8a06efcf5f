/*
 * The symbol views of a binary: the `symbols` text (a line generator,
 * textview.h) and the file names of `symbol/`. Both are prepared on first
 * use (lookup of `symbols`, lookup or listing in `symbol/`) and kept by the
 * binary's view until it is freed: the text as its index only, the names
 * as file names (at most NAMING_MAX bytes of a symbol's name and a
 * "~<index>"), never the full names. Both live in the view's core (view.h),
 * shared by the links of one file, and are reserved in the memory budget
 * (membudget.h) before they are built: a refusal for lack of room
 * (-ENOMEM) is not kept, the next call tries again; the names of a view
 * that would need more than the whole budget (-EFBIG) are refused for good.
 */
#ifndef ELFFS_SYMVIEW_H
#define ELFFS_SYMVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nameset.h"

struct bview;
struct vcore;

/* One file of symbol/: its name and the byte range of the source it serves. */
struct symfile {
	char *name;
	uint64_t off;
	uint64_t len;
};

struct symview {
	uint32_t nsymtab; /* lines of the symbols text from .symtab, then .dynsym */
	uint32_t ndynsym;
	struct symfile *files; /* symbol/ entries, in listing order */
	uint32_t nfiles;
	struct nameset index; /* files by name (id: position + 1) */
	int files_err;        /* 0, or the error building files gave */
	bool files_built;
};

struct textgen;

/*
 * Prepare the symbols text of v (under its lazy_lock; textview.h): count
 * the symbols of both tables, set *g. Lines: "table index value size type
 * bind visibility ndx name". 0, -ENOMEM, -EIO.
 */
int symtext_prepare(struct vcore *c, struct textgen *g);

/*
 * The byte range of symbol/<name> of v: through the hash tables when the
 * name table is not built yet and the answer is certain, else through the
 * name table (built on first need). 0, -ENOENT, -ENOMEM, -EFBIG.
 */
int symview_lookup(struct bview *v, const char *name, uint64_t *off, uint64_t *len);

/* The name table of symbol/ (built on first call, kept by v's core); 0,
 * -ENOMEM, -EFBIG. */
int symview_files(struct bview *v, const struct symfile **files, uint32_t *n);

/* Give new core c the state of its symbol views, none built yet; 0 or -ENOMEM. */
int symview_init(struct vcore *c);

/* Free what core c's symbol views hold. */
void symview_free(struct vcore *c);

#endif /* ELFFS_SYMVIEW_H */
