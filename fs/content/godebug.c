/*
 * go/debug: an ELF debug file of the binary's class, byte order and
 * machine, written by pfelf's debug-file writer (pfelf.h, "debug-file
 * writer") from the pclntab: the binary's layout (SHT_NOBITS copies of its
 * sections, or of its PT_LOADs when it has no section headers, its
 * PT_LOADs, its build-id note), one compile unit per Go
 * compile unit (Go 1.2: one for the whole table) with its files, one
 * function per entry of the function table (a global STT_FUNC symbol and a
 * subprogram) and its line rows, each the run of pcs debug/gosym's
 * PCToLine gives one file and line. A file of no name, and the one a unit
 * gets for rows of no file or line (after a table's end, a file the unit
 * does not have), are given to the writer without a name, which writes
 * "??" (pfelf_dbgw_file): a row of no position is line 0 of it, and tools
 * print "??:?" or "??:0" there, where debug/gosym gives no file and line
 * -1.
 */
#include "content/gotables.h"
#include "base/membudget.h"

#include <errno.h>
#include <stdlib.h>

/* The guess of what the writer holds at its peak (entries.h, make_guess):
 * from five real programs of 14,000 to 138,000 functions (pclntabs of 4.4
 * to 36.6 MB), whose peaks were 1.7 to 2.3 times their pclntab, the guess
 * is 1.6 to 2.1 times the peak; a file that needs more is made again
 * within four times as much (dcache.h). */
#define GUESS_PER_FUNC  128 /* tables and DWARF of a function: symbol, names, DIE */
#define GUESS_PER_TABLE 3   /* line programs: bytes written per byte of the pclntab */
#define GUESS_FIXED     ((uint64_t)1 << 20)

/* What one make holds besides the writer. */
struct gobuild {
	pfelf_file *f;
	pfelf_dbgw *w;
	pfelf_go_reader *r;
	uint32_t ncu;
	uint32_t *base;   /* [ncu]: the writer's id of file 0 of each unit */
	uint32_t *nfiles; /* [ncu]: files of each unit */
	uint32_t orphans; /* unit of functions of no unit (UINT32_MAX: none yet) */
	bool v12;         /* a Go 1.2 table: file 0 is no file */
};

/* The writer's unit of a compile unit, with its files and then one of no
 * name (rows of no known position). */
static int add_unit(struct gobuild *b, uint32_t u)
{
	pfelf_go_cu cu;
	pfelf_go_name name;
	uint32_t unit, id;
	int ret = pfelf_go_cu_get(b->f, u, &cu);
	if (ret == 0) /* named after its first file, as C compile units are */
		ret = pfelf_go_file(b->r, cu.offset, b->v12 ? 1 : 0, &name);
	if (ret == 0)
		ret = pfelf_dbgw_unit(b->w, name.str, name.len, PFELF_DW_LANG_GO, &unit);
	b->nfiles[u] = ret == 0 ? cu.nfiles : 0;
	for (uint32_t k = 0; ret == 0 && k <= cu.nfiles; k++) {
		name = (pfelf_go_name){0};
		if (k < cu.nfiles)
			ret = pfelf_go_file(b->r, cu.offset, (int32_t)k, &name);
		if (ret == 0)
			ret = pfelf_dbgw_file(b->w, unit, name.str, name.len, &id);
		if (ret == 0 && k == 0)
			b->base[u] = id;
	}
	return ret;
}

static int add_units(struct gobuild *b)
{
	int n = pfelf_go_cu_count(b->f);
	if (n < 0)
		return n;
	b->ncu = (uint32_t)n;
	b->base = calloc((size_t)n + 1, sizeof(*b->base));
	b->nfiles = calloc((size_t)n + 1, sizeof(*b->nfiles));
	if (!b->base || !b->nfiles)
		return -ENOMEM;
	int ret = 0;
	for (uint32_t u = 0; ret == 0 && u < b->ncu; u++)
		ret = add_unit(b, u);
	return ret;
}

/* The unit of a function whose compile unit is cu_offset; *u: its index
 * among the compile units, b->ncu for none. */
static int unit_of(struct gobuild *b, uint32_t cu_offset, uint32_t *u)
{
	int i = pfelf_go_cu_find(b->f, cu_offset);
	if (i >= 0) {
		*u = (uint32_t)i;
		return 0;
	}
	*u = b->ncu;
	if (i != -ENOENT)
		return i;
	if (b->orphans != UINT32_MAX)
		return 0;
	return pfelf_dbgw_unit(b->w, NULL, 0, PFELF_DW_LANG_GO, &b->orphans);
}

/* Function index with its rows. */
static int add_func(struct gobuild *b, uint32_t index)
{
	pfelf_go_func fn;
	pfelf_go_line row;
	uint32_t u;
	int ret = pfelf_go_lines_begin(b->r, index, &fn);
	if (ret == 0)
		ret = unit_of(b, fn.cu_offset, &u);
	if (ret == 0)
		ret = pfelf_dbgw_func(b->w, u < b->ncu ? u : b->orphans, fn.entry, fn.end,
		                      fn.name.str, fn.name.len, PFELF_DBGW_GLOBAL);
	while (ret == 0 && u < b->ncu && (ret = pfelf_go_lines_next(b->r, &row)) == 1) {
		bool known = row.fileno >= 0 && (uint32_t)row.fileno < b->nfiles[u] && row.line > 0;
		ret = pfelf_dbgw_line(b->w, row.start,
		                      b->base[u] + (known ? (uint32_t)row.fileno : b->nfiles[u]),
		                      known ? (uint32_t)row.line : 0);
	}
	return ret; /* a function of no unit has no rows */
}

static int write_all(struct gobuild *b, uint32_t nfunc, void **bytes, uint64_t *size)
{
	int ret = pfelf_dbgw_copy_layout(b->w, b->f);
	if (ret == 0)
		ret = add_units(b);
	for (uint32_t i = 0; ret == 0 && i < nfunc; i++)
		ret = add_func(b, i);
	return ret < 0 ? ret : pfelf_dbgw_finish(b->w, bytes, size);
}

int godebug_make(struct bview *v, uint64_t max, void **bytes, uint64_t *size)
{
	struct vcore *c = view_core(v);
	const struct goview *g;
	int ret = goview_get(v, &g);
	if (ret == 0 && g->table_err < 0)
		ret = -EIO;
	if (ret < 0)
		return ret;
	uint64_t own = 2 * membudget_chunk(((uint64_t)g->t.nfunc + 1) * sizeof(uint32_t));
	struct gobuild b = {.f = v->f, .orphans = UINT32_MAX, .v12 = g->t.version == PFELF_GO_V12};
	if (max <= own)
		return -EFBIG;
	b.r = goview_reader(c);
	ret = b.r ? pfelf_dbgw_new(pfelf_header(v->f), max - own, &b.w) : -ENOMEM;
	if (ret == 0)
		ret = write_all(&b, g->t.nfunc, bytes, size);
	pfelf_dbgw_free(b.w);
	if (b.r)
		goview_reader_put(c, b.r);
	free(b.base);
	free(b.nfiles);
	view_drop_pages(c);
	return ret == -EFBIG || ret == -ENOMEM ? ret : ret < 0 ? -EIO : 0;
}

uint64_t godebug_guess(struct bview *v)
{
	const struct goview *g;
	if (goview_get(v, &g) < 0 || g->table_err < 0)
		return GUESS_FIXED;
	return GUESS_FIXED + (uint64_t)g->t.nfunc * GUESS_PER_FUNC + g->t.size * GUESS_PER_TABLE;
}
