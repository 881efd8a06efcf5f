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
/* A dynamic symbol table found through DT_SYMTAB (no .dynsym section):
 * its entries and their index, hash and version tables lie in PT_LOADs;
 * 5 times the largest bounds them. */
#define LOAD_FACTOR 5

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
static const pfelf_shdr *in_file(const struct bview *v, uint32_t i)
{
	const pfelf_shdr *sh;
	if (pfelf_section(v->f, i, &sh) < 0 || sh->type == SHT_NOBITS ||
	    (sh->status & PFELF_ST_OUT_OF_FILE))
		return NULL;
	return sh;
}

/* pfelf's section table, its name table and by-name index, the program
 * header table. */
static uint64_t tables_cost(const struct bview *v)
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
 * their names and descriptors (at most the bytes of their regions: the
 * SHT_NOTE sections when there are some, else the PT_NOTE segments). */
static uint64_t notes_cost(const struct bview *v)
{
	uint64_t sec = 0, seg = 0;
	bool found = false;
	for (uint32_t i = 1; i < v->nsec; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(v->f, i, &sh) < 0 || sh->type != SHT_NOTE)
			continue;
		found = true;
		if (!(sh->status & PFELF_ST_OUT_OF_FILE))
			sec = sh->size < UINT64_MAX - sec ? sec + sh->size : UINT64_MAX;
	}
	for (uint32_t i = 0; !found && i < v->nseg; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(v->f, i, &ph) == 0 && ph->type == PT_NOTE &&
		    !(ph->status & PFELF_ST_OUT_OF_FILE))
			seg = ph->filesz < UINT64_MAX - seg ? seg + ph->filesz : UINT64_MAX;
	}
	uint64_t bytes = found ? sec : seg;
	int n = pfelf_note_count(v->f);
	return membudget_chunk(pfelf_cost_note_array(n > 0 ? (uint64_t)n : 0)) +
	       membudget_chunk(pfelf_cost_note_data(bytes));
}

uint64_t view_cost(const struct bview *v)
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

/* What the dynamic entries say (the ones pfelf reads: PT_DYNAMIC, else
 * the SHT_DYNAMIC section), read here without pfelf copying them. */
struct dyntags {
	uint64_t off, len; /* the entries' range (len 0: none) */
	uint64_t count;    /* entries before DT_NULL, at most DYN_ENTS */
	uint64_t strsz;    /* DT_STRSZ, when there is a DT_STRTAB; else 0 */
	bool symtab;       /* DT_SYMTAB */
	bool strtab;
};

#define DYN_ENTS 65536 /* pfelf looks at that many dynamic entries */

/* The range of the dynamic entries and the largest PT_LOAD's size. */
static void dyn_range(const struct bview *v, struct dyntags *t, uint64_t *load)
{
	*load = 0;
	for (uint32_t i = 0; i < v->nseg; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(v->f, i, &ph) < 0 || (ph->status & PFELF_ST_OUT_OF_FILE))
			continue;
		if (ph->type == PT_DYNAMIC && !t->len) {
			t->off = ph->offset;
			t->len = ph->filesz;
		} else if (ph->type == PT_LOAD && ph->filesz > *load) {
			*load = ph->filesz < v->fsize ? ph->filesz : v->fsize;
		}
	}
	for (uint32_t i = 1; !t->len && i < v->nsec; i++) {
		const pfelf_shdr *sh = in_file(v, i);
		if (sh && sh->type == SHT_DYNAMIC) {
			t->off = sh->offset;
			t->len = sh->size;
		}
	}
}

/* Note one entry; false at DT_NULL. */
static bool dyn_note(struct dyntags *t, uint64_t tag, uint64_t val)
{
	if (tag == DT_NULL)
		return false;
	t->count++;
	t->symtab |= tag == DT_SYMTAB;
	t->strtab |= tag == DT_STRTAB;
	if (tag == DT_STRSZ)
		t->strsz = val;
	return true;
}

static uint64_t word(const uint8_t *p, bool is64, bool msb)
{
	uint64_t v = 0;
	for (int i = 0; i < (is64 ? 8 : 4); i++)
		v |= (uint64_t)p[msb ? (is64 ? 7 : 3) - i : i] << (8 * i);
	return v;
}

/* Read the dynamic entries of v, 4 KiB at a time, into t. */
static void dyn_scan(const struct bview *v, struct dyntags *t)
{
	bool is64 = v->eh.elfclass == 2, msb = v->eh.data == 2;
	size_t esz = is64 ? 16 : 8;
	uint8_t buf[4096];
	uint64_t len = t->len < DYN_ENTS * esz ? t->len : DYN_ENTS * esz;
	for (uint64_t at = 0; at + esz <= len;) {
		size_t n = len - at < sizeof(buf) ? (size_t)(len - at) : sizeof(buf);
		n -= n % esz;
		if (pfelf_read(v->f, t->off + at, buf, n) != (ssize_t)n)
			return;
		for (size_t i = 0; i < n; i += esz)
			if (!dyn_note(t, word(buf + i, is64, msb),
			              word(buf + i + esz / 2, is64, msb)))
				return;
		at += n;
	}
	if (!t->strtab)
		t->strsz = 0;
}

/* What pfelf may copy through the dynamic entries: their decoded form, the
 * string table of DT_STRSZ, and without a .dynsym section the table of
 * DT_SYMTAB (its strings copied once more). */
static uint64_t dynamic_meta(const struct bview *v, bool has_dynsym)
{
	struct dyntags t = {0};
	uint64_t load;
	dyn_range(v, &t, &load);
	if (!t.len)
		return 0;
	dyn_scan(v, &t);
	uint64_t str = t.strsz < load ? t.strsz : load;
	uint64_t c =
	        membudget_chunk((t.count + 1) * 2 * sizeof(uint64_t)) + membudget_chunk(str + 1);
	if (!has_dynsym && t.symtab)
		c += load * LOAD_FACTOR + membudget_chunk(str + 1);
	return c;
}

uint64_t view_meta_cost(const struct bview *v)
{
	uint64_t c = META_FIXED;
	bool has_dynsym = false;
	for (uint32_t i = 1; i < v->nsec; i++) {
		const pfelf_shdr *sh = in_file(v, i);
		if (!sh)
			continue;
		has_dynsym |= sh->type == SHT_DYNSYM;
		c += pfelf_cost_section_tables(sh, v->eh.shstrndx);
	}
	return c + dynamic_meta(v, has_dynsym);
}
