/*
 * The debug-file writer's private header (pfelf_dbgw_*, pfelf.h): what a
 * writer holds while the caller adds units, files, functions and rows,
 * and the pieces its files share.
 *
 *  dbgw_mem.c     the memory bound, growing arrays, byte buffers, string pools
 *  dbgw_lines.c   rows encoded into line-program sequences as they come
 *  dbgw_layout.c  the sections: copies of the binary's (and its PT_LOADs and
 *                 build-id note), the writer's own
 *  dbgw_order.c   at finish: functions by address and by unit, runs, spans
 *  dbgw_dwarf.c   the DWARF 4 sections
 *  dbgw.c         the writer's life and what callers add (units, files, functions)
 *  dbgw_finish.c  the ELF file: header, program and section headers, .symtab
 * each using only those above it.
 */
#ifndef PFELF_DBGW_I_H
#define PFELF_DBGW_I_H

#include "pfelf_i.h"

/* DWARF 4 constants the writer uses (glibc has no dwarf.h). */
enum {
	DW_TAG_compile_unit = 0x11,
	DW_TAG_subprogram = 0x2e,
	DW_AT_name = 0x03,
	DW_AT_stmt_list = 0x10,
	DW_AT_low_pc = 0x11,
	DW_AT_high_pc = 0x12,
	DW_AT_language = 0x13,
	DW_AT_producer = 0x25,
	DW_AT_external = 0x3f,
	DW_AT_ranges = 0x55,
	DW_FORM_addr = 0x01,
	DW_FORM_data2 = 0x05,
	DW_FORM_data4 = 0x06,
	DW_FORM_data8 = 0x07,
	DW_FORM_strp = 0x0e,
	DW_FORM_sec_offset = 0x17,
	DW_FORM_flag_present = 0x19,
	DW_LNS_copy = 0x01,
	DW_LNS_advance_pc = 0x02,
	DW_LNS_advance_line = 0x03,
	DW_LNS_set_file = 0x04,
	DW_LNS_const_add_pc = 0x08,
	DW_LNE_end_sequence = 0x01,
	DW_LNE_set_address = 0x02,
};

/* The line program's parameters (header of every unit's program). */
#define DBGW_LINE_BASE   (-5)
#define DBGW_LINE_RANGE  14
#define DBGW_OPCODE_BASE 13

/* The name an empty file name is written as (pfelf_dbgw_file): what
 * tools print for an unknown file. */
#define DBGW_NO_FILE "??"

/* Most units, files or functions a writer takes (ids fit an int). */
#define DBGW_MAX_IDS ((uint32_t)INT32_MAX)
/* Most section copies or PT_LOADs (room left for the writer's own
 * sections below SHN_LORESERVE). */
#define DBGW_MAX_COPIES 65000u

struct pfelf_dbgw;

/* Bytes the writer builds: grown and charged to the writer (mode GROW),
 * a fixed region of the output (FIXED), or only counted (COUNT: p is
 * NULL, len is what would have been written). A write that fails sets
 * the writer's error and is dropped. */
enum dbgw_mode { DBGW_GROW, DBGW_FIXED, DBGW_COUNT };
struct dbgw_buf {
	struct pfelf_dbgw *w;
	uint8_t *p;
	size_t len, cap;
	enum dbgw_mode mode;
};

/* Names kept once each: NUL-ended bytes at offsets of bytes (offset 0 is
 * ""), found again through set (ids are offset + 1). */
struct dbgw_pool {
	struct dbgw_buf bytes;
	struct nameset set;
	size_t n, set_cap; /* names in the set, names it is sized for */
	bool closed;       /* trimmed: no more names */
};

struct dbgw_unit {
	uint32_t name;   /* offset in names */
	uint16_t lang;   /* DW_AT_language, 0 for none */
	uint32_t nfiles; /* file names of its line table */
	/* Set by finish: */
	uint32_t nruns;                       /* address runs of its functions */
	uint64_t lo, hi;                      /* its one run when nruns == 1 */
	uint64_t info_off, line_off, rng_off; /* its parts of .debug_info, _line, _ranges */
};

struct dbgw_file {
	uint32_t unit;
	uint32_t name; /* offset in fnames */
	uint32_t idx;  /* its DWARF file number in its unit's table, from 1 */
};

struct dbgw_func {
	uint64_t lo, hi;
	uint64_t seq_off; /* its sequence in lines, seq_len bytes (0: no rows) */
	uint64_t seq_len;
	uint32_t name; /* offset in names */
	uint32_t unit;
	uint8_t bind; /* STB_LOCAL, STB_GLOBAL, STB_WEAK */
};

/* A section of the file: a copy of the binary's, or the writer's own. */
struct dbgw_sec {
	uint32_t name; /* offset in shnames */
	uint32_t type;
	uint64_t flags, addr, size, align, entsize;
	uint32_t link, info;
	uint64_t offset; /* in the file (finish) */
	/* Its bytes (NULL: none, SHT_NOBITS or SHT_NULL). */
	void (*write)(struct pfelf_dbgw *w, struct dbgw_buf *b);
};

/* A copy a function's entry may be in (finish: sorted by address). */
struct dbgw_span {
	uint64_t addr, end;
	uint32_t index; /* of the copy */
	bool exec;      /* SHF_EXECINSTR */
};

struct dbgw_seg {
	uint32_t type, flags;
	uint64_t vaddr, paddr, memsz, align;
};

/* A growing array of n elements of size elem, cap allocated. */
struct dbgw_arr {
	void *v;
	size_t n, cap, elem;
};

struct pfelf_dbgw {
	pfelf_ehdr t; /* the target's header fields */
	bool is64, msb;
	uint8_t asize; /* address size: 4 or 8 */
	uint64_t max, held, peak;
	int err;   /* -EFBIG or -ENOMEM, kept */
	bool done; /* finished */

	struct dbgw_pool names;   /* .strtab and .debug_str */
	struct dbgw_pool fnames;  /* file names of the line tables */
	struct dbgw_buf shnames;  /* .shstrtab */
	struct dbgw_buf lines;    /* every function's sequence, in the order added */
	struct dbgw_arr units;    /* struct dbgw_unit */
	struct dbgw_arr files;    /* struct dbgw_file */
	struct dbgw_arr funcs;    /* struct dbgw_func */
	struct dbgw_arr secs;     /* struct dbgw_sec: [0] SHT_NULL, then the copies */
	struct dbgw_arr segs;     /* struct dbgw_seg: PT_LOAD copies */
	bool layout;              /* pfelf_dbgw_copy_layout done */
	struct dbgw_buf note;     /* the build-id note, encoded */
	uint32_t note_sec;        /* its section copy, 0 when it gets its own */
	struct dbgw_sec note_seg; /* the copy's address and size, for PT_NOTE */

	/* The sequence of the last function (dbgw_lines.c). */
	bool have_func;
	bool in_seq;
	uint64_t pc;   /* registers after the last row */
	uint32_t file; /* (DWARF file index, 1-based) */
	uint32_t line;
	size_t mark;      /* lines.len before the last row */
	uint64_t mark_pc; /* registers before the last row */
	uint32_t mark_file;
	uint32_t mark_line;
	uint64_t rows;    /* rows of the open sequence */
	uint64_t last_in; /* pc of the last row given */

	/* Finish's order (dbgw_order.c), charged like the rest. */
	uint32_t *by_addr;      /* function indexes by (lo, hi, index) */
	uint32_t *by_unit;      /* ranks in by_addr, grouped by unit, by address within */
	uint32_t *ufirst;       /* units + 1: where each unit starts in by_unit */
	uint32_t *file_by_unit; /* file ids grouped by unit, in id order */
	uint32_t *ffirst;       /* units + 1: where each unit starts in file_by_unit */
	struct dbgw_arr spans;  /* struct dbgw_span */
	uint32_t nlocal;        /* local functions */
	uint32_t producer;      /* DW_AT_producer's offset in names */
	/* The file (dbgw_finish.c). */
	uint32_t shstrndx;
	uint64_t phoff, shoff;
};

static inline struct dbgw_unit *dbgw_unit_at(struct pfelf_dbgw *w, uint32_t i)
{
	return (struct dbgw_unit *)w->units.v + i;
}
static inline struct dbgw_file *dbgw_file_at(struct pfelf_dbgw *w, uint32_t i)
{
	return (struct dbgw_file *)w->files.v + i;
}
static inline struct dbgw_func *dbgw_func_at(struct pfelf_dbgw *w, uint32_t i)
{
	return (struct dbgw_func *)w->funcs.v + i;
}
static inline struct dbgw_sec *dbgw_sec_at(struct dbgw_arr *a, uint32_t i)
{
	return (struct dbgw_sec *)a->v + i;
}

/* ------------------------------------------------------------ dbgw_mem.c */

/* 0 when w takes calls, -EINVAL when finished, else its kept error. */
int dbgw_usable(const struct pfelf_dbgw *w) PFELF_HIDDEN;
/* Charge delta more bytes held (negative: fewer): 0, or -EFBIG past max
 * (nothing charged). */
int dbgw_charge(struct pfelf_dbgw *w, int64_t delta) PFELF_HIDDEN;
/* malloc/free of n charged bytes: NULL with the writer's error set. */
void *dbgw_alloc(struct pfelf_dbgw *w, size_t n) PFELF_HIDDEN;
void dbgw_release(struct pfelf_dbgw *w, void *p, size_t n) PFELF_HIDDEN;
/* Room for one more element of a: a pointer to it (a->n grown by one), or
 * NULL with the writer's error set. */
void *dbgw_arr_push(struct pfelf_dbgw *w, struct dbgw_arr *a) PFELF_HIDDEN;
void dbgw_arr_free(struct pfelf_dbgw *w, struct dbgw_arr *a) PFELF_HIDDEN;
/* Give back what a, b or p hold past their contents (a pool's set too):
 * at finish, once nothing more is added. */
void dbgw_arr_trim(struct pfelf_dbgw *w, struct dbgw_arr *a) PFELF_HIDDEN;
void dbgw_buf_trim(struct dbgw_buf *b) PFELF_HIDDEN;
void dbgw_pool_trim(struct dbgw_pool *p) PFELF_HIDDEN;

void dbgw_buf_init(struct dbgw_buf *b, struct pfelf_dbgw *w, enum dbgw_mode mode) PFELF_HIDDEN;
void dbgw_buf_free(struct dbgw_buf *b) PFELF_HIDDEN;
/* Append n bytes (NULL: zeros). */
void dbgw_put(struct dbgw_buf *b, const void *src, size_t n) PFELF_HIDDEN;
void dbgw_u8(struct dbgw_buf *b, uint8_t v) PFELF_HIDDEN;
/* In the target's byte order. */
void dbgw_u16(struct dbgw_buf *b, uint16_t v) PFELF_HIDDEN;
void dbgw_u32(struct dbgw_buf *b, uint32_t v) PFELF_HIDDEN;
void dbgw_u64(struct dbgw_buf *b, uint64_t v) PFELF_HIDDEN;
/* An address (4 or 8 bytes) or a class-sized ELF word. */
void dbgw_addr(struct dbgw_buf *b, uint64_t v) PFELF_HIDDEN;
void dbgw_uleb(struct dbgw_buf *b, uint64_t v) PFELF_HIDDEN;
void dbgw_sleb(struct dbgw_buf *b, int64_t v) PFELF_HIDDEN;
/* Zeros up to a multiple of align (a power of two) of b->len. */
void dbgw_pad(struct dbgw_buf *b, uint64_t align) PFELF_HIDDEN;

void dbgw_pool_init(struct dbgw_pool *p, struct pfelf_dbgw *w) PFELF_HIDDEN;
void dbgw_pool_free(struct dbgw_pool *p) PFELF_HIDDEN;
/* The offset of the name of len bytes at s (NUL bytes written "^@"),
 * added unless the pool has it: 0, or -EFBIG/-ENOMEM (the writer's
 * error is set). */
int dbgw_pool_add(struct dbgw_pool *p, const char *s, size_t len, uint32_t *off) PFELF_HIDDEN;

/* ---------------------------------------------------------- dbgw_lines.c */

/* End the open sequence of the last function at its end. */
void dbgw_lines_close(struct pfelf_dbgw *w) PFELF_HIDDEN;

/* ----------------------------------------------------------- dbgw_layout.c */

/* Without the layout of a binary: a SHT_NOBITS .text from the lowest
 * function's entry to the highest end (binutils' addr2line answers only
 * for addresses of an allocated section). */
void dbgw_default_layout(struct pfelf_dbgw *w) PFELF_HIDDEN;
/* Add a section of the writer's own named name to w->secs: its index, or
 * 0 with the writer's error set. */
uint32_t dbgw_add_section(struct pfelf_dbgw *w, const char *name, uint32_t type, uint64_t flags,
                          uint64_t align, uint64_t entsize,
                          void (*write)(struct pfelf_dbgw *w, struct dbgw_buf *b)) PFELF_HIDDEN;
/* Write the build-id note (a section's writer). */
void dbgw_write_note(struct pfelf_dbgw *w, struct dbgw_buf *b) PFELF_HIDDEN;

/* ---------------------------------------------------------- dbgw_order.c */

/* Sort the functions by address and group them and the files by unit,
 * then find each unit's address runs: 0 or -errno. */
int dbgw_order(struct pfelf_dbgw *w) PFELF_HIDDEN;
void dbgw_order_free(struct pfelf_dbgw *w) PFELF_HIDDEN;
/* The next address run of unit u from *pos on (start with *pos = 0): a run
 * is functions of u next to each other in address order, [lo, hi) the
 * smallest entry to the largest end; empty runs are skipped. false at
 * the end. */
bool dbgw_next_run(struct pfelf_dbgw *w, uint32_t u, uint32_t *pos, uint64_t *lo,
                   uint64_t *hi) PFELF_HIDDEN;
/* The section index of the copy that holds addr, SHN_ABS when none. */
uint16_t dbgw_shndx_of(struct pfelf_dbgw *w, uint64_t addr) PFELF_HIDDEN;

/* ---------------------------------------------------------- dbgw_dwarf.c */

/* Add the DWARF sections to w->secs (their sizes, counted first, set
 * each unit's offsets): 0, or the writer's error. */
int dbgw_dwarf_sections(struct pfelf_dbgw *w) PFELF_HIDDEN;

/* ---------------------------------------------------------------- dbgw.c */

/* Free and uncharge all w holds but itself. */
void dbgw_release_all(struct pfelf_dbgw *w) PFELF_HIDDEN;

#endif /* PFELF_DBGW_I_H */
