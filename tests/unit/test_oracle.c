/*
 * The readelf oracle: for every fixture and every ELF file in /usr/bin and
 * /usr/lib/x86_64-linux-gnu (walked, symlinks and non-ELF skipped, hard
 * links counted once), pfelf's section table (name, type, flags, addr,
 * offset, size, entsize, link, info, align) and program headers (type,
 * offset, vaddr, paddr, filesz, memsz, flags, align) must be what
 * `readelf -SW -lW` prints. The walk goes through the mmap backend; the
 * fixtures go through all three again on their own. Prints the counts and
 * every mismatch. The machine's files add variety, never a floor: the
 * fixtures alone meet every floor, however few packages the machine has.
 */
#include "backends.h"
#include "compare.h"
#include "readelf_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const system_dirs[] = {"/usr/bin", "/usr/lib/x86_64-linux-gnu"};

struct file_list {
	char **path;
	size_t n, cap;
	struct {
		dev_t dev;
		ino_t ino;
	} * seen;
};

static struct file_list walk_list;

static bool is_elf_file(const char *path)
{
	uint8_t magic[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	bool elf;

	if (fd < 0)
		return false;
	elf = pread(fd, magic, 4, 0) == 4 && !memcmp(magic, "\177ELF", 4);
	close(fd);
	return elf;
}

static int walk_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	struct file_list *l = &walk_list;

	if (type != FTW_F || !S_ISREG(st->st_mode) || st->st_size < 16)
		return 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->seen[i].dev == st->st_dev && l->seen[i].ino == st->st_ino)
			return 0;
	if (!is_elf_file(path))
		return 0;
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 1024;
		l->path = realloc(l->path, l->cap * sizeof(*l->path));
		l->seen = realloc(l->seen, l->cap * sizeof(*l->seen));
		assert_non_null(l->path);
		assert_non_null(l->seen);
	}
	l->path[l->n] = strdup(path);
	l->seen[l->n].dev = st->st_dev;
	l->seen[l->n].ino = st->st_ino;
	l->n++;
	return 0;
}

struct oracle {
	enum tb_backend backend;
	struct cmp_counts c;
	unsigned long open_failures;
};

static void compare_file(const struct re_file *rf, void *arg)
{
	struct oracle *o = arg;
	struct tb_handle h;
	char label[4200];
	int ret;

	snprintf(label, sizeof(label), "%s (%s)", rf->path, tb_backend_label(o->backend));
	if (!rf->saw_sections && !rf->no_sections) {
		printf("MISMATCH %s: readelf printed no section table\n", label);
		o->c.mismatches++;
		return;
	}
	ret = tb_open(rf->path, o->backend, &h);
	if (ret != 0) {
		printf("MISMATCH %s: pfelf open failed: %d (%s)\n", label, ret, tb_errname(ret));
		o->c.mismatches++;
		o->open_failures++;
		return;
	}
	cmp_tables(h.f, rf, label, &o->c);
	tb_close(&h);
}

static void report(const char *what, const struct oracle *o, size_t listed, double secs)
{
	printf("# oracle %s (%s): %lu files, %lu sections, %lu segments compared, %lu "
	       "mismatches (%zu files listed, %.1f s)\n",
	       what, tb_backend_label(o->backend), o->c.files, o->c.sections, o->c.segments,
	       o->c.mismatches, listed, secs);
}

static void test_oracle_system(void **state)
{
	struct oracle o = {TB_MMAP, {0}, 0};
	double t0 = tb_now();
	size_t reported;

	const char *const *names;
	size_t nfix = tb_manifest(&names, NULL);
	for (size_t i = 0; i < nfix; i++) {
		struct stat st;
		const char *path = tb_fixture(names[i]);
		if (stat(path, &st) != 0)
			fail_msg("%s: %s", path, strerror(errno));
		walk_one(path, &st, FTW_F, NULL);
	}
	if (walk_list.n != nfix)
		fail_msg("%zu of the %zu fixtures MANIFEST lists are ELF files", walk_list.n, nfix);
	for (size_t i = 0; i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
		if (nftw(system_dirs[i], walk_one, 32, FTW_PHYS) != 0)
			fail_msg("walking %s: %s", system_dirs[i], strerror(errno));
	reported = re_walk((const char *const *)walk_list.path, walk_list.n, compare_file, &o);
	printf("# %zu fixtures, %zu files from the machine\n", nfix, walk_list.n - nfix);
	report("fixtures and system files", &o, walk_list.n, tb_now() - t0);
	assert_int_equal(reported, walk_list.n);
	assert_int_equal(o.c.files, walk_list.n);
	assert_true(o.c.sections > 10 * o.c.files);
	assert_int_equal(o.c.mismatches, 0);
	for (size_t i = 0; i < walk_list.n; i++)
		free(walk_list.path[i]);
	free(walk_list.path);
	free(walk_list.seen);
	memset(&walk_list, 0, sizeof(walk_list));
}

static void test_oracle_fixtures(void **state)
{
	struct oracle o = {TB_STATE_BACKEND(state), {0}, 0};
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);
	const char **paths = calloc(n, sizeof(*paths));
	double t0 = tb_now();

	assert_non_null(paths);
	for (size_t i = 0; i < n; i++)
		paths[i] = tb_fixture(names[i]);
	assert_int_equal(re_walk(paths, n, compare_file, &o), n);
	report("fixtures", &o, n, tb_now() - t0);
	assert_int_equal(o.c.files, n);
	assert_int_equal(o.c.mismatches, 0);
	free(paths);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_oracle_system),
	        TB_BACKEND_TESTS(test_oracle_fixtures),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
