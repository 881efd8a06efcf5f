/*
 * pfelf_scan_build_id: the build id of a file through a caller's read
 * function, without a handle. The id agrees with pfelf_build_id() of a
 * handle on every fixture that has one (sections, segments of a file
 * without section headers, big endian); the reads are the 4 KiB head and
 * the section header table with the 4 KiB before it, counted; a separate
 * debug file made by objcopy is told from its binary; a build id note of
 * a length outside 2..64 bytes, a file that is not ELF, a file shorter
 * than its size and a failing read give their errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backends.h"
#include "pfelf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CALLS 16

/* A file in memory read like pread, every call recorded. */
struct mem {
	const uint8_t *p;
	size_t len;
	int fail; /* -errno every read returns, or 0 */
	unsigned calls;
	uint64_t off[MAX_CALLS];
	size_t asked[MAX_CALLS];
};

static ssize_t mem_read(void *src, void *buf, size_t len, uint64_t off)
{
	struct mem *m = src;
	if (m->calls < MAX_CALLS) {
		m->off[m->calls] = off;
		m->asked[m->calls] = len;
	}
	m->calls++;
	if (m->fail)
		return m->fail;
	if (off >= m->len)
		return 0;
	size_t n = m->len - off < len ? m->len - off : len;
	memcpy(buf, m->p + off, n);
	return (ssize_t)n;
}

static int scan(const void *p, size_t len, uint64_t size, struct mem *m, pfelf_build_id_scan *out)
{
	memset(m, 0, sizeof(*m));
	m->p = p;
	m->len = len;
	int ret = pfelf_scan_build_id(mem_read, m, size, out);
	assert_int_equal(out->reads, m->calls);
	return ret;
}

/* The id of every fixture equals the handle's (pfelf_build_id). */
static void test_matches_handle(void **state)
{
	(void)state;
	const char *const *names, *const *kinds;
	size_t n = tb_manifest(&names, &kinds);
	unsigned ids = 0, none = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len;
		uint8_t *bytes = tb_slurp(tb_fixture(names[i]), &len);
		pfelf_file *f;
		if (pfelf_open_memory(bytes, len, 0, &f) < 0) {
			free(bytes);
			continue;
		}
		const uint8_t *id;
		int want = pfelf_build_id(f, &id);
		struct mem m;
		pfelf_build_id_scan s;
		int got = scan(bytes, len, len, &m, &s);
		if (want >= PFELF_SCAN_ID_MIN && want <= PFELF_SCAN_ID_MAX) {
			if (got != 1 || s.len != want || memcmp(s.id, id, (size_t)want) != 0)
				fail_msg("%s: scan %d (%u bytes), handle %d bytes", names[i], got,
				         s.len, want);
			ids++;
		} else if (want == -ENOENT) {
			if (got != 0)
				fail_msg("%s: scan %d, the handle finds no build id", names[i],
				         got);
			none++;
		}
		pfelf_close(f);
		free(bytes);
	}
	/* exec, pie, libshared.so, noshdr (a note segment) have one; objects none */
	assert_true(ids >= 4);
	assert_true(none >= 1);
}

/* The head, then the section header table with the 4 KiB before it. */
static void test_reads(void **state)
{
	(void)state;
	size_t len;
	uint8_t *bytes = tb_slurp(tb_fixture("exec"), &len);
	pfelf_file *f;
	assert_int_equal(pfelf_open_memory(bytes, len, 0, &f), 0);
	const pfelf_ehdr *eh = pfelf_header(f);
	uint64_t end = eh->shoff + (uint64_t)eh->shnum * eh->shentsize;
	assert_true(eh->shoff > 4096 && end <= len);
	struct mem m;
	pfelf_build_id_scan s;
	assert_int_equal(scan(bytes, len, len, &m, &s), 1);
	assert_false(s.debug);
	assert_int_equal(m.calls, 2);
	assert_int_equal(m.off[0], 0);
	assert_int_equal(m.asked[0], 4096);
	assert_int_equal(m.off[1], eh->shoff - 4096);
	assert_int_equal(m.off[1] + m.asked[1], end);
	pfelf_close(f);
	free(bytes);
}

/* objcopy --only-keep-debug: .debug_info with bytes, .text NOBITS. */
static void test_debug_file(void **state)
{
	(void)state;
	const char *exec = tb_fixture("exec");
	char *src = tb_shell_quote(exec);
	char dst[512];
	snprintf(dst, sizeof(dst), "%s/buildid-scan.debug", tb_tmpdir());
	char *qdst = tb_shell_quote(dst);
	char cmd[2048];
	snprintf(cmd, sizeof(cmd), "objcopy --only-keep-debug %s %s && echo ok", src, qdst);
	char *out = tb_run(cmd, NULL);
	assert_string_equal(out, "ok\n");
	size_t len, elen;
	uint8_t *bytes = tb_slurp(dst, &len), *ebytes = tb_slurp(exec, &elen);
	struct mem m;
	pfelf_build_id_scan s, e;
	assert_int_equal(scan(bytes, len, len, &m, &s), 1);
	assert_true(s.debug);
	assert_int_equal(scan(ebytes, elen, elen, &m, &e), 1);
	assert_false(e.debug);
	assert_int_equal(s.len, e.len);
	assert_memory_equal(s.id, e.id, e.len);
	remove(dst);
	free(bytes);
	free(ebytes);
	free(out);
	free(src);
	free(qdst);
}

/* A GNU build id note (little endian, 20 bytes) given descsz: its offset. */
static size_t find_gnu_note(const uint8_t *p, size_t len)
{
	static const uint8_t hdr[] = {4, 0, 0, 0, 20, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0};
	for (size_t i = 0; i + sizeof(hdr) <= len; i += 4)
		if (memcmp(p + i, hdr, sizeof(hdr)) == 0)
			return i;
	fail_msg("no GNU build id note");
	return 0;
}

/* A note of 1 byte: -EINVAL, with its length reported. */
static void test_bad_length(void **state)
{
	(void)state;
	size_t len;
	uint8_t *bytes = tb_slurp(tb_fixture("exec"), &len);
	size_t at = find_gnu_note(bytes, len);
	tb_put(bytes + at + 4, 4, false, 1);
	struct mem m;
	pfelf_build_id_scan s;
	assert_int_equal(scan(bytes, len, len, &m, &s), -EINVAL);
	assert_true(s.badsize);
	assert_int_equal(s.badlen, 1);
	assert_int_equal(s.len, 0);
	free(bytes);
}

static void test_not_elf(void **state)
{
	(void)state;
	static const char text[] = "#!/bin/sh\necho this is a shell script, not an ELF file\n";
	struct mem m;
	pfelf_build_id_scan s;
	assert_int_equal(scan(text, sizeof(text), sizeof(text), &m, &s), -ENOEXEC);
	assert_int_equal(scan(text, 10, 10, &m, &s), -ENOEXEC);
	assert_int_equal(m.calls, 1);
}

/* Shorter than its size: the head comes back short. A failing read: -EIO. */
static void test_short_and_failing(void **state)
{
	(void)state;
	size_t len;
	uint8_t *bytes = tb_slurp(tb_fixture("exec"), &len);
	struct mem m;
	pfelf_build_id_scan s;
	assert_int_equal(scan(bytes, 100, 200, &m, &s), -EINVAL);
	assert_int_equal(m.calls, 2);
	assert_false(s.badsize);
	memset(&m, 0, sizeof(m));
	m.p = bytes;
	m.len = len;
	m.fail = -EIO;
	assert_int_equal(pfelf_scan_build_id(mem_read, &m, len, &s), -EIO);
	assert_int_equal(s.reads, 1);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_matches_handle), cmocka_unit_test(test_reads),
	        cmocka_unit_test(test_debug_file),     cmocka_unit_test(test_bad_length),
	        cmocka_unit_test(test_not_elf),        cmocka_unit_test(test_short_and_failing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
