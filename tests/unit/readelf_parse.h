/*
 * The readelf oracle: runs `readelf -SW -lW` (binutils, LC_ALL=C) and parses
 * its section and program header tables, so tests compare pfelf with what
 * binutils prints, never with pfelf itself.
 */
#ifndef TB_READELF_PARSE_H
#define TB_READELF_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct re_section {
	uint32_t index;
	char *name; /* malloc'd */
	char type[48];
	char flags[32];
	uint64_t addr, off, size, es, al;
	uint32_t lk, inf;
};

struct re_segment {
	char type[16]; /* readelf prints at most 14 characters */
	char flags[4]; /* the letters among R, W, E that are set */
	uint64_t off, vaddr, paddr, filesz, memsz, align;
};

struct re_file {
	char *path;
	bool saw_sections; /* a "Section Headers:" table was printed */
	bool saw_segments; /* a "Program Headers:" table was printed */
	bool no_sections;  /* "There are no sections in this file." */
	bool no_segments;  /* "There are no program headers in this file." */
	size_t nsec, capsec;
	struct re_section *sec;
	size_t nseg, capseg;
	struct re_segment *seg;
	unsigned bad_lines; /* table lines that did not parse */
};

typedef void (*re_file_cb)(const struct re_file *rf, void *arg);

/*
 * Run readelf -SW -lW over the n paths (several files per readelf run) and
 * call cb once per file, in order. Returns the number of files reported.
 */
size_t re_walk(const char *const *paths, size_t n, re_file_cb cb, void *arg);

/* Parse one file into *out (re_file_free it); fails the test if readelf printed nothing. */
void re_load(const char *path, struct re_file *out);
void re_file_free(struct re_file *rf);

/* The lowest index of a section named name, or -1. */
long re_find_section(const struct re_file *rf, const char *name);

/*
 * For each rf->sec[i], the lowest index of a section with the same name
 * (a malloc'd array of rf->nsec entries; O(n log n) for big tables).
 */
uint32_t *re_lowest_by_name(const struct re_file *rf);

#endif
