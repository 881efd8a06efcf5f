/*
 * Which debug information of a binary the mount serves: the one order of
 * SPEC 6, written once, for a binary's `debug` link and for
 * MOUNT/.build-id/<xx>/<rest>.debug (docs/elffs.1, DEBUG INFORMATION):
 *
 *   DS_BUILDID     a separate debug file in SOURCE with the binary's build
 *                  id (the build-id index; only while it is shown)
 *   DS_DEBUGINFOD  one from the debuginfod servers (-o debuginfod)
 *   DS_DEBUGLINK   the file .gnu_debuglink names, searched as gdb does:
 *                  beside the binary, in .debug/ beside it, under SOURCE's
 *                  usr/lib/debug/ and the binary's directory; taken when
 *                  its CRC-32 is the one the section holds (dbgfile.h)
 *   DS_MINI        the binary's minidebuginfo.debug (MiniDebugInfo)
 *   DS_GO          the binary's go/debug (Go's pclntab): dsel_go_debug,
 *                  the one place that says whether a binary has one
 *
 * A source is *looked at* (look: a lookup of `debug` or of a .build-id
 * link: the index's walk waited for, the servers asked, a candidate's CRC
 * computed) or *peeked at* (a listing and info: only what is known
 * already; what is not is DST_UNKNOWN, never asked for).
 */
#ifndef ELFFS_DEBUGSEL_H
#define ELFFS_DEBUGSEL_H

#include "buildid/buildid_read.h"

#include <limits.h>
#include <pfelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum dsrc { DS_BUILDID, DS_DEBUGINFOD, DS_DEBUGLINK, DS_MINI, DS_GO, DS_NSRC };

/* What became of one source. */
enum dstate {
	DST_NONE,    /* not for this binary (no build id, no debug link, ...) */
	DST_NO,      /* looked at: none there, or refused (why says) */
	DST_UNKNOWN, /* not known without looking (peeked at) */
	DST_YES,     /* served */
};

/* The directory of .build-id/ where the remote views are (buildid_remote.h). */
#define DSEL_REMOTE_DIR ".remote"

/* The file of a view that serves MiniDebugInfo as a debug file. */
#define DSEL_MINI_NAME "minidebuginfo.debug"
/* The file of a view that serves Go's pclntab as a debug file. */
#define DSEL_GO_NAME "go/debug"

/* What a binary offers, read from its handle (dsel_facts). */
struct dfacts {
	uint8_t id[BID_MAX];     /* its build id as the index reads it */
	unsigned idlen;          /* 0: none (or one the index leaves out) */
	char link[NAME_MAX + 1]; /* .gnu_debuglink's name ("" when none) */
	bool link_long;          /* a name over NAME_MAX bytes (never a file) */
	uint32_t crc;            /* and its CRC */
	bool mini;               /* minidebuginfo.debug */
	int mini_err;            /* MiniDebugInfo whose file cannot be made: -errno */
	bool go;                 /* go/debug */
	int go_err;              /* its pclntab looked at and not taken: -ENOENT (none
	                            found), -EINVAL (it does not hold together), -errno */
	/* Where it is: its path in SOURCE ("dir/name"), NULL for a binary
	 * with no place there (a single-file mount, a remote view). */
	const char *path;
};

/* The choice, and what became of each source. */
struct dsel {
	enum dsrc pick;        /* DS_NSRC: none */
	bool undecided;        /* peeked: a source before the pick is DST_UNKNOWN */
	char where[PATH_MAX];  /* DS_BUILDID, DS_DEBUGLINK: the file's path in SOURCE;
	                          DS_DEBUGINFOD: its name in DSEL_REMOTE_DIR */
	uint32_t slot, serial; /* DS_BUILDID: the index's entry (bidx_target) */
	uint32_t entry;        /* DS_DEBUGINFOD: the verified entry (debuginfod.h) */
	int fetch_err;         /* DS_DEBUGINFOD looked at: the servers' failure
	                          (-ETIMEDOUT, -EIO; not -ENOENT), else 0 */
	enum dstate st[DS_NSRC];
	char why[DS_NSRC][256]; /* DST_NO, DST_UNKNOWN: why, one line */
};

/*
 * The facts of the binary open as f (path: as struct dfacts says, kept by
 * the caller); nested: a view inside another (an archive's member,
 * gnu_debugdata/), which has no debug information of its own. 0 or
 * -ENOMEM (what cannot be read is not offered).
 */
int dsel_facts(pfelf_file *f, const char *path, bool nested, struct dfacts *out);

/*
 * Whether the binary open as f shows go/ (content/gotables.h), from what
 * costs nothing more than its parse: a section .go.buildinfo, .gopclntab
 * or .data.rel.ro.gopclntab, or a Go build id note; for a file without
 * section headers, pfelf_is_go (the build info's magic). Its go/debug is
 * there unless its pclntab is not found or does not hold together, which
 * only reading it tells (dsel_go_look; a view's: content/debugview.c).
 */
bool dsel_go_debug(pfelf_file *f);

/* Read the pclntab of the binary open as f (a handle of the caller's own,
 * which keeps the table): out->go stays when it holds together, else
 * out->go_err says why not. */
void dsel_go_look(pfelf_file *f, struct dfacts *out);

/* The facts of a build id alone (no binary read: path NULL), for
 * .build-id/<xx>/<rest>.debug before it looks for its binary. */
void dsel_facts_of_id(const uint8_t *id, unsigned len, struct dfacts *out);

/*
 * Go through the sources in order from first, looking (look) or peeking,
 * to the first one that serves; each before it says why not. The build-id
 * sources need an index (a directory mount with it shown), the debug link
 * a binary with a place in SOURCE (f->path). 0 (out->pick DS_NSRC when
 * none) or -ENOMEM.
 */
int dsel_resolve(const struct dfacts *f, bool look, enum dsrc first, struct dsel *out);

/*
 * The target of a link to what s picked for binary f: from the binary's
 * own directory of the mount (its `debug`), or from .build-id/<xx>/
 * (from_index). Its length, -ENOENT (nothing picked), -ENAMETOOLONG.
 */
int dsel_target(const struct dsel *s, const struct dfacts *f, bool from_index, char *buf,
                size_t size);

/* The path of the file of SOURCE a target of s leads to (DS_BUILDID,
 * DS_DEBUGLINK), for the access check of another user; NULL otherwise. */
const char *dsel_source_file(const struct dsel *s);

#endif /* ELFFS_DEBUGSEL_H */
