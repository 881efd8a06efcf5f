/*
 * Edges of the debug-file writer (pfelf_dbgw_*), its files read back by
 * pfelf on every backend, for the four classes and byte orders:
 *  - a file of no name (pfelf_dbgw_file with namelen 0): written "??", and
 *    every unit's list of file names in .debug_line holds all its files in
 *    order (an empty name would end DWARF 4's list there), the list ending
 *    where the header says the line program starts.
 * The tools' reading of the same: test_dbgw_tools.py.
 */
#include "backends.h"
#include "dbgw_helpers.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------ files of no name */

/* A cursor over .debug_line. */
struct cur {
	const uint8_t *p;
	size_t len, at;
	bool be;
};

static uint64_t take(struct cur *c, size_t n)
{
	assert_true(n <= c->len && c->at <= c->len - n);
	uint64_t v = tb_get(c->p + c->at, n, c->be);
	c->at += n;
	return v;
}

static uint64_t uleb(struct cur *c)
{
	uint64_t v = 0;
	for (unsigned shift = 0;; shift += 7) {
		assert_true(shift < 64);
		uint8_t byte = (uint8_t)take(c, 1);
		v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			return v;
	}
}

/* A NUL-ended string at the cursor, skipped. */
static const char *string(struct cur *c)
{
	const char *s = (const char *)c->p + c->at;
	size_t n = strnlen(s, c->len - c->at);
	assert_true(n < c->len - c->at);
	c->at += n + 1;
	return s;
}

/* The file names of the line-program header at c into names ("|" between
 * them); c is left at the next unit's header. */
static void unit_files(struct cur *c, char *names, size_t cap)
{
	size_t unit_len = take(c, 4), start = c->at;
	assert_true(unit_len < 0xfffffff0u && unit_len <= c->len - c->at);
	assert_ret(take(c, 2), 4); /* version */
	size_t header_len = take(c, 4), program = c->at + header_len;
	take(c, 5); /* minimum_instruction_length ... line_range */
	size_t opcode_base = take(c, 1);
	take(c, opcode_base - 1);
	while (*string(c)) /* include_directories */
		;
	names[0] = 0;
	for (const char *name; *(name = string(c));) {
		uleb(c); /* directory, time, length */
		uleb(c);
		uleb(c);
		strncat(names, names[0] ? "|" : "", cap - strlen(names) - 1);
		strncat(names, name, cap - strlen(names) - 1);
	}
	assert_ret(c->at, program); /* the list ends where the header says */
	c->at = start + unit_len;
}

static void no_name(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	for (size_t t = 0; t < DBGW_NTARGETS; t++) {
		pfelf_ehdr e = dbgw_target_ehdr(&dbgw_targets[t], ET_EXEC);
		pfelf_dbgw *w;
		uint32_t u0, u1, f[5];
		assert_ret(pfelf_dbgw_new(&e, 1 << 20, &w), 0);
		assert_ret(pfelf_dbgw_unit(w, "zero", 4, 0, &u0), 0);
		assert_ret(pfelf_dbgw_unit(w, "one", 3, 0, &u1), 0);
		assert_ret(pfelf_dbgw_file(w, u0, "/src/a.c", 8, &f[0]), 0);
		assert_ret(pfelf_dbgw_file(w, u0, "", 0, &f[1]), 0);
		assert_ret(pfelf_dbgw_file(w, u1, NULL, 0, &f[2]), 0);
		assert_ret(pfelf_dbgw_file(w, u0, "/src/b.c", 8, &f[3]), 0);
		assert_ret(pfelf_dbgw_file(w, u1, "/src/c.c", 8, &f[4]), 0);
		assert_ret(pfelf_dbgw_func(w, u0, 0x1000, 0x1040, "f", 1, PFELF_DBGW_GLOBAL), 0);
		assert_ret(pfelf_dbgw_line(w, 0x1000, f[1], 7), 0);
		assert_ret(pfelf_dbgw_line(w, 0x1010, f[3], 8), 0);
		assert_ret(pfelf_dbgw_func(w, u1, 0x2000, 0x2040, "g", 1, PFELF_DBGW_GLOBAL), 0);
		assert_ret(pfelf_dbgw_line(w, 0x2000, f[4], 9), 0);
		void *bytes;
		uint64_t size;
		assert_ret(pfelf_dbgw_finish(w, &bytes, &size), 0);
		pfelf_dbgw_free(w);
		struct tb_handle dbg;
		assert_ret(tb_open_bytes(bytes, size, b, &dbg), 0);
		size_t len;
		uint8_t *line = dbgw_section_bytes(dbg.f, ".debug_line", &len);
		struct cur c = {line, len, 0, dbgw_targets[t].be};
		char names[256];
		unit_files(&c, names, sizeof(names));
		assert_string_equal(names, "/src/a.c|??|/src/b.c");
		unit_files(&c, names, sizeof(names));
		assert_string_equal(names, "??|/src/c.c");
		assert_ret(c.at, len);
		free(line);
		tb_close(&dbg);
		free(bytes);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(no_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
