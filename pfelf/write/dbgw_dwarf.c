/*
 * The DWARF 4 sections (32-bit DWARF), the version every tool in use reads
 * (binutils, gdb, elfutils, LLVM):
 *  - .debug_abbrev: the compile unit's forms (with or without a language,
 *    a line program, one address range or a list of them) and a
 *    subprogram's (external or not);
 *  - .debug_info: a compile unit per unit, a subprogram per function
 *    (name, low_pc, high_pc as a length): what names a function for
 *    addr2line -f, llvm-symbolizer and eu-addr2line;
 *  - .debug_line: a unit's file names and the sequences of its functions;
 *  - .debug_str: the names (the bytes of .strtab);
 *  - .debug_aranges: the units' address runs (elfutils 0.188 finds a
 *    unit by an address through it only; LLVM and gdb use it too);
 *  - .debug_ranges: the runs of units that have more than one.
 * Every section is written twice: counted, then written at its place.
 */
#include "write/dbgw_i.h"

#include <string.h>

#define PRODUCER "pfelf " PFELF_VERSION_STRING

enum pc_kind { PC_NONE, PC_ONE, PC_RANGES };
#define CU_CODES   12 /* 1 + lang + 2 * lines + 4 * pc_kind */
#define SUB_EXTERN (CU_CODES + 1)
#define SUB_LOCAL  (CU_CODES + 2)

static enum pc_kind pc_kind(const struct dbgw_unit *u)
{
	return u->nruns == 0 ? PC_NONE : u->nruns == 1 ? PC_ONE : PC_RANGES;
}

static unsigned cu_code(const struct dbgw_unit *u)
{
	return 1 + (u->lang != 0) + 2 * (u->nfiles != 0) + 4 * pc_kind(u);
}

static void attr(struct dbgw_buf *b, unsigned at, unsigned form)
{
	dbgw_uleb(b, at);
	dbgw_uleb(b, form);
}

static unsigned high_form(const struct pfelf_dbgw *w)
{
	return w->is64 ? DW_FORM_data8 : DW_FORM_data4;
}

static void write_abbrev(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	for (unsigned c = 1; c <= CU_CODES; c++) {
		unsigned lang = (c - 1) & 1, lines = ((c - 1) >> 1) & 1, pc = (c - 1) >> 2;
		dbgw_uleb(b, c);
		dbgw_uleb(b, DW_TAG_compile_unit);
		dbgw_u8(b, 1); /* DW_CHILDREN_yes */
		attr(b, DW_AT_producer, DW_FORM_strp);
		if (lang)
			attr(b, DW_AT_language, DW_FORM_data2);
		attr(b, DW_AT_name, DW_FORM_strp);
		if (lines)
			attr(b, DW_AT_stmt_list, DW_FORM_sec_offset);
		if (pc != PC_NONE)
			attr(b, DW_AT_low_pc, DW_FORM_addr);
		if (pc == PC_ONE)
			attr(b, DW_AT_high_pc, high_form(w));
		if (pc == PC_RANGES)
			attr(b, DW_AT_ranges, DW_FORM_sec_offset);
		attr(b, 0, 0);
	}
	for (unsigned c = SUB_EXTERN; c <= SUB_LOCAL; c++) {
		dbgw_uleb(b, c);
		dbgw_uleb(b, DW_TAG_subprogram);
		dbgw_u8(b, 0); /* DW_CHILDREN_no */
		attr(b, DW_AT_name, DW_FORM_strp);
		attr(b, DW_AT_low_pc, DW_FORM_addr);
		attr(b, DW_AT_high_pc, high_form(w));
		if (c == SUB_EXTERN)
			attr(b, DW_AT_external, DW_FORM_flag_present);
		attr(b, 0, 0);
	}
	dbgw_u8(b, 0);
}

/* A unit's functions: [first, end) of by_unit. */
static uint32_t nfuncs(const struct pfelf_dbgw *w, uint32_t u)
{
	return w->ufirst[u + 1] - w->ufirst[u];
}

static const struct dbgw_func *unit_func(struct pfelf_dbgw *w, uint32_t u, uint32_t i)
{
	return dbgw_func_at(w, w->by_addr[w->by_unit[w->ufirst[u] + i]]);
}

/* The bytes of a unit after its unit_length (all forms fixed-size). */
static uint64_t cu_length(const struct pfelf_dbgw *w, const struct dbgw_unit *u, uint32_t n)
{
	uint64_t len = 2 + 4 + 1; /* version, abbrev offset, address size */
	len += 1 + 4 + 4;         /* code, producer, name */
	len += u->lang ? 2 : 0;
	len += u->nfiles ? 4 : 0;
	len += pc_kind(u) == PC_ONE ? 2u * w->asize : 0;
	len += pc_kind(u) == PC_RANGES ? w->asize + 4u : 0;
	len += (uint64_t)n * (1 + 4 + 2u * w->asize);
	return len + 1; /* the end of its children */
}

static void write_info(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	for (uint32_t i = 0; i < w->units.n; i++) {
		struct dbgw_unit *u = dbgw_unit_at(w, i);
		uint32_t n = nfuncs(w, i);
		u->info_off = b->len;
		dbgw_u32(b, (uint32_t)cu_length(w, u, n));
		dbgw_u16(b, 4);
		dbgw_u32(b, 0);
		dbgw_u8(b, w->asize);
		dbgw_uleb(b, cu_code(u));
		dbgw_u32(b, w->producer);
		if (u->lang)
			dbgw_u16(b, u->lang);
		dbgw_u32(b, u->name);
		if (u->nfiles)
			dbgw_u32(b, (uint32_t)u->line_off);
		if (pc_kind(u) == PC_ONE) {
			dbgw_addr(b, u->lo);
			dbgw_addr(b, u->hi - u->lo);
		} else if (pc_kind(u) == PC_RANGES) {
			dbgw_addr(b, 0); /* the base of the range list */
			dbgw_u32(b, (uint32_t)u->rng_off);
		}
		for (uint32_t k = 0; k < n; k++) {
			const struct dbgw_func *f = unit_func(w, i, k);
			dbgw_uleb(b, f->bind == STB_LOCAL ? SUB_LOCAL : SUB_EXTERN);
			dbgw_u32(b, f->name);
			dbgw_addr(b, f->lo);
			dbgw_addr(b, f->hi - f->lo);
		}
		dbgw_u8(b, 0);
	}
}

/* Header of a unit's line program after header_length: the parameters,
 * no include directory, the file names. */
static void line_header(struct pfelf_dbgw *w, struct dbgw_buf *b, uint32_t u)
{
	static const uint8_t std_lengths[DBGW_OPCODE_BASE - 1] = {0, 1, 1, 1, 1, 0,
	                                                          0, 0, 1, 0, 0, 1};
	dbgw_u8(b, 1); /* minimum_instruction_length */
	dbgw_u8(b, 1); /* maximum_operations_per_instruction */
	dbgw_u8(b, 1); /* default_is_stmt */
	dbgw_u8(b, (uint8_t)DBGW_LINE_BASE);
	dbgw_u8(b, DBGW_LINE_RANGE);
	dbgw_u8(b, DBGW_OPCODE_BASE);
	dbgw_put(b, std_lengths, sizeof(std_lengths));
	dbgw_u8(b, 0); /* include_directories */
	for (uint32_t k = w->ffirst[u]; k < w->ffirst[u + 1]; k++) {
		const char *name =
		        (const char *)w->fnames.bytes.p + dbgw_file_at(w, w->file_by_unit[k])->name;
		dbgw_put(b, name, strlen(name) + 1);
		dbgw_put(b, NULL, 3); /* directory 0, no time, no size */
	}
	dbgw_u8(b, 0);
}

static void write_line(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	for (uint32_t i = 0; i < w->units.n; i++) {
		struct dbgw_unit *u = dbgw_unit_at(w, i);
		if (!u->nfiles)
			continue;
		struct dbgw_buf hdr;
		dbgw_buf_init(&hdr, w, DBGW_COUNT);
		line_header(w, &hdr, i);
		uint64_t prog = 0;
		for (uint32_t k = 0; k < nfuncs(w, i); k++)
			prog += unit_func(w, i, k)->seq_len;
		u->line_off = b->len;
		dbgw_u32(b, (uint32_t)(2 + 4 + hdr.len + prog));
		dbgw_u16(b, 4);
		dbgw_u32(b, (uint32_t)hdr.len);
		line_header(w, b, i);
		for (uint32_t k = 0; k < nfuncs(w, i); k++) {
			const struct dbgw_func *f = unit_func(w, i, k);
			dbgw_put(b, w->lines.p + f->seq_off, f->seq_len);
		}
		if (2 + 4 + hdr.len + prog > 0xfffffff0u)
			w->err = w->err ? w->err : -EFBIG;
	}
}

static void write_str(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	dbgw_put(b, w->names.bytes.p, w->names.bytes.len);
}

static void write_aranges(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	unsigned pad = (2u * w->asize - 12 % (2u * w->asize)) % (2u * w->asize);
	for (uint32_t i = 0; i < w->units.n; i++) {
		const struct dbgw_unit *u = dbgw_unit_at(w, i);
		if (!u->nruns)
			continue;
		dbgw_u32(b, (uint32_t)(8 + pad + (u->nruns + 1ull) * 2 * w->asize));
		dbgw_u16(b, 2);
		dbgw_u32(b, (uint32_t)u->info_off);
		dbgw_u8(b, w->asize);
		dbgw_u8(b, 0); /* segment_selector_size */
		dbgw_put(b, NULL, pad);
		uint32_t pos = 0;
		uint64_t lo, hi;
		while (dbgw_next_run(w, i, &pos, &lo, &hi)) {
			dbgw_addr(b, lo);
			dbgw_addr(b, hi - lo);
		}
		dbgw_addr(b, 0);
		dbgw_addr(b, 0);
	}
}

static void write_ranges(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	for (uint32_t i = 0; i < w->units.n; i++) {
		struct dbgw_unit *u = dbgw_unit_at(w, i);
		if (pc_kind(u) != PC_RANGES)
			continue;
		u->rng_off = b->len;
		uint32_t pos = 0;
		uint64_t lo, hi;
		while (dbgw_next_run(w, i, &pos, &lo, &hi)) {
			dbgw_addr(b, lo);
			dbgw_addr(b, hi);
		}
		dbgw_addr(b, 0);
		dbgw_addr(b, 0);
	}
}

int dbgw_dwarf_sections(struct pfelf_dbgw *w)
{
	if (w->units.n == 0)
		return w->err;
	if (dbgw_pool_add(&w->names, PRODUCER, strlen(PRODUCER), &w->producer) < 0)
		return w->err;
	bool lines = false, aranges = false, ranges = false;
	for (uint32_t i = 0; i < w->units.n; i++) {
		const struct dbgw_unit *u = dbgw_unit_at(w, i);
		lines |= u->nfiles != 0;
		aranges |= u->nruns != 0;
		ranges |= u->nruns > 1;
	}
	/* In this order: counting .debug_line and .debug_ranges sets the
	 * offsets .debug_info gives, counting .debug_info those of
	 * .debug_aranges. */
	if (lines)
		dbgw_add_section(w, ".debug_line", SHT_PROGBITS, 0, 1, 0, write_line);
	if (ranges)
		dbgw_add_section(w, ".debug_ranges", SHT_PROGBITS, 0, 1, 0, write_ranges);
	dbgw_add_section(w, ".debug_abbrev", SHT_PROGBITS, 0, 1, 0, write_abbrev);
	dbgw_add_section(w, ".debug_info", SHT_PROGBITS, 0, 1, 0, write_info);
	if (aranges)
		dbgw_add_section(w, ".debug_aranges", SHT_PROGBITS, 0, 1, 0, write_aranges);
	dbgw_add_section(w, ".debug_str", SHT_PROGBITS, SHF_MERGE | SHF_STRINGS, 1, 1, write_str);
	return w->err;
}
