/*
 * MiniDebugInfo (.gnu_debugdata, pfelf_gnu_debugdata and the xz path of
 * pfelf_section_chdr / pfelf_section_decompress) on every backend.
 *
 * Oracles: readelf -SW (the section's index and range), `xz -dc` of the
 * section's bytes (the inner file, hence its size and every byte), and nm
 * of the program before it was stripped (the static functions the inner
 * file names, at those addresses), for x86-64 and s390x (big endian). Then
 * the hostile streams of tests/fixtures/minidebug/mkminidebug.py: each
 * refused where it must be (the index read, or the decoding), within
 * bounded memory and time.
 */
#include "backends.h"
#include "readelf_parse.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *mini_path(const char *name)
{
	const char *dir = getenv("ELFFS_MINIDEBUG_FIXTURES");
	if (!dir)
		fail_msg("ELFFS_MINIDEBUG_FIXTURES is not set");
	return tb_keep_path(dir, name);
}

/* xz -dc of file name: the bytes and their length. */
static char *xz_dc(const char *name, size_t *len)
{
	char *q = tb_shell_quote(mini_path(name)), cmd[8192];
	snprintf(cmd, sizeof(cmd), "xz -dc %s", q);
	free(q);
	return tb_run(cmd, len);
}

/* The address nm gives symbol sym of file name (0 when none). */
static uint64_t nm_value(const char *name, const char *nm, const char *sym)
{
	char *q = tb_shell_quote(mini_path(name)), cmd[8192];
	snprintf(cmd, sizeof(cmd), "%s --defined-only %s | awk '$3 == \"%s\" { print $1 }'", nm, q,
	         sym);
	free(q);
	size_t len;
	char *out = tb_run(cmd, &len);
	uint64_t v = strtoull(out, NULL, 16);
	free(out);
	return v;
}

/* The inner file of name (a pfelf handle of program name on backend b):
 * decompressed, compared with xz -dc of name.xz, and returned. */
static uint8_t *inner_of(pfelf_file *f, const char *name, size_t *len)
{
	char xzname[256];
	snprintf(xzname, sizeof(xzname), "%s.xz", name);
	size_t want_len;
	char *want = xz_dc(xzname, &want_len);
	struct re_file rf;
	re_load(mini_path(name), &rf);
	long i = re_find_section(&rf, ".gnu_debugdata");
	assert_true(i >= 0);
	uint32_t index;
	pfelf_chdr ch;
	assert_ret(pfelf_gnu_debugdata(f, &index, &ch), 0);
	assert_int_equal(index, rf.sec[i].index);
	assert_int_equal(ch.type, PFELF_COMPRESS_XZ);
	assert_true(ch.legacy);
	assert_int_equal(ch.data_offset, rf.sec[i].off);
	assert_int_equal(ch.data_size, rf.sec[i].size);
	assert_int_equal(ch.size, want_len);
	uint8_t *got = malloc(want_len);
	assert_ret(pfelf_section_decompress(f, index, got, want_len), want_len);
	assert_memory_equal(got, want, want_len);
	assert_ret(pfelf_section_decompress(f, index, got, want_len - 1), -E2BIG);
	re_file_free(&rf);
	free(want);
	*len = want_len;
	return got;
}

static void check_program(const char *name, const char *nm, enum tb_backend b)
{
	struct tb_handle h;
	tb_open_ok(mini_path(name), b, &h);
	size_t len;
	uint8_t *inner = inner_of(h.f, name, &len);
	tb_close(&h);
	/* the inner file, opened as any file: its static functions where nm of
	 * the program before stripping has them */
	pfelf_file *in;
	assert_ret(pfelf_open_memory(inner, len, 0, &in), 0);
	char full[256];
	snprintf(full, sizeof(full), "%s.full", name);
	const char *syms[] = {"mini_static_alpha", "mini_static_beta"};
	for (size_t k = 0; k < 2; k++) {
		pfelf_sym s;
		assert_ret(pfelf_symbol_find(in, PFELF_SYMTAB, syms[k], &s), 0);
		assert_int_equal(s.value, nm_value(full, nm, syms[k]));
		assert_int_equal(s.type, STT_FUNC);
	}
	uint32_t index;
	pfelf_chdr ch;
	assert_ret(pfelf_gnu_debugdata(in, &index, &ch), -ENOENT); /* none inside */
	pfelf_close(in);
	free(inner);
}

static void test_oracle(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	check_program("mini-x86", "nm", b);
	check_program("mini-s390x", "s390x-linux-gnu-nm", b);
	struct tb_handle h;
	tb_open_ok(mini_path("plain-x86"), b, &h);
	uint32_t index;
	pfelf_chdr ch;
	assert_ret(pfelf_gnu_debugdata(h.f, &index, &ch), -ENOENT);
	tb_close(&h);
	char name[8];
	assert_ret(pfelf_compress_type_name(PFELF_COMPRESS_XZ, name, sizeof(name)), 2);
	assert_string_equal(name, "XZ");
}

/* What each hostile stream gives: the header (pfelf_gnu_debugdata), and
 * when it is read, the size it says and the decompression's answer. */
struct hostile {
	const char *name;
	int chdr;      /* pfelf_gnu_debugdata */
	uint64_t size; /* ch.size (0: the inner file's size, from xz -dc of mini-x86.xz) */
	int decomp;    /* pfelf_section_decompress into a buffer of size bytes */
};

static const struct hostile cases[] = {
        {"hx-lie-more", 0, 1, -EINVAL},
        {"hx-lie-less", 0, (uint64_t)-1, -EINVAL},
        {"hx-dict", 0, 0, -EINVAL},                     /* over PFELF_XZ_MEMLIMIT */
        {"hx-bomb", 0, (uint64_t)1 << 30, 0},           /* said: never decoded here */
        {"hx-bomb-lie", 0, (uint64_t)1 << 20, -EINVAL}, /* stopped after 1 MiB + 1 */
        {"hx-two", -EINVAL, 0, 0},
        {"hx-padded", -EINVAL, 0, 0},
        {"hx-cut", -EINVAL, 0, 0},
        {"hx-corrupt", 0, 0, -EINVAL},
        {"hx-notelf", 0, 1024, 1024},
        {"hx-badshdr", 0, 0, 0},
        {"hx-big", 0, (uint64_t)24 << 20, 0},
};

static void check_hostile(const struct hostile *c, enum tb_backend b, uint64_t inner)
{
	struct tb_handle h;
	tb_open_ok(mini_path(c->name), b, &h);
	uint32_t index;
	pfelf_chdr ch;
	int ret = pfelf_gnu_debugdata(h.f, &index, &ch);
	if (ret != c->chdr)
		fail_msg("%s: pfelf_gnu_debugdata %s, want %s", c->name, tb_errname(ret),
		         tb_errname(c->chdr));
	if (ret < 0) {
		tb_close(&h);
		return;
	}
	uint64_t want = c->size == 0              ? inner
	                : c->size == 1            ? inner + 1
	                : c->size == (uint64_t)-1 ? inner - 1
	                                          : c->size;
	assert_int_equal(ch.size, want);
	if (ch.size > ((uint64_t)64 << 20)) { /* a caller bounds it: nothing decoded */
		uint8_t x;
		assert_ret(pfelf_section_decompress(h.f, index, &x, 1), -E2BIG);
		tb_close(&h);
		return;
	}
	uint8_t *buf = malloc(ch.size ? ch.size : 1);
	ssize_t r = pfelf_section_decompress(h.f, index, buf, ch.size);
	if (c->decomp < 0 && r != c->decomp)
		fail_msg("%s: decompress %s, want %s", c->name, tb_errname(r),
		         tb_errname(c->decomp));
	if (c->decomp >= 0)
		assert_ret(r, ch.size);
	free(buf);
	tb_close(&h);
}

static void test_hostile(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	size_t inner;
	free(xz_dc("mini-x86.xz", &inner));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_hostile(&cases[i], b, inner);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_oracle),
	        TB_BACKEND_TESTS(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
