/* Helpers of the pfelf metadata tests (see meta_helpers.h). */
#include "meta_helpers.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *tb_meta_path(const char *name)
{
	const char *dir = getenv("ELFFS_META_FIXTURES");

	if (!dir)
		fail_msg("ELFFS_META_FIXTURES is not set");
	return tb_keep_path(dir, name); /* kept for the process: several may be live at once */
}

const char *tb_meta_fixture(const char *name)
{
	const char *path = tb_meta_path(name);

	if (access(path, R_OK) != 0)
		fail_msg("meta fixture %s is missing", path);
	return path;
}

bool tb_meta_has(const char *name)
{
	return access(tb_meta_path(name), R_OK) == 0;
}

void tb_paths_add(struct tb_paths *p, const char *path)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 256;
		p->v = realloc(p->v, p->cap * sizeof(*p->v));
		assert_non_null(p->v);
	}
	p->v[p->n++] = strdup(path);
}

void tb_paths_free(struct tb_paths *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i]);
	free(p->v);
	memset(p, 0, sizeof(*p));
}

static bool tb_is_elf(const char *path)
{
	unsigned char m[4];
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return false;
	ssize_t n = read(fd, m, 4);
	close(fd);
	return n == 4 && memcmp(m, "\177ELF", 4) == 0;
}

/* nftw passes no argument to its callback: the list being filled. */
static struct tb_paths *tb_walk_paths;

static int tb_walk_cb(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)ftw;
	if (type == FTW_F && S_ISREG(st->st_mode) && tb_is_elf(path))
		tb_paths_add(tb_walk_paths, path);
	return 0;
}

void tb_elf_list(struct tb_paths *p, const char *dir)
{
	tb_walk_paths = p;
	assert_int_equal(nftw(dir, tb_walk_cb, 32, FTW_PHYS), 0);
	tb_walk_paths = NULL;
}

long tb_paths_find(const struct tb_paths *p, const char *path)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i], path) == 0)
			return (long)i;
	return -1;
}

void tb_fixture_elf_list(struct tb_paths *p)
{
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);
	for (size_t i = 0; i < n; i++)
		tb_paths_add(p, tb_fixture(names[i]));
	size_t len;
	char *list = tb_slurp_text(tb_meta_fixture("MANIFEST"), &len);
	size_t before = p->n;
	for (char *name = strtok(list, "\n"); name; name = strtok(NULL, "\n"))
		if (tb_is_elf(tb_meta_path(name)))
			tb_paths_add(p, tb_meta_path(name));
	free(list);
	if (p->n == before)
		fail_msg("meta MANIFEST lists no ELF file");
}

/*
 * A run of readelf in progress: kept here, reachable, so that a callback
 * that fails the test leaks none of it (see meta_helpers.h).
 */
static struct {
	FILE *pipe;
	char *line;
	char *list;
} tb_re;

void tb_readelf_release(void)
{
	if (tb_re.pipe)
		pclose(tb_re.pipe); /* readelf gets EPIPE if it was still writing */
	free(tb_re.line);
	if (tb_re.list) {
		unlink(tb_re.list);
		free(tb_re.list);
	}
	memset(&tb_re, 0, sizeof(tb_re));
}

void tb_readelf_lines(const struct tb_paths *p, const char *opts, void (*fn)(char *line, void *arg),
                      void *arg)
{
	tb_readelf_release();
	tb_re.list = tb_write_tmp("readelf-list", "", 0);
	FILE *lf = fopen(tb_re.list, "w");
	assert_non_null(lf);
	for (size_t i = 0; i < p->n; i++)
		fwrite(p->v[i], 1, strlen(p->v[i]) + 1, lf);
	fclose(lf);
	/*
	 * readelf prints "File: <path>" only when it is given more than one
	 * file, and xargs may hand the last batch a single one (where it cuts
	 * depends on how many paths, and how long, the list has): /dev/null
	 * before each batch (refused on stderr, "not an ordinary file") keeps
	 * every batch at two files or more.
	 */
	char cmd[8192];
	snprintf(cmd, sizeof(cmd), "LC_ALL=C xargs -0 -a '%s' readelf %s -- /dev/null 2>/dev/null",
	         tb_re.list, opts);
	tb_re.pipe = popen(cmd, "r");
	assert_non_null(tb_re.pipe);
	size_t cap = 0;
	ssize_t len;
	while ((len = getline(&tb_re.line, &cap, tb_re.pipe)) >= 0) {
		if (len && tb_re.line[len - 1] == '\n')
			tb_re.line[len - 1] = 0;
		fn(tb_re.line, arg);
	}
	tb_readelf_release();
}

void tb_walk_readelf(struct tb_walk *w, const char *dir, size_t ncounts, const char *opts,
                     void (*fn)(char *line, void *arg), void *arg)
{
	assert_true(ncounts <= TB_WALK_COUNTS);
	tb_fixture_elf_list(&w->list);
	w->fixtures = w->list.n;
	tb_elf_list(&w->list, dir);
	w->ncounts = ncounts;
	w->per = calloc(w->list.n * ncounts, sizeof(*w->per));
	assert_non_null(w->per);
	tb_readelf_lines(&w->list, opts, fn, arg);
}

void tb_walk_open(struct tb_walk *w, const char *path)
{
	if (w->files >= w->list.n || strcmp(path, w->list.v[w->files]) != 0)
		fail_msg("readelf printed \"File: %s\" where %s was due", path,
		         w->files < w->list.n ? w->list.v[w->files] : "no file");
	free(w->path);
	w->path = strdup(path);
	tb_open_ok(path, (enum tb_backend)(w->files++ % TB_NBACKENDS), &w->h);
	w->open = true;
}

void tb_walk_close(struct tb_walk *w)
{
	tb_close(&w->h);
	w->open = false;
}

void tb_walk_count(struct tb_walk *w, unsigned c)
{
	w->per[(size_t)(w->files - 1) * w->ncounts + c]++;
}

void tb_walk_fixture_sum(const struct tb_walk *w, unsigned long *sum)
{
	for (size_t c = 0; c < w->ncounts; c++)
		sum[c] = 0;
	for (size_t i = 0; i < w->fixtures; i++)
		for (size_t c = 0; c < w->ncounts; c++)
			sum[c] += w->per[i * w->ncounts + c];
}

/* Append to msg (of size cap, *len used) what fmt says, cut at cap. */
static void tb_append(char *msg, size_t cap, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(msg + *len, cap - *len, fmt, ap);
	va_end(ap);
	if (n > 0)
		*len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
}

void tb_walk_floors(const struct tb_walk *w, const struct tb_floor *floor, size_t n,
                    const char *const *label)
{
	size_t nfix = w->fixtures;
	for (size_t i = 0; i < n; i++) {
		const char *name = floor[i].name;
		if (floor[i].dir == TB_META_IF_BUILT && !tb_meta_has(name))
			continue; /* its tool was missing: it was not built */
		const char *path =
		        floor[i].dir == TB_FIXTURE ? tb_fixture(name) : tb_meta_fixture(name);
		long k = tb_paths_find(&w->list, path);
		assert_true(k >= 0 && (size_t)k < nfix);
		const unsigned long *got = w->per + (size_t)k * w->ncounts, *need = floor[i].need;
		bool low = false;
		for (size_t c = 0; c < w->ncounts; c++)
			low = low || got[c] < need[c];
		if (!low)
			continue;
		char msg[8192]; /* on the stack: fail_msg jumps out of here */
		size_t len = 0;
		tb_append(msg, sizeof(msg), &len, "%s: compared", path);
		for (size_t c = 0; c < w->ncounts; c++)
			tb_append(msg, sizeof(msg), &len, "%s %lu %s", c ? "," : "", got[c],
			          label[c]);
		tb_append(msg, sizeof(msg), &len, "; the fixture has at least");
		for (size_t c = 0; c < w->ncounts; c++)
			tb_append(msg, sizeof(msg), &len, "%s %lu", c ? "," : "", need[c]);
		fail_msg("%s", msg);
	}
}

void tb_walk_free(struct tb_walk *w)
{
	tb_readelf_release();
	if (w->open)
		tb_close(&w->h);
	free(w->path);
	free(w->per);
	tb_paths_free(&w->list);
}

int tb_walk_teardown(void **state)
{
	tb_walk_free(*state);
	free(*state);
	return 0;
}

void tb_section_range(const char *path, const char *name, uint64_t *off, uint64_t *size)
{
	char cmd[4096];
	char *q = tb_shell_quote(path);
	snprintf(cmd, sizeof(cmd), "readelf -SW %s | sed -n 's/^ *\\[ *[0-9]*\\] %s *//p'", q,
	         name);
	free(q);
	size_t n;
	char *out = tb_run(cmd, &n);
	unsigned long long addr, o, s;
	char type[64];
	if (sscanf(out, "%63s %llx %llx %llx", type, &addr, &o, &s) != 4)
		fail_msg("no section %s in %s (readelf said \"%s\")", name, path, out);
	free(out);
	*off = o;
	*size = s;
}

char *tb_slurp_text(const char *path, size_t *len)
{
	uint64_t size = tb_file_size(path);
	char *buf = malloc(size + 1);

	assert_non_null(buf);
	tb_pread_exact(path, 0, buf, size);
	buf[size] = 0;
	*len = size;
	return buf;
}
