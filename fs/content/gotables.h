/*
 * go/ in the view of a Go binary (docs/elffs.1, GO): Go's own tables,
 * read by pfelf (pfelf.h, "Go"). Its rows are go_rows.c's (entries.h):
 *
 *   go/buildinfo   what `go version -m FILE` prints after "FILE: "
 *                  (EB_COPY: pfelf's text, kept by the handle)
 *   go/functions   one line per function of the pclntab (EB_TEXT: gofuncs.c)
 *   go/debug       an ELF debug file made from the pclntab (EB_MADE:
 *                  godebug.c, kept in the cache of made bytes, dcache.h)
 *
 * This file: the Go tables of a core and their readers.
 * Whether a binary has go/ is decided at parse from what it costs nothing
 * to look at (dsel_go_debug, buildid/debugsel.h); what go/ holds is known once its tables are
 * loaded, on the first listing of go/ or lookup inside (goview_load):
 * buildinfo when there is build info, functions and debug when the pclntab
 * checks out. pfelf's Go tables are charged to the core once loaded (a
 * parse is bounded by its file). Readers of the pclntab (pfelf_go_reader,
 * one thread each) are lent from a small pool of the core's.
 */
#ifndef ELFFS_GOTABLES_H
#define ELFFS_GOTABLES_H

#include "text/textgen.h"
#include "text/textline.h"
#include "view/view.h"

#include <pfelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

/* Readers a core keeps for the next user; more at once are made and freed. */
#define GOVIEW_READERS 2

/* What go/ of a core needs, made on first use (goview_load). */
struct goview {
	bool loaded;      /* the fields below are set (under the core's lazy_lock) */
	int table_err;    /* pfelf_go_table_get's answer: 0, -ENOENT, -EINVAL */
	pfelf_go_table t; /* when table_err is 0 */
	int info_err;     /* pfelf_go_buildinfo's answer: 0, -ENOENT, -EINVAL */
	bool info_over;   /* info's plan found the tables over the memory budget */
	pthread_mutex_t pool_lock;
	pfelf_go_reader *pool[GOVIEW_READERS]; /* idle readers of the core's handle */
	unsigned npool;
};

/*
 * Load the Go tables of core c (its lazy_lock held, its handle open) and
 * charge them to it, once: 0, -ENOENT (not a Go binary), -ENOMEM, -EFBIG,
 * -EIO (not kept: the next call tries again).
 */
int goview_load(struct vcore *c);

/* As goview_load for alias v (pinned), taking its core's lazy_lock; *out:
 * the loaded state. */
int goview_get(struct bview *v, const struct goview **out);

/* A reader of the pclntab of core c (its handle open, goview_load done),
 * or NULL (-ENOMEM, -EIO); give it back with goview_reader_put. */
pfelf_go_reader *goview_reader(struct vcore *c);
void goview_reader_put(struct vcore *c, pfelf_go_reader *r);

/* Core c's handle is being closed (nobody pins c): free its idle readers. */
void goview_handle_gone(struct vcore *c);

/* Free what go/ of core c holds. */
void goview_free(struct vcore *c);

/*
 * info's Go lines after "go version:" (under c's lazy_lock, as info's
 * plan): their number into *n; then line j into b. "go functions: N",
 * "go pclntab: ...", "go text start: ..." (docs/elffs.1, INFO).
 * 0, -ENOMEM, -EIO.
 */
int goview_info_plan(struct vcore *c, uint32_t *n);
void goview_info_line(const struct vcore *c, uint32_t j, struct linebuf *b);

/* go/functions (gofuncs.c): the text of core c (its lazy_lock held). */
int gofuncs_prepare(struct vcore *c, struct textgen *g);

/* go/debug (godebug.c): the row's make and make_guess (entries.h). */
int godebug_make(struct bview *v, uint64_t max, void **bytes, uint64_t *size);
uint64_t godebug_guess(struct bview *v);

#endif /* ELFFS_GOTABLES_H */
