/*
 * What a core view costs in the memory budget: its own allocations,
 * counted from what it holds, and pfelf's tables of its handle, bounded
 * from the section and program headers (pfelf's table costs, pfelf.h: the
 * tables are copies of the file's, plus their decoded forms and indexes).
 * Every figure is an upper bound, so that what the budget admits is never
 * less than what the daemon then holds.
 */
#include "view/view.h"
#include "base/membudget.h"

#include <string.h>
#include <elf.h>

#define KiB ((uint64_t)1 << 10)

/* struct pfelf_file, its metadata block and their mutexes, the view's
 * struct and its label: a fixed part of every core. */
#define FIXED_BYTES (4 * KiB)
/* The interpreter, debug links, the Go build info and the metadata block. */
#define META_FIXED (256 * KiB)

/* Slots of an open-addressing index of n names (pfelf's and the view's). */
static uint64_t index_slots(uint64_t n)
{
	uint64_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	return cap;
}

/* An array of n names and the names (made by naming.c: at most 12 bytes
 * over their length, for a "~<index>" added by realloc). */
static uint64_t names_cost(char *const *names, uint32_t n)
{
	if (!names)
		return 0;
	uint64_t c = membudget_chunk((uint64_t)n * sizeof(*names));
	for (uint32_t i = 0; i < n; i++)
		if (names[i])
			c += membudget_chunk(strlen(names[i]) + 12);
	return c;
}

/* The section header of index i of v in the file, or NULL. */
static const pfelf_shdr *in_file(const struct vcore *v, uint32_t i)
{
	const pfelf_shdr *sh;
	if (pfelf_section(v->f, i, &sh) < 0 || sh->type == SHT_NOBITS ||
	    (sh->status & PFELF_ST_OUT_OF_FILE))
		return NULL;
	return sh;
}

/* pfelf's section table, its name table and by-name index, the program
 * header table. */
static uint64_t tables_cost(const struct vcore *v)
{
	uint64_t c = 0;
	if (v->nsec) {
		c += membudget_chunk((uint64_t)v->nsec * sizeof(pfelf_shdr));
		c += membudget_chunk(index_slots(v->nsec) * sizeof(uint32_t));
		const pfelf_shdr *sh = in_file(v, v->eh.shstrndx);
		uint64_t names = sh ? pfelf_cost_name_table(sh->size) : 0;
		if (names)
			c += membudget_chunk(names);
	}
	return c + membudget_chunk((uint64_t)v->nseg * sizeof(pfelf_phdr));
}

/* pfelf's notes, which the build id has read at parse: their array, and
 * their names and descriptors. */
static uint64_t notes_cost(const struct vcore *v)
{
	pfelf_notes_cost n;
	if (pfelf_cost_notes(v->f, &n) < 0)
		return 0;
	return membudget_chunk(n.array) + membudget_chunk(n.data);
}

uint64_t view_cost(const struct vcore *v)
{
	uint64_t c =
	        FIXED_BYTES + names_cost(v->secname, v->nsec) + names_cost(v->segname, v->nseg);
	if (v->secindex.slot)
		c += membudget_chunk(nameset_bytes(v->nsec));
	if (v->buildid)
		c += membudget_chunk(v->buildid_len + 1);
	if (v->comp)
		c += membudget_chunk(((uint64_t)v->ncomp + 64) * sizeof(*v->comp));
	return c + tables_cost(v) + notes_cost(v);
}

/* What pfelf may copy through the dynamic entries (pfelf_cost_dynamic):
 * their decoded form, the dynamic string table, and without a .dynsym
 * section the table of DT_SYMTAB and its strings. */
static uint64_t dynamic_meta(const struct vcore *v)
{
	pfelf_dynamic_cost d;
	if (pfelf_cost_dynamic(v->f, &d) < 0 || !d.entries)
		return 0;
	uint64_t c = membudget_chunk(d.entries) + membudget_chunk(d.strings);
	if (d.symbol_strings)
		c += d.symbols + membudget_chunk(d.symbol_strings);
	return c;
}

uint64_t view_meta_cost(const struct vcore *v)
{
	uint64_t c = META_FIXED;
	for (uint32_t i = 1; i < v->nsec; i++) {
		const pfelf_shdr *sh = in_file(v, i);
		if (sh)
			c += pfelf_cost_section_tables(sh, v->eh.shstrndx);
	}
	return c + dynamic_meta(v);
}
