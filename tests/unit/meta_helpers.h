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

/*
 * A walk of readelf's output over every ELF fixture then every ELF file
 * under a directory of the machine, comparing pfelf with it file by file.
 * A test's own walk embeds this as its first member and adds what it
 * compares; what it counts in each file are counters it names with an
 * enum (at most TB_WALK_COUNTS), which its floors (struct tb_floor) check.
 *
 * The walk lives in cmocka setup/teardown state (the setup callocs the
 * test's walk, the teardown is tb_walk_teardown or ends with it): what it
 * holds stays reachable when a check fails the test mid-walk, and the
 * teardown frees it, so nothing leaks.
 */
#define TB_WALK_COUNTS 8

struct tb_walk {
	struct tb_paths list; /* the files given to readelf, in its order */
	size_t fixtures;      /* the first ones of list are the fixtures */
	size_t ncounts;       /* counters per file */
	unsigned long *per;   /* ncounts counters per file of list */
	struct tb_handle h;   /* the file being compared, while open */
	bool open;
	char *path;     /* its path */
	unsigned files; /* files started: the current one is files - 1 */
};

/*
 * Fill w->list with tb_fixture_elf_list then tb_elf_list(dir), give each
 * file ncounts counters at 0, and hand every line of `readelf <opts>` over
 * the list to fn(line, arg) (see tb_readelf_lines). The test then ends its
 * last file itself.
 */
void tb_walk_readelf(struct tb_walk *w, const char *dir, size_t ncounts, const char *opts,
                     void (*fn)(char *line, void *arg), void *arg);
/*
 * readelf printed "File: <path>": fail unless path is the next file of the
 * list, then open it with the next backend in turn (the test ends the
 * previous file first).
 */
void tb_walk_open(struct tb_walk *w, const char *path);
/* Close the file being compared (the test checks what it holds first). */
void tb_walk_close(struct tb_walk *w);
/* Add one to counter c of the file being compared. */
void tb_walk_count(struct tb_walk *w, unsigned c);
/* The sums of each counter over the fixtures, into sum[w->ncounts]. */
void tb_walk_fixture_sum(const struct tb_walk *w, unsigned long *sum);

/* Where the fixture of a floor is. */
enum tb_fixture_dir {
	TB_FIXTURE,       /* $ELFFS_FIXTURES (tb_fixture) */
	TB_META,          /* $ELFFS_META_FIXTURES (tb_meta_fixture) */
	TB_META_IF_BUILT, /* there, made only where its tool was (go): no floor when missing */
};

/* What a walk must have counted in a fixture, by the way it is made. */
struct tb_floor {
	const char *name;
	enum tb_fixture_dir dir;
	unsigned long need[TB_WALK_COUNTS]; /* at least this much of each counter */
};

/*
 * Check the n floors of floor: each fixture is one of the walk's fixtures,
 * and each of its counters c is at least need[c]; else fail with
 * "<path>: compared <got> <label[0]>, <got> <label[1]>, ...; the fixture
 * has at least <need>, <need>, ...".
 */
void tb_walk_floors(const struct tb_walk *w, const struct tb_floor *floor, size_t n,
                    const char *const *label);

/* Free what the walk and readelf's run hold, mid-walk too (not w itself). */
void tb_walk_free(struct tb_walk *w);
/*
 * A cmocka teardown: *state is a malloc'd walk whose first member is a
 * struct tb_walk; tb_walk_free it, then free it.
 */
int tb_walk_teardown(void **state);

/* File offset and size of the section name of path, as readelf -SW prints them. */
void tb_section_range(const char *path, const char *name, uint64_t *off, uint64_t *size);

/* The whole file, NUL-terminated after its *len bytes (free() it). */
char *tb_slurp_text(const char *path, size_t *len);

#endif
