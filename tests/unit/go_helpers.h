/*
 * Helpers of the Go tests (test_go*.c): the fixtures of
 * tests/fixtures/go/mkgo.py ($ELFFS_GO_FIXTURES, its MANIFEST of "NAME KIND
 * TWIN" lines), the oracle program built there (Go's debug/gosym and
 * strconv), and the line of a function as the oracle prints it.
 */
#ifndef TG_GO_HELPERS_H
#define TG_GO_HELPERS_H

#include "backends.h"

#include <errno.h>

struct tg_fixture {
	const char *name;
	const char *kind; /* real, patched, synth, hostile */
	const char *twin; /* the files the oracle takes the text start from */
};

/* The Go fixtures, in MANIFEST's order (owned by the helper). Skips the
 * test when there are none: the machine has no go tool. */
size_t tg_fixtures(const struct tg_fixture **out);
/* The fixture of that name (fails the test when MANIFEST lacks it). */
const struct tg_fixture *tg_fixture(const char *name);
/* $ELFFS_GO_FIXTURES/name, kept for the process. */
const char *tg_path(const char *name);
/* A file of the fixtures directory, whole, NUL-ended (free it). */
char *tg_slurp(const char *name, size_t *len);
/* The oracle's output for "oracle ARGS" run in the fixtures directory,
 * with the bytes input on its standard input (may be NULL). */
char *tg_oracle(const char *args, const char *input, size_t inlen, size_t *len);
/* Address width of f as readelf prints addresses: 16 or 8 digits. */
int tg_width(pfelf_file *f);
/* A growing text. */
struct tg_text {
	char *p;
	size_t len, cap;
};
void tg_put(struct tg_text *t, const char *s, size_t n);
/* Append "<entry>\t<end>\t<name>\t<file>:<line>\n", as the oracle prints a
 * function and debug/gosym's PCToLine of its entry. */
void tg_func_line(struct tg_text *t, int width, const pfelf_go_func *fn, const pfelf_go_pos *pos);
/* Append "<pc>\t<name>\t<file>:<line>\n" (the oracle's lookup), or
 * "<pc>\t-\n" when fn is NULL. */
void tg_pc_line(struct tg_text *t, int width, uint64_t pc, const pfelf_go_func *fn,
                const char *file, int32_t line);
/* Fail the test at the first line where got and want differ. */
void tg_same_lines(const char *what, const char *got, const char *want);

#endif
