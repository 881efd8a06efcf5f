/* Line-table rows, encoded as they come into the last function's DWARF
 * line-program sequence (DW_LNE_set_address, special opcodes, an
 * advance to the function's end, DW_LNE_end_sequence): a few bytes a row,
 * nothing kept per row. The sequences of all functions follow each other
 * in w->lines; finish puts each unit's after its program's header. */
#include "write/dbgw_i.h"

static struct dbgw_func *last_func(struct pfelf_dbgw *w)
{
	return dbgw_func_at(w, (uint32_t)(w->funcs.n - 1));
}

/* Advance the address by da and the line by dl, and append a row. */
static void advance(struct pfelf_dbgw *w, uint64_t da, int64_t dl)
{
	struct dbgw_buf *b = &w->lines;
	if (dl < DBGW_LINE_BASE || dl >= DBGW_LINE_BASE + DBGW_LINE_RANGE) {
		dbgw_u8(b, DW_LNS_advance_line);
		dbgw_sleb(b, dl);
		dl = 0;
	}
	/* A special opcode: base + da * range advances both and appends. */
	unsigned base = (unsigned)(dl - DBGW_LINE_BASE) + DBGW_OPCODE_BASE;
	uint64_t fits = (255 - base) / DBGW_LINE_RANGE;
	uint64_t const_add = (255 - DBGW_OPCODE_BASE) / DBGW_LINE_RANGE;
	if (da > fits && da - const_add <= fits) {
		dbgw_u8(b, DW_LNS_const_add_pc);
		da -= const_add;
	} else if (da > fits) {
		dbgw_u8(b, DW_LNS_advance_pc);
		dbgw_uleb(b, da);
		da = 0;
	}
	dbgw_u8(b, (uint8_t)(base + da * DBGW_LINE_RANGE));
}

/* Append the row (pc, file, line) after the registers' row. */
static void emit(struct pfelf_dbgw *w, uint64_t pc, uint32_t file, uint32_t line)
{
	w->mark = w->lines.len;
	w->mark_pc = w->pc;
	w->mark_file = w->file;
	w->mark_line = w->line;
	if (file != w->file) {
		dbgw_u8(&w->lines, DW_LNS_set_file);
		dbgw_uleb(&w->lines, file);
	}
	advance(w, pc - w->pc, (int64_t)line - (int64_t)w->line);
	w->pc = pc;
	w->file = file;
	w->line = line;
	w->rows++;
}

/* Open the function's sequence at pc: DW_LNE_set_address, and the
 * registers as each sequence starts them. */
static void open_seq(struct pfelf_dbgw *w, struct dbgw_func *f, uint64_t pc)
{
	f->seq_off = w->lines.len;
	dbgw_u8(&w->lines, 0);
	dbgw_uleb(&w->lines, 1u + w->asize);
	dbgw_u8(&w->lines, DW_LNE_set_address);
	dbgw_addr(&w->lines, pc);
	w->in_seq = true;
	w->pc = pc;
	w->file = 1;
	w->line = 1;
	w->rows = 0;
}

void dbgw_lines_close(struct pfelf_dbgw *w)
{
	if (!w->in_seq)
		return;
	struct dbgw_func *f = last_func(w);
	if (f->hi > w->pc) {
		dbgw_u8(&w->lines, DW_LNS_advance_pc);
		dbgw_uleb(&w->lines, f->hi - w->pc);
	}
	dbgw_u8(&w->lines, 0);
	dbgw_uleb(&w->lines, 1);
	dbgw_u8(&w->lines, DW_LNE_end_sequence);
	f->seq_len = w->lines.len - f->seq_off;
	w->in_seq = false;
}

PFELF_API int pfelf_dbgw_line(pfelf_dbgw *w, uint64_t pc, uint32_t file, uint32_t line)
{
	int ret = dbgw_usable(w);
	if (ret < 0)
		return ret;
	if (!w->have_func || file >= w->files.n)
		return -EINVAL;
	struct dbgw_func *f = last_func(w);
	const struct dbgw_file *fl = dbgw_file_at(w, file);
	if (pc < f->lo || pc >= f->hi || fl->unit != f->unit || (w->in_seq && pc < w->last_in))
		return -EINVAL;
	w->last_in = pc;
	if (!w->in_seq)
		open_seq(w, f, pc);
	else if (pc == w->pc && w->rows > 0) {
		/* The last row is at this pc: this one replaces it. */
		w->lines.len = w->mark;
		w->pc = w->mark_pc;
		w->file = w->mark_file;
		w->line = w->mark_line;
		w->rows--;
	}
	if (w->rows > 0 && fl->idx == w->file && line == w->line)
		return w->err; /* what the row before says already */
	emit(w, pc, fl->idx, line);
	return w->err;
}
