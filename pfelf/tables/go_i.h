/*
 * Private header of Go's tables (go*.c, golang.c): the pclntab located
 * (gofind.c), its text start (gotext.c), its header and function table
 * (gopclntab.c), its records and file tables (gorecords.c), the reader of
 * its names and pc-value tables (goreader.c, gopcvalue.c, golookup.c), the
 * search of a pc (gosearch.c), its
 * compile units (gounits.c), and the build info (golang.c,
 * gobuildinfo.c, goquote.c, goprint.c).
 *
 * Offsets below are file offsets; every region is [at, end) inside the
 * table, checked once at load. What is kept: the function table and the
 * used fields of the records (24 bytes a function), the compile unit and
 * file tables (a few bytes a function); names and pc-value tables are read
 * through a reader's windows.
 */
#ifndef PFELF_GO_I_H
#define PFELF_GO_I_H

#include "tables/tables_i.h"

#define PFELF__GO_MAGIC12  0xfffffffbu
#define PFELF__GO_MAGIC116 0xfffffffau
#define PFELF__GO_MAGIC118 0xfffffff0u
#define PFELF__GO_MAGIC120 0xfffffff1u

/* Where the pclntab is (gofind.c). */
struct pfelf__go_loc {
	uint64_t off;  /* file offset of the header */
	uint64_t size; /* bytes the table may use from there */
	uint8_t where; /* enum pfelf_go_where */
};

/* Largest header (1.18+: 8 bytes and 8 words of 8) and the smallest (1.2). */
#define PFELF__GO_HDR_MAX 72
#define PFELF__GO_HDR_MIN 16

/* What a function's record says, as far as it is used (its entry, checked
 * to be the function table's, is not kept). */
struct pfelf__go_rec {
	uint32_t nameoff, pcfile, pcln, cuoff;
};

/* A checked pclntab (gopclntab.c, gorecords.c), kept in struct pfelf_tables. */
struct pfelf__go {
	bool present;       /* false: the file has no pclntab (-ENOENT) */
	pfelf_go_table pub; /* what pfelf_go_table_get copies out */
	uint64_t end;       /* pub.offset + pub.size */
	/* the regions, each bounded by the next one's start (1.2: the whole
	 * table, but the file table) */
	uint64_t name_at, name_end; /* funcnametab */
	uint64_t cu_at, cu_end;     /* cutab (1.2: the file table's words) */
	uint64_t file_at, file_end; /* filetab: the file names (1.2: the whole table) */
	uint64_t pc_at, pc_end;     /* pctab */
	uint64_t func_at, func_end; /* what record offsets count from */
	uint8_t entry_size;         /* bytes of a record's entry: 4 (1.18+) or ptrsize */
	uint8_t rec_size;           /* bytes of a record read: the entry, 7 or 8 words */
	uint64_t *pc;               /* nfunc + 1 entries, never decreasing */
	uint32_t *bucket;           /* the search's buckets (gosearch.c) */
	uint32_t nbucket;           /* at most nfunc */
	uint8_t bucket_shift;       /* log2 of a bucket's bytes of text */
	struct pfelf__go_rec *rec;  /* nfunc records */
	uint8_t *cutab;             /* copy of [cu_at, cu_end) */
	char *files;                /* copy of [file_at, file_end) and a NUL; NULL for 1.2 */
	_Atomic int cu_state;       /* the compile units (gounits.c) */
	uint32_t *cu;               /* their first entries, ascending */
	uint32_t ncu;
};

/* Most bytes of compile unit and file tables copied (real tables: a few
 * bytes a function). */
#define PFELF__GO_FILES_MAX ((uint64_t)32 << 20)

/* ------------------------------------------------------------- gofind.c */

/* Locate the pclntab: 0, -ENOENT, -EINVAL (a section without bytes), -EIO. */
int pfelf__go_find(pfelf_file *f, struct pfelf__go_loc *loc) PFELF_HIDDEN;
/* The magic of hdr (16 bytes) in either byte order, *msb the order: 0 when
 * it is none of Go's. */
uint32_t pfelf__go_magic(const uint8_t *hdr, bool *msb) PFELF_HIDDEN;
/* Whether the avail bytes at hdr start a pclntab header that checks out
 * (scan: also the pointer size of f's class). */
bool pfelf__go_header_ok(const pfelf_file *f, const uint8_t *hdr, uint64_t avail,
                         bool scan) PFELF_HIDDEN;
/* A word of the table's pointer size and byte order. */
static inline uint64_t pfelf__go_word(const uint8_t *p, unsigned ptrsize, bool msb)
{
	return ptrsize == 8 ? pfelf__u64(p, msb) : pfelf__u32(p, msb);
}
/* The virtual address of file offset off through the PT_LOADs: 0, -EFAULT. */
int pfelf__go_vaddr_of(pfelf_file *f, uint64_t off, uint64_t *vaddr) PFELF_HIDDEN;

/* ------------------------------------------------------------- gotext.c */

/* The text start of a 1.18+ table whose header (hdr) is loaded into g->pub
 * (magic, ptrsize, vaddr): fills g->pub.text and text_from; 0, -EINVAL
 * when none is found, -EIO, -ENOMEM. */
int pfelf__go_text(pfelf_file *f, struct pfelf__go *g, const uint8_t *hdr) PFELF_HIDDEN;

/* ---------------------------------------------------------- gorecords.c */

/* The records of the nfunc functions at offsets fo (from func_at), their
 * entries checked against the function table, and the copies of the
 * compile unit and file tables: 0, -EINVAL, -EIO, -ENOMEM. */
int pfelf__go_load_records(pfelf_file *f, struct pfelf__go *g, const uint32_t *fo) PFELF_HIDDEN;

/* ----------------------------------------------------------- gosearch.c */

/* The search's buckets of a loaded function table: 0, -ENOMEM. */
int pfelf__go_buckets(struct pfelf__go *g) PFELF_HIDDEN;
/* The function whose [entry, end) holds pc into *index: 0, -ENOENT. */
int pfelf__go_search(const struct pfelf__go *g, uint64_t pc, uint32_t *index) PFELF_HIDDEN;

/* ---------------------------------------------------------- gopclntab.c */

/* The checked table of f (loaded once): 0 with *out, -ENOENT, -EINVAL... */
int pfelf__go_get(pfelf_file *f, struct pfelf__go **out) PFELF_HIDDEN;
/* Free g and what it holds (the handle's tables call it through go_free). */
void pfelf__go_free(struct pfelf__go *g) PFELF_HIDDEN;

/* ----------------------------------------------------------- goreader.c */

#define PFELF__GO_WIN   (16u << 10) /* bytes of a window, read when reading on */
#define PFELF__GO_PEEK  2048        /* bytes of a peek, read after a jump */
#define PFELF__GO_PEEKS 8           /* peeks of a reader, least recently used first out */

/* The windows of a reader, one per kind of read so that none evicts
 * another's: names, the pc-file and pc-line tables of one function, the
 * file names of a Go 1.2 table (the others' are copied at load). */
enum { GO_W_NAME, GO_W_PCF, GO_W_PCL, GO_W_FILE, GO_W_COUNT };

/* A window or a peek: bytes of the table at a file offset. */
struct pfelf__go_slot {
	uint64_t off;  /* file offset of buf[0] */
	uint32_t len;  /* bytes held */
	uint32_t cap;  /* PFELF__GO_WIN or PFELF__GO_PEEK */
	uint32_t used; /* when last used (the reader's clock) */
	uint8_t *buf;  /* in the reader's arena */
};
#define PFELF__GO_SLOTS (GO_W_COUNT + PFELF__GO_PEEKS)

/* A name copied out, grown up to PFELF_GO_NAME_MAX + 1. */
struct pfelf__go_str {
	char *buf;
	uint32_t cap;
};

/* A pc-value table being decoded, as debug/gosym's step does. */
struct pfelf__go_pcdec {
	uint64_t at;     /* file offset of the next step */
	uint64_t entry;  /* the function's entry */
	uint64_t pc;     /* end of the current value's pcs */
	int32_t val;     /* the current value */
	uint32_t stalls; /* steps that did not advance the pc */
	int state;       /* 1 going; 0 ended; -1 ran outside the table */
	int w;           /* its window */
};

struct pfelf_go_reader {
	pfelf_file *f;
	struct pfelf__go *g;
	struct pfelf__go_slot slot[PFELF__GO_SLOTS]; /* the windows (by kind), then the peeks */
	uint8_t hot[GO_W_COUNT];                     /* the slot each kind read from last */
	uint32_t clock;
	struct pfelf__go_str name, file;
	/* the rows of one function (golookup.c) */
	bool lines_on;
	uint64_t lines_pc, lines_end;
	struct pfelf__go_pcdec lf, ll;
	uint8_t arena[GO_W_COUNT * PFELF__GO_WIN + PFELF__GO_PEEKS * PFELF__GO_PEEK];
};

/* At least need bytes (fewer only at lim) at file offset off: *p into
 * window w and *avail bytes there (none when off >= lim); 0, -EIO. */
int pfelf__go_bytes(pfelf_go_reader *r, int w, uint64_t off, uint64_t lim, size_t need,
                    const uint8_t **p, size_t *avail) PFELF_HIDDEN;
/* Bytes a lookup reads ahead of where it jumps to (a name, a pc-value
 * table up to a pc: a few dozen bytes each, their 99th percentile
 * below 256 in Go 1.19's compile and kubectl 1.33). */
#define PFELF__GO_GUESS 128
/* A read a lookup is about to make: through window w, at file offset at
 * of a region ending at lim. */
struct pfelf__go_want {
	int w;
	uint64_t at, lim;
};
/* Fill the slots for the n (at most GO_W_COUNT) reads of want that no slot
 * holds PFELF__GO_GUESS bytes of: PFELF__GO_GUESS bytes into a peek each,
 * near ones into one peek, a window's worth into the window of a read on;
 * all in one pfelf__read_spans. 0, -EINVAL, -EIO (no slot holds the
 * bytes then: pfelf__go_bytes reads them again). */
int pfelf__go_prefetch(pfelf_go_reader *r, const struct pfelf__go_want *want,
                       unsigned n) PFELF_HIDDEN;

/* The NUL-ended string at off of region [.., lim) copied into s through
 * window w: 0 with *n its length, -ERANGE (no NUL before lim or off past
 * it), -EINVAL (longer than PFELF_GO_NAME_MAX), -EIO, -ENOMEM. */
int pfelf__go_string(pfelf_go_reader *r, int w, uint64_t off, uint64_t lim, struct pfelf__go_str *s,
                     uint32_t *n) PFELF_HIDDEN;

/* ---------------------------------------------------------- gopcvalue.c */

/* Start decoding the pc-value table at offset off of pctab for a function
 * entering at entry, through window w. */
void pfelf__go_pc_start(pfelf_go_reader *r, struct pfelf__go_pcdec *d, uint32_t off, uint64_t entry,
                        int w) PFELF_HIDDEN;
/* One step: 1 (d->val holds until d->pc), 0 (the table ended), -ERANGE
 * (it ran outside the table), -EINVAL (a stall or a long varint), -EIO. */
int pfelf__go_pc_step(pfelf_go_reader *r, struct pfelf__go_pcdec *d) PFELF_HIDDEN;
/* debug/gosym's pcvalue: the value at target pc, -1 when the table does
 * not say; 0 or -EINVAL, -EIO. */
int pfelf__go_pc_value(pfelf_go_reader *r, uint32_t off, uint64_t entry, uint64_t target, int w,
                       int32_t *val) PFELF_HIDDEN;

/* --------------------------------------------------------- gobuildinfo.c */

/* The raw build info as Go 1.19's debug/buildinfo reads it: the version
 * and the module text (framing stripped), in *buf (the caller frees it).
 * 0, -ENOENT (none, or an empty version), -EINVAL, -EIO, -ENOMEM. */
int pfelf__go_raw_buildinfo(pfelf_file *f, uint8_t **buf, const char **vers, size_t *vlen,
                            const char **mod, size_t *mlen) PFELF_HIDDEN;

/* ------------------------------------------------------------ goquote.c */

/* A growing text buffer (the build info). */
struct pfelf__go_text {
	char *p;
	size_t len, cap;
	bool oom;
};
void pfelf__go_put(struct pfelf__go_text *t, const char *s, size_t n) PFELF_HIDDEN;
/* strconv.Unquote of the n bytes at s (a "..." or `...` literal) into t:
 * 0, or -EINVAL when it is not one. */
int pfelf__go_unquote(struct pfelf__go_text *t, const char *s, size_t n) PFELF_HIDDEN;
/* The length of the quoted literal s starts with (strconv.QuotedPrefix),
 * -EINVAL when it does not start with one. */
int pfelf__go_quoted_prefix(const char *s, size_t n) PFELF_HIDDEN;
/* strconv.IsPrint (goprint.c). */
bool pfelf__go_isprint(uint32_t r) PFELF_HIDDEN;
/* strconv.Quote of s (n bytes) appended to t. */
void pfelf__go_quote(struct pfelf__go_text *t, const char *s, size_t n) PFELF_HIDDEN;

#endif /* PFELF_GO_I_H */
