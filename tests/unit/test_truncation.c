/*
 * Truncation: a copy of a fixture is opened (mmap and pread backends; the
 * memory backend has no file), truncated to 100 bytes or to 0, and then
 * every accessor is called. The process must survive (no SIGBUS) and each
 * call return correct, still-present data or an error (-EIO, -EFAULT,
 * -EINVAL); tables loaded before the truncation stay usable; a pointer
 * handed out before it gives EFAULT when the kernel reads through it.
 */
#include "backends.h"
#include "readelf_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static enum tb_backend file_backends[2] = {TB_MMAP, TB_PREAD};

/* clang-format off */
#define FILE_BACKEND_TESTS(fn)                                                 \
	{#fn "/mmap", fn, NULL, NULL, &file_backends[0]},                      \
	{#fn "/pread", fn, NULL, NULL, &file_backends[1]}
/* clang-format on */

static bool allowed_err(long long ret)
{
	return ret == -EIO || ret == -EFAULT || ret == -EINVAL;
}

/* ret is ok (the correct result) or an allowed error; returns true for ok. */
static bool ok_or_err(long long ret, long long ok, const char *what)
{
	if (ret == ok)
		return true;
	if (!allowed_err(ret))
		fail_msg("after truncation, %s = %lld (%s): neither %lld nor -EIO/-EFAULT/-EINVAL",
		         what, ret, tb_errname(ret), ok);
	return false;
}

static uint64_t page_round(uint64_t n)
{
	uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

struct trunc {
	enum tb_backend b;
	char *path;
	uint8_t *orig;
	size_t size; /* before */
	size_t cut;  /* after */
	struct re_file rf;
};

/*
 * Whether a table of the original file at [off, off+len) lies partly in the
 * last page of the cut file: through a mapping the kernel shows the bytes
 * past the cut in that page as zeros, and nothing in the mapping tells a
 * shrunk file from one that holds zeros (the mmap backend keeps no
 * descriptor to fstat). A table loaded from there after the cut may decode
 * zeros; it must not crash, and is not compared.
 */
static bool in_zero_tail(const struct trunc *t, uint64_t off, uint64_t len)
{
	return t->b == TB_MMAP && off + len > t->cut && off < page_round(t->cut);
}

/* Tables of a handle (loaded before or after the cut) against readelf's. */
static void check_tables(struct trunc *t, pfelf_file *f, bool must_work)
{
	/* exec is ELF64 little endian: e_phoff 32, e_shoff 40, sizes and counts at 54..61 */
	bool ph_tail = !must_work && in_zero_tail(t, tb_get(t->orig + 32, 8, false),
	                                          tb_get(t->orig + 54, 2, false) *
	                                                  tb_get(t->orig + 56, 2, false));
	bool sh_tail = !must_work && in_zero_tail(t, tb_get(t->orig + 40, 8, false),
	                                          tb_get(t->orig + 58, 2, false) *
	                                                  tb_get(t->orig + 60, 2, false));
	int ns = pfelf_section_count(f), np = pfelf_segment_count(f);
	const pfelf_shdr *sh;
	const pfelf_phdr *ph;
	const char *name;

	if (must_work) {
		assert_ret(ns, t->rf.nsec);
		assert_ret(np, t->rf.nseg);
	}
	if (ok_or_err(ns, t->rf.nsec, "pfelf_section_count")) {
		for (size_t i = 0; i < t->rf.nsec; i++) {
			const struct re_section *r = &t->rf.sec[i];
			int ret = pfelf_section(f, r->index, &sh);

			if (sh_tail) {
				(void)pfelf_section_name(f, r->index, &name);
				continue;
			}
			if (ok_or_err(ret, 0, "pfelf_section")) {
				assert_int_equal(sh->offset, r->off);
				assert_int_equal(sh->size, r->size);
			} else if (must_work) {
				fail_msg("pfelf_section %u after truncation: %d", r->index, ret);
			}
			ret = pfelf_section_name(f, r->index, &name);
			if (ok_or_err(ret, 0, "pfelf_section_name"))
				assert_string_equal(name, r->name);
			else if (must_work)
				fail_msg("pfelf_section_name %u after truncation: %d", r->index,
				         ret);
		}
	} else {
		assert_true(allowed_err(pfelf_section(f, 1, &sh)));
		assert_true(allowed_err(pfelf_section_name(f, 1, &name)));
		assert_true(allowed_err(pfelf_section_by_name(f, ".text", &sh)));
	}
	if (ok_or_err(pfelf_section_by_name(f, ".text", &sh), 0, "pfelf_section_by_name") &&
	    !sh_tail)
		assert_int_equal(sh->index, re_find_section(&t->rf, ".text"));
	if (ph_tail) {
		for (uint32_t i = 0; np > 0 && i < (uint32_t)np; i++)
			assert_ret(pfelf_segment(f, i, &ph), 0);
	} else if (ok_or_err(np, t->rf.nseg, "pfelf_segment_count")) {
		for (size_t i = 0; i < t->rf.nseg; i++) {
			if (ok_or_err(pfelf_segment(f, (uint32_t)i, &ph), 0, "pfelf_segment")) {
				assert_int_equal(ph->vaddr, t->rf.seg[i].vaddr);
				assert_int_equal(ph->filesz, t->rf.seg[i].filesz);
			}
		}
	} else {
		assert_true(allowed_err(pfelf_segment(f, 0, &ph)));
	}
}

/* pfelf_read of [off, off+len): correct bytes or an error; an error where they are gone. */
static void check_read(struct trunc *t, pfelf_file *f, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len ? len : 1);
	ssize_t n;

	assert_non_null(buf);
	n = pfelf_read(f, off, buf, len);
	if (ok_or_err(n, (ssize_t)len, "pfelf_read")) {
		if (off + len <= t->cut || t->b == TB_PREAD) {
			assert_memory_equal(buf, t->orig + off, len);
		} else {
			/*
			 * mmap: the kernel shows the rest of the last page of a
			 * shrunk file as zeros, and nothing in a mapping says the
			 * file shrank: never anything else than those zeros.
			 */
			if (off + len > page_round(t->cut))
				fail_msg("pfelf_read [%llu, +%zu) of a file cut to %zu succeeded",
				         (unsigned long long)off, len, t->cut);
			for (size_t i = 0; i < len; i++)
				if (off + i >= t->cut)
					assert_int_equal(buf[i], 0);
				else
					assert_int_equal(buf[i], t->orig[off + i]);
		}
	} else if (off + len <= t->cut) {
		fail_msg("pfelf_read [%llu, +%zu) failed though the bytes are there",
		         (unsigned long long)off, len);
	} else {
		assert_ret(n, -EIO);
	}
	free(buf);
}

/* Every data accessor on f after the cut. */
static void check_data(struct trunc *t, pfelf_file *f)
{
	const enum pfelf_advice adv[] = {PFELF_ADVICE_NORMAL, PFELF_ADVICE_SEQUENTIAL,
	                                 PFELF_ADVICE_RANDOM, PFELF_ADVICE_WILLNEED,
	                                 PFELF_ADVICE_DONTNEED};
	uint8_t *copy = malloc(t->size);
	const pfelf_phdr *ph;
	pfelf_ref ref;
	pfelf_view v;
	uint8_t buf[64];
	size_t got;
	int ret;

	assert_non_null(copy);
	check_read(t, f, 0, 64);
	check_read(t, f, 0, t->size);
	check_read(t, f, 50, 100);
	check_read(t, f, 8192, 100);
	check_read(t, f, t->size - 10, 10);
	check_read(t, f, 0, 0);

	/* references: the range is checked against the size at open; reading
	 * through them is the kernel's business, and it must not SIGBUS */
	assert_ret(pfelf_get_ref(f, 0, t->size, &ref), 0);
	if (ref.ptr) {
		got = tb_kernel_copy(ref.ptr, t->size, copy);
		assert_true(got <= page_round(t->cut));
	} else {
		ssize_t n = pread(ref.fd, copy, t->size, (off_t)ref.pos);

		assert_int_equal(n, t->cut);
		got = (size_t)n;
	}
	assert_memory_equal(copy, t->orig, got < t->cut ? got : t->cut);

	/* views */
	for (int fl = 0; fl < 2; fl++) {
		unsigned flags = fl ? PFELF_VIEW_COPY : 0;

		ret = pfelf_view_get(f, 0, 64, flags, &v);
		if (ok_or_err(ret, 0, "pfelf_view_get(0, 64)")) {
			got = tb_kernel_copy(v.data, 64, buf);
			assert_int_equal(got, 64);
			assert_memory_equal(buf, t->orig, t->cut < 64 ? t->cut : 64);
			pfelf_view_release(&v);
		} else if (t->cut >= 64) {
			fail_msg("pfelf_view_get(0, 64) failed on bytes still there: %d", ret);
		}
		ret = pfelf_view_get(f, 0, t->size, flags, &v);
		assert_ret(ret, -EIO); /* its last byte is gone */
		ret = pfelf_view_get(f, 8192, 100, flags, &v);
		assert_ret(ret, -EIO);
	}

	/* by virtual address: the first LOAD maps the start of exec */
	for (size_t i = 0; i < t->rf.nseg; i++) {
		const struct re_segment *r = &t->rf.seg[i];
		ssize_t n;

		if (strcmp(r->type, "LOAD") != 0 || r->filesz < 64)
			continue;
		n = pfelf_read_vaddr(f, r->vaddr, buf, 64);
		if (ok_or_err(n, 64, "pfelf_read_vaddr") && r->off + 64 <= t->cut)
			assert_memory_equal(buf, t->orig + r->off, 64);
		else if (n == 64)
			assert_true(r->off + 64 <= page_round(t->cut) && t->b == TB_MMAP);
	}
	if (pfelf_segment_count(f) > 0 && pfelf_segment(f, 0, &ph) == 0)
		assert_ret(pfelf_read_vaddr(f, 0x10, buf, 1), -EFAULT);

	for (size_t i = 0; i < sizeof(adv) / sizeof(adv[0]); i++) {
		ret = pfelf_advise(f, 0, 0, adv[i]);
		if (ret != 0 && ret != -EINVAL)
			fail_msg("pfelf_advise %d after truncation: %d", adv[i], ret);
		ret = pfelf_advise(f, 4096, 8192, adv[i]);
		if (ret != 0 && ret != -EINVAL)
			fail_msg("pfelf_advise %d after truncation: %d", adv[i], ret);
	}
	ret = pfelf_drop_pages(f);
	if (ret != 0 && ret != -EINVAL)
		fail_msg("pfelf_drop_pages after truncation: %d", ret);
	check_read(t, f, 0, 64);
	free(copy);
}

static void truncate_to(struct trunc *t, size_t cut)
{
	assert_int_equal(truncate(t->path, (off_t)cut), 0);
	t->cut = cut;
}

static void run(enum tb_backend b, size_t cut)
{
	struct trunc t = {.b = b};
	struct tb_handle fresh, loaded;
	pfelf_view before, before_copy;
	const pfelf_shdr *sh;

	t.path = tb_copy_tmp("trunc", tb_fixture("exec"));
	t.orig = tb_slurp(t.path, &t.size);
	re_load(t.path, &t.rf);
	assert_true(t.size > 16384);

	tb_open_ok(t.path, b, &fresh);
	tb_open_ok(t.path, b, &loaded);
	check_tables(&t, loaded.f, true); /* loads both tables and the names */
	assert_ret(pfelf_section_by_name(loaded.f, ".text", &sh), 0);
	assert_ret(pfelf_view_get(loaded.f, 4096, 4096, 0, &before), 0);
	assert_ret(pfelf_view_get(loaded.f, 4096, 4096, PFELF_VIEW_COPY, &before_copy), 0);

	truncate_to(&t, cut);

	check_tables(&t, loaded.f, true);
	check_tables(&t, fresh.f, false);
	check_data(&t, loaded.f);
	check_data(&t, fresh.f);
	/* a copied view is truncation-proof; a zero-copy one is released untouched */
	assert_memory_equal(before_copy.data, t.orig + 4096, 4096);
	pfelf_view_release(&before_copy);
	pfelf_view_release(&before);
	tb_close(&fresh);
	tb_close(&loaded);

	/* and opening the shrunk file now: no crash, a clear answer */
	if (tb_open(t.path, b, &fresh) == 0) {
		check_tables(&t, fresh.f, false);
		tb_close(&fresh);
	}
	unlink(t.path);
	free(t.path);
	free(t.orig);
	re_file_free(&t.rf);
}

static void test_truncate_100(void **state)
{
	run(*(enum tb_backend *)*state, 100);
}

static void test_truncate_0(void **state)
{
	run(*(enum tb_backend *)*state, 0);
}

static void test_truncate_mid(void **state)
{
	run(*(enum tb_backend *)*state, 6000);
}

/*
 * The kernel-mediated path: a pointer from pfelf_get_ref, never
 * dereferenced here, handed to write(2) after the truncation: EFAULT for a
 * page that is gone, the bytes for one that is still there.
 */
static void test_ref_efault(void **state)
{
	char *path = tb_copy_tmp("efault", tb_fixture("exec"));
	size_t size;
	uint8_t *orig = tb_slurp(path, &size), buf[64];
	pfelf_file *f;
	pfelf_ref ref;
	int p[2];

	assert_ret(pfelf_open(path, 0, &f), 0);
	assert_ret(pfelf_get_ref(f, 0, size, &ref), 0);
	assert_non_null(ref.ptr);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(truncate(path, 100), 0);

	errno = 0;
	assert_int_equal(write(p[1], (const uint8_t *)ref.ptr + 8192, 4096), -1);
	assert_int_equal(errno, EFAULT);
	assert_int_equal(write(p[1], ref.ptr, 64), 64);
	assert_int_equal(read(p[0], buf, 64), 64);
	assert_memory_equal(buf, orig, 64);

	assert_int_equal(truncate(path, 0), 0);
	errno = 0;
	assert_int_equal(write(p[1], ref.ptr, 64), -1);
	assert_int_equal(errno, EFAULT);

	close(p[0]);
	close(p[1]);
	pfelf_close(f);
	unlink(path);
	free(path);
	free(orig);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        FILE_BACKEND_TESTS(test_truncate_100),
	        FILE_BACKEND_TESTS(test_truncate_0),
	        FILE_BACKEND_TESTS(test_truncate_mid),
	        cmocka_unit_test(test_ref_efault),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
