/*
 * The text views of a binary (info, symbols, relocations, go/functions;
 * an archive's info and armap):
 * each a line generator (textgen.h) over the view's pfelf handle, indexed
 * on first use (the lookup that needs its size) and kept by the view as
 * its index only. Reads make the bytes they ask for from the handle, so
 * the caller pins the view for the call. They are kept by the view's core
 * (view.h): one index per file identity, whatever the links.
 */
#ifndef ELFFS_TEXTVIEW_H
#define ELFFS_TEXTVIEW_H

#include "text/textgen.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bview;
struct vcore;

enum text_kind {
	TEXT_INFO,    /* info (info.c, info_tables.c) */
	TEXT_SYMBOLS, /* symbols (symtext.c) */
	TEXT_RELOCS,  /* relocations (reloctext.c) */
	TEXT_ARINFO,  /* an archive's info (arview.c) */
	TEXT_ARMAP,   /* an archive's armap */
	TEXT_GOFUNCS, /* go/functions (gofuncs.c) */
	TEXT_NKINDS,
};

/* What a view keeps of one of its texts (under its lazy_lock until built). */
struct textstate {
	struct textgen gen;
	struct textindex index;
	bool built;
};

/*
 * The size of text k of v, indexing it on first call (v pinned; the text
 * is kept by v's core, so the links of one file share it). Its index, and
 * pfelf's metadata tables the first time, are reserved in the memory
 * budget first (membudget.h). 0, -ENOMEM (malloc, or no room in the
 * budget beside what is in use), -EFBIG (the view would need more than
 * the whole budget), -EIO (a table went unreadable), errors of the
 * generator's preparation. Errors are not kept: the next call tries again.
 */
int textview_size(struct bview *v, enum text_kind k, uint64_t *size);

/*
 * Write len bytes at off of text k of v (indexed, pinned by the caller)
 * into buf; off + len within its size. 0, -EIO (the text is no longer the
 * one indexed), -ENOMEM.
 */
int textview_read(struct bview *v, enum text_kind k, uint64_t off, char *buf, size_t len);

/* Give new core c the state of its texts, none built yet; 0 or -ENOMEM. */
int textview_init(struct vcore *c);

/* Free what the texts of core c hold. */
void textview_free(struct vcore *c);

#endif /* ELFFS_TEXTVIEW_H */
