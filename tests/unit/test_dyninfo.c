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

#include "meta_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBDIR "/usr/lib/x86_64-linux-gnu"

/* What the walk compared in one file. */
struct seen {
	unsigned tables, needed, soname, rpath, runpath, flags;
};

struct walk {
	const struct tb_paths *list; /* the files given to readelf, in its order */
	struct seen *per;            /* one per file of list */
	struct tb_handle h;
	bool open;
	char *path;
	unsigned files, entries, needed, names, flags;
	int count; /* entries readelf announced, -1 none */
	int needed_seen;
};

static void end_file(struct walk *w)
{
	if (!w->open)
		return;
	if (w->count >= 0) /* readelf counts the DT_NULL that ends the table */
		assert_ret(pfelf_dynamic_count(w->h.f) + 1, w->count);
	else
		assert_ret(pfelf_dynamic_count(w->h.f), 0);
	assert_ret(pfelf_needed_count(w->h.f), w->needed_seen);
	tb_close(&w->h);
	w->open = false;
}

static void start_file(struct walk *w, const char *path)
{
	end_file(w);
	if (w->files >= w->list->n || strcmp(path, w->list->v[w->files]) != 0)
		fail_msg("readelf printed \"File: %s\" where %s was due", path,
		         w->files < w->list->n ? w->list->v[w->files] : "no file");
	free(w->path);
	w->path = strdup(path);
	w->count = -1;
	w->needed_seen = 0;
	tb_open_ok(path, (enum tb_backend)(w->files++ % TB_NBACKENDS), &w->h);
	w->open = true;
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
	struct seen *per = &w->per[w->files - 1];
	if (strcmp(tag, "NEEDED") == 0) {
		ret = pfelf_needed(w->h.f, (uint32_t)w->needed_seen++, &got);
		w->needed++;
		per->needed++;
	} else if (strcmp(tag, "SONAME") == 0) {
		ret = pfelf_soname(w->h.f, &got);
		per->soname++;
	} else if (strcmp(tag, "RPATH") == 0) {
		ret = pfelf_rpath(w->h.f, &got);
		per->rpath++;
	} else if (strcmp(tag, "RUNPATH") == 0) {
		ret = pfelf_runpath(w->h.f, &got);
		per->runpath++;
	} else if (strcmp(tag, "FLAGS_1") == 0) {
		uint64_t fl, want = 0;
		assert_ret(pfelf_dynamic_flags_1(w->h.f, &fl), 0);
		if (strstr(line, " PIE"))
			want |= 0x08000000;
		if (strstr(line, " NOW"))
			want |= 1;
		assert_int_equal(fl & 0x08000001, want);
		w->flags++;
		per->flags++;
		return;
	} else {
		return;
	}
	if (ret != 0 || strcmp(got, val) != 0)
		fail_msg("%s: %s: readelf [%s], pfelf %d [%s]", w->path, tag, val, ret,
		         ret == 0 ? got : "");
	w->names++;
}

static void walk_line(char *line, void *arg)
{
	struct walk *w = arg;
	int n;
	if (strncmp(line, "File: ", 6) == 0)
		start_file(w, line + 6);
	else if (!w->open)
		return;
	else if (sscanf(line, "Dynamic section at offset %*s contains %d entr", &n) == 1) {
		w->count = n;
		w->entries += (unsigned)n;
		w->per[w->files - 1].tables++;
	} else if (strncmp(line, " 0x", 3) == 0)
		entry_line(w, line);
}

/* The walk's list and state: freed by the teardown even when a check fails. */
struct dyn_run {
	struct tb_paths list;
	struct walk w;
};

static int setup_run(void **state)
{
	*state = calloc(1, sizeof(struct dyn_run));
	return *state ? 0 : -1;
}

static int teardown_run(void **state)
{
	struct dyn_run *r = *state;
	tb_readelf_release();
	if (r->w.open)
		tb_close(&r->w.h);
	free(r->w.path);
	free(r->w.per);
	tb_paths_free(&r->list);
	free(r);
	return 0;
}

/*
 * What the fixtures hold, by the way they are made (tests/fixtures and
 * tests/fixtures/meta): executables need libc.so.6, and a PIE says so in
 * FLAGS_1; the libraries have a soname (gcc -Wl,-soname; the copies of
 * Debian's libcs, which also need their dynamic loader); libmeta.so has a
 * RUNPATH, user-rpath an RPATH and user-runpath a RUNPATH, and both need
 * libmeta.so.1 and libc.so.6.
 */
static const struct {
	const char *name;
	bool meta;
	struct seen need;
} fixture_floor[] = {
        {"exec", false, {1, 1, 0, 0, 0, 0}},
        {"pie", false, {1, 1, 0, 0, 0, 1}},
        {"noshdr", false, {1, 1, 0, 0, 0, 0}},
        {"libshared.so", false, {1, 0, 1, 0, 0, 0}},
        {"s390x-libc.so.6", false, {1, 1, 1, 0, 0, 0}},
        {"armhf-libc.so.6", false, {1, 1, 1, 0, 0, 0}},
        {"libmeta.so", true, {1, 0, 1, 0, 1, 0}},
        {"user-rpath", true, {1, 2, 0, 1, 0, 1}},
        {"user-runpath", true, {1, 2, 0, 0, 1, 1}},
        {"zexec", true, {1, 1, 0, 0, 0, 1}},
};

static void test_readelf_dynamic(void **state)
{
	struct dyn_run *r = *state;
	struct walk *w = &r->w;
	double t0 = tb_now();
	tb_fixture_elf_list(&r->list);
	size_t nfix = r->list.n;
	tb_elf_list(&r->list, LIBDIR);
	w->list = &r->list;
	w->per = calloc(r->list.n, sizeof(*w->per));
	assert_non_null(w->per);
	tb_readelf_lines(&r->list, "-dW", walk_line, w);
	end_file(w);
	struct seen fx = {0};
	for (size_t i = 0; i < nfix; i++) {
		fx.tables += w->per[i].tables;
		fx.needed += w->per[i].needed;
		fx.soname += w->per[i].soname;
		fx.rpath += w->per[i].rpath;
		fx.runpath += w->per[i].runpath;
		fx.flags += w->per[i].flags;
	}
	print_message("dynamic: %u files, %u entries counted, %u NEEDED, %u names "
	              "(NEEDED/SONAME/RPATH/RUNPATH), %u FLAGS_1 equal to readelf -d (%.1f s); "
	              "of which %zu fixtures: %u dynamic sections, %u NEEDED, %u SONAME, %u RPATH, "
	              "%u RUNPATH, %u FLAGS_1\n",
	              w->files, w->entries, w->needed, w->names, w->flags, tb_now() - t0, nfix,
	              fx.tables, fx.needed, fx.soname, fx.rpath, fx.runpath, fx.flags);
	assert_int_equal(w->files, r->list.n);
	for (size_t i = 0; i < sizeof(fixture_floor) / sizeof(fixture_floor[0]); i++) {
		const char *name = fixture_floor[i].name;
		const char *path = fixture_floor[i].meta ? tb_meta_fixture(name) : tb_fixture(name);
		long k = tb_paths_find(&r->list, path);
		assert_true(k >= 0 && (size_t)k < nfix);
		const struct seen *got = &w->per[k], *need = &fixture_floor[i].need;
		if (got->tables < need->tables || got->needed < need->needed ||
		    got->soname < need->soname || got->rpath < need->rpath ||
		    got->runpath < need->runpath || got->flags < need->flags)
			fail_msg(
			        "%s: compared %u dynamic sections, %u NEEDED, %u SONAME, %u RPATH, "
			        "%u RUNPATH, %u FLAGS_1; the fixture has at least %u, %u, %u, %u, "
			        "%u, %u",
			        path, got->tables, got->needed, got->soname, got->rpath,
			        got->runpath, got->flags, need->tables, need->needed, need->soname,
			        need->rpath, need->runpath, need->flags);
	}
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
	        cmocka_unit_test_setup_teardown(test_readelf_dynamic, setup_run, teardown_run),
	        TB_BACKEND_TESTS(test_interpreter),
	        TB_BACKEND_TESTS(test_debuglink),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
