/*
 * Go binaries: the version against `go version FILE` for a program built
 * at test time (with and without section headers), .gopclntab against
 * readelf -S and found again by scanning when there are no section
 * headers; the pre-1.18 pointer format and the 1.18+ inline format in
 * files written here byte by byte; files that are not Go.
 */
#include "meta_helpers.h"
#include "synth.h"

#include "tables/tables_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The Go fixtures are left out only when the machine has no go tool. */
static void need_go(void)
{
	if (!tb_meta_has("hello"))
		skip();
}

/* "FILE: go1.19.8" from the go tool, without "FILE: ". */
static char *go_version_of(const char *path)
{
	char cmd[4096];
	char *q = tb_shell_quote(path);
	snprintf(cmd, sizeof(cmd), "go version %s", q);
	free(q);
	size_t n;
	char *out = tb_run(cmd, &n);
	char *v = strrchr(out, ' ');
	assert_non_null(v);
	char *ver = strdup(v + 1);
	ver[strcspn(ver, "\n")] = 0;
	free(out);
	return ver;
}

static void test_go_version(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	need_go();
	const char *files[] = {"hello", "hello-noshdr"};
	for (int i = 0; i < 2; i++) {
		const char *path = tb_meta_path(files[i]);
		char *want = go_version_of(path);
		struct tb_handle h;
		char ver[64], id[256];
		tb_open_ok(path, b, &h);
		assert_ret(pfelf_is_go(h.f), 1);
		assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), strlen(want));
		assert_string_equal(ver, want);
		assert_true(pfelf_go_build_id(h.f, id, sizeof(id)) > 20);
		print_message("%s: %s (go version agrees), build id %.20s...\n", files[i], ver, id);
		assert_ret(pfelf_go_version(h.f, ver, 4), -ENOSPC);
		free(want);
		tb_close(&h);
	}
}

static void test_pclntab(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	need_go();
	uint64_t off, size;
	tb_section_range(tb_meta_path("hello"), ".gopclntab", &off, &size);
	struct tb_handle h;
	uint64_t o, s;
	tb_open_ok(tb_meta_path("hello"), b, &h);
	assert_ret(pfelf_go_pclntab(h.f, &o, &s), 0);
	assert_int_equal(o, off);
	assert_int_equal(s, size);
	tb_close(&h);
	tb_open_ok(tb_meta_path("hello-noshdr"), b, &h);
	assert_ret(pfelf_section_count(h.f), 0);
	assert_ret(pfelf_go_pclntab(h.f, &o, &s), 0);
	assert_int_equal(o, off); /* found by scanning the read-only PT_LOAD */
	assert_true(s >= size);
	tb_close(&h);
}

static void test_not_go(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *files[] = {tb_fixture("exec"), tb_fixture("libshared.so"), tb_fixture("many.o"),
	                       tb_fixture("noshdr"), tb_fixture("s390x-libc.so.6")};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct tb_handle h;
		char ver[64];
		uint64_t o, s;
		tb_open_ok(files[i], b, &h);
		assert_ret(pfelf_is_go(h.f), 0);
		assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), -ENOENT);
		assert_ret(pfelf_go_build_id(h.f, ver, sizeof(ver)), -ENOENT);
		int ret = pfelf_go_pclntab(h.f, &o, &s);
		assert_true(ret == -ENOENT);
		tb_close(&h);
	}
}

/* ------------------------------------------------ synthetic build info */

#define BASE 0x10000u

/* A file with one writable PT_LOAD at BASE whose bytes the caller fills. */
static uint8_t *synth_go(bool big_endian, size_t *len, uint8_t **seg)
{
	struct tb_synth_seg load = {1 /* PT_LOAD */, 6 /* RW */, TB_SYNTH_PAYLOAD, BASE, 0x200,
	                            0x200,           0x1000};
	struct tb_synth s = {.elfclass = 2,
	                     .big_endian = big_endian,
	                     .machine = 62,
	                     .type = 2,
	                     .payload = 0x200,
	                     .nseg = 1,
	                     .seg = &load};
	uint8_t *buf = tb_synth_build(&s, len);
	assert_non_null(buf);
	memset(buf + TB_SYNTH_PAYLOAD, 0, 0x200);
	*seg = buf + TB_SYNTH_PAYLOAD;
	memcpy(*seg, "\xff Go buildinf:", 14);
	return buf;
}

static void test_pointer_format(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	for (int be = 0; be < 2; be++) {
		size_t len;
		uint8_t *seg, *buf = synth_go(be, &len, &seg);
		seg[14] = 8;  /* pointer size */
		seg[15] = be; /* byte order, no inline flag: the pre-1.18 format */
		tb_put(seg + 16, 8, be, BASE + 0x40); /* -> version string header */
		tb_put(seg + 24, 8, be, BASE + 0x50); /* -> module info header */
		tb_put(seg + 0x40, 8, be, BASE + 0x80);
		tb_put(seg + 0x48, 8, be, 8);
		memcpy(seg + 0x80, "go1.12.5", 8);
		struct tb_handle h;
		char ver[64];
		assert_ret(tb_open_bytes(buf, len, b, &h), 0);
		assert_ret(pfelf_is_go(h.f), 1);
		assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), 8);
		assert_string_equal(ver, "go1.12.5");
		tb_close(&h);
		/* a string header that points outside every PT_LOAD */
		tb_put(seg + 0x40, 8, be, 0x7000000);
		assert_ret(tb_open_bytes(buf, len, b, &h), 0);
		assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), -EINVAL);
		tb_close(&h);
		free(buf);
	}
}

static void test_inline_format(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	size_t len;
	uint8_t *seg, *buf = synth_go(false, &len, &seg);
	seg[14] = 8;
	seg[15] = 2; /* inline strings */
	seg[32] = 9;
	memcpy(seg + 33, "go1.18.10", 9);
	struct tb_handle h;
	char ver[64];
	assert_ret(tb_open_bytes(buf, len, b, &h), 0);
	assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), 9);
	assert_string_equal(ver, "go1.18.10");
	tb_close(&h);
	/* a length that runs past the segment, an endless varint */
	seg[32] = 0xff;
	seg[33] = 0x7f;
	assert_ret(tb_open_bytes(buf, len, b, &h), 0);
	assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), -EINVAL);
	tb_close(&h);
	memset(seg + 32, 0xff, 0x200 - 32);
	assert_ret(tb_open_bytes(buf, len, b, &h), 0);
	assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), -EINVAL);
	tb_close(&h);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_go_version),    TB_BACKEND_TESTS(test_pclntab),
	        TB_BACKEND_TESTS(test_not_go),        TB_BACKEND_TESTS(test_pointer_format),
	        TB_BACKEND_TESTS(test_inline_format),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
