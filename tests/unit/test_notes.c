/*
 * Notes against readelf -n: every note (owner, size, order) of every ELF
 * fixture and of every ELF file under /usr/lib/x86_64-linux-gnu, GNU build
 * ids, x86 GNU properties, the Go build id; a core file made by gcore
 * against what /proc said about the process; hostile notes.
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

/* ------------------------------------------------------ readelf -n */

/* What the walk compares in each file: its counters, named in failure messages. */
enum { SEEN_NOTES, SEEN_BUILD_IDS, SEEN_PROPS, SEEN_GO_IDS, NSEEN };
static const char *const seen_label[NSEEN] = {"notes", "build ids", "x86 properties",
                                              "Go build ids"};

struct walk {
	struct tb_walk base; /* first: the state tb_walk_teardown frees */
	unsigned notes, build_ids, props, go_ids;
	int index; /* next pfelf note to compare */
	bool saw_build_id;
	bool go_next; /* the last note was a Go build id: its description follows */
};

static void end_file(struct walk *w)
{
	if (!w->base.open)
		return;
	int n = pfelf_note_count(w->base.h.f);
	if (n != w->index)
		fail_msg("%s: pfelf has %d notes, readelf %d", w->base.path, n, w->index);
	const uint8_t *id;
	if (!w->saw_build_id && pfelf_build_id(w->base.h.f, &id) != -ENOENT)
		fail_msg("%s: pfelf finds a build id, readelf printed none", w->base.path);
	tb_walk_close(&w->base);
}

static void start_file(struct walk *w, const char *path)
{
	end_file(w);
	w->index = 0;
	w->saw_build_id = false;
	tb_walk_open(&w->base, path);
}

/* "  OWNER    0x0000SIZE\tDESCRIPTION": the next pfelf note must match. */
static bool note_line(struct walk *w, const char *line)
{
	const char *tab = strchr(line, '\t');
	if (strncmp(line, "  ", 2) != 0 || line[2] == ' ' || !tab || tab - line < 12 ||
	    strncmp(tab - 10, "0x", 2) != 0)
		return false;
	char owner[256];
	unsigned long size;
	if (sscanf(line, " %255s 0x%lx", owner, &size) != 2)
		return false;
	pfelf_note n;
	int ret = pfelf_note_get(w->base.h.f, (uint32_t)w->index, &n);
	if (ret != 0 || strcmp(n.name, owner) != 0 || n.descsz != size)
		fail_msg("%s: note %d: readelf %s 0x%lx, pfelf %d %s 0x%x", w->base.path, w->index,
		         owner, size, ret, ret == 0 ? n.name : "", ret == 0 ? n.descsz : 0);
	w->index++;
	w->notes++;
	tb_walk_count(&w->base, SEEN_NOTES);
	return true;
}

static void hex(const uint8_t *p, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	out[2 * n] = 0;
}

static void build_id_line(struct walk *w, const char *hexid)
{
	const uint8_t *id;
	char got[1024];
	if (w->saw_build_id)
		return;
	int n = pfelf_build_id(w->base.h.f, &id);
	assert_true(n > 0 && n < 500);
	hex(id, (size_t)n, got);
	assert_string_equal(got, hexid);
	w->saw_build_id = true;
	w->build_ids++;
	tb_walk_count(&w->base, SEEN_BUILD_IDS);
}

/* "x86 feature: IBT, SHSTK" and "x86 ISA needed: x86-64-baseline, ..." */
static void property_line(struct walk *w, const char *line)
{
	static const struct {
		const char *prefix;
		uint32_t type;
		const char *names[4];
	} kinds[] = {
	        {"x86 feature: ", 0xc0000002, {"IBT", "SHSTK", "LAM_U48", "LAM_U57"}},
	        {"x86 ISA needed: ",
	         0xc0008002,
	         {"x86-64-baseline", "x86-64-v2", "x86-64-v3", "x86-64-v4"}},
	};
	for (size_t k = 0; k < 2; k++) {
		const char *p = strstr(line, kinds[k].prefix);
		if (!p)
			continue;
		p += strlen(kinds[k].prefix);
		uint64_t want = 0;
		for (int b = 0; b < 4; b++) {
			const char *q = strstr(p, kinds[k].names[b]);
			size_t l = strlen(kinds[k].names[b]);
			if (q && (q[l] == 0 || q[l] == ',' || q[l] == '\n'))
				want |= 1u << b;
		}
		int n = pfelf_gnu_property_count(w->base.h.f);
		assert_true(n > 0);
		bool found = false;
		for (int i = 0; i < n; i++) {
			pfelf_gnu_property pr;
			assert_ret(pfelf_gnu_property_get(w->base.h.f, (uint32_t)i, &pr), 0);
			if (pr.type == kinds[k].type && pr.datasz == 4) {
				assert_int_equal(pr.value & 0xf, want);
				found = true;
			}
		}
		if (!found)
			fail_msg("%s: no property 0x%x for \"%s\"", w->base.path, kinds[k].type,
			         line);
		w->props++;
		tb_walk_count(&w->base, SEEN_PROPS);
	}
}

static void go_desc_line(struct walk *w, const char *line)
{
	char id[512], want[512];
	size_t k = 0;
	for (const char *p = line; *p && k + 1 < sizeof(want);) {
		unsigned v;
		int used;
		if (sscanf(p, " %2x%n", &v, &used) != 1)
			break;
		want[k++] = (char)v;
		p += used;
	}
	want[k] = 0;
	assert_true(pfelf_go_build_id(w->base.h.f, id, sizeof(id)) > 0);
	assert_string_equal(id, want);
	w->go_ids++;
	tb_walk_count(&w->base, SEEN_GO_IDS);
}

static void walk_line(char *line, void *arg)
{
	struct walk *w = arg;
	const char *p;
	if (strncmp(line, "File: ", 6) == 0)
		start_file(w, line + 6);
	else if (!w->base.open)
		return;
	else if (note_line(w, line))
		w->go_next = strstr(line, "GO BUILDID") != NULL;
	else if ((p = strstr(line, "Build ID: ")) != NULL)
		build_id_line(w, p + 10);
	else if (w->go_next && (p = strstr(line, "description data: ")) != NULL) {
		go_desc_line(w, p + 18);
		w->go_next = false;
	} else
		property_line(w, line);
}

/* The walk lives in the test's state: the teardown frees it even when a check fails. */
static int setup_run(void **state)
{
	*state = calloc(1, sizeof(struct walk));
	return *state ? 0 : -1;
}

/*
 * What the fixtures hold, by the way they are made: a GNU build id in
 * everything linked by gcc (Debian's gcc passes --build-id) and in the
 * copies of Debian's libcs; the x86 ISA property of the executables linked
 * with Debian's crt files; the Go build id of the Go program (when go was
 * there to build it).
 */
static const struct tb_floor fixture_floor[] = {
        {"exec", TB_FIXTURE, {3, 1, 1, 0}},
        {"pie", TB_FIXTURE, {3, 1, 1, 0}},
        {"noshdr", TB_FIXTURE, {3, 1, 1, 0}},
        {"libshared.so", TB_FIXTURE, {1, 1, 0, 0}},
        {"s390x-libc.so.6", TB_FIXTURE, {2, 1, 0, 0}},
        {"armhf-libc.so.6", TB_FIXTURE, {2, 1, 0, 0}},
        {"libmeta.so", TB_META, {1, 1, 0, 0}},
        {"user-rpath", TB_META, {3, 1, 1, 0}},
        {"zexec", TB_META, {3, 1, 1, 0}},
        {"debug.dbg", TB_META, {3, 1, 1, 0}},
        {"hello", TB_META_IF_BUILT, {1, 0, 0, 1}},
        {"hello-noshdr", TB_META_IF_BUILT, {1, 0, 0, 1}},
};

static void test_readelf_notes(void **state)
{
	struct walk *w = *state;
	double t0 = tb_now();
	tb_walk_readelf(&w->base, LIBDIR, NSEEN, "-n", walk_line, w);
	end_file(w);
	unsigned long fx[NSEEN];
	tb_walk_fixture_sum(&w->base, fx);
	print_message("notes: %u files, %u notes (owner, size, order) equal to readelf -n, "
	              "%u build ids, %u x86 properties, %u Go build ids (%.1f s); of which "
	              "%zu fixtures: %lu notes, %lu build ids, %lu x86 properties, %lu Go build "
	              "ids\n",
	              w->base.files, w->notes, w->build_ids, w->props, w->go_ids, tb_now() - t0,
	              w->base.fixtures, fx[SEEN_NOTES], fx[SEEN_BUILD_IDS], fx[SEEN_PROPS],
	              fx[SEEN_GO_IDS]);
	assert_int_equal(w->base.files, w->base.list.n);
	tb_walk_floors(&w->base, fixture_floor, sizeof(fixture_floor) / sizeof(fixture_floor[0]),
	               seen_label);
}

/* ------------------------------------------------------------- core */

static void test_core(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	if (!tb_meta_has("core.threads"))
		skip(); /* no gcore on this machine */
	size_t n;
	char *tasks = tb_slurp_text(tb_meta_path("core.tasks"), &n);
	int want_threads = atoi(tasks);
	free(tasks);
	struct tb_handle h;
	tb_open_ok(tb_meta_path("core.threads"), b, &h);
	assert_int_equal(want_threads, 4);
	assert_ret(pfelf_core_thread_count(h.f), want_threads);
	int count = pfelf_core_file_count(h.f);
	assert_true(count > 0);
	/* every file mapping /proc listed is in NT_FILE */
	char *maps = tb_slurp_text(tb_meta_path("core.maps"), &n);
	unsigned found = 0, listed = 0;
	for (char *line = strtok(maps, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long start, end, off, inode;
		char perms[8], dev[16];
		int used = 0;
		if (sscanf(line, "%llx-%llx %7s %llx %15s %llu %n", &start, &end, perms, &off, dev,
		           &inode, &used) < 6 ||
		    inode == 0 || line[used] != '/')
			continue;
		listed++;
		for (int i = 0; i < count; i++) {
			pfelf_core_file cf;
			assert_ret(pfelf_core_file_get(h.f, (uint32_t)i, &cf), 0);
			if (cf.start == start && cf.end == end && cf.offset == off &&
			    strcmp(cf.path, line + used) == 0) {
				found++;
				break;
			}
		}
	}
	free(maps);
	print_message("core (%s): %d threads, %d NT_FILE mappings, %u of %u /proc maps found\n",
	              tb_backend_label(b), want_threads, count, found, listed);
	assert_true(listed > 3);
	assert_int_equal(found, listed);
	assert_int_equal((unsigned)count, listed);
	pfelf_core_file cf;
	assert_ret(pfelf_core_file_get(h.f, (uint32_t)count, &cf), -ENOENT);
	tb_close(&h);
}

/* ---------------------------------------------------------- hostile */

/* Name and descriptor sizes past the note's section: the note is dropped. */
static void test_hostile_notes(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_fixture("exec");
	uint64_t off, size;
	tb_section_range(path, ".note.gnu.build-id", &off, &size);
	size_t len;
	uint8_t *buf = tb_slurp(path, &len);
	struct tb_handle h;
	const uint8_t *id;
	tb_open_ok(path, b, &h);
	int notes = pfelf_note_count(h.f);
	assert_ret(pfelf_build_id(h.f, &id), 20);
	tb_close(&h);
	const uint32_t bad[] = {0xffffffffu, (uint32_t)size, 0x7ffffff0u};
	for (int field = 0; field < 2; field++) {
		for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
			uint8_t *copy = malloc(len);
			memcpy(copy, buf, len);
			tb_put(copy + off + 4 * field, 4, false, bad[k]);
			assert_ret(tb_open_bytes(copy, len, b, &h), 0);
			assert_ret(pfelf_note_count(h.f), notes - 1);
			assert_ret(pfelf_build_id(h.f, &id), -ENOENT);
			tb_close(&h);
			free(copy);
		}
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_readelf_notes, setup_run, tb_walk_teardown),
	        TB_BACKEND_TESTS(test_core),
	        TB_BACKEND_TESTS(test_hostile_notes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
