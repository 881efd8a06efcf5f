/* Functions, positions and line rows of a pclntab through a reader: what
 * debug/gosym's Funcs, PCToLine and pcvalue give, with its recoveries (a
 * table or file entry outside the table is -1 or ""), and a function's
 * pc-file and pc-line tables merged into rows. */
#include "tables/go_i.h"

#include <string.h>

static void no_name(pfelf_go_name *n)
{
	n->str = "";
	n->len = 0;
	n->offset = 0;
}

/* The name at file offset off of region [.., lim) into the reader's string
 * s: 0; -ERANGE (no name there); -EINVAL, -EIO, -ENOMEM. */
static int name_at(pfelf_go_reader *r, int w, uint64_t off, uint64_t lim, struct pfelf__go_str *s,
                   pfelf_go_name *out)
{
	uint32_t n;
	int ret = pfelf__go_string(r, w, off, lim, s, &n);
	if (ret < 0)
		return ret;
	out->str = s->buf;
	out->len = n;
	out->offset = off;
	return 0;
}

/* The uint32 at index i of the compile unit (1.2: file) table: 0, -ERANGE. */
static int cu_word(const struct pfelf__go *g, uint64_t i, uint32_t *v)
{
	uint64_t n = (g->cu_end - g->cu_at) / 4;
	if (i >= n)
		return -ERANGE;
	*v = pfelf__u32(g->cutab + 4 * i, g->pub.big_endian);
	return 0;
}

/* The file name at offset off of the file names: from their copy (1.16+),
 * through a window (Go 1.2: anywhere in the table). */
static int file_name(pfelf_go_reader *r, uint32_t off, pfelf_go_name *out)
{
	const struct pfelf__go *g = r->g;
	if (!g->files)
		return name_at(r, GO_W_FILE, g->file_at + off, g->file_end, &r->file, out);
	uint64_t len = g->file_end - g->file_at;
	const char *nul = off < len ? memchr(g->files + off, 0, len - off) : NULL;
	if (!nul)
		return -ERANGE;
	if (nul - (g->files + off) > PFELF_GO_NAME_MAX)
		return -EINVAL;
	out->str = g->files + off;
	out->len = (uint32_t)(nul - out->str);
	out->offset = g->file_at + off;
	return 0;
}

PFELF_API int pfelf_go_file(pfelf_go_reader *r, uint32_t cu_offset, int32_t fileno,
                            pfelf_go_name *out)
{
	const struct pfelf__go *g = r->g;
	uint32_t off;
	int ret;
	no_name(out);
	if (g->pub.version == PFELF_GO_V12) {
		if (fileno <= 0) /* entry 0 is the table's count */
			return 0;
		ret = cu_word(g, (uint64_t)fileno, &off);
	} else {
		if (fileno < 0)
			return 0;
		/* debug/gosym indexes cutab with uint32 arithmetic */
		ret = cu_word(g, (uint32_t)(cu_offset + (uint32_t)fileno), &off);
		if (ret == 0 && off == UINT32_MAX)
			return 0; /* a file the linker left out */
	}
	if (ret == 0)
		ret = file_name(r, off, out);
	if (ret == -ERANGE) {
		no_name(out);
		return 0;
	}
	return ret;
}

/* The position of pc in function i. */
static int position(pfelf_go_reader *r, uint32_t i, uint64_t pc, pfelf_go_pos *pos)
{
	const struct pfelf__go_rec *rec = &r->g->rec[i];
	uint64_t entry = r->g->pc[i];
	/* one window for both: the linker writes a function's tables together */
	int ret = pfelf__go_pc_value(r, rec->pcfile, entry, pc, GO_W_PCF, &pos->fileno);
	if (ret == 0)
		ret = pfelf__go_pc_value(r, rec->pcln, entry, pc, GO_W_PCL, &pos->line);
	if (ret == 0)
		ret = pfelf_go_file(r, rec->cuoff, pos->fileno, &pos->file);
	return ret;
}

/* Function i into *fn. */
static int function(pfelf_go_reader *r, uint32_t i, pfelf_go_func *fn)
{
	const struct pfelf__go *g = r->g;
	if (i >= g->pub.nfunc)
		return -ENOENT;
	const struct pfelf__go_rec *rec = &g->rec[i];
	fn->index = i;
	fn->entry = g->pc[i];
	fn->end = g->pc[i + 1];
	fn->cu_offset = rec->cuoff;
	int ret =
	        name_at(r, GO_W_NAME, g->name_at + rec->nameoff, g->name_end, &r->name, &fn->name);
	return ret == -ERANGE ? -EINVAL : ret; /* debug/gosym gives up on the table */
}

PFELF_API int pfelf_go_func_get(pfelf_go_reader *r, uint32_t index, pfelf_go_func *fn,
                                pfelf_go_pos *pos)
{
	int ret = function(r, index, fn);
	if (ret == 0 && pos)
		ret = position(r, index, fn->entry, pos);
	return ret;
}

/* The reads a lookup of function i makes (its name; with pos its pc-file
 * and pc-line tables), ahead and at once; a failure is met again by the
 * read itself. */
static void read_ahead(pfelf_go_reader *r, uint32_t i, bool pos)
{
	const struct pfelf__go *g = r->g;
	const struct pfelf__go_rec *rec = &g->rec[i];
	const struct pfelf__go_want want[] = {
	        {GO_W_NAME, g->name_at + rec->nameoff, g->name_end},
	        {GO_W_PCF, g->pc_at + rec->pcfile, g->pc_end},
	        {GO_W_PCL, g->pc_at + rec->pcln, g->pc_end},
	};
	(void)pfelf__go_prefetch(r, want, pos ? 3 : 1);
}

PFELF_API int pfelf_go_pc_lookup(pfelf_go_reader *r, uint64_t pc, pfelf_go_func *fn,
                                 pfelf_go_pos *pos)
{
	uint32_t lo;
	int ret = pfelf__go_search(r->g, pc, &lo);
	if (ret < 0)
		return ret;
	read_ahead(r, lo, pos != NULL);
	ret = function(r, lo, fn);
	if (ret == 0 && pos)
		ret = position(r, lo, pc, pos);
	return ret;
}

PFELF_API int pfelf_go_lines_begin(pfelf_go_reader *r, uint32_t index, pfelf_go_func *fn)
{
	pfelf_go_func tmp;
	r->lines_on = false;
	int ret = function(r, index, fn ? fn : &tmp);
	if (ret < 0)
		return ret;
	const struct pfelf__go_rec *rec = &r->g->rec[index];
	uint64_t entry = r->g->pc[index];
	pfelf__go_pc_start(r, &r->lf, rec->pcfile, entry, GO_W_PCF);
	pfelf__go_pc_start(r, &r->ll, rec->pcln, entry, GO_W_PCL);
	r->lines_pc = entry;
	r->lines_end = r->g->pc[index + 1];
	r->lines_on = true;
	return 0;
}

/* Step d until its value holds past pc (its end beyond pc), or it ends
 * (then -1 holds for every pc after). */
static int advance(pfelf_go_reader *r, struct pfelf__go_pcdec *d, uint64_t pc)
{
	while (d->state == 1 && d->pc <= pc) {
		int ret = pfelf__go_pc_step(r, d);
		if (ret == -EINVAL || ret == -EIO)
			return ret;
	}
	if (d->state != 1) {
		d->val = -1;
		d->pc = UINT64_MAX;
	}
	return 0;
}

/* Both tables' values at pc, and where the first of them changes. */
static int values_at(pfelf_go_reader *r, uint64_t pc, int32_t *file, int32_t *line, uint64_t *until)
{
	int ret = advance(r, &r->lf, pc);
	if (ret == 0)
		ret = advance(r, &r->ll, pc);
	*file = r->lf.val;
	*line = r->ll.val;
	*until = r->lf.pc < r->ll.pc ? r->lf.pc : r->ll.pc;
	return ret;
}

PFELF_API int pfelf_go_lines_next(pfelf_go_reader *r, pfelf_go_line *row)
{
	if (!r->lines_on || r->lines_pc >= r->lines_end) {
		r->lines_on = false;
		return 0;
	}
	uint64_t end;
	int ret = values_at(r, r->lines_pc, &row->fileno, &row->line, &end);
	/* a table may repeat a value: the row runs on while both values hold */
	while (ret == 0 && end < r->lines_end) {
		int32_t file, line;
		uint64_t next;
		ret = values_at(r, end, &file, &line, &next);
		if (file != row->fileno || line != row->line)
			break;
		end = next;
	}
	if (ret < 0) {
		r->lines_on = false;
		return ret;
	}
	row->start = r->lines_pc;
	row->end = end < r->lines_end ? end : r->lines_end;
	r->lines_pc = row->end;
	return 1;
}
