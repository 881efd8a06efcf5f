/*
 * Section headers (pfelf/elf/sections.c): pfelf_section_count, pfelf_section,
 * pfelf_section_by_name, pfelf_section_name and the status bits, against
 * readelf -SW for every fixture and every backend.
 */
#include "backends.h"
#include "compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static bool range_in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

/* Lookups by index and by name, and status bits, for one fixture. */
static void check_sections(const char *name, enum tb_backend b)
{
	const char *path = tb_fixture(name);
	uint64_t fsize = tb_file_size(path);
	struct cmp_counts c = {0};
	struct re_file rf;
	struct tb_handle h;
	const pfelf_shdr *sh, *again;
	const char *nm;
	uint32_t *lowest;
	int count;

	re_load(path, &rf);
	lowest = re_lowest_by_name(&rf);
	tb_open_ok(path, b, &h);
	count = pfelf_section_count(h.f);
	assert_ret(count, rf.nsec);
	assert_ret(pfelf_section_count(h.f), count);
	assert_int_equal(cmp_tables(h.f, &rf, name, &c), 0);

	for (size_t i = 0; i < rf.nsec; i++) {
		const struct re_section *r = &rf.sec[i];
		bool nobits = !strcmp(r->type, "NOBITS");
		uint32_t want_status = 0;

		assert_ret(pfelf_section(h.f, r->index, &sh), 0);
		assert_ret(pfelf_section(h.f, r->index, &again), 0);
		assert_ptr_equal(sh, again); /* owned by the handle, stable */
		assert_ret(pfelf_section_name(h.f, r->index, &nm), 0);
		assert_ptr_equal(nm, sh->name);
		if (!nobits && !range_in_file(r->off, r->size, fsize))
			want_status |= PFELF_ST_OUT_OF_FILE;
		if (sh->status != want_status)
			fail_msg("%s [%u] %s: status %#x, expected %#x", name, r->index, r->name,
			         sh->status, want_status);
		/* by name: the lowest index of that name */
		assert_ret(pfelf_section_by_name(h.f, r->name, &sh), 0);
		assert_int_equal(sh->index, lowest[i]);
		assert_string_equal(sh->name, r->name);
	}
	/* past the end */
	sh = (const pfelf_shdr *)&sh;
	assert_ret(pfelf_section(h.f, (uint32_t)count, &sh), -ENOENT);
	assert_ret(pfelf_section(h.f, (uint32_t)count + 1, &sh), -ENOENT);
	assert_ret(pfelf_section(h.f, UINT32_MAX, &sh), -ENOENT);
	assert_ret(pfelf_section_name(h.f, (uint32_t)count, &nm), -ENOENT);
	assert_ret(pfelf_section_name(h.f, UINT32_MAX, &nm), -ENOENT);
	assert_ret(pfelf_section_by_name(h.f, "no such section \x01", &sh), -ENOENT);
	if (rf.nsec == 0)
		assert_ret(pfelf_section_by_name(h.f, ".text", &sh), -ENOENT);
	tb_close(&h);
	re_file_free(&rf);
	free(lowest);
}

static void test_sections_fixtures(void **state)
{
	tb_each_fixture(TB_STATE_BACKEND(state), check_sections);
}

/* Duplicate names: the lowest index wins; the others are reached by index. */
static void test_duplicates(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	static const struct {
		const char *file, *name;
	} dups[] = {{"many.o", ".dup"}, {"names.o", ".same"}, {"comdat.o", ".group"}};

	for (size_t k = 0; k < sizeof(dups) / sizeof(dups[0]); k++) {
		const char *path = tb_fixture(dups[k].file);
		struct re_file rf;
		struct tb_handle h;
		const pfelf_shdr *sh;
		size_t seen = 0;
		long first;

		re_load(path, &rf);
		first = re_find_section(&rf, dups[k].name);
		assert_true(first > 0);
		tb_open_ok(path, b, &h);
		assert_ret(pfelf_section_by_name(h.f, dups[k].name, &sh), 0);
		assert_int_equal(sh->index, first);
		for (size_t i = 0; i < rf.nsec; i++) {
			if (strcmp(rf.sec[i].name, dups[k].name) != 0)
				continue;
			seen++;
			assert_ret(pfelf_section(h.f, rf.sec[i].index, &sh), 0);
			assert_string_equal(sh->name, dups[k].name);
			assert_int_equal(sh->offset, rf.sec[i].off);
		}
		if (seen < 2)
			fail_msg("%s has %zu sections named %s", dups[k].file, seen, dups[k].name);
		tb_close(&h);
		re_file_free(&rf);
	}
}

/* names.o: odd names come back byte for byte as readelf prints them. */
static void test_odd_names(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	static const char *const odd[] = {"foo/bar", "a/b/c", "..", ".", ".bss"};
	const char *path = tb_fixture("names.o");
	struct re_file rf;
	struct tb_handle h;
	const pfelf_shdr *sh;
	size_t longest = 0;

	re_load(path, &rf);
	tb_open_ok(path, b, &h);
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		long idx = re_find_section(&rf, odd[i]);

		if (idx < 0)
			fail_msg("readelf shows no section %s in names.o", odd[i]);
		assert_ret(pfelf_section_by_name(h.f, odd[i], &sh), 0);
		assert_int_equal(sh->index, idx);
	}
	for (size_t i = 0; i < rf.nsec; i++) {
		size_t len = strlen(rf.sec[i].name);

		assert_ret(pfelf_section(h.f, rf.sec[i].index, &sh), 0);
		assert_string_equal(sh->name, rf.sec[i].name);
		if (len > longest)
			longest = len;
	}
	assert_int_equal(longest, 250);
	/* the empty name: section 0 and the patched one; index 0 is the lowest */
	assert_ret(pfelf_section_by_name(h.f, "", &sh), 0);
	assert_int_equal(sh->index, 0);
	assert_ret(pfelf_section_by_name(h.f, ".bss", &sh), 0);
	assert_int_equal(sh->type, 8 /* SHT_NOBITS */);
	assert_int_equal(sh->status, 0);
	tb_close(&h);
	re_file_free(&rf);
}

/* outofrange: .comment lies past the end; it says so, and the rest is fine. */
static void test_out_of_range(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_fixture("outofrange");
	uint64_t fsize = tb_file_size(path);
	struct tb_handle h;
	const pfelf_shdr *sh;
	uint8_t byte;
	int count, flagged = 0;

	tb_open_ok(path, b, &h);
	assert_ret(pfelf_section_by_name(h.f, ".comment", &sh), 0);
	assert_true(sh->status & PFELF_ST_OUT_OF_FILE);
	assert_true(sh->offset > fsize);
	assert_ret(pfelf_read(h.f, sh->offset, &byte, 1), -EINVAL);
	count = pfelf_section_count(h.f);
	assert_true(count > 10);
	for (int i = 0; i < count; i++) {
		assert_ret(pfelf_section(h.f, (uint32_t)i, &sh), 0);
		flagged += (sh->status & PFELF_ST_OUT_OF_FILE) != 0;
	}
	assert_int_equal(flagged, 1);
	assert_ret(pfelf_section_by_name(h.f, ".text", &sh), 0);
	assert_int_equal(sh->status, 0);
	tb_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_sections_fixtures),
	        TB_BACKEND_TESTS(test_duplicates),
	        TB_BACKEND_TESTS(test_odd_names),
	        TB_BACKEND_TESTS(test_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
