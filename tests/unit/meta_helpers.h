/*
 * Helpers of the pfelf metadata tests (symbols, notes, dynamic, Go,
 * compression): their fixtures in $ELFFS_META_FIXTURES, lists of ELF
 * files, readelf run over such a list, a section's range by readelf.
 *
 * Like backends.h, every helper fails the current cmocka test on an error
 * of its own.
 */
#ifndef TB_META_HELPERS_H
#define TB_META_HELPERS_H

#include "backends.h"

/*
 * Path of name in $ELFFS_META_FIXTURES, whether the file exists or not.
 * The path is in a per-thread buffer that the next call overwrites.
 */
const char *tb_meta_path(const char *name);
/* As tb_meta_path, failing the test unless the file is readable. */
const char *tb_meta_fixture(const char *name);
/* Whether the meta fixture name is readable (some need tools: go, gcore). */
bool tb_meta_has(const char *name);

/* A growing list of malloc'd paths; start from {0}, tb_paths_free it. */
struct tb_paths {
	char **v;
	size_t n, cap;
};

void tb_paths_add(struct tb_paths *p, const char *path);
void tb_paths_free(struct tb_paths *p);
/* The index of path in p, or -1. */
long tb_paths_find(const struct tb_paths *p, const char *path);
/* Add every regular file under dir that starts with the ELF magic. */
void tb_elf_list(struct tb_paths *p, const char *dir);
/*
 * Add every fixture $ELFFS_FIXTURES/MANIFEST lists and every ELF file
 * $ELFFS_META_FIXTURES/MANIFEST lists: the files a walk has whatever the
 * machine holds (floors of a walk are met by these alone).
 */
void tb_fixture_elf_list(struct tb_paths *p);

/*
 * Run `readelf <opts> -- <every path of p>` (LC_ALL=C, stderr dropped) and
 * hand each line of its output, without the final newline, to fn. Every
 * file of p gets its "File: <path>" line, in the order of p, however xargs
 * cuts the list.
 *
 * What a run holds while fn runs (the pipe, the line buffer, the list file)
 * stays reachable: when fn fails the test (cmocka jumps out of it), the
 * next run or tb_readelf_release() frees it, so nothing leaks.
 */
void tb_readelf_lines(const struct tb_paths *p, const char *opts, void (*fn)(char *line, void *arg),
                      void *arg);
/* Free what a run of tb_readelf_lines left behind (a no-op after a complete run). */
void tb_readelf_release(void);

/* File offset and size of the section name of path, as readelf -SW prints them. */
void tb_section_range(const char *path, const char *name, uint64_t *off, uint64_t *size);

/* The whole file, NUL-terminated after its *len bytes (free() it). */
char *tb_slurp_text(const char *path, size_t *len);

#endif
