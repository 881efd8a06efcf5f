/*
 * Shared helpers of the pfelf unit tests: fixtures, the three backends,
 * temporary files, raw byte access for patching, kernel-mediated copies and
 * running external tools (readelf) as oracles.
 *
 * Every helper fails the current cmocka test (fail_msg) on an error of its
 * own, so tests never run on a half-prepared setup.
 */
#ifndef TB_BACKENDS_H
#define TB_BACKENDS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdbool.h>
#include <sys/types.h>
#include <cmocka.h>

#include <pfelf.h>

/* The backends a test runs against. */
enum tb_backend {
	TB_MMAP = 0,   /* pfelf_open, default flags */
	TB_PREAD = 1,  /* pfelf_open with PFELF_OPEN_NOMMAP */
	TB_MEMORY = 2, /* pfelf_open_memory of an exact-size heap copy */
};
#define TB_NBACKENDS 3

extern enum tb_backend tb_backend_states[TB_NBACKENDS];

/* One cmocka test case per backend, named "<test>/<backend>". */
/* clang-format off */
#define TB_BACKEND_TESTS(fn)                                                   \
	{#fn "/mmap", fn, NULL, NULL, &tb_backend_states[TB_MMAP]},            \
	{#fn "/pread", fn, NULL, NULL, &tb_backend_states[TB_PREAD]},          \
	{#fn "/memory", fn, NULL, NULL, &tb_backend_states[TB_MEMORY]}
/* clang-format on */

/* The backend of a test registered with TB_BACKEND_TESTS. */
#define TB_STATE_BACKEND(state) (*(enum tb_backend *)*(state))

/* Fail unless actual == expected; prints both with their errno names. */
#define assert_ret(actual, expected)                                                               \
	do {                                                                                       \
		long long a_ = (long long)(actual), e_ = (long long)(expected);                    \
		if (a_ != e_)                                                                      \
			fail_msg("%s = %lld (%s), expected %lld (%s)", #actual, a_,                \
			         tb_errname(a_), e_, tb_errname(e_));                              \
	} while (0)

/* An open handle and what the test needs to close it. */
struct tb_handle {
	pfelf_file *f;
	enum tb_backend backend;
	void *buf;  /* memory backend: the heap copy the handle reads */
	size_t len; /* its length */
};

const char *tb_backend_label(enum tb_backend b);
enum pfelf_backend tb_backend_expected(enum tb_backend b);
const char *tb_errname(long long ret);

/* Path of fixture name in $ELFFS_FIXTURES (fails the test when missing). */
/* dir/name as a string kept for the life of the process (one per distinct path). */
const char *tb_keep_path(const char *dir, const char *name);
const char *tb_fixture(const char *name);
/* The fixtures directory. */
const char *tb_fixtures_dir(void);
/*
 * The fixtures that MANIFEST lists, in its order: returns their number and
 * sets *names (and *kinds when not NULL) to arrays owned by the helper.
 */
size_t tb_manifest(const char *const **names, const char *const **kinds);
/* The kind MANIFEST gives fixture name, or NULL when it is not listed. */
const char *tb_fixture_kind(const char *name);
/* Call check(name, b) for every fixture MANIFEST lists, in its order. */
void tb_each_fixture(enum tb_backend b, void (*check)(const char *name, enum tb_backend b));

/* Open path with backend b; returns pfelf's result (h->f set on 0). */
int tb_open(const char *path, enum tb_backend b, struct tb_handle *h);
/* As tb_open, failing the test unless it returns 0. */
void tb_open_ok(const char *path, enum tb_backend b, struct tb_handle *h);
/*
 * Open the bytes with backend b: a temporary file (removed at once) for
 * mmap and pread, a heap copy for memory. Returns pfelf's result.
 */
int tb_open_bytes(const void *bytes, size_t len, enum tb_backend b, struct tb_handle *h);
void tb_close(struct tb_handle *h);

/* The whole file in a heap buffer of exactly *len bytes (free() it). */
void *tb_slurp(const char *path, size_t *len);
/* Plain pread oracle: fails the test unless all len bytes are read. */
void tb_pread_exact(const char *path, uint64_t off, void *buf, size_t len);
uint64_t tb_file_size(const char *path);

/* A private temporary directory for this process (removed at exit). */
const char *tb_tmpdir(void);
/* Write bytes to a new file in tb_tmpdir(); returns its malloc'd path. */
char *tb_write_tmp(const char *stem, const void *bytes, size_t len);
/* Copy a file to a new file in tb_tmpdir(); returns its malloc'd path. */
char *tb_copy_tmp(const char *stem, const char *src);

/*
 * Copy len bytes from ptr into out through the kernel (a pipe), so that a
 * page that is gone gives EFAULT instead of SIGBUS. Returns the number of
 * bytes copied before the first fault (len when all were readable).
 */
size_t tb_kernel_copy(const void *ptr, size_t len, void *out);

/* Run a shell command with LC_ALL=C; returns its stdout (malloc'd, NUL-ended). */
char *tb_run(const char *cmd, size_t *len);
/* A single-quoted shell word for s (malloc'd). */
char *tb_shell_quote(const char *s);

/* Raw field access for patching: size 1, 2, 4 or 8 bytes, big or little endian. */
uint64_t tb_get(const uint8_t *p, size_t size, bool be);
void tb_put(uint8_t *p, size_t size, bool be, uint64_t v);

/* xorshift64* PRNG; seed from tb_seed() (printed, and taken from $TB_SEED if set). */
uint64_t tb_rand(uint64_t *state);
uint64_t tb_seed(void);

/* Monotonic seconds. */
double tb_now(void);

#endif
