/*
 * Hostile pclntabs (tests/fixtures/go/goelf.py, HOSTILE: a 1.18 table
 * broken one way each): a function count of 2^32 or past the table, names
 * out of range or without their NUL, a pc-value table that runs to the end
 * of the tables, one that stalls (300 steps that leave the pc where it
 * is), a 6-byte varint, overlapping functions, a section shorter than the
 * header says, offsets past the table or out of order, record offsets out
 * of range, a record whose entry is not the function table's, entries
 * outside every segment, compile unit and file offsets out of range, bad
 * pad, quantum and pointer size. Each gives -EINVAL where it is, and -1 or
 * "" where debug/gosym recovers; never a crash, a hang or an allocation
 * past the bounds pfelf_cost_go gives. On every backend.
 */
#include "go_helpers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Open hostile-name with backend b. */
static void open_hostile(const char *name, enum tb_backend b, struct tb_handle *h)
{
	char file[128];
	snprintf(file, sizeof(file), "hostile-%s", name);
	tg_fixture(file);
	tb_open_ok(tg_path(file), b, h);
}

/* Tables refused whole: the header, the function table, the text or a
 * record (read with the function table). */
static void test_refused(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	static const char *const names[] = {
	        "nfunc-2p32",  "nfunc-past",   "overlap",      "header-lies",
	        "offset-past", "funcoff-past", "text-outside", "order",
	        "pad",         "quantum-3",    "ptrsize-5",    "entry-mismatch",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		struct tb_handle h;
		pfelf_go_table t;
		pfelf_go_reader *r;
		pfelf_go_cost cost;
		open_hostile(names[i], b, &h);
		print_message("%s\n", names[i]);
		assert_ret(pfelf_go_table_get(h.f, &t), -EINVAL);
		assert_ret(pfelf_go_table_get(h.f, &t), -EINVAL); /* remembered */
		assert_ret(pfelf_go_reader_open(h.f, &r), -EINVAL);
		assert_ret(pfelf_go_cu_count(h.f), -EINVAL);
		assert_ret(pfelf_cost_go(h.f, &cost), 0);
		assert_int_equal(cost.functions, 0);
		tb_close(&h);
	}
}

/* Function index of a table that loads: its record and name read, and
 * its position decoded. */
static int func(pfelf_file *f, uint32_t index, pfelf_go_pos *pos)
{
	pfelf_go_reader *r;
	pfelf_go_func fn;
	assert_ret(pfelf_go_reader_open(f, &r), 0);
	int ret = pfelf_go_func_get(r, index, &fn, pos);
	if (pos && ret == 0)
		pos->file.str = strcmp(pos->file.str, "") == 0 ? "" : "(a file)";
	pfelf_go_reader_close(r);
	return ret;
}

/* Every function but bad gives 0; bad gives err (with or without its
 * position, as with_pos says). */
static void one_bad(pfelf_file *f, uint32_t bad, int err, bool with_pos)
{
	pfelf_go_table t;
	pfelf_go_pos pos;
	assert_ret(pfelf_go_table_get(f, &t), 0);
	for (uint32_t i = 0; i < t.nfunc; i++) {
		int want = i == bad ? err : 0;
		assert_ret(func(f, i, &pos), want);
		assert_ret(func(f, i, NULL), i == bad && with_pos ? 0 : want);
	}
}

static void test_names(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle h;
	open_hostile("name-past", b, &h); /* function 2's name offset */
	one_bad(h.f, 2, -EINVAL, false);
	tb_close(&h);
	open_hostile("name-nonul", b, &h); /* the last name runs to its table's end */
	one_bad(h.f, 6, -EINVAL, false);
	tb_close(&h);
}

/* The rows of function i: 1 when they tile it, else the error. */
static int all_rows(pfelf_file *f, uint32_t i)
{
	pfelf_go_reader *r;
	pfelf_go_func fn;
	pfelf_go_line row;
	assert_ret(pfelf_go_reader_open(f, &r), 0);
	assert_ret(pfelf_go_lines_begin(r, i, &fn), 0);
	uint64_t at = fn.entry;
	int ret, n = 0;
	while ((ret = pfelf_go_lines_next(r, &row)) == 1) {
		assert_int_equal(row.start, at);
		at = row.end;
		assert_true(++n < 1000);
	}
	if (ret == 0)
		assert_int_equal(at, fn.end);
	pfelf_go_reader_close(r);
	return ret == 0 ? 1 : ret;
}

static void test_pc_tables(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle h;
	pfelf_go_pos pos;
	/* 300 steps that stay at one pc: refused after 256 */
	open_hostile("pc-stall", b, &h);
	one_bad(h.f, 0, -EINVAL, true);
	assert_ret(all_rows(h.f, 0), -EINVAL);
	assert_ret(all_rows(h.f, 1), 1);
	tb_close(&h);
	/* a varint of 6 bytes */
	open_hostile("pc-varint", b, &h);
	one_bad(h.f, 1, -EINVAL, true);
	assert_ret(all_rows(h.f, 1), -EINVAL);
	tb_close(&h);
	/* +1 a step to the end of the tables: rows end with the function,
	 * lookups past the table's end are -1 as in debug/gosym */
	open_hostile("pc-endless", b, &h);
	assert_ret(func(h.f, 6, &pos), 0);
	assert_int_equal(pos.line, 0); /* -1 + 1 */
	assert_ret(all_rows(h.f, 6), 1);
	tb_close(&h);
}

static void test_units(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle h;
	pfelf_go_pos pos;
	/* function 1's compile unit past the table: no file (debug/gosym
	 * recovers with ""), and no compile units at all */
	open_hostile("cuoff-past", b, &h);
	assert_ret(func(h.f, 1, &pos), 0);
	assert_string_equal(pos.file.str, "");
	assert_true(pos.line > 0);
	assert_ret(func(h.f, 0, &pos), 0);
	assert_string_equal(pos.file.str, "(a file)");
	assert_ret(pfelf_go_cu_count(h.f), -EINVAL);
	tb_close(&h);
	/* the first file of unit 0 past the file names: "" */
	open_hostile("file-past", b, &h);
	assert_ret(func(h.f, 0, &pos), 0);
	assert_int_equal(pos.fileno, 0);
	assert_string_equal(pos.file.str, "");
	assert_ret(func(h.f, 1, &pos), 0);
	assert_int_equal(pos.fileno, 1);
	assert_string_equal(pos.file.str, "(a file)");
	assert_ret(pfelf_go_cu_count(h.f), 3);
	tb_close(&h);
}

/* Every hostile file, walked whole: whatever each call answers, the
 * answers hold together and the work ends. */
static void test_walk(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	size_t n = tg_fixtures(&fx);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(fx[i].kind, "hostile") != 0)
			continue;
		struct tb_handle h;
		pfelf_go_table t;
		pfelf_go_reader *r;
		tb_open_ok(tg_path(fx[i].name), b, &h);
		if (pfelf_go_table_get(h.f, &t) == 0) {
			assert_ret(pfelf_go_reader_open(h.f, &r), 0);
			for (uint32_t k = 0; k < t.nfunc; k++) {
				pfelf_go_func fn;
				pfelf_go_pos pos;
				int ret = pfelf_go_func_get(r, k, &fn, &pos);
				assert_true(ret == 0 || ret == -EINVAL);
				ret = pfelf_go_pc_lookup(r, t.min_pc + k, &fn, &pos);
				assert_true(ret == 0 || ret == -EINVAL);
			}
			pfelf_go_reader_close(r);
		}
		tb_close(&h);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_refused),   TB_BACKEND_TESTS(test_names),
	        TB_BACKEND_TESTS(test_pc_tables), TB_BACKEND_TESTS(test_units),
	        TB_BACKEND_TESTS(test_walk),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
