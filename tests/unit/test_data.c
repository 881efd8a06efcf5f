/*
 * Data access (pfelf/elf/data.c): pfelf_get_ref, pfelf_read, pfelf_view_get
 * (zero-copy and PFELF_VIEW_COPY), pfelf_view_release, pfelf_read_vaddr,
 * pfelf_advise and pfelf_drop_pages, on every backend. The oracle is a
 * plain pread of the fixture, and readelf for where sections and segments
 * lie.
 */
#include "backends.h"
#include "readelf_parse.h"
#include "synth.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* An open fixture with its bytes as read by pread. */
struct fx {
	const char *path;
	struct tb_handle h;
	uint8_t *bytes;
	size_t size;
};

static void fx_open(struct fx *x, const char *path, enum tb_backend b)
{
	x->path = path;
	x->bytes = tb_slurp(path, &x->size);
	tb_open_ok(path, b, &x->h);
	assert_int_equal(pfelf_size(x->h.f), x->size);
}

static void fx_close(struct fx *x)
{
	tb_close(&x->h);
	free(x->bytes);
}

/* The bytes a reference designates, through the kernel (pread or a pipe). */
static void ref_bytes(const pfelf_ref *ref, uint8_t *out)
{
	if (ref->ptr) {
		assert_int_equal(ref->fd, -1);
		assert_int_equal(tb_kernel_copy(ref->ptr, ref->len, out), ref->len);
	} else {
		size_t done = 0;

		assert_true(ref->fd >= 0);
		while (done < ref->len) {
			ssize_t n = pread(ref->fd, out + done, ref->len - done,
			                  (off_t)(ref->pos + done));

			assert_true(n > 0);
			done += (size_t)n;
		}
	}
}

/* get_ref, read and both kinds of view of [off, off+len) agree with pread. */
static void check_range(struct fx *x, uint64_t off, size_t len)
{
	uint8_t *buf = malloc(len + 1);
	const uint8_t *want = x->bytes + off;
	pfelf_ref ref;
	pfelf_view v;

	assert_non_null(buf);
	memset(&ref, 0xa5, sizeof(ref));
	assert_ret(pfelf_get_ref(x->h.f, off, len, &ref), 0);
	assert_int_equal(ref.len, len);
	switch (x->h.backend) {
	case TB_MMAP:
		assert_non_null(ref.ptr);
		break;
	case TB_PREAD:
		assert_null(ref.ptr);
		assert_int_equal(ref.pos, off);
		break;
	case TB_MEMORY:
		assert_ptr_equal(ref.ptr, (uint8_t *)x->h.buf + off);
		break;
	}
	ref_bytes(&ref, buf);
	assert_memory_equal(buf, want, len);

	memset(buf, 0xa5, len);
	assert_ret(pfelf_read(x->h.f, off, buf, len), (ssize_t)len);
	assert_memory_equal(buf, want, len);

	assert_ret(pfelf_view_get(x->h.f, off, len, 0, &v), 0);
	assert_int_equal(v.len, len);
	assert_int_equal(v.copied, x->h.backend == TB_PREAD);
	if (x->h.backend == TB_MEMORY)
		assert_ptr_equal(v.data, (uint8_t *)x->h.buf + off);
	if (x->h.backend == TB_MMAP)
		assert_ptr_equal(v.data, ref.ptr);
	assert_memory_equal(v.data, want, len);
	pfelf_view_release(&v);
	assert_null(v.data);
	pfelf_view_release(&v); /* twice is fine */

	assert_ret(pfelf_view_get(x->h.f, off, len, PFELF_VIEW_COPY, &v), 0);
	assert_true(v.copied);
	assert_int_equal(v.len, len);
	assert_memory_equal(v.data, want, len);
	pfelf_view_release(&v);
	free(buf);
}

/* Whole file, every section readelf lists inside the file, and random ranges. */
static void test_ranges(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);
	uint64_t seed = tb_seed();

	for (size_t i = 0; i < n; i++) {
		struct re_file rf;
		struct fx x;

		fx_open(&x, tb_fixture(names[i]), b);
		check_range(&x, 0, x.size);
		re_load(x.path, &rf);
		for (size_t k = 0; k < rf.nsec && k < 2000; k++) {
			const struct re_section *s = &rf.sec[k];

			if (strcmp(s->type, "NOBITS") != 0 && s->off <= x.size &&
			    s->size <= x.size - s->off)
				check_range(&x, s->off, s->size);
		}
		for (size_t k = 0; k < rf.nseg; k++) {
			const struct re_segment *s = &rf.seg[k];

			if (s->off <= x.size && s->filesz <= x.size - s->off)
				check_range(&x, s->off, s->filesz);
		}
		for (int k = 0; k < 200; k++) {
			uint64_t off = tb_rand(&seed) % (x.size + 1);
			uint64_t len = tb_rand(&seed) % (x.size - off + 1);

			check_range(&x, off, (size_t)(len % 65536));
		}
		check_range(&x, x.size - 1, 1);
		re_file_free(&rf);
		fx_close(&x);
	}
}

/* Size-0 ranges succeed, anywhere. */
static void test_size_zero(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	uint8_t buf[8];
	pfelf_ref ref;
	pfelf_view v;
	struct fx x;

	fx_open(&x, tb_fixture("exec"), b);
	const uint64_t offs[] = {0, 1, x.size / 2, x.size};

	for (size_t i = 0; i < sizeof(offs) / sizeof(offs[0]); i++) {
		assert_ret(pfelf_get_ref(x.h.f, offs[i], 0, &ref), 0);
		assert_int_equal(ref.len, 0);
		assert_ret(pfelf_read(x.h.f, offs[i], buf, 0), 0);
		assert_ret(pfelf_view_get(x.h.f, offs[i], 0, 0, &v), 0);
		assert_int_equal(v.len, 0);
		pfelf_view_release(&v);
		assert_ret(pfelf_view_get(x.h.f, offs[i], 0, PFELF_VIEW_COPY, &v), 0);
		assert_int_equal(v.len, 0);
		pfelf_view_release(&v);
	}
	/* "A size-0 range always succeeds" (pfelf.h, pfelf_get_ref) */
	assert_ret(pfelf_get_ref(x.h.f, x.size + 1, 0, &ref), 0);
	assert_ret(pfelf_get_ref(x.h.f, UINT64_MAX, 0, &ref), 0);
	assert_ret(pfelf_read_vaddr(x.h.f, pfelf_header(x.h.f)->entry, buf, 0), 0);
	fx_close(&x);
}

/* Ranges past the end, and ones whose end overflows, are -EINVAL everywhere. */
static void test_past_end(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	uint8_t *buf;
	pfelf_ref ref;
	pfelf_view v;
	struct fx x;

	fx_open(&x, tb_fixture("libshared.so"), b);
	buf = malloc(x.size + 2);
	assert_non_null(buf);
	const struct {
		uint64_t off;
		size_t len;
	} bad[] = {
	        {x.size - 1, 2},
	        {x.size, 1},
	        {x.size + 1, 1},
	        {x.size + 4096, 16},
	        {UINT64_MAX, 1},
	        {UINT64_MAX - 10, 100},
	        {UINT64_MAX - x.size / 2, x.size},
	        {1, SIZE_MAX},
	        {x.size / 2, SIZE_MAX - x.size / 2 + 2},
	        {0, x.size + 1},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint64_t off = bad[i].off;
		size_t len = bad[i].len;

		assert_ret(pfelf_get_ref(x.h.f, off, len, &ref), -EINVAL);
		/* a real buffer wherever one can exist, so only the range is wrong */
		assert_ret(pfelf_read(x.h.f, off, len <= x.size + 2 ? buf : NULL, len), -EINVAL);
		assert_ret(pfelf_view_get(x.h.f, off, len, 0, &v), -EINVAL);
		assert_ret(pfelf_view_get(x.h.f, off, len, PFELF_VIEW_COPY, &v), -EINVAL);
	}
	assert_ret(pfelf_advise(x.h.f, x.size + 1, 0, PFELF_ADVICE_NORMAL), -EINVAL);
	assert_ret(pfelf_advise(x.h.f, x.size + 1, 1, PFELF_ADVICE_WILLNEED), -EINVAL);
	assert_ret(pfelf_advise(x.h.f, UINT64_MAX, 1, PFELF_ADVICE_DONTNEED), -EINVAL);
	assert_ret(pfelf_advise(x.h.f, 0, 0, (enum pfelf_advice)99), -EINVAL);
	free(buf);
	fx_close(&x);
}

static void check_view_survives(struct fx *x, uint64_t off, size_t len, unsigned flags)
{
	pfelf_view v;

	assert_ret(pfelf_view_get(x->h.f, off, len, flags, &v), 0);
	tb_close(&x->h);
	assert_memory_equal(v.data, x->bytes + off, len);
	pfelf_view_release(&v);
}

/* A view outlives pfelf_close of its handle. */
static void test_view_outlives_close(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_fixture("pie");
	size_t len;
	uint8_t *bytes = tb_slurp(path, &len);
	pfelf_file *f;
	pfelf_view v1, v2;
	struct fx x;

	for (int copy = 0; copy < 2; copy++) {
		if (b == TB_MEMORY) {
			/* the memory backend: the buffer stays ours, the handle goes */
			assert_ret(pfelf_open_memory(bytes, len, 0, &f), 0);
			assert_ret(
			        pfelf_view_get(f, 100, len - 200, copy ? PFELF_VIEW_COPY : 0, &v1),
			        0);
			assert_ret(pfelf_view_get(f, 0, len, 0, &v2), 0);
			pfelf_close(f);
			assert_memory_equal(v1.data, bytes + 100, len - 200);
			assert_memory_equal(v2.data, bytes, len);
			pfelf_view_release(&v1);
			pfelf_view_release(&v2);
			continue;
		}
		fx_open(&x, path, b);
		check_view_survives(&x, 100, x.size - 200, copy ? PFELF_VIEW_COPY : 0);
		free(x.bytes);
	}
	free(bytes);
}

/* Views larger than PFELF_VIEW_MAX_COPY: -E2BIG when they would be copied. */
static void test_view_too_big(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	size_t elen, big = PFELF_VIEW_MAX_COPY + 8192;
	uint8_t *elf = tb_slurp(tb_fixture("exec"), &elen);
	char *path = tb_write_tmp("big", elf, elen);
	struct tb_handle h;
	pfelf_view v;
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)big), 0); /* sparse: zeros after the ELF */
	close(fd);
	tb_open_ok(path, b, &h);
	assert_ret(pfelf_view_get(h.f, 0, PFELF_VIEW_MAX_COPY + 1, PFELF_VIEW_COPY, &v), -E2BIG);
	assert_ret(pfelf_view_get(h.f, 1, PFELF_VIEW_MAX_COPY + 1, PFELF_VIEW_COPY, &v), -E2BIG);
	if (b == TB_PREAD) {
		assert_ret(pfelf_view_get(h.f, 0, big, 0, &v), -E2BIG);
	} else {
		assert_ret(pfelf_view_get(h.f, 0, big, 0, &v), 0);
		assert_false(v.copied);
		assert_int_equal(v.len, big);
		assert_memory_equal(v.data, elf, elen);
		pfelf_view_release(&v);
	}
	/* exactly the limit is fine */
	assert_ret(pfelf_view_get(h.f, 4096, PFELF_VIEW_MAX_COPY, PFELF_VIEW_COPY, &v), 0);
	assert_true(v.copied);
	assert_memory_equal(v.data, elf + 4096, elen - 4096);
	pfelf_view_release(&v);
	tb_close(&h);
	unlink(path);
	free(path);
	free(elf);
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* read_vaddr over each PT_LOAD readelf lists: file bytes, then zeros; gaps fault. */
static void check_vaddr_file(const char *name, enum tb_backend b)
{
	struct re_file rf;
	struct fx x;
	uint8_t small[64];
	uint64_t lo = UINT64_MAX, hi = 0;
	int loads = 0;

	fx_open(&x, tb_fixture(name), b);
	re_load(x.path, &rf);
	for (size_t i = 0; i < rf.nseg; i++) {
		const struct re_segment *s = &rf.seg[i];
		uint8_t *buf;

		if (strcmp(s->type, "LOAD") != 0)
			continue;
		loads++;
		lo = s->vaddr < lo ? s->vaddr : lo;
		hi = s->vaddr + s->memsz > hi ? s->vaddr + s->memsz : hi;
		buf = malloc(s->memsz + 1);
		assert_non_null(buf);
		assert_ret(pfelf_read_vaddr(x.h.f, s->vaddr, buf, s->memsz), (ssize_t)s->memsz);
		assert_memory_equal(buf, x.bytes + s->off, s->filesz);
		assert_true(all_zero(buf + s->filesz, s->memsz - s->filesz));
		if (s->memsz - s->filesz >= 32 && s->filesz >= 32) {
			/* straddling the end of the file bytes */
			assert_ret(pfelf_read_vaddr(x.h.f, s->vaddr + s->filesz - 32, small, 64),
			           64);
			assert_memory_equal(small, x.bytes + s->off + s->filesz - 32, 32);
			assert_true(all_zero(small + 32, 32));
		}
		free(buf);
		/* past the end of this segment, where no other LOAD starts */
		bool next_adjacent = false;

		for (size_t k = 0; k < rf.nseg; k++)
			if (!strcmp(rf.seg[k].type, "LOAD") &&
			    rf.seg[k].vaddr <= s->vaddr + s->memsz &&
			    rf.seg[k].vaddr + rf.seg[k].memsz > s->vaddr + s->memsz)
				next_adjacent = true;
		if (!next_adjacent) {
			assert_ret(pfelf_read_vaddr(x.h.f, s->vaddr + s->memsz, small, 1), -EFAULT);
			assert_ret(pfelf_read_vaddr(x.h.f, s->vaddr + s->memsz - 1, small, 2),
			           -EFAULT);
		}
	}
	if (loads == 0) {
		assert_ret(pfelf_read_vaddr(x.h.f, 0, small, 1), -EFAULT);
	} else {
		if (lo > 0)
			assert_ret(pfelf_read_vaddr(x.h.f, lo - 1, small, 1), -EFAULT);
		assert_ret(pfelf_read_vaddr(x.h.f, hi, small, 1), -EFAULT);
		assert_ret(pfelf_read_vaddr(x.h.f, UINT64_MAX - 1, small, 10), -EFAULT);
	}
	re_file_free(&rf);
	fx_close(&x);
}

static void test_read_vaddr(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	static const char *const files[] = {
	        "exec",   "pie",   "libshared.so", "many.o", "s390x-libc.so.6", "armhf-libc.so.6",
	        "noshdr", "phxnum"};

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		check_vaddr_file(files[i], b);
	if (tb_fixture_kind("core"))
		check_vaddr_file("core", b);
}

/*
 * Adjacent PT_LOADs (a read spans them, zeros from the first one's memsz
 * tail included) and a PT_LOAD whose bytes are outside the file (-EINVAL),
 * in a file written here, ELF64 little endian and ELF32 big endian.
 */
static void test_read_vaddr_synthetic(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const uint64_t P = TB_SYNTH_PAYLOAD;
	const struct tb_synth_seg segs[] = {
	        {PT_LOAD, PF_R, P + 0x000, 0x10000, 0x100, 0x180, 0x10},
	        {PT_LOAD, PF_R | PF_W, P + 0x200, 0x10180, 0x100, 0x100, 0x10},
	        {PT_LOAD, PF_R, P + 0x100000, 0x20000, 0x100, 0x100, 0x10},
	        {PT_NOTE, PF_R, P + 0x300, 0x30000, 0x10, 0x10, 4},
	};
	const struct tb_synth_sec secs[] = {{".data", SHT_PROGBITS, SHF_ALLOC, 0x10000, P, 0x400}};

	for (int variant = 0; variant < 2; variant++) {
		struct tb_synth s = {variant ? ELFCLASS32 : ELFCLASS64,
		                     variant == 1,
		                     variant ? EM_S390 : EM_X86_64,
		                     ET_EXEC,
		                     0,
		                     0x400,
		                     1,
		                     secs,
		                     4,
		                     segs};
		size_t len;
		uint8_t *elf = tb_synth_build(&s, &len), got[0x300], want[0x300];
		struct tb_handle h;

		assert_ret(tb_open_bytes(elf, len, b, &h), 0);
		/* 0x10080..0x10280: 0x80 file bytes, 0x80 zeros, then 0x100 of the next LOAD */
		memcpy(want, elf + P + 0x80, 0x80);
		memset(want + 0x80, 0, 0x80);
		memcpy(want + 0x100, elf + P + 0x200, 0x100);
		assert_ret(pfelf_read_vaddr(h.f, 0x10080, got, 0x200), 0x200);
		assert_memory_equal(got, want, 0x200);
		assert_ret(pfelf_read_vaddr(h.f, 0x10000, got, 0x280), 0x280);
		assert_memory_equal(got, elf + P, 0x100);
		assert_memory_equal(got + 0x100, want + 0x80, 0x180);
		/* one byte past the second LOAD */
		assert_ret(pfelf_read_vaddr(h.f, 0x10200, got, 0x100), -EFAULT);
		/* a PT_NOTE is not a LOAD */
		assert_ret(pfelf_read_vaddr(h.f, 0x30000, got, 1), -EFAULT);
		/* the third LOAD's bytes are outside the file */
		assert_ret(pfelf_read_vaddr(h.f, 0x20000, got, 16), -EINVAL);
		tb_close(&h);
		free(elf);
	}
}

/* Resident size of the mapping that holds ptr, from /proc/self/smaps, in kB. */
static long rss_kb(const void *ptr)
{
	FILE *fp = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in = false;
	long kb = -1;

	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp)) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = (uintptr_t)ptr >= lo && (uintptr_t)ptr < hi;
			continue;
		}
		if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(fp);
	return kb;
}

static void test_advise(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const enum pfelf_advice adv[] = {PFELF_ADVICE_NORMAL, PFELF_ADVICE_SEQUENTIAL,
	                                 PFELF_ADVICE_RANDOM, PFELF_ADVICE_WILLNEED,
	                                 PFELF_ADVICE_DONTNEED};
	uint8_t *buf;
	struct fx x;

	fx_open(&x, tb_fixture("s390x-libc.so.6"), b);
	buf = malloc(x.size);
	assert_non_null(buf);
	for (size_t i = 0; i < sizeof(adv) / sizeof(adv[0]); i++) {
		assert_ret(pfelf_advise(x.h.f, 0, 0, adv[i]), 0);
		assert_ret(pfelf_advise(x.h.f, 0, x.size, adv[i]), 0);
		assert_ret(pfelf_advise(x.h.f, 4097, 10000, adv[i]), 0);
		assert_ret(pfelf_advise(x.h.f, x.size - 1, 1, adv[i]), 0);
		assert_ret(pfelf_advise(x.h.f, x.size, 0, adv[i]), 0);
		assert_ret(pfelf_read(x.h.f, 0, buf, x.size), (ssize_t)x.size);
		assert_memory_equal(buf, x.bytes, x.size);
	}
	assert_ret(pfelf_drop_pages(x.h.f), 0);
	assert_ret(pfelf_read(x.h.f, 0, buf, x.size), (ssize_t)x.size);
	assert_memory_equal(buf, x.bytes, x.size);

	if (b == TB_MMAP) {
		/* the pages are really dropped from this process (RssFile) */
		pfelf_ref ref;
		volatile uint8_t sum = 0;
		long before, after;

		assert_ret(pfelf_get_ref(x.h.f, 0, x.size, &ref), 0);
		for (size_t i = 0; i < x.size; i += 4096)
			sum += ((const uint8_t *)ref.ptr)[i];
		before = rss_kb(ref.ptr);
		assert_true(before >= (long)(x.size / 1024) - 4);
		assert_ret(pfelf_drop_pages(x.h.f), 0);
		after = rss_kb(ref.ptr);
		if (after != 0)
			fail_msg("Rss of the mapping: %ld kB before drop_pages, %ld kB after",
			         before, after);
		assert_memory_equal(ref.ptr, x.bytes, x.size);
		(void)sum;
	}
	free(buf);
	fx_close(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_ranges),
	        TB_BACKEND_TESTS(test_size_zero),
	        TB_BACKEND_TESTS(test_past_end),
	        TB_BACKEND_TESTS(test_view_outlives_close),
	        TB_BACKEND_TESTS(test_view_too_big),
	        TB_BACKEND_TESTS(test_read_vaddr),
	        TB_BACKEND_TESTS(test_read_vaddr_synthetic),
	        TB_BACKEND_TESTS(test_advise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
