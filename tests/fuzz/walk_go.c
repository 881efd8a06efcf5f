/* The walk of Go's tables (see walk_go.h). */
#include "walk_go.h"

#include "walk.h"

#include <errno.h>
#include <string.h>

/* A name as the contract says: NUL-ended at len, inside the table. */
static void check_name(const pfelf_go_name *n, const pfelf_go_table *t)
{
	WALK_CHECK(n->str && strlen(n->str) == n->len && n->len <= PFELF_GO_NAME_MAX);
	WALK_CHECK(n->len == 0 || n->offset == 0 ||
	           (n->offset >= t->offset && n->offset - t->offset < t->size));
}

/* Function i's rows: they tile [entry, end), each a run of one position
 * that pfelf_go_pc_lookup gives at its first and last pc (the first
 * WALK_GO_LOOKUPS rows: a lookup decodes from the entry). */
static void walk_rows(pfelf_go_reader *r, const pfelf_go_table *t, uint32_t i)
{
	pfelf_go_func fn, at;
	pfelf_go_line row;
	pfelf_go_pos pos;
	int ret = pfelf_go_lines_begin(r, i, &fn);
	WALK_CHECK(ret == 0 || ret == -EINVAL);
	if (ret < 0)
		return;
	uint64_t pc = fn.entry;
	unsigned n = 0;
	while (n++ < WALK_GO_ROWS && (ret = pfelf_go_lines_next(r, &row)) == 1) {
		WALK_CHECK(row.start == pc && row.end > row.start && row.end <= fn.end);
		pc = row.end;
		uint64_t ends[2] = {row.start, row.end - 1};
		for (int k = 0; n <= WALK_GO_LOOKUPS && k < 2; k++) {
			int got = pfelf_go_pc_lookup(r, ends[k], &at, &pos);
			WALK_CHECK(got == 0 || got == -EINVAL);
			WALK_CHECK(got < 0 || (at.index == i && pos.line == row.line &&
			                       pos.fileno == row.fileno));
			if (got == 0)
				check_name(&pos.file, t);
		}
	}
	WALK_CHECK(ret == 0 || ret == 1 || ret == -EINVAL);
	WALK_CHECK(ret != 0 || pc == fn.end);
}

static void walk_function(pfelf_go_reader *r, const pfelf_go_table *t, uint32_t i)
{
	pfelf_go_func fn, at;
	pfelf_go_pos pos;
	int ret = pfelf_go_func_get(r, i, &fn, &pos);
	WALK_CHECK(ret == 0 || ret == -EINVAL);
	if (ret < 0)
		return;
	WALK_CHECK(fn.index == i && fn.entry <= fn.end);
	WALK_CHECK(fn.entry >= t->min_pc && fn.end <= t->max_pc);
	check_name(&fn.name, t);
	check_name(&pos.file, t);
	WALK_CHECK(pos.fileno >= 0 || pos.file.len == 0);
	if (fn.end > fn.entry) {
		ret = pfelf_go_pc_lookup(r, fn.entry, &at, NULL);
		WALK_CHECK(ret == -EINVAL || (ret == 0 && at.index == i && at.entry == fn.entry));
	}
	walk_rows(r, t, i);
}

static void walk_units(pfelf_file *f, pfelf_go_reader *r, const pfelf_go_table *t)
{
	int n = pfelf_go_cu_count(f);
	WALK_CHECK(n >= 0 || n == -EINVAL);
	WALK_CHECK(n < 0 || (uint32_t)n <= (t->nfunc > 0 ? t->nfunc : 1));
	for (int k = 0; k < n && k < WALK_GO_UNITS; k++) {
		pfelf_go_cu cu;
		WALK_CHECK(pfelf_go_cu_get(f, (uint32_t)k, &cu) == 0 && cu.index == (uint32_t)k);
		WALK_CHECK(pfelf_go_cu_find(f, cu.offset) == k);
		for (uint32_t i = 0; i < cu.nfiles && i < 64; i++) {
			pfelf_go_name file;
			int ret = pfelf_go_file(r, cu.offset, (int32_t)i, &file);
			WALK_CHECK(ret == 0 || ret == -EINVAL);
			if (ret == 0)
				check_name(&file, t);
		}
	}
	if (n > 0) {
		pfelf_go_cu cu;
		WALK_CHECK(pfelf_go_cu_get(f, (uint32_t)n, &cu) == -ENOENT);
	}
}

void walk_go(pfelf_file *f)
{
	const char *text;
	size_t len;
	int ret = pfelf_go_buildinfo(f, &text, &len);
	WALK_CHECK(ret == 0 || ret == -ENOENT || ret == -EINVAL);
	WALK_CHECK(ret < 0 || (text[len] == 0 && memchr(text, '\n', len)));
	pfelf_go_table t;
	ret = pfelf_go_table_get(f, &t);
	WALK_CHECK(ret == 0 || ret == -ENOENT || ret == -EINVAL);
	pfelf_go_cost cost;
	WALK_CHECK(pfelf_cost_go(f, &cost) == 0);
	if (ret < 0) {
		WALK_CHECK(cost.functions == 0);
		return;
	}
	WALK_CHECK(cost.functions >= 24 * ((uint64_t)t.nfunc + 1) &&
	           cost.functions <= 28 * ((uint64_t)t.nfunc + 1));
	WALK_CHECK(t.min_pc <= t.max_pc && t.quantum >= 1 && t.quantum <= 4);
	WALK_CHECK(t.ptrsize == 4 || t.ptrsize == 8);
	pfelf_go_reader *r;
	WALK_CHECK(pfelf_go_reader_open(f, &r) == 0);
	for (uint32_t i = 0; i < t.nfunc && i < WALK_GO_FUNCS; i++)
		walk_function(r, &t, i);
	pfelf_go_func fn;
	WALK_CHECK(pfelf_go_func_get(r, t.nfunc, &fn, NULL) == -ENOENT);
	WALK_CHECK(pfelf_go_pc_lookup(r, t.max_pc, &fn, NULL) == -ENOENT);
	walk_units(f, r, &t);
	pfelf_go_reader_close(r);
}
