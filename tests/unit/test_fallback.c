/*
 * Fallback: when mmap fails (pfelf__test_fail_mmap, the private test hook
 * of pfelf_i.h), a default open silently serves the file through pread:
 * pfelf_backend says PFELF_BACKEND_PREAD and every result is the same as
 * through the mapping; so does a handle whose lazy mapping fails at its
 * first zero-copy use.
 */
#include "backends.h"

#include "pfelf_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void same_sections(pfelf_file *a, pfelf_file *b)
{
	int n = pfelf_section_count(a);

	assert_true(n >= 0);
	assert_ret(pfelf_section_count(b), n);
	for (int i = 0; i < n; i++) {
		const pfelf_shdr *x, *y;

		assert_ret(pfelf_section(a, (uint32_t)i, &x), 0);
		assert_ret(pfelf_section(b, (uint32_t)i, &y), 0);
		assert_string_equal(x->name, y->name);
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->flags, y->flags);
		assert_int_equal(x->addr, y->addr);
		assert_int_equal(x->offset, y->offset);
		assert_int_equal(x->size, y->size);
		assert_int_equal(x->link, y->link);
		assert_int_equal(x->info, y->info);
		assert_int_equal(x->status, y->status);
		assert_ret(pfelf_section_by_name(b, x->name, &y), 0);
		assert_ret(pfelf_section_by_name(a, x->name, &x), 0);
		assert_int_equal(x->index, y->index);
	}
}

static void same_segments(pfelf_file *a, pfelf_file *b)
{
	int n = pfelf_segment_count(a);

	assert_true(n >= 0);
	assert_ret(pfelf_segment_count(b), n);
	for (int i = 0; i < n; i++) {
		const pfelf_phdr *x, *y;

		assert_ret(pfelf_segment(a, (uint32_t)i, &x), 0);
		assert_ret(pfelf_segment(b, (uint32_t)i, &y), 0);
		assert_memory_equal(x, y, sizeof(*x));
	}
}

static void same_data(pfelf_file *a, pfelf_file *b, const char *path)
{
	size_t size;
	uint8_t *want = tb_slurp(path, &size), *got = malloc(size);
	pfelf_ref ref;
	pfelf_view v;

	assert_non_null(got);
	assert_int_equal(pfelf_size(b), size);
	assert_ret(pfelf_read(b, 0, got, size), (ssize_t)size);
	assert_memory_equal(got, want, size);
	assert_ret(pfelf_get_ref(b, 100, 200, &ref), 0);
	assert_null(ref.ptr);
	assert_true(ref.fd >= 0);
	assert_int_equal(pread(ref.fd, got, 200, (off_t)ref.pos), 200);
	assert_memory_equal(got, want + 100, 200);
	assert_ret(pfelf_view_get(b, 64, 1000, 0, &v), 0);
	assert_true(v.copied);
	assert_memory_equal(v.data, want + 64, 1000);
	pfelf_view_release(&v);
	for (int i = 0; i < pfelf_segment_count(a); i++) {
		const pfelf_phdr *p;

		assert_ret(pfelf_segment(a, (uint32_t)i, &p), 0);
		if (p->type != 1 /* PT_LOAD */ || p->memsz == 0 || p->memsz > size)
			continue;
		uint8_t *x = malloc(p->memsz), *y = malloc(p->memsz);

		assert_ret(pfelf_read_vaddr(a, p->vaddr, x, p->memsz), (ssize_t)p->memsz);
		assert_ret(pfelf_read_vaddr(b, p->vaddr, y, p->memsz), (ssize_t)p->memsz);
		assert_memory_equal(x, y, p->memsz);
		free(x);
		free(y);
	}
	assert_ret(pfelf_advise(b, 0, 0, PFELF_ADVICE_WILLNEED), 0);
	assert_ret(pfelf_drop_pages(b), 0);
	free(want);
	free(got);
}

static void test_fallback(void **state)
{
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);
	pfelf_registry_stats before, during;

	for (size_t i = 0; i < n; i++) {
		const char *path = tb_fixture(names[i]);
		pfelf_file *normal, *fallback;
		int fd;

		assert_ret(pfelf_open(path, 0, &normal), 0);
		assert_int_equal(pfelf_backend(normal), PFELF_BACKEND_MMAP);
		pfelf_registry_stats_get(&before);

		pfelf__test_fail_mmap(true);
		/* a different identity than normal's, so the registry cannot reuse a mapping */
		char *copy = tb_copy_tmp("fallback", path);
		int ret = pfelf_open(copy, 0, &fallback);

		pfelf__test_fail_mmap(false);
		assert_ret(ret, 0);
		assert_int_equal(pfelf_backend(fallback), PFELF_BACKEND_PREAD);
		assert_string_equal(pfelf_backend_name(pfelf_backend(fallback)), "pread");
		pfelf_registry_stats_get(&during);
		assert_int_equal(during.mappings, before.mappings);
		assert_int_equal(during.handles, before.handles);
		assert_memory_equal(pfelf_header(normal), pfelf_header(fallback),
		                    sizeof(pfelf_ehdr));
		same_sections(normal, fallback);
		same_segments(normal, fallback);
		same_data(normal, fallback, path);
		pfelf_close(fallback);

		/* pfelf_open_fd falls back the same way */
		pfelf__test_fail_mmap(true);
		fd = open(copy, O_RDONLY | O_CLOEXEC);
		assert_true(fd >= 0);
		ret = pfelf_open_fd(fd, 0, &fallback);
		pfelf__test_fail_mmap(false);
		assert_ret(ret, 0);
		close(fd);
		assert_int_equal(pfelf_backend(fallback), PFELF_BACKEND_PREAD);
		same_data(normal, fallback, path);
		pfelf_close(fallback);

		/* a lazy mmap handle whose mapping fails at its first zero-copy
		 * use goes on with pread, and says so */
		assert_ret(pfelf_open(copy, 0, &fallback), 0);
		assert_int_equal(pfelf_backend(fallback), PFELF_BACKEND_MMAP);
		same_sections(normal, fallback);
		pfelf__test_fail_mmap(true);
		same_data(normal, fallback, path);
		pfelf__test_fail_mmap(false);
		assert_int_equal(pfelf_backend(fallback), PFELF_BACKEND_PREAD);
		same_segments(normal, fallback);
		pfelf_close(fallback);
		pfelf_close(normal);
		unlink(copy);
		free(copy);
	}
}

/* With the hook off again, a default open maps as usual. */
static void test_hook_off(void **state)
{
	pfelf_file *f;

	pfelf__test_fail_mmap(true);
	pfelf__test_fail_mmap(false);
	assert_ret(pfelf_open(tb_fixture("exec"), 0, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_MMAP);
	pfelf_close(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fallback),
	        cmocka_unit_test(test_hook_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
