/* Shared helpers of the pfelf unit tests (see backends.h). */
#include "backends.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum tb_backend tb_backend_states[TB_NBACKENDS] = {TB_MMAP, TB_PREAD, TB_MEMORY};

const char *tb_backend_label(enum tb_backend b)
{
	switch (b) {
	case TB_MMAP:
		return "mmap";
	case TB_PREAD:
		return "pread";
	case TB_MEMORY:
		return "memory";
	}
	return "?";
}

enum pfelf_backend tb_backend_expected(enum tb_backend b)
{
	switch (b) {
	case TB_MMAP:
		return PFELF_BACKEND_MMAP;
	case TB_PREAD:
		return PFELF_BACKEND_PREAD;
	case TB_MEMORY:
		return PFELF_BACKEND_MEMORY;
	}
	return 0;
}

const char *tb_errname(long long ret)
{
	static __thread char buf[64];

	if (ret >= 0)
		return "ok";
	if (ret < -4095)
		return "not an errno";
	snprintf(buf, sizeof(buf), "%s",
	         strerrorname_np((int)-ret) ? strerrorname_np((int)-ret) : "unknown errno");
	return buf;
}

const char *tb_fixtures_dir(void)
{
	const char *dir = getenv("ELFFS_FIXTURES");

	if (!dir || !*dir)
		fail_msg("ELFFS_FIXTURES is not set: run through meson test");
	return dir;
}

/* Paths are kept for the life of the process (a small, reachable list). */
struct tb_path {
	struct tb_path *next;
	char path[];
};
static struct tb_path *tb_paths;

const char *tb_keep_path(const char *dir, const char *name)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	struct tb_path *p;

	for (p = tb_paths; p; p = p->next)
		if (strlen(p->path) == n - 1 && !strncmp(p->path, dir, strlen(dir)) &&
		    !strcmp(p->path + strlen(dir) + 1, name))
			return p->path;
	p = malloc(sizeof(*p) + n);
	assert_non_null(p);
	snprintf(p->path, n, "%s/%s", dir, name);
	p->next = tb_paths;
	tb_paths = p;
	return p->path;
}

const char *tb_fixture(const char *name)
{
	const char *path = tb_keep_path(tb_fixtures_dir(), name);
	struct stat st;

	if (stat(path, &st) != 0)
		fail_msg("fixture %s missing: %s", path, strerror(errno));
	return path;
}

#define TB_MAX_FIXTURES 64
static char *tb_names[TB_MAX_FIXTURES], *tb_kinds[TB_MAX_FIXTURES];
static size_t tb_nfixtures;

size_t tb_manifest(const char *const **names, const char *const **kinds)
{
	if (!tb_nfixtures) {
		char *path, name[256], kind[64];
		FILE *fp;

		if (asprintf(&path, "%s/MANIFEST", tb_fixtures_dir()) < 0)
			fail_msg("asprintf");
		fp = fopen(path, "r");
		if (!fp)
			fail_msg("%s: %s", path, strerror(errno));
		while (tb_nfixtures < TB_MAX_FIXTURES &&
		       fscanf(fp, "%255s %63s", name, kind) == 2) {
			tb_names[tb_nfixtures] = strdup(name);
			tb_kinds[tb_nfixtures] = strdup(kind);
			tb_nfixtures++;
		}
		fclose(fp);
		free(path);
		if (!tb_nfixtures)
			fail_msg("MANIFEST lists no fixture");
	}
	*names = (const char *const *)tb_names;
	if (kinds)
		*kinds = (const char *const *)tb_kinds;
	return tb_nfixtures;
}

const char *tb_fixture_kind(const char *name)
{
	const char *const *names, *const *kinds;
	size_t n = tb_manifest(&names, &kinds);

	for (size_t i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return kinds[i];
	return NULL;
}

void tb_each_fixture(enum tb_backend b, void (*check)(const char *name, enum tb_backend b))
{
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);

	for (size_t i = 0; i < n; i++)
		check(names[i], b);
}

void *tb_slurp(const char *path, size_t *len)
{
	uint64_t size = tb_file_size(path);
	void *buf = malloc(size ? size : 1);

	assert_non_null(buf);
	tb_pread_exact(path, 0, buf, size);
	*len = size;
	return buf;
}

uint64_t tb_file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
		fail_msg("stat %s: %s", path, strerror(errno));
	return (uint64_t)st.st_size;
}

void tb_pread_exact(const char *path, uint64_t off, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t done = 0;

	if (fd < 0)
		fail_msg("open %s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t n = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));

		if (n <= 0) {
			close(fd);
			fail_msg("pread %s at %llu: %s", path, (unsigned long long)(off + done),
			         n ? strerror(errno) : "short file");
		}
		done += (size_t)n;
	}
	close(fd);
}

int tb_open(const char *path, enum tb_backend b, struct tb_handle *h)
{
	int ret;

	memset(h, 0, sizeof(*h));
	h->backend = b;
	switch (b) {
	case TB_MMAP:
		return pfelf_open(path, 0, &h->f);
	case TB_PREAD:
		return pfelf_open(path, PFELF_OPEN_NOMMAP, &h->f);
	case TB_MEMORY:
		h->buf = tb_slurp(path, &h->len);
		ret = pfelf_open_memory(h->buf, h->len, 0, &h->f);
		if (ret != 0) {
			free(h->buf);
			h->buf = NULL;
		}
		return ret;
	}
	return -EINVAL;
}

void tb_open_ok(const char *path, enum tb_backend b, struct tb_handle *h)
{
	int ret = tb_open(path, b, h);

	if (ret != 0)
		fail_msg("open %s with %s: %d (%s)", path, tb_backend_label(b), ret,
		         tb_errname(ret));
	assert_non_null(h->f);
	assert_int_equal(pfelf_backend(h->f), tb_backend_expected(b));
}

int tb_open_bytes(const void *bytes, size_t len, enum tb_backend b, struct tb_handle *h)
{
	char *path;
	int ret;

	if (b == TB_MEMORY) {
		memset(h, 0, sizeof(*h));
		h->backend = b;
		h->buf = malloc(len ? len : 1);
		assert_non_null(h->buf);
		memcpy(h->buf, bytes, len);
		h->len = len;
		ret = pfelf_open_memory(h->buf, len, 0, &h->f);
		if (ret != 0) {
			free(h->buf);
			h->buf = NULL;
		}
		return ret;
	}
	path = tb_write_tmp("bytes", bytes, len);
	ret = tb_open(path, b, h);
	unlink(path);
	free(path);
	return ret;
}

void tb_close(struct tb_handle *h)
{
	pfelf_close(h->f);
	free(h->buf);
	memset(h, 0, sizeof(*h));
}

static char tb_tmp[256];

static int tb_rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	remove(path);
	return 0;
}

static void tb_tmp_cleanup(void)
{
	if (tb_tmp[0])
		nftw(tb_tmp, tb_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

const char *tb_tmpdir(void)
{
	if (!tb_tmp[0]) {
		const char *base = getenv("TMPDIR");

		snprintf(tb_tmp, sizeof(tb_tmp), "%s/pfelf-unit-XXXXXX",
		         base && *base ? base : "/tmp");
		if (!mkdtemp(tb_tmp))
			fail_msg("mkdtemp %s: %s", tb_tmp, strerror(errno));
		atexit(tb_tmp_cleanup);
	}
	return tb_tmp;
}

char *tb_write_tmp(const char *stem, const void *bytes, size_t len)
{
	static unsigned counter;
	char *path;
	size_t done = 0;
	int fd;

	if (asprintf(&path, "%s/%s-%d-%u", tb_tmpdir(), stem, (int)gettid(),
	             __atomic_fetch_add(&counter, 1, __ATOMIC_RELAXED)) < 0)
		fail_msg("asprintf");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		fail_msg("create %s: %s", path, strerror(errno));
	while (done < len) {
		ssize_t n = write(fd, (const char *)bytes + done, len - done);

		if (n <= 0)
			fail_msg("write %s: %s", path, strerror(errno));
		done += (size_t)n;
	}
	close(fd);
	return path;
}

char *tb_copy_tmp(const char *stem, const char *src)
{
	size_t len;
	void *bytes = tb_slurp(src, &len);
	char *path = tb_write_tmp(stem, bytes, len);

	free(bytes);
	return path;
}

size_t tb_kernel_copy(const void *ptr, size_t len, void *out)
{
	const size_t chunk = 16384; /* well under a pipe's capacity: write never blocks */
	size_t done = 0;
	int p[2];

	if (pipe2(p, O_CLOEXEC) != 0)
		fail_msg("pipe: %s", strerror(errno));
	while (done < len) {
		size_t want = len - done < chunk ? len - done : chunk;
		ssize_t n = write(p[1], (const char *)ptr + done, want);
		size_t got = 0;

		if (n < 0) {
			if (errno != EFAULT)
				fail_msg("write to pipe: %s", strerror(errno));
			break;
		}
		while (got < (size_t)n) {
			ssize_t r = read(p[0], (char *)out + done + got, (size_t)n - got);

			if (r <= 0)
				fail_msg("read from pipe: %s", strerror(errno));
			got += (size_t)r;
		}
		done += (size_t)n;
		if ((size_t)n < want)
			break;
	}
	close(p[0]);
	close(p[1]);
	return done;
}

char *tb_run(const char *cmd, size_t *len)
{
	char *full, *out = NULL;
	size_t cap = 0, n = 0;
	FILE *fp;
	int st;

	if (asprintf(&full, "LC_ALL=C %s", cmd) < 0)
		fail_msg("asprintf");
	fp = popen(full, "r");
	if (!fp)
		fail_msg("popen %s: %s", full, strerror(errno));
	for (;;) {
		size_t r;

		if (cap - n < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			out = realloc(out, cap);
			assert_non_null(out);
		}
		r = fread(out + n, 1, cap - n - 1, fp);
		n += r;
		if (r == 0)
			break;
	}
	st = pclose(fp);
	if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) == 127)
		fail_msg("%s: did not run (status %d)", full, st);
	free(full);
	out[n] = 0;
	if (len)
		*len = n;
	return out;
}

char *tb_shell_quote(const char *s)
{
	size_t n = 3;
	char *q, *o;

	for (const char *c = s; *c; c++)
		n += *c == '\'' ? 4 : 1;
	q = malloc(n);
	assert_non_null(q);
	o = q;
	*o++ = '\'';
	for (const char *c = s; *c; c++) {
		if (*c == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *c;
		}
	}
	*o++ = '\'';
	*o = 0;
	return q;
}

uint64_t tb_get(const uint8_t *p, size_t size, bool be)
{
	uint64_t v = 0;

	for (size_t i = 0; i < size; i++)
		v |= (uint64_t)p[be ? size - 1 - i : i] << (8 * i);
	return v;
}

void tb_put(uint8_t *p, size_t size, bool be, uint64_t v)
{
	for (size_t i = 0; i < size; i++)
		p[be ? size - 1 - i : i] = (uint8_t)(v >> (8 * i));
}

uint64_t tb_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545F4914F6CDD1DULL;
}

uint64_t tb_seed(void)
{
	static uint64_t seed;
	const char *env = getenv("TB_SEED");

	if (!seed) {
		seed = env && *env ? strtoull(env, NULL, 0) : (uint64_t)time(NULL) * 2654435761u;
		if (!seed)
			seed = 1;
		printf("# random seed: TB_SEED=%llu\n", (unsigned long long)seed);
	}
	return seed;
}

double tb_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
