/*
 * The `info` text of a binary's view, generated line by line (textview.h).
 * It is a sequence of parts (the header lines, interpreter, soname, needed,
 * ...), each a number of lines fixed when the text is prepared and a
 * function that writes line j of the part. The plan keeps only those
 * numbers and small bounded tables, never the lines.
 */
#ifndef ELFFS_INFO_H
#define ELFFS_INFO_H

#include "buildid/buildid_read.h"
#include "text/textgen.h"
#include "text/textline.h"
#include "view/view.h"

#include <stdint.h>

/* Out-of-file lines written before the rest are summed up in one line. */
#define INFO_MAX_OOF_LINES 1000

/* Parts of info_tables.c, between the interpreter and the errors. */
#define INFO_META_PARTS 9

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
	/* The build id as the build-id index reads it (buildid_read.h, the same
	 * code over the view's handle): bid_ret 1 with bid, 0 none, -EINVAL a
	 * malformed note (left out of the index), other -errno unreadable. */
	int bid_ret;
	struct bid_file bid;
};

/* One part: plan() counts its lines (may fill the plan), line() writes line j. */
struct infopart {
	int (*plan)(struct vcore *c, struct infoplan *p, uint32_t *n);
	int (*line)(struct vcore *c, const struct infoplan *p, uint32_t j, struct linebuf *b);
};

/*
 * The parts of info_tables.c, in order: "soname:", one "needed:" per
 * DT_NEEDED, "rpath:", "runpath:", "debuglink crc:" and "debuglink:",
 * "build id:", "build id note: malformed (<N> bytes)" (a note the build-id
 * index leaves out), "go version:", one "compressed: <file name in
 * sections/> <ZLIB|ZSTD|0x..> <ch_size>" per compressed section; each only
 * when present.
 */
extern const struct infopart info_meta_parts[INFO_META_PARTS];

/*
 * Prepare the info text of v (under its lazy_lock): count the lines of
 * every part into v->infoplan and set *g. Lines: class, data, type,
 * machine, OS/ABI, ABI version, entry, flags, sections, segments,
 * interpreter (when there is a PT_INTERP), the parts of info_tables.c, a
 * "note:" line per unusual header field readelf reads (EI_VERSION,
 * e_version, e_ehsize), an "error:" line for a table pfelf refused and an
 * "out of file:" line per section or segment outside the file (and for a
 * header past the end). A header pfelf refused (c->refused) has one line,
 * "error: ELF header: <why>". 0, -ENOMEM, -EIO.
 */
int info_prepare(struct vcore *c, struct textgen *g);

/* Free c->infoplan. */
void info_release(struct vcore *c);

/* Bytes of "same build id" lines in a tail; the others are summed up in
 * one line "same build id: <N> more". */
#define INFO_SAME_MAX 65536

/* The lines after the text of info that belong to one binary node. */
struct infotail {
	char *text; /* malloc'd; NULL when there is none */
	size_t len;
	uint64_t hash; /* of the text; 0 when there is none */
};

struct node;

/*
 * The tail of info for binary node bin, whose view v (pinned) has its info
 * text indexed (textview_size): when the build-id index is shown and its
 * first walk is done, the mount is not shared (-o allow_other: none, one
 * text for every caller), and bin is the winner among the files with its
 * build id (read as the index reads it), one "same build id: <path>" line
 * per other such file (paths relative to the mount's root, in byte
 * order), at most INFO_SAME_MAX bytes of them and a line for the rest; an
 * archive's member (NK_MEMBER: not in the index) has none.
 * 0 and *t (empty when none), or -ENOMEM (info_same.c).
 */
int info_tail(struct node *bin, struct bview *v, struct infotail *t);

/* Free what info_tail made (t is left empty). */
void info_tail_free(struct infotail *t);

#endif /* ELFFS_INFO_H */
