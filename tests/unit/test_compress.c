/*
 * Compressed sections against objcopy --decompress-debug-sections: for
 * objects compressed with gcc -gz=zlib, objcopy zstd and legacy zlib-gnu
 * (.zdebug), and an executable linked with compressed debug info, every
 * compressed section decompresses to the bytes the decompressed copy holds
 * (found with readelf -S, read with pread). Then sizes that do not match,
 * a buffer below the bound, and corrupt streams.
 */
#include "meta_helpers.h"
#include "readelf_parse.h"

#include "tables/tables_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The name of a section once decompressed: .zdebug_x is .debug_x. */
static void plain_name(const char *name, char *out, size_t len)
{
	if (strncmp(name, ".zdebug", 7) == 0)
		snprintf(out, len, ".debug%s", name + 7);
	else
		snprintf(out, len, "%s", name);
}

static void check_file(const char *name, uint32_t want_type, bool legacy, enum tb_backend b,
                       unsigned *sections, uint64_t *bytes)
{
	char path[4096], dec[4200];
	snprintf(path, sizeof(path), "%s", tb_meta_fixture(name));
	snprintf(dec, sizeof(dec), "%s.dec", path);
	struct re_file rf, rd;
	re_load(path, &rf);
	re_load(dec, &rd);
	struct tb_handle h;
	tb_open_ok(path, b, &h);
	unsigned compressed = 0;
	for (size_t i = 0; i < rf.nsec; i++) {
		const struct re_section *s = &rf.sec[i];
		pfelf_chdr ch;
		int ret = pfelf_section_chdr(h.f, s->index, &ch);
		bool is_comp =
		        strchr(s->flags, 'C') || (legacy && strncmp(s->name, ".zdebug", 7) == 0);
		if (!is_comp) {
			assert_ret(ret, -ENODATA);
			uint8_t x;
			assert_ret(pfelf_section_decompress(h.f, s->index, &x, 1), -ENODATA);
			continue;
		}
		assert_ret(ret, 0);
		assert_int_equal(ch.type, want_type);
		assert_int_equal(ch.legacy, legacy);
		char pname[512];
		plain_name(s->name, pname, sizeof(pname));
		long j = re_find_section(&rd, pname);
		if (j < 0)
			fail_msg("%s: no %s in the decompressed copy", name, pname);
		const struct re_section *d = &rd.sec[j];
		assert_int_equal(ch.size, d->size);
		uint8_t *want = malloc(d->size + 1), *got = malloc(d->size + 1);
		tb_pread_exact(dec, d->off, want, d->size);
		assert_ret(pfelf_section_decompress(h.f, s->index, got, d->size), d->size);
		assert_memory_equal(got, want, d->size);
		if (d->size > 0)
			assert_ret(pfelf_section_decompress(h.f, s->index, got, d->size - 1),
			           -E2BIG);
		free(want);
		free(got);
		compressed++;
		*bytes += d->size;
	}
	assert_true(compressed >= 3);
	*sections += compressed;
	tb_close(&h);
	re_file_free(&rf);
	re_file_free(&rd);
}

static void test_objcopy_oracle(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	unsigned sections = 0;
	uint64_t bytes = 0;
	check_file("zlib.o", PFELF_COMPRESS_ZLIB, false, b, &sections, &bytes);
	check_file("zstd.o", PFELF_COMPRESS_ZSTD, false, b, &sections, &bytes);
	check_file("zdebug.o", PFELF_COMPRESS_ZLIB, true, b, &sections, &bytes);
	check_file("zexec", PFELF_COMPRESS_ZLIB, false, b, &sections, &bytes);
	print_message("compress (%s): %u sections, %llu bytes equal to objcopy "
	              "--decompress-debug-sections\n",
	              tb_backend_label(b), sections, (unsigned long long)bytes);
	char name[16];
	assert_ret(pfelf_compress_type_name(PFELF_COMPRESS_ZSTD, name, sizeof(name)), 4);
	assert_string_equal(name, "ZSTD");
	assert_ret(pfelf_compress_type_name(7, name, sizeof(name)), 3);
	assert_string_equal(name, "0x7");
}

/* A copy of fixture name whose section sname is patched by fn. */
struct hostile {
	uint8_t *buf;
	size_t len;
	uint64_t off, size; /* the section's file range */
	uint32_t index;
};

static void load_hostile(const char *name, const char *sname, struct hostile *x)
{
	const char *path = tb_meta_fixture(name);
	struct re_file rf;
	re_load(path, &rf);
	long i = re_find_section(&rf, sname);
	assert_true(i >= 0);
	x->off = rf.sec[i].off;
	x->size = rf.sec[i].size;
	x->index = rf.sec[i].index;
	re_file_free(&rf);
	x->buf = tb_slurp(path, &x->len);
}

static ssize_t decompress_copy(const struct hostile *x, const uint8_t *bytes, enum tb_backend b,
                               size_t bound)
{
	struct tb_handle h;
	assert_ret(tb_open_bytes(bytes, x->len, b, &h), 0);
	uint8_t *out = malloc(bound + 1);
	ssize_t ret = pfelf_section_decompress(h.f, x->index, out, bound);
	free(out);
	tb_close(&h);
	return ret;
}

static void test_hostile(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *files[] = {"zlib.o", "zstd.o"};
	for (int k = 0; k < 2; k++) {
		struct hostile x;
		load_hostile(files[k], ".debug_info", &x);
		uint8_t *c = malloc(x.len);
		uint64_t size = tb_get(x.buf + x.off + 8, 8, false); /* Elf64_Chdr.ch_size */
		size_t bound = (size_t)size + 64;
		memcpy(c, x.buf, x.len);
		assert_ret(decompress_copy(&x, c, b, bound), size);
		/* ch_size one more and one less than the stream holds */
		tb_put(c + x.off + 8, 8, false, size + 1);
		assert_ret(decompress_copy(&x, c, b, bound), -EINVAL);
		tb_put(c + x.off + 8, 8, false, size - 1);
		assert_ret(decompress_copy(&x, c, b, bound), -EINVAL);
		/* a size over the caller's bound is refused before any work */
		tb_put(c + x.off + 8, 8, false, UINT64_MAX / 2);
		assert_ret(decompress_copy(&x, c, b, bound), -E2BIG);
		/* a damaged stream header, a cut stream */
		memcpy(c, x.buf, x.len);
		c[x.off + 24] ^= 0xff;
		c[x.off + 25] ^= 0xff;
		assert_ret(decompress_copy(&x, c, b, bound), -EINVAL);
		memcpy(c, x.buf, x.len);
		memset(c + x.off + 24 + (x.size - 24) / 2, 0xa5, (x.size - 24) / 2);
		ssize_t r = decompress_copy(&x, c, b, bound);
		assert_true(r == -EINVAL ||
		            (k == 1 && r == (ssize_t)size)); /* zstd has no checksum */
		/* a compression type pfelf does not know */
		memcpy(c, x.buf, x.len);
		tb_put(c + x.off, 4, false, 9);
		assert_ret(decompress_copy(&x, c, b, bound), -ENOTSUP);
		free(c);
		free(x.buf);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_objcopy_oracle),
	        TB_BACKEND_TESTS(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
