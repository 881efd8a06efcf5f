/*
 * The dynamic section against readelf -d (NEEDED, SONAME, RPATH, RUNPATH,
 * FLAGS_1 and the entry count) for every ELF fixture and every ELF file
 * under /usr/lib/x86_64-linux-gnu; the interpreter against readelf -l;
 * .gnu_debuglink against readelf --debug-dump=links and the CRC-32 of the
 * debug file computed by python's zlib; .gnu_debugaltlink against the bytes
 * the fixture script wrote.
 *
 * The machine's files add variety, never a floor: what the walk must have
 * compared is what the fixtures hold, so the test passes the same on a
 * machine with few packages.
 */
#include "meta_helpers.h"

#include "tables/tables_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBDIR "/usr/lib/x86_64-linux-gnu"

/* What the walk compares in each file: its counters, named in failure messages. */
enum { SEEN_TABLES, SEEN_NEEDED, SEEN_SONAME, SEEN_RPATH, SEEN_RUNPATH, SEEN_FLAGS, NSEEN };
static const char *const seen_label[NSEEN] = {
        "dynamic sections", "NEEDED", "SONAME", "RPATH", "RUNPATH", "FLAGS_1",
};

struct walk {
	struct tb_walk base; /* first: the state tb_walk_teardown frees */
	unsigned entries, needed, names, flags;
	int count; /* entries readelf announced, -1 none */
	int needed_seen;
};

static void end_file(struct walk *w)
{
	if (!w->base.open)
		return;
	pfelf_file *f = w->base.h.f;
	if (w->count >= 0) /* readelf counts the DT_NULL that ends the table */
		assert_ret(pfelf_dynamic_count(f) + 1, w->count);
	else
		assert_ret(pfelf_dynamic_count(f), 0);
	assert_ret(pfelf_needed_count(f), w->needed_seen);
	tb_walk_close(&w->base);
}

static void start_file(struct walk *w, const char *path)
{
	end_file(w);
	w->count = -1;
	w->needed_seen = 0;
	tb_walk_open(&w->base, path);
}

/* " 0x000000000000000e (SONAME)             Library soname: [libc.so.6]" */
static void entry_line(struct walk *w, const char *line)
{
	char tag[64];
	unsigned long long tagv;
	if (sscanf(line, " 0x%llx (%63[^)])", &tagv, tag) != 2)
		return;
	const char *lb = strchr(line, '['), *rb = strrchr(line, ']');
	char val[4096] = "";
	if (lb && rb && rb > lb && (size_t)(rb - lb) < sizeof(val))
		snprintf(val, sizeof(val), "%.*s", (int)(rb - lb - 1), lb + 1);
	const char *got = NULL;
	int ret = 0;
	pfelf_file *f = w->base.h.f;
	if (strcmp(tag, "NEEDED") == 0) {
		ret = pfelf_needed(f, (uint32_t)w->needed_seen++, &got);
		w->needed++;
		tb_walk_count(&w->base, SEEN_NEEDED);
	} else if (strcmp(tag, "SONAME") == 0) {
		ret = pfelf_soname(f, &got);
		tb_walk_count(&w->base, SEEN_SONAME);
	} else if (strcmp(tag, "RPATH") == 0) {
		ret = pfelf_rpath(f, &got);
		tb_walk_count(&w->base, SEEN_RPATH);
	} else if (strcmp(tag, "RUNPATH") == 0) {
		ret = pfelf_runpath(f, &got);
		tb_walk_count(&w->base, SEEN_RUNPATH);
	} else if (strcmp(tag, "FLAGS_1") == 0) {
		uint64_t fl, want = 0;
		assert_ret(pfelf_dynamic_flags_1(f, &fl), 0);
		if (strstr(line, " PIE"))
			want |= 0x08000000;
		if (strstr(line, " NOW"))
			want |= 1;
		assert_int_equal(fl & 0x08000001, want);
		w->flags++;
		tb_walk_count(&w->base, SEEN_FLAGS);
		return;
	} else {
		return;
	}
	if (ret != 0 || strcmp(got, val) != 0)
		fail_msg("%s: %s: readelf [%s], pfelf %d [%s]", w->base.path, tag, val, ret,
		         ret == 0 ? got : "");
	w->names++;
}

static void walk_line(char *line, void *arg)
{
	struct walk *w = arg;
	int n;
	if (strncmp(line, "File: ", 6) == 0)
		start_file(w, line + 6);
	else if (!w->base.open)
		return;
	else if (sscanf(line, "Dynamic section at offset %*s contains %d entr", &n) == 1) {
		w->count = n;
		w->entries += (unsigned)n;
		tb_walk_count(&w->base, SEEN_TABLES);
	} else if (strncmp(line, " 0x", 3) == 0)
		entry_line(w, line);
}

/* The walk lives in the test's state: the teardown frees it even when a check fails. */
static int setup_run(void **state)
{
	*state = calloc(1, sizeof(struct walk));
	return *state ? 0 : -1;
}

/*
 * What the fixtures hold, by the way they are made (tests/fixtures and
 * tests/fixtures/meta): executables need libc.so.6, and a PIE says so in
 * FLAGS_1; the libraries have a soname (gcc -Wl,-soname; the copies of
 * Debian's libcs, which also need their dynamic loader); libmeta.so has a
 * RUNPATH, user-rpath an RPATH and user-runpath a RUNPATH, and both need
 * libmeta.so.1 and libc.so.6.
 */
static const struct tb_floor fixture_floor[] = {
        {"exec", TB_FIXTURE, {1, 1, 0, 0, 0, 0}},
        {"pie", TB_FIXTURE, {1, 1, 0, 0, 0, 1}},
        {"noshdr", TB_FIXTURE, {1, 1, 0, 0, 0, 0}},
        {"libshared.so", TB_FIXTURE, {1, 0, 1, 0, 0, 0}},
        {"s390x-libc.so.6", TB_FIXTURE, {1, 1, 1, 0, 0, 0}},
        {"armhf-libc.so.6", TB_FIXTURE, {1, 1, 1, 0, 0, 0}},
        {"libmeta.so", TB_META, {1, 0, 1, 0, 1, 0}},
        {"user-rpath", TB_META, {1, 2, 0, 1, 0, 1}},
        {"user-runpath", TB_META, {1, 2, 0, 0, 1, 1}},
        {"zexec", TB_META, {1, 1, 0, 0, 0, 1}},
};

static void test_readelf_dynamic(void **state)
{
	struct walk *w = *state;
	double t0 = tb_now();
	tb_walk_readelf(&w->base, LIBDIR, NSEEN, "-dW", walk_line, w);
	end_file(w);
	unsigned long fx[NSEEN];
	tb_walk_fixture_sum(&w->base, fx);
	print_message("dynamic: %u files, %u entries counted, %u NEEDED, %u names "
	              "(NEEDED/SONAME/RPATH/RUNPATH), %u FLAGS_1 equal to readelf -d (%.1f s); "
	              "of which %zu fixtures: %lu dynamic sections, %lu NEEDED, %lu SONAME, "
	              "%lu RPATH, %lu RUNPATH, %lu FLAGS_1\n",
	              w->base.files, w->entries, w->needed, w->names, w->flags, tb_now() - t0,
	              w->base.fixtures, fx[SEEN_TABLES], fx[SEEN_NEEDED], fx[SEEN_SONAME],
	              fx[SEEN_RPATH], fx[SEEN_RUNPATH], fx[SEEN_FLAGS]);
	assert_int_equal(w->base.files, w->base.list.n);
	tb_walk_floors(&w->base, fixture_floor, sizeof(fixture_floor) / sizeof(fixture_floor[0]),
	               seen_label);
}

/* What readelf -lW says after "[Requesting program interpreter: ". */
static char *readelf_interp(const char *path)
{
	char cmd[4096];
	char *q = tb_shell_quote(path);
	snprintf(cmd, sizeof(cmd),
	         "readelf -lW %s | sed -n 's/.*Requesting program interpreter: \\(.*\\)]$/\\1/p'",
	         q);
	free(q);
	size_t n;
	char *out = tb_run(cmd, &n);
	if (n && out[n - 1] == '\n')
		out[n - 1] = 0;
	return out;
}

static void test_interpreter(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *files[] = {tb_fixture("exec"),
	                       tb_fixture("pie"),
	                       tb_fixture("libshared.so"),
	                       tb_fixture("noshdr"),
	                       tb_meta_fixture("user-runpath"),
	                       tb_fixture("many.o"),
	                       LIBDIR "/libc.so.6"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct tb_handle h;
		char *want = readelf_interp(files[i]);
		const char *got;
		tb_open_ok(files[i], b, &h);
		int ret = pfelf_interpreter(h.f, &got);
		if (*want) {
			assert_ret(ret, 0);
			assert_string_equal(got, want);
		} else {
			assert_ret(ret, -ENOENT);
		}
		free(want);
		tb_close(&h);
	}
}

static void test_debuglink(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	char cmd[8192];
	char *q = tb_shell_quote(tb_meta_fixture("debuglinked"));
	snprintf(cmd, sizeof(cmd), "readelf --debug-dump=links %s", q);
	free(q);
	size_t n;
	char *out = tb_run(cmd, &n);
	char name[256] = "";
	unsigned crc = 0;
	const char *p = strstr(out, "Separate debug info file: ");
	assert_non_null(p);
	sscanf(p, "Separate debug info file: %255s", name);
	p = strstr(out, "CRC value: ");
	assert_non_null(p);
	sscanf(p, "CRC value: %x", &crc);
	free(out);
	/* python's zlib computes the debug file's CRC independently */
	q = tb_shell_quote(tb_meta_fixture("debug.dbg"));
	snprintf(cmd, sizeof(cmd),
	         "python3 -c 'import sys, zlib; print(zlib.crc32(open(sys.argv[1], "
	         "\"rb\").read()))' "
	         "%s",
	         q);
	free(q);
	out = tb_run(cmd, &n);
	unsigned long file_crc = strtoul(out, NULL, 10);
	free(out);

	struct tb_handle h, d;
	const char *got;
	uint32_t got_crc, dbg_crc;
	tb_open_ok(tb_meta_fixture("debuglinked"), b, &h);
	assert_ret(pfelf_debuglink(h.f, &got, &got_crc), 0);
	assert_string_equal(got, name);
	assert_string_equal(got, "debug.dbg");
	assert_int_equal(got_crc, crc);
	const uint8_t *id;
	assert_ret(pfelf_debugaltlink(h.f, &got, &id), -ENOENT);
	tb_close(&h);
	tb_open_ok(tb_meta_fixture("debug.dbg"), b, &d);
	assert_ret(pfelf_file_crc32(d.f, &dbg_crc), 0);
	assert_int_equal(dbg_crc, file_crc);
	assert_int_equal(dbg_crc, crc);
	assert_ret(pfelf_debuglink(d.f, &got, &got_crc), -ENOENT);
	tb_close(&d);

	size_t alen;
	uint8_t *alt = tb_slurp(tb_meta_fixture("altlink.bin"), &alen);
	tb_open_ok(tb_meta_fixture("altlinked"), b, &h);
	int idlen = pfelf_debugaltlink(h.f, &got, &id);
	assert_string_equal(got, (const char *)alt);
	assert_int_equal(idlen, alen - strlen((const char *)alt) - 1);
	assert_memory_equal(id, alt + strlen((const char *)alt) + 1, (size_t)idlen);
	free(alt);
	tb_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_readelf_dynamic, setup_run, tb_walk_teardown),
	        TB_BACKEND_TESTS(test_interpreter),
	        TB_BACKEND_TESTS(test_debuglink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
