/*
 * The shared-mapping registry (pfelf/core/registry.c): every handle of one file
 * identity shares one mapping; pfelf_registry_stats_get counts them; a file
 * that changed gets a mapping of its own.
 */
#include "backends.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pfelf_registry_stats stats(void)
{
	pfelf_registry_stats st;

	memset(&st, 0xa5, sizeof(st));
	pfelf_registry_stats_get(&st);
	return st;
}

static const void *base_of(pfelf_file *f)
{
	pfelf_ref ref;

	assert_ret(pfelf_get_ref(f, 0, 16, &ref), 0);
	assert_non_null(ref.ptr);
	assert_int_equal(ref.fd, -1);
	return ref.ptr;
}

static void assert_stats(const pfelf_registry_stats *base, uint64_t maps, uint64_t bytes_min,
                         uint64_t bytes_max, uint64_t handles)
{
	pfelf_registry_stats now = stats();

	assert_int_equal(now.mappings, base->mappings + maps);
	assert_in_range(now.mapped_bytes, base->mapped_bytes + bytes_min,
	                base->mapped_bytes + bytes_max);
	assert_int_equal(now.handles, base->handles + handles);
}

static uint64_t page_round(uint64_t n)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

/* Two handles of the same file: one mapping, the same pointer. The first
 * handle maps on its first zero-copy use (before, it reads its tables
 * with pread); the second finds the mapping at open. */
static void test_shared_mapping(void **state)
{
	const char *path = tb_fixture("exec");
	uint64_t size = tb_file_size(path);
	pfelf_registry_stats base = stats();
	pfelf_file *a, *b;

	assert_ret(pfelf_open(path, 0, &a), 0);
	assert_stats(&base, 0, 0, 0, 1);
	assert_true(pfelf_section_count(a) > 0); /* tables need no mapping */
	assert_stats(&base, 0, 0, 0, 1);
	(void)base_of(a);
	assert_stats(&base, 1, size, page_round(size), 1);
	assert_ret(pfelf_open(path, 0, &b), 0);
	assert_stats(&base, 1, size, page_round(size), 2);
	assert_ptr_equal(base_of(a), base_of(b));
	pfelf_close(a);
	assert_stats(&base, 1, size, page_round(size), 1);
	pfelf_close(b);
	assert_stats(&base, 0, 0, 0, 0);
}

/* A different file, a different mapping; pread and memory handles hold none. */
static void test_distinct_files(void **state)
{
	const char *p1 = tb_fixture("exec"), *p2 = tb_fixture("pie");
	uint64_t s1 = tb_file_size(p1), s2 = tb_file_size(p2);
	pfelf_registry_stats base = stats();
	struct tb_handle a, b, c, d;

	tb_open_ok(p1, TB_MMAP, &a);
	tb_open_ok(p2, TB_MMAP, &b);
	assert_ptr_not_equal(base_of(a.f), base_of(b.f));
	assert_stats(&base, 2, s1 + s2, page_round(s1) + page_round(s2), 2);
	tb_open_ok(p1, TB_PREAD, &c);
	tb_open_ok(p1, TB_MEMORY, &d);
	assert_stats(&base, 2, s1 + s2, page_round(s1) + page_round(s2), 2);
	tb_close(&a);
	tb_close(&b);
	assert_stats(&base, 0, 0, 0, 0);
	tb_close(&c);
	tb_close(&d);
	assert_stats(&base, 0, 0, 0, 0);
}

/* A zero-copy view keeps the mapping alive after its handle is closed. */
static void test_view_holds_mapping(void **state)
{
	const char *path = tb_fixture("libshared.so");
	pfelf_registry_stats base = stats();
	uint8_t want[256];
	pfelf_file *f;
	pfelf_view v;

	tb_pread_exact(path, 512, want, sizeof(want));
	assert_ret(pfelf_open(path, 0, &f), 0);
	assert_ret(pfelf_view_get(f, 512, sizeof(want), 0, &v), 0);
	assert_false(v.copied);
	pfelf_close(f);
	assert_int_equal(stats().mappings, base.mappings + 1);
	assert_memory_equal(v.data, want, sizeof(want));
	/* a new handle of the same file finds the same mapping */
	assert_ret(pfelf_open(path, 0, &f), 0);
	assert_int_equal(stats().mappings, base.mappings + 1);
	assert_ptr_equal((const uint8_t *)base_of(f) + 512, v.data);
	pfelf_close(f);
	pfelf_view_release(&v);
	assert_stats(&base, 0, 0, 0, 0);
}

static void rewrite_in_place(const char *path, const uint8_t *bytes, size_t len)
{
	struct timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 123456789}};
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pwrite(fd, bytes, len, 0), (ssize_t)len);
	/* a distinct mtime even on a coarse clock */
	assert_int_equal(futimens(fd, times), 0);
	close(fd);
}

/* A file rewritten in place (new mtime) or replaced (new inode) gets a new mapping. */
static void test_changed_file(void **state)
{
	char *path = tb_copy_tmp("changed", tb_fixture("exec"));
	size_t len;
	uint8_t *bytes = tb_slurp(path, &len);
	pfelf_registry_stats base = stats();
	pfelf_identity ia, ib, ic;
	pfelf_file *a, *b, *c, *d;
	char *other;

	assert_ret(pfelf_open(path, 0, &a), 0);
	assert_ret(pfelf_get_identity(a, &ia), 0);
	(void)base_of(a);
	rewrite_in_place(path, bytes, len);
	assert_ret(pfelf_open(path, 0, &b), 0);
	assert_ret(pfelf_get_identity(b, &ib), 0);
	(void)base_of(b);
	assert_int_equal(ia.ino, ib.ino);
	assert_int_not_equal(ia.mtime_sec, ib.mtime_sec);
	assert_int_equal(stats().mappings, base.mappings + 2);
	assert_ptr_not_equal(base_of(a), base_of(b));

	/* replaced by rename: another inode */
	other = tb_write_tmp("replacement", bytes, len);
	assert_int_equal(rename(other, path), 0);
	assert_ret(pfelf_open(path, 0, &c), 0);
	assert_ret(pfelf_get_identity(c, &ic), 0);
	(void)base_of(c);
	assert_int_not_equal(ic.ino, ia.ino);
	assert_int_equal(stats().mappings, base.mappings + 3);
	/* and the same identity again shares */
	assert_ret(pfelf_open(path, 0, &d), 0);
	assert_int_equal(stats().mappings, base.mappings + 3);
	assert_ptr_equal(base_of(c), base_of(d));

	pfelf_close(a);
	pfelf_close(b);
	pfelf_close(c);
	pfelf_close(d);
	assert_stats(&base, 0, 0, 0, 0);
	unlink(path);
	free(path);
	free(other);
	free(bytes);
}

/* Many handles of many files, closed in another order: the counts return to the start. */
static void test_many_handles(void **state)
{
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);
	pfelf_registry_stats base = stats();
	pfelf_file *f[3][64];
	uint64_t bytes = 0;

	assert_true(n <= 64);
	for (size_t i = 0; i < n; i++) {
		uint64_t size = tb_file_size(tb_fixture(names[i]));

		for (int k = 0; k < 3; k++)
			assert_ret(pfelf_open(tb_fixture(names[i]), 0, &f[k][i]), 0);
		(void)base_of(f[0][i]);
		bytes += size;
	}
	assert_int_equal(stats().mappings, base.mappings + n);
	assert_int_equal(stats().handles, base.handles + 3 * n);
	assert_true(stats().mapped_bytes >= base.mapped_bytes + bytes);
	for (int k = 2; k >= 0; k--)
		for (size_t i = 0; i < n; i++)
			pfelf_close(f[k][n - 1 - i]);
	assert_stats(&base, 0, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_shared_mapping),     cmocka_unit_test(test_distinct_files),
	        cmocka_unit_test(test_view_holds_mapping), cmocka_unit_test(test_changed_file),
	        cmocka_unit_test(test_many_handles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
