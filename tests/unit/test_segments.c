/*
 * Program headers (pfelf/elf/segments.c): pfelf_segment_count, pfelf_segment
 * and the out-of-file status, against readelf -lW for every fixture and
 * every backend; PN_XNUM and files without section headers;
 * pfelf_vaddr_to_offset against readelf's LOAD entries.
 */
#include "backends.h"
#include "compare.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static void check_segments(const char *name, enum tb_backend b)
{
	const char *path = tb_fixture(name);
	uint64_t fsize = tb_file_size(path);
	struct cmp_counts c = {0};
	struct re_file rf;
	struct tb_handle h;
	const pfelf_phdr *ph, *again;
	int count;

	re_load(path, &rf);
	tb_open_ok(path, b, &h);
	count = pfelf_segment_count(h.f);
	assert_ret(count, rf.nseg);
	assert_ret(pfelf_segment_count(h.f), count);
	assert_int_equal(cmp_tables(h.f, &rf, name, &c), 0);
	for (size_t i = 0; i < rf.nseg; i++) {
		const struct re_segment *r = &rf.seg[i];
		bool in = r->off <= fsize && r->filesz <= fsize - r->off;

		assert_ret(pfelf_segment(h.f, (uint32_t)i, &ph), 0);
		assert_ret(pfelf_segment(h.f, (uint32_t)i, &again), 0);
		assert_ptr_equal(ph, again);
		assert_int_equal(ph->index, i);
		if (ph->status != (in ? 0 : PFELF_ST_OUT_OF_FILE))
			fail_msg("%s segment %zu (%s at %#llx+%#llx, file %llu): status %#x", name,
			         i, r->type, (unsigned long long)r->off,
			         (unsigned long long)r->filesz, (unsigned long long)fsize,
			         ph->status);
	}
	ph = (const pfelf_phdr *)&ph;
	assert_ret(pfelf_segment(h.f, (uint32_t)count, &ph), -ENOENT);
	assert_ret(pfelf_segment(h.f, UINT32_MAX, &ph), -ENOENT);
	tb_close(&h);
	re_file_free(&rf);
}

static void test_segments_fixtures(void **state)
{
	tb_each_fixture(TB_STATE_BACKEND(state), check_segments);
}

/* phxnum is exec with PN_XNUM: the same program headers. */
static void test_pn_xnum(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle x, e;
	const pfelf_phdr *p, *q;
	int n;

	tb_open_ok(tb_fixture("phxnum"), b, &x);
	tb_open_ok(tb_fixture("exec"), b, &e);
	n = pfelf_segment_count(e.f);
	assert_true(n > 5);
	assert_ret(pfelf_segment_count(x.f), n);
	assert_int_equal(pfelf_header(x.f)->raw_phnum, 0xffff);
	for (int i = 0; i < n; i++) {
		assert_ret(pfelf_segment(x.f, (uint32_t)i, &p), 0);
		assert_ret(pfelf_segment(e.f, (uint32_t)i, &q), 0);
		assert_memory_equal(p, q, sizeof(*p));
	}
	tb_close(&x);
	tb_close(&e);
}

/* outofrange: exactly one segment (a NOTE) lies past the end and says so. */
static void test_out_of_range(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_fixture("outofrange");
	uint64_t fsize = tb_file_size(path);
	struct tb_handle h;
	const pfelf_phdr *ph;
	int n, flagged = 0;

	tb_open_ok(path, b, &h);
	n = pfelf_segment_count(h.f);
	assert_true(n > 5);
	for (int i = 0; i < n; i++) {
		assert_ret(pfelf_segment(h.f, (uint32_t)i, &ph), 0);
		if (ph->status & PFELF_ST_OUT_OF_FILE) {
			flagged++;
			assert_int_equal(ph->type, 4 /* PT_NOTE */);
			assert_true(ph->offset > fsize);
		}
	}
	assert_int_equal(flagged, 1);
	tb_close(&h);
}

/* The first LOAD of readelf's table inside the file whose file bytes hold
 * [vaddr, vaddr + len): its offset for vaddr, or -EFAULT. */
static int expected_offset(const struct re_file *rf, uint64_t fsize, uint64_t vaddr, uint64_t len,
                           uint64_t *off)
{
	for (size_t i = 0; i < rf->nseg; i++) {
		const struct re_segment *r = &rf->seg[i];
		if (strcmp(r->type, "LOAD") != 0 || r->off > fsize || r->filesz > fsize - r->off)
			continue;
		if (vaddr < r->vaddr || vaddr - r->vaddr > r->filesz ||
		    len > r->filesz - (vaddr - r->vaddr))
			continue;
		*off = r->off + (vaddr - r->vaddr);
		return 0;
	}
	return -EFAULT;
}

static void check_vaddr(const struct re_file *rf, uint64_t fsize, pfelf_file *f, uint64_t vaddr,
                        uint64_t len)
{
	uint64_t want = 0, got = 0;
	int ret = expected_offset(rf, fsize, vaddr, len, &want);
	assert_ret(pfelf_vaddr_to_offset(f, vaddr, len, &got), ret);
	if (ret == 0)
		assert_int_equal(got, want);
}

/* Every LOAD's first and last byte, its end, one past it, a range one byte
 * too long, and an address below every segment. */
static void check_vaddr_to_offset(const char *name, enum tb_backend b)
{
	const char *path = tb_fixture(name);
	uint64_t fsize = tb_file_size(path);
	struct re_file rf;
	struct tb_handle h;
	uint64_t off = 42;
	size_t loads = 0;

	re_load(path, &rf);
	tb_open_ok(path, b, &h);
	for (size_t i = 0; i < rf.nseg; i++) {
		const struct re_segment *r = &rf.seg[i];
		if (strcmp(r->type, "LOAD") != 0)
			continue;
		loads++;
		check_vaddr(&rf, fsize, h.f, r->vaddr, 0);
		check_vaddr(&rf, fsize, h.f, r->vaddr, r->filesz);
		check_vaddr(&rf, fsize, h.f, r->vaddr, r->filesz + 1);
		check_vaddr(&rf, fsize, h.f, r->vaddr + r->filesz, 0);
		check_vaddr(&rf, fsize, h.f, r->vaddr + r->filesz, 1);
		if (r->filesz > 0)
			check_vaddr(&rf, fsize, h.f, r->vaddr + r->filesz - 1, 1);
		check_vaddr(&rf, fsize, h.f, r->vaddr + r->memsz + 4096, 1);
	}
	if (loads == 0)
		assert_ret(pfelf_vaddr_to_offset(h.f, 0, 1, &off), -EFAULT);
	assert_int_equal(off, 42);
	tb_close(&h);
	re_file_free(&rf);
}

static void test_vaddr_to_offset(void **state)
{
	tb_each_fixture(TB_STATE_BACKEND(state), check_vaddr_to_offset);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_segments_fixtures),
	        TB_BACKEND_TESTS(test_pn_xnum),
	        TB_BACKEND_TESTS(test_out_of_range),
	        TB_BACKEND_TESTS(test_vaddr_to_offset),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
