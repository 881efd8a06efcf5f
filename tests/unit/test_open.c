/*
 * Opening and closing (pfelf/open.c): pfelf_open, pfelf_openat,
 * pfelf_open_fd, pfelf_open_memory, pfelf_close, pfelf_backend,
 * pfelf_backend_name, pfelf_size, pfelf_get_identity (pfelf_identity_of,
 * pfelf_identity_equal), pfelf_is_elf_magic,
 * and the errors of opening what is not an ELF regular file.
 */
#include "backends.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Number of open descriptors of this process. */
static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the directory's own descriptor */
}

/* pfelf_identity_of gives the handle's identity id from stat result st, and
 * pfelf_identity_equal tells it from one that differs in any one field. */
static void check_identity_of(const pfelf_identity *id, const struct stat *st)
{
	pfelf_identity of, other;

	memset(&of, 0xa5, sizeof(of));
	pfelf_identity_of(st, &of);
	assert_memory_equal(&of, id, sizeof(of));
	assert_true(pfelf_identity_equal(&of, id));
	for (size_t field = 0; field < sizeof(other) / sizeof(uint64_t); field++) {
		uint64_t word;

		other = of;
		memcpy(&word, (char *)&other + field * sizeof(word), sizeof(word));
		word ^= 1;
		memcpy((char *)&other + field * sizeof(word), &word, sizeof(word));
		assert_false(pfelf_identity_equal(&of, &other));
		assert_false(pfelf_identity_equal(&other, &of));
	}
}

static void check_identity(pfelf_file *f, const char *path, enum tb_backend b)
{
	pfelf_identity id;
	struct stat st;

	memset(&id, 0xa5, sizeof(id));
	if (b == TB_MEMORY) {
		static const pfelf_identity zero;

		assert_ret(pfelf_get_identity(f, &id), -EINVAL);
		assert_memory_equal(&id, &zero, sizeof(id));
		return;
	}
	assert_ret(pfelf_get_identity(f, &id), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(id.dev, (uint64_t)st.st_dev);
	assert_int_equal(id.ino, (uint64_t)st.st_ino);
	assert_int_equal(id.size, (uint64_t)st.st_size);
	assert_int_equal(id.mtime_sec, st.st_mtim.tv_sec);
	assert_int_equal(id.mtime_nsec, st.st_mtim.tv_nsec);
	assert_int_equal(id.ctime_sec, st.st_ctim.tv_sec);
	assert_int_equal(id.ctime_nsec, st.st_ctim.tv_nsec);
	check_identity_of(&id, &st);
}

/* Every fixture opens with every backend; the basic accessors agree with stat and pread. */
static void test_open_fixtures(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *const *names;
	size_t n = tb_manifest(&names, NULL);

	for (size_t i = 0; i < n; i++) {
		const char *path = tb_fixture(names[i]);
		struct tb_handle h;
		uint8_t ident[16];
		const pfelf_ehdr *eh;

		tb_open_ok(path, b, &h);
		assert_int_equal(pfelf_backend(h.f), tb_backend_expected(b));
		assert_string_equal(pfelf_backend_name(pfelf_backend(h.f)), tb_backend_label(b));
		assert_int_equal(pfelf_size(h.f), tb_file_size(path));
		eh = pfelf_header(h.f);
		assert_non_null(eh);
		tb_pread_exact(path, 0, ident, sizeof(ident));
		assert_memory_equal(eh->ident, ident, sizeof(ident));
		check_identity(h.f, path, b);
		tb_close(&h);
	}
}

static void test_backend_names(void **state)
{
	assert_string_equal(pfelf_backend_name(PFELF_BACKEND_MMAP), "mmap");
	assert_string_equal(pfelf_backend_name(PFELF_BACKEND_PREAD), "pread");
	assert_string_equal(pfelf_backend_name(PFELF_BACKEND_MEMORY), "memory");
}

static void test_openat(void **state)
{
	int dirfd = open(tb_fixtures_dir(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rootfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	pfelf_file *f = NULL;
	uint8_t a[64], want[64];

	assert_true(dirfd >= 0 && rootfd >= 0);
	tb_pread_exact(tb_fixture("exec"), 0, want, sizeof(want));

	assert_ret(pfelf_openat(dirfd, "exec", 0, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_MMAP);
	assert_ret(pfelf_read(f, 0, a, sizeof(a)), sizeof(a));
	assert_memory_equal(a, want, sizeof(a));
	pfelf_close(f);

	assert_ret(pfelf_openat(dirfd, "exec", PFELF_OPEN_NOMMAP, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_PREAD);
	assert_ret(pfelf_read(f, 0, a, sizeof(a)), sizeof(a));
	assert_memory_equal(a, want, sizeof(a));
	pfelf_close(f);

	/* relative to another directory, the name means something else */
	f = (pfelf_file *)&f;
	assert_ret(pfelf_openat(rootfd, "exec", 0, &f), -ENOENT);
	assert_null(f);
	/* an absolute path ignores dirfd; AT_FDCWD works */
	assert_ret(pfelf_openat(rootfd, tb_fixture("pie"), 0, &f), 0);
	pfelf_close(f);
	assert_ret(pfelf_openat(AT_FDCWD, tb_fixture("pie"), PFELF_OPEN_NOMMAP, &f), 0);
	pfelf_close(f);
	close(dirfd);
	close(rootfd);
}

/* pfelf_open_fd neither takes nor closes fd, nor moves its offset. */
static void test_open_fd(void **state)
{
	const char *path = tb_fixture("exec");
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t size = tb_file_size(path);
	uint8_t *want = malloc(size), *got = malloc(size);
	pfelf_file *f = NULL;

	assert_true(fd >= 0);
	assert_non_null(want);
	assert_non_null(got);
	tb_pread_exact(path, 0, want, size);
	assert_int_equal(lseek(fd, 123, SEEK_SET), 123);

	assert_ret(pfelf_open_fd(fd, 0, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_MMAP);
	assert_int_equal(pfelf_size(f), size);
	assert_ret(pfelf_read(f, 0, got, size), (ssize_t)size);
	assert_memory_equal(got, want, size);
	pfelf_close(f);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 123);

	assert_ret(pfelf_open_fd(fd, PFELF_OPEN_NOMMAP, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_PREAD);
	/* the pread backend works on its own duplicate: closing ours is fine */
	assert_int_equal(close(fd), 0);
	memset(got, 0, size);
	assert_ret(pfelf_read(f, 0, got, size), (ssize_t)size);
	assert_memory_equal(got, want, size);
	pfelf_close(f);

	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_ret(pfelf_open_fd(fd, PFELF_OPEN_NOMMAP, &f), 0);
	pfelf_close(f);
	assert_true(fcntl(fd, F_GETFD) >= 0);
	assert_int_equal(lseek(fd, 0, SEEK_CUR), 0);
	close(fd);
	free(want);
	free(got);
}

static void test_open_memory(void **state)
{
	size_t len;
	uint8_t *buf = tb_slurp(tb_fixture("exec"), &len);
	static const char text[] = "#!/bin/sh\necho this is not an ELF file at all\n";
	pfelf_file *f = NULL;
	pfelf_ref ref;

	assert_ret(pfelf_open_memory(buf, len, 0, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_MEMORY);
	assert_int_equal(pfelf_size(f), len);
	assert_memory_equal(pfelf_header(f)->ident, buf, 16);
	/* zero-copy: references point into the caller's buffer */
	assert_ret(pfelf_get_ref(f, 100, 10, &ref), 0);
	assert_ptr_equal(ref.ptr, buf + 100);
	pfelf_close(f);
	/* flags are ignored */
	assert_ret(pfelf_open_memory(buf, len, PFELF_OPEN_NOMMAP | PFELF_OPEN_NOFOLLOW, &f), 0);
	assert_int_equal(pfelf_backend(f), PFELF_BACKEND_MEMORY);
	pfelf_close(f);

	f = (pfelf_file *)&f;
	assert_ret(pfelf_open_memory(text, sizeof(text), 0, &f), -ENOEXEC);
	assert_null(f);
	assert_ret(pfelf_open_memory(buf, 0, 0, &f), -ENOEXEC);
	assert_ret(pfelf_open_memory(buf, 3, 0, &f), -ENOEXEC);
	free(buf);
}

static void test_close_null(void **state)
{
	pfelf_close(NULL);
}

static void test_is_elf_magic(void **state)
{
	static const char text[] = "hello, world";
	uint8_t head[64];

	tb_pread_exact(tb_fixture("exec"), 0, head, sizeof(head));
	assert_int_equal(pfelf_is_elf_magic(head, sizeof(head)), 1);
	assert_int_equal(pfelf_is_elf_magic(head, 4), 1);
	assert_int_equal(pfelf_is_elf_magic(head, 3), 0);
	assert_int_equal(pfelf_is_elf_magic(head, 0), 0);
	assert_int_equal(pfelf_is_elf_magic(text, sizeof(text)), 0);
	for (int i = 0; i < 4; i++) {
		head[i] ^= 0x20;
		assert_int_equal(pfelf_is_elf_magic(head, sizeof(head)), 0);
		head[i] ^= 0x20;
	}
}

/* Opens of what is not an ELF regular file, with the mmap and pread flags. */
static void test_open_errors(void **state)
{
	static const char text[] = "This is a text file, long enough to hold an ELF header.\n"
	                           "It is not one: pfelf must say ENOEXEC.\n";
	const unsigned flagsets[2] = {0, PFELF_OPEN_NOMMAP};
	char *txt = tb_write_tmp("text", text, sizeof(text) - 1);
	char *empty = tb_write_tmp("empty", "", 0);
	char *tiny = tb_write_tmp("tiny", "\177EL", 3);
	char *link, *fifo;
	int fifofd, ret;

	assert_true(asprintf(&link, "%s/link-to-exec", tb_tmpdir()) > 0);
	assert_true(asprintf(&fifo, "%s/fifo", tb_tmpdir()) > 0);
	assert_int_equal(symlink(tb_fixture("exec"), link), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	alarm(20); /* a FIFO must never block an open: this kills a hang */

	for (int k = 0; k < 2; k++) {
		unsigned fl = flagsets[k];
		pfelf_file *f = (pfelf_file *)&f;

		assert_ret(pfelf_open("/nonexistent/pfelf/test", fl, &f), -ENOENT);
		assert_null(f);
		assert_ret(pfelf_open(txt, fl, &f), -ENOEXEC);
		assert_ret(pfelf_open(empty, fl, &f), -ENOEXEC);
		assert_ret(pfelf_open(tiny, fl, &f), -ENOEXEC);
		assert_ret(pfelf_open(tb_tmpdir(), fl, &f), -EISDIR);
		assert_ret(pfelf_open(fifo, fl, &f), -EINVAL);
		assert_ret(pfelf_open("/dev/null", fl, &f), -EINVAL);
		assert_ret(pfelf_open(link, fl | PFELF_OPEN_NOFOLLOW, &f), -ELOOP);
		assert_null(f);
		assert_ret(pfelf_open(link, fl, &f), 0);
		assert_non_null(f);
		assert_int_equal(pfelf_size(f), tb_file_size(tb_fixture("exec")));
		pfelf_close(f);

		fifofd = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		assert_true(fifofd >= 0);
		assert_ret(pfelf_open_fd(fifofd, fl, &f), -EINVAL);
		assert_true(fcntl(fifofd, F_GETFD) >= 0);
		close(fifofd);
		ret = pfelf_open_fd(-1, fl, &f); /* a bad descriptor: EBADF of fstat, or EINVAL */
		if (ret != -EBADF && ret != -EINVAL)
			fail_msg("pfelf_open_fd(-1) = %d (%s)", ret, tb_errname(ret));
	}
	alarm(0);
	unlink(link);
	unlink(fifo);
	unlink(txt);
	unlink(empty);
	unlink(tiny);
	free(link);
	free(fifo);
	free(txt);
	free(empty);
	free(tiny);
}

/* The mmap backend keeps a descriptor only until the file is mapped (the
 * first zero-copy use, or a handle of a file mapped already); the pread
 * backend keeps exactly one. */
static void test_descriptors(void **state)
{
	const char *path = tb_fixture("libshared.so");
	int before = count_fds();
	pfelf_file *f[8];
	pfelf_ref ref;

	for (int i = 0; i < 8; i++)
		assert_ret(pfelf_open(path, 0, &f[i]), 0);
	assert_int_equal(count_fds(), before + 8); /* not mapped yet */
	assert_ret(pfelf_get_ref(f[0], 0, 16, &ref), 0);
	assert_int_equal(count_fds(), before + 7);
	for (int i = 1; i < 8; i++) {
		pfelf_view v;
		assert_ret(pfelf_view_get(f[i], 0, 16, 0, &v), 0);
		assert_false(v.copied);
		pfelf_view_release(&v);
	}
	assert_int_equal(count_fds(), before);
	for (int i = 0; i < 8; i++)
		pfelf_close(f[i]);
	assert_ret(pfelf_open(path, 0, &f[0]), 0);
	assert_ret(pfelf_get_ref(f[0], 0, 16, &ref), 0);
	assert_ret(pfelf_open(path, 0, &f[1]), 0); /* finds the mapping */
	assert_int_equal(count_fds(), before);
	pfelf_close(f[1]);
	pfelf_close(f[0]);
	/* PFELF_OPEN_MAP_NOW: mapped at open, no descriptor kept */
	pfelf_registry_stats st0, st1;
	pfelf_registry_stats_get(&st0);
	for (int i = 0; i < 8; i++) {
		assert_ret(pfelf_open(path, PFELF_OPEN_MAP_NOW, &f[i]), 0);
		assert_int_equal(pfelf_backend(f[i]), PFELF_BACKEND_MMAP);
	}
	assert_int_equal(count_fds(), before);
	pfelf_registry_stats_get(&st1);
	assert_int_equal(st1.mappings, st0.mappings + 1);
	for (int i = 0; i < 8; i++)
		pfelf_close(f[i]);
	for (int i = 0; i < 8; i++)
		assert_ret(pfelf_open(path, PFELF_OPEN_NOMMAP, &f[i]), 0);
	assert_int_equal(count_fds(), before + 8);
	for (int i = 0; i < 8; i++)
		pfelf_close(f[i]);
	assert_int_equal(count_fds(), before);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_open_fixtures), cmocka_unit_test(test_backend_names),
	        cmocka_unit_test(test_openat),        cmocka_unit_test(test_open_fd),
	        cmocka_unit_test(test_open_memory),   cmocka_unit_test(test_close_null),
	        cmocka_unit_test(test_is_elf_magic),  cmocka_unit_test(test_open_errors),
	        cmocka_unit_test(test_descriptors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
