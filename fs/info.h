/*
 * The `info` text of a binary's view, generated line by line (textview.h).
 * It is a sequence of parts (the header lines, interpreter, soname, needed,
 * ...), each a number of lines fixed when the text is prepared and a
 * function that writes line j of the part. The plan keeps only those
 * numbers and small bounded tables, never the lines.
 */
#ifndef ELFFS_INFO_H
#define ELFFS_INFO_H

#include "textgen.h"
#include "textline.h"
#include "view.h"

#include <stdint.h>

/* Out-of-file lines written before the rest are summed up in one line. */
#define INFO_MAX_OOF_LINES 1000

/* Parts of info_tables.c, between the interpreter and the errors. */
#define INFO_META_PARTS 8

/* Parts of info: header, interpreter, those of info_tables.c, errors, out of file. */
#define INFO_NPARTS (INFO_META_PARTS + 4)

/*
 * "needed" lines between two entries of the plan's table of their dynamic
 * entries: at most 65,536 / 8 entries of 4 bytes (pfelf looks at 65,536
 * dynamic entries), and line j walks at most the entries after line j - 7.
 */
#define INFO_NEEDED_EVERY 8

/* Bit of an out-of-file entry of the plan that is a segment. */
#define INFO_OOF_SEG ((uint64_t)1 << 32)

/* What the parts of info need beyond the view (owned by the view). */
struct infoplan {
	uint32_t n[INFO_NPARTS]; /* lines of each part */
	uint32_t *needed;        /* dynamic entry of "needed" line k * INFO_NEEDED_EVERY */
	uint64_t *oof;           /* [<= INFO_MAX_OOF_LINES] section, or segment | INFO_OOF_SEG */
	uint64_t oof_total;      /* sections and segments out of the file */
	unsigned errs;           /* error lines present (bits, info.c) */
	char go[256];            /* the Go version, "" when none */
};

/* One part: plan() counts its lines (may fill the plan), line() writes line j. */
struct infopart {
	int (*plan)(struct bview *v, struct infoplan *p, uint32_t *n);
	int (*line)(struct bview *v, const struct infoplan *p, uint32_t j, struct linebuf *b);
};

/*
 * The parts of info_tables.c, in order: "soname:", one "needed:" per
 * DT_NEEDED, "rpath:", "runpath:", "debuglink crc:" and "debuglink:",
 * "build id:", "go version:", one "compressed: <file name in sections/>
 * <ZLIB|ZSTD|0x..> <ch_size>" per compressed section; each only when
 * present.
 */
extern const struct infopart info_meta_parts[INFO_META_PARTS];

/*
 * Prepare the info text of v (under its lazy_lock): count the lines of
 * every part into v->infoplan and set *g. Lines: class, data, type,
 * machine, OS/ABI, ABI version, entry, flags, sections, segments,
 * interpreter (when there is a PT_INTERP), the parts of info_meta.c, an
 * "error:" line for a table pfelf refused and an "out of file:" line per
 * section or segment outside the file. 0, -ENOMEM, -EIO.
 */
int info_prepare(struct bview *v, struct textgen *g);

/* Free v->infoplan. */
void info_release(struct bview *v);

#endif /* ELFFS_INFO_H */
