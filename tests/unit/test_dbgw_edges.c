/*
 * Edges of the debug-file writer (pfelf_dbgw_*), its files read back by
 * pfelf on every backend, for the four classes and byte orders:
 *  - a file of no name (pfelf_dbgw_file with namelen 0): written "??", and
 *    every unit's list of file names in .debug_line holds all its files in
 *    order (an empty name would end DWARF 4's list there), the list ending
 *    where the header says the line program starts;
 *  - the layout of a binary without section headers: a SHT_NOBITS section
 *    over each PT_LOAD (.text, .rodata, .data by its flags, at its address
 *    and memory size, aligned), which holds the symbols of its functions,
 *    with the binary's PT_LOADs and its build id (from its PT_NOTE).
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

/* n bytes passed over (more than take's 8). */
static void pass_over(struct cur *c, size_t n)
{
	assert_true(n <= c->len && c->at <= c->len - n);
	c->at += n;
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
	pass_over(c, opcode_base - 1); /* standard_opcode_lengths */
	while (*string(c))             /* include_directories */
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

/* ------------------------------------- a binary without section headers */

/* The sections made of the binary's PT_LOADs (dbgw_helpers.h), in order. */
static const struct {
	const char *name;
	uint64_t flags, addr, size;
} load_secs[] = {
        {".rodata", SHF_ALLOC, 0x400000, 0x1000},
        {".text", SHF_ALLOC | SHF_EXECINSTR, 0x401000, 0x3000},
        {".data", SHF_ALLOC | SHF_WRITE, 0x406000, 0x1100},
};
#define NLOAD_SECS (sizeof(load_secs) / sizeof(load_secs[0]))

/* Functions and the section of their symbol (NULL: SHN_ABS). */
static const struct {
	uint64_t lo, hi;
	const char *name, *section;
} load_fns[] = {
        {0x401100, 0x401180, "in_text", ".text"},
        {0x406010, 0x406020, "in_data", ".data"},
        {0x500000, 0x500010, "outside", NULL},
};
#define NLOAD_FNS (sizeof(load_fns) / sizeof(load_fns[0]))

static void *write_noshdr(pfelf_file *bin, uint64_t *size)
{
	pfelf_dbgw *w;
	uint32_t unit;
	void *bytes;
	assert_ret(pfelf_dbgw_new(pfelf_header(bin), 1 << 20, &w), 0);
	assert_ret(pfelf_dbgw_copy_layout(w, bin), 0);
	assert_ret(pfelf_dbgw_unit(w, "u", 1, 0, &unit), 0);
	for (size_t i = 0; i < NLOAD_FNS; i++)
		assert_ret(pfelf_dbgw_func(w, unit, load_fns[i].lo, load_fns[i].hi,
		                           load_fns[i].name, strlen(load_fns[i].name),
		                           PFELF_DBGW_GLOBAL),
		           0);
	assert_ret(pfelf_dbgw_finish(w, &bytes, size), 0);
	pfelf_dbgw_free(w);
	return bytes;
}

/* The sections with an address: load_secs, NOBITS, aligned. */
static void check_load_sections(pfelf_file *dbg)
{
	int n = pfelf_section_count(dbg);
	size_t k = 0;
	for (int i = 1; i < n; i++) {
		const pfelf_shdr *sh;
		assert_ret(pfelf_section(dbg, (uint32_t)i, &sh), 0);
		if (!(sh->flags & SHF_ALLOC))
			continue;
		assert_true(k < NLOAD_SECS);
		assert_string_equal(sh->name, load_secs[k].name);
		assert_ret(sh->type, SHT_NOBITS);
		assert_ret(sh->flags, load_secs[k].flags);
		assert_ret(sh->addr, load_secs[k].addr);
		assert_ret(sh->size, load_secs[k].size);
		assert_true(sh->addralign > 0 && sh->addr % sh->addralign == 0);
		k++;
	}
	assert_ret(k, NLOAD_SECS);
}

static void check_load_symbols(pfelf_file *dbg)
{
	int n = pfelf_symbol_count(dbg, PFELF_SYMTAB);
	assert_ret(n, NLOAD_FNS + 1);
	for (int i = 1; i < n; i++) {
		pfelf_sym s;
		const char *sec = NULL;
		assert_ret(pfelf_symbol(dbg, PFELF_SYMTAB, (uint32_t)i, &s), 0);
		if (s.shndx != SHN_ABS)
			assert_ret(pfelf_section_name(dbg, s.shndx, &sec), 0);
		for (size_t k = 0; k < NLOAD_FNS; k++) {
			if (strcmp(s.name, load_fns[k].name) != 0)
				continue;
			assert_ret(s.value, load_fns[k].lo);
			if (load_fns[k].section)
				assert_string_equal(sec, load_fns[k].section);
			else
				assert_ret(s.shndx, SHN_ABS);
		}
	}
}

static void no_section_headers(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	for (size_t t = 0; t < DBGW_NTARGETS; t++) {
		size_t len;
		uint8_t *bin_bytes = dbgw_synth_binary(&dbgw_targets[t], false, &len);
		struct tb_handle bin, dbg;
		assert_ret(tb_open_bytes(bin_bytes, len, b, &bin), 0);
		assert_ret(pfelf_section_count(bin.f), 0);
		uint64_t size;
		void *bytes = write_noshdr(bin.f, &size);
		assert_ret(tb_open_bytes(bytes, size, b, &dbg), 0);
		check_load_sections(dbg.f);
		check_load_symbols(dbg.f);
		int loads = 0, n = pfelf_segment_count(dbg.f);
		for (int i = 0; i < n; i++) {
			const pfelf_phdr *ph;
			assert_ret(pfelf_segment(dbg.f, (uint32_t)i, &ph), 0);
			loads += ph->type == PT_LOAD;
		}
		assert_ret(loads, NLOAD_SECS);
		const uint8_t *id;
		assert_ret(pfelf_build_id(dbg.f, &id), sizeof(dbgw_build_id));
		assert_memory_equal(id, dbgw_build_id, sizeof(dbgw_build_id));
		tb_close(&dbg);
		tb_close(&bin);
		free(bytes);
		free(bin_bytes);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(no_name),
	        TB_BACKEND_TESTS(no_section_headers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
