/*
 * PFELF_OPEN_REOPEN and the descriptor budget: many pread handles stay
 * within the budget of open descriptors, read the right bytes after their
 * descriptor was parked and reopened, keep a descriptor pinned while a
 * reference to it is held, and refuse a file replaced since open. Lazy
 * mmap handles hold a descriptor until mapped, within the same budget.
 * The default budget follows RLIMIT_NOFILE, and a process out of
 * descriptors gets the idle ones of the budget back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pfelf_i.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define NFILES 40
#define BUDGET 6

static char dir[] = "/tmp/pfelf-fdbudget-XXXXXX";
static int dirfd_;
static uint8_t *orig;
static size_t orig_len;

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	while (d && readdir(d))
		n++;
	if (d)
		closedir(d);
	return n;
}

static void write_file(const char *name, const uint8_t *b, size_t len)
{
	int fd = openat(dirfd_, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, len), (ssize_t)len);
	close(fd);
}

static int setup(void **state)
{
	const char *src = "/usr/bin/true";
	int fd = open(src, O_RDONLY);
	assert_true(fd >= 0);
	orig_len = (size_t)lseek(fd, 0, SEEK_END);
	orig = malloc(orig_len);
	assert_int_equal(pread(fd, orig, orig_len, 0), (ssize_t)orig_len);
	close(fd);
	assert_non_null(mkdtemp(dir));
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	for (int i = 0; i < NFILES; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%02d", i);
		write_file(name, orig, orig_len);
	}
	pfelf_set_fd_budget(BUDGET);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
	close(dirfd_);
	free(orig);
	pfelf_set_fd_budget(256);
	return 0;
}

static void open_all(pfelf_file **h)
{
	for (int i = 0; i < NFILES; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%02d", i);
		assert_int_equal(
		        pfelf_openat(dirfd_, name, PFELF_OPEN_NOMMAP | PFELF_OPEN_REOPEN, &h[i]),
		        0);
		assert_int_equal(pfelf_backend(h[i]), PFELF_BACKEND_PREAD);
	}
}

static void test_budget_bounds_descriptors(void **state)
{
	pfelf_file *h[NFILES];
	int before = count_fds();
	open_all(h);
	assert_true(count_fds() <= before + BUDGET);
	uint8_t *buf = malloc(orig_len);
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < NFILES; i++) {
			memset(buf, 0, orig_len);
			assert_int_equal(pfelf_read(h[i], 0, buf, orig_len), (ssize_t)orig_len);
			assert_memory_equal(buf, orig, orig_len);
			assert_int_equal(pfelf_section_count(h[i]), pfelf_header(h[i])->shnum);
		}
		assert_true(count_fds() <= before + BUDGET);
	}
	free(buf);
	for (int i = 0; i < NFILES; i++)
		pfelf_close(h[i]);
	assert_int_equal(count_fds(), before);
}

static void test_ref_pins_descriptor(void **state)
{
	pfelf_file *h[NFILES];
	open_all(h);
	pfelf_ref ref;
	assert_int_equal(pfelf_get_ref(h[0], 0, 64, &ref), 0);
	assert_null(ref.ptr);
	/* use every other handle: h[0]'s descriptor must not be parked */
	uint8_t b[64];
	for (int i = 1; i < NFILES; i++)
		assert_int_equal(pfelf_read(h[i], 0, b, sizeof(b)), (ssize_t)sizeof(b));
	assert_true(fcntl(ref.fd, F_GETFD) >= 0);
	assert_int_equal(pread(ref.fd, b, sizeof(b), (off_t)ref.pos), (ssize_t)sizeof(b));
	assert_memory_equal(b, orig, sizeof(b));
	pfelf_put_ref(h[0], &ref);
	assert_int_equal(ref.fd, -1);
	for (int i = 0; i < NFILES; i++)
		pfelf_close(h[i]);
}

static void test_replaced_file_is_eio(void **state)
{
	pfelf_file *h[NFILES];
	open_all(h);
	uint8_t b[64];
	/* park h[0] by using the others, then replace its file by rename */
	for (int i = 1; i < NFILES; i++)
		assert_int_equal(pfelf_read(h[i], 0, b, sizeof(b)), (ssize_t)sizeof(b));
	write_file("new", orig, orig_len);
	assert_int_equal(renameat(dirfd_, "new", dirfd_, "f00"), 0);
	assert_int_equal(pfelf_read(h[0], 0, b, sizeof(b)), -EIO);
	pfelf_ref ref;
	assert_int_equal(pfelf_get_ref(h[0], 0, 64, &ref), -EIO);
	for (int i = 0; i < NFILES; i++)
		pfelf_close(h[i]);
}

/* An mmap handle keeps a descriptor until its first zero-copy use maps the
 * file; PFELF_OPEN_REOPEN changes nothing for it. */
static void test_lazy_mmap_maps_on_first_use(void **state)
{
	pfelf_file *f;
	pfelf_registry_stats st0, st1;
	pfelf_registry_stats_get(&st0);
	int before = count_fds();
	assert_int_equal(pfelf_openat(dirfd_, "f01", PFELF_OPEN_REOPEN, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_MMAP);
	assert_int_equal(count_fds(), before + 1);
	assert_int_equal(pfelf_section_count(f), pfelf_header(f)->shnum);
	uint8_t b[64];
	assert_int_equal(pfelf_read(f, 0, b, sizeof(b)), (ssize_t)sizeof(b));
	pfelf_registry_stats_get(&st1);
	assert_int_equal(st1.mappings, st0.mappings); /* tables and reads: pread */
	pfelf_ref ref;
	assert_int_equal(pfelf_get_ref(f, 0, 16, &ref), 0);
	assert_non_null(ref.ptr);
	assert_int_equal(ref.fd, -1);
	assert_memory_equal(ref.ptr, orig, 16);
	pfelf_put_ref(f, &ref);
	pfelf_registry_stats_get(&st1);
	assert_int_equal(st1.mappings, st0.mappings + 1);
	assert_int_equal(count_fds(), before); /* mapped: descriptor closed */
	assert_int_equal(pfelf_read(f, 0, b, sizeof(b)), (ssize_t)sizeof(b));
	assert_memory_equal(b, orig, sizeof(b));
	pfelf_close(f);
	assert_int_equal(count_fds(), before);
}

/* Lazy mmap handles count in the budget: past it, the least recently used
 * ones are mapped and their descriptors closed; every byte stays right. */
static void test_lazy_mmap_within_budget(void **state)
{
	pfelf_file *h[NFILES];
	pfelf_registry_stats st0, st1;
	pfelf_registry_stats_get(&st0);
	int before = count_fds();
	for (int i = 0; i < NFILES; i++) {
		char name[32];
		snprintf(name, sizeof(name), "f%02d", i);
		assert_int_equal(pfelf_openat(dirfd_, name, 0, &h[i]), 0);
		assert_int_equal(pfelf_backend(h[i]), PFELF_BACKEND_MMAP);
		assert_true(count_fds() <= before + BUDGET);
	}
	pfelf_registry_stats_get(&st1);
	/* each file has its own identity (written apart): the older ones got mapped */
	assert_true(st1.mappings >= st0.mappings + NFILES - BUDGET);
	uint8_t *buf = malloc(orig_len);
	for (int i = 0; i < NFILES; i++) {
		memset(buf, 0, orig_len);
		assert_int_equal(pfelf_read(h[i], 0, buf, orig_len), (ssize_t)orig_len);
		assert_memory_equal(buf, orig, orig_len);
		assert_int_equal(pfelf_section_count(h[i]), pfelf_header(h[i])->shnum);
	}
	free(buf);
	for (int i = 0; i < NFILES; i++)
		pfelf_close(h[i]);
	assert_int_equal(count_fds(), before);
	pfelf_registry_stats_get(&st1);
	assert_int_equal(st1.mappings, st0.mappings);
}

/* Set the soft RLIMIT_NOFILE to n (the hard one stays); the old limits in *old. */
static void set_nofile(rlim_t n, struct rlimit *old)
{
	assert_int_equal(getrlimit(RLIMIT_NOFILE, old), 0);
	struct rlimit rl = {n, old->rlim_max};
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* The default budget is a quarter of the soft RLIMIT_NOFILE: under a limit
 * of 64, NFILES handles hold 16 descriptors, no more. */
static void test_budget_follows_rlimit(void **state)
{
	pfelf_file *h[NFILES];
	struct rlimit old;
	pfelf_set_fd_budget(0);
	int before = count_fds();
	set_nofile(64, &old);
	open_all(h);
	uint8_t *buf = malloc(orig_len);
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < NFILES; i++) {
			memset(buf, 0, orig_len);
			assert_int_equal(pfelf_read(h[i], 0, buf, orig_len), (ssize_t)orig_len);
			assert_memory_equal(buf, orig, orig_len);
		}
	}
	free(buf);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	int held = count_fds() - before;
	assert_true(held <= 64 / 4 && held >= 64 / 4 - 2); /* the budget, and used */
	for (int i = 0; i < NFILES; i++)
		pfelf_close(h[i]);
	pfelf_set_fd_budget(BUDGET);
}

/* The highest descriptor open now. */
static int max_fd(void)
{
	DIR *d = opendir("/proc/self/fd");
	int top = -1;
	struct dirent *e;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) > top && atoi(e->d_name) != dirfd(d))
			top = atoi(e->d_name);
	if (d)
		closedir(d);
	return top;
}

/*
 * Out of descriptors all the same (the caller holds all the others, the
 * budget is large): an open, and the reopens of parked handles, give back
 * the idle descriptors of the budget and go on; every byte stays right.
 */
static void test_emfile_gives_back(void **state)
{
	pfelf_file *h[NFILES], *extra = NULL;
	pfelf_set_fd_budget(1000);
	open_all(h);
	int nul = open("/dev/null", O_RDONLY | O_CLOEXEC);
	int top = max_fd(), fill[256], nfill = 0;
	for (int d; nfill < 256 && (d = fcntl(nul, F_DUPFD_CLOEXEC, 0)) >= 0;) {
		if (d > top) {
			close(d);
			break;
		}
		fill[nfill++] = d; /* every number up to top is taken */
	}
	struct rlimit old;
	set_nofile((rlim_t)top + 1, &old);
	assert_int_equal(fcntl(nul, F_DUPFD_CLOEXEC, 0), -1);
	assert_int_equal(errno, EMFILE);
	assert_int_equal(pfelf_openat(dirfd_, "f00", PFELF_OPEN_NOMMAP | PFELF_OPEN_REOPEN, &extra),
	                 0);
	uint8_t b[256];
	for (int i = 0; i < NFILES; i++) {
		memset(b, 0, sizeof(b));
		assert_int_equal(pfelf_read(h[i], 0, b, sizeof(b)), (ssize_t)sizeof(b));
		assert_memory_equal(b, orig, sizeof(b));
	}
	assert_int_equal(pfelf_read(extra, 0, b, sizeof(b)), (ssize_t)sizeof(b));
	assert_memory_equal(b, orig, sizeof(b));
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
	for (int i = 0; i < nfill; i++)
		close(fill[i]);
	close(nul);
	pfelf_close(extra);
	for (int i = 0; i < NFILES; i++)
		pfelf_close(h[i]);
	pfelf_set_fd_budget(BUDGET);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_budget_bounds_descriptors),
	        cmocka_unit_test(test_ref_pins_descriptor),
	        cmocka_unit_test(test_replaced_file_is_eio),
	        cmocka_unit_test(test_lazy_mmap_maps_on_first_use),
	        cmocka_unit_test(test_lazy_mmap_within_budget),
	        cmocka_unit_test(test_budget_follows_rlimit),
	        cmocka_unit_test(test_emfile_gives_back),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
