/*
 * LLVMFuzzerCustomMutator for fuzz_structure: when the input is an ELF
 * file, apply one to three structural mutations (header fields, section and
 * program header entries, extended numbering, string-table bytes, entry
 * copies, truncation at a structure's edge, growth, and section contents:
 * symbols, dynamic entries, note headers, any word; see mutate_meta.c);
 * otherwise, and now and then anyway, fall back to libFuzzer's byte-level
 * LLVMFuzzerMutate.
 */
#include "fuzz.h"
#include "mutate.h"

#include <string.h>

/* Every field of the ELF header worth changing, e_ident bytes included. */
static const struct field ehdr_fields[] = {
        {4, 1, 4, 1},   /* EI_CLASS */
        {5, 1, 5, 1},   /* EI_DATA */
        {6, 1, 6, 1},   /* EI_VERSION */
        {7, 1, 7, 1},   /* EI_OSABI */
        {16, 2, 16, 2}, /* e_type */
        {18, 2, 18, 2}, /* e_machine */
        {20, 4, 20, 4}, /* e_version */
        {24, 4, 24, 8}, /* e_entry */
        {28, 4, 32, 8}, /* e_phoff */
        {32, 4, 40, 8}, /* e_shoff */
        {36, 4, 48, 4}, /* e_flags */
        {40, 2, 52, 2}, /* e_ehsize */
        {42, 2, 54, 2}, /* e_phentsize */
        {44, 2, 56, 2}, /* e_phnum */
        {46, 2, 58, 2}, /* e_shentsize */
        {48, 2, 60, 2}, /* e_shnum */
        {50, 2, 62, 2}, /* e_shstrndx */
};

static const struct field shdr_fields[] = {
        {0, 4, 0, 4},   /* sh_name */
        {4, 4, 4, 4},   /* sh_type */
        {8, 4, 8, 8},   /* sh_flags */
        {12, 4, 16, 8}, /* sh_addr */
        {16, 4, 24, 8}, /* sh_offset */
        {20, 4, 32, 8}, /* sh_size */
        {24, 4, 40, 4}, /* sh_link */
        {28, 4, 44, 4}, /* sh_info */
        {32, 4, 48, 8}, /* sh_addralign */
        {36, 4, 56, 8}, /* sh_entsize */
};

static const struct field phdr_fields[] = {
        {0, 4, 0, 4},   /* p_type */
        {24, 4, 4, 4},  /* p_flags */
        {4, 4, 8, 8},   /* p_offset */
        {8, 4, 16, 8},  /* p_vaddr */
        {12, 4, 24, 8}, /* p_paddr */
        {16, 4, 32, 8}, /* p_filesz */
        {20, 4, 40, 8}, /* p_memsz */
        {28, 4, 48, 8}, /* p_align */
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void set_interesting(struct rng *r, struct elfbuf *e, uint64_t base, const struct field *f)
{
	uint64_t cur = eb_field(e, base, f);
	eb_set_field(e, base, f, interesting(r, e, cur, field_width(e, f)));
}

static void mut_header(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	set_interesting(r, e, 0, &ehdr_fields[rng_below(r, NELEM(ehdr_fields))]);
}

static void mut_shdr(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	if (t->shnum == 0) {
		mut_header(r, e, t);
		return;
	}
	uint64_t base = t->shoff + rng_below(r, t->shnum) * t->shentsize;
	const struct field *f = &shdr_fields[rng_below(r, NELEM(shdr_fields))];
	if (f == &shdr_fields[5] && rng_below(r, 2)) {
		/* sh_size that ends just before, at or after the end of the file */
		uint64_t off = eb_field(e, base, &S_OFFSET);
		eb_set_field(e, base, f, e->size - off + rng_below(r, 3) - 1);
		return;
	}
	set_interesting(r, e, base, f);
}

static void mut_phdr(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	if (t->phnum == 0) {
		mut_header(r, e, t);
		return;
	}
	uint64_t base = t->phoff + rng_below(r, t->phnum) * t->phentsize;
	set_interesting(r, e, base, &phdr_fields[rng_below(r, NELEM(phdr_fields))]);
}

/* Turn on extended numbering, with the real count in section 0 (or near it). */
static void mut_extnum(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	if (t->shnum == 0) {
		mut_header(r, e, t);
		return;
	}
	uint64_t delta = rng_below(r, 4) == 0 ? rng_below(r, 3) - 1 : 0;
	switch (rng_below(r, 3)) {
	case 0:
		eb_set_field(e, t->shoff, &S_SIZE, eb_field(e, 0, &F_SHNUM) + delta);
		eb_set_field(e, 0, &F_SHNUM, 0);
		break;
	case 1:
		eb_set_field(e, t->shoff, &S_LINK, eb_field(e, 0, &F_SHSTRNDX) + delta);
		eb_set_field(e, 0, &F_SHSTRNDX, 0xffff);
		break;
	default:
		eb_set_field(e, t->shoff, &S_INFO, eb_field(e, 0, &F_PHNUM) + delta);
		eb_set_field(e, 0, &F_PHNUM, 0xffff);
		break;
	}
}

/* A byte of a string table (the section name table most of the time). */
static void mut_strtab(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	if (t->shnum == 0) {
		mut_header(r, e, t);
		return;
	}
	uint64_t i = eb_field(e, 0, &F_SHSTRNDX);
	if (i == 0xffff)
		i = eb_field(e, t->shoff, &S_LINK);
	if (i >= t->shnum || rng_below(r, 4) == 0)
		i = rng_below(r, t->shnum);
	uint64_t base = t->shoff + i * t->shentsize;
	uint64_t off = eb_field(e, base, &S_OFFSET), len = eb_field(e, base, &S_SIZE);
	if (off >= e->size || len == 0)
		return;
	if (len > e->size - off)
		len = e->size - off;
	static const uint8_t bytes[] = {0, 'A', '/', '.', 0xff, '~'};
	uint64_t at = rng_below(r, 3) == 0 ? off + len - 1 : off + rng_below(r, len);
	e->d[at] = bytes[rng_below(r, sizeof(bytes))];
	if (rng_below(r, 3) == 0) /* and point a section's name at it */
		eb_set_field(e, t->shoff + rng_below(r, t->shnum) * t->shentsize, &S_NAME,
		             at - off);
}

/* Copy one table entry over another (duplicate names, overlapping loads). */
static void mut_copy_entry(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	bool sh = t->phnum < 2 || (t->shnum >= 2 && rng_below(r, 2));
	uint64_t off = sh ? t->shoff : t->phoff, esz = sh ? t->shentsize : t->phentsize;
	uint64_t n = sh ? t->shnum : t->phnum;
	if (n < 2) {
		mut_header(r, e, t);
		return;
	}
	uint64_t a = rng_below(r, n), b = rng_below(r, n);
	memmove(e->d + off + b * esz, e->d + off + a * esz, esz);
}

/* Cut the file at the edge of a structure (a table, a section), ±1. */
static void mut_truncate(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	uint64_t at;
	switch (rng_below(r, 4)) {
	case 0:
		at = t->shoff + rng_below(r, t->shnum + 1) * t->shentsize;
		break;
	case 1:
		at = t->phoff + rng_below(r, t->phnum + 1) * t->phentsize;
		break;
	case 2:
		at = t->shnum ? eb_field(e, t->shoff + rng_below(r, t->shnum) * t->shentsize,
		                         &S_OFFSET)
		              : e->size / 2;
		break;
	default:
		at = rng_below(r, e->size);
		break;
	}
	at += rng_below(r, 3) - 1;
	if (at < e->size)
		e->size = at;
}

/* Grow the file with zeros or a copy of its own start. */
static void mut_grow(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	if (e->size >= e->max) {
		mut_truncate(r, e, t);
		return;
	}
	size_t add = (size_t)rng_below(r, e->max - e->size) + 1;
	if (add > 4096)
		add = 4096;
	if (rng_below(r, 2) && add <= e->size)
		memcpy(e->d + e->size, e->d, add);
	else
		memset(e->d + e->size, 0, add);
	e->size += add;
}

typedef void (*mutation)(struct rng *, struct elfbuf *, const struct tables *);

static const mutation mutations[] = {
        mut_header,     mut_header,   mut_shdr,         mut_shdr,         mut_shdr,
        mut_phdr,       mut_phdr,     mut_extnum,       mut_strtab,       mut_strtab,
        mut_copy_entry, mut_truncate, mut_grow,         mut_symbol,       mut_symbol,
        mut_dynamic,    mut_note,     mut_section_word, mut_section_word,
};

/* Is the buffer an ELF file whose header the mutator can read? */
static bool elf_header(uint8_t *d, size_t size, size_t max, struct elfbuf *e)
{
	if (size < 52 || memcmp(d, "\177ELF", 4) != 0)
		return false;
	if ((d[4] != 1 && d[4] != 2) || (d[5] != 1 && d[5] != 2))
		return false;
	e->d = d;
	e->size = size;
	e->max = max;
	e->is64 = d[4] == 2;
	e->msb = d[5] == 2;
	return !e->is64 || size >= 64;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct rng r = {(uint64_t)seed * 0x9e3779b97f4a7c15ull + 1};
	struct elfbuf e;
	if (rng_below(&r, 8) == 0 || !elf_header(data, size, max_size, &e))
		return LLVMFuzzerMutate(data, size, max_size);
	unsigned n = 1 + (unsigned)rng_below(&r, 3);
	for (unsigned i = 0; i < n; i++) {
		struct tables t;
		find_tables(&e, &t);
		mutations[rng_below(&r, NELEM(mutations))](&r, &e, &t);
	}
	if (rng_below(&r, 8) == 0)
		return LLVMFuzzerMutate(data, e.size, max_size);
	return e.size;
}
