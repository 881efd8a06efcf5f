/*
 * Symbols in the walk: both tables, every entry (decoded fields consistent
 * with the raw ones), the name functions, and the three lookups (by name
 * through the sorted index, by name through the hash tables, by address)
 * checked for what they promise: the symbol found has the name asked, is
 * defined where that is promised, and contains the address asked.
 */
#include "walk.h"

#include <errno.h>
#include <string.h>

#define ABSENT_SYMBOL "\x01no such symbol"

/* Whether name, with its terminating NUL, occurs in the input. */
static bool in_input(const struct walk *w, const char *name)
{
	return memmem(w->data, w->size, name, strlen(name) + 1) != NULL;
}

#define MAX_SYMS    4096 /* entries walked per table */
#define MAX_LOOKUPS 256  /* entries looked up by name and address per table */

#define STT_SECTION 3
#define SHN_XINDEX  0xffff

static bool err_of_table(int ret)
{
	return ret == -EINVAL;
}

static void check_decoded(const pfelf_sym *s, uint32_t i, enum pfelf_symtab_kind t)
{
	WALK_CHECK(s->index == i && s->name != NULL);
	WALK_CHECK(s->type == (s->info & 0xf) && s->bind == (s->info >> 4));
	WALK_CHECK(s->visibility == (s->other & 3));
	WALK_CHECK((s->status & ~(uint32_t)(PFELF_SYM_BAD_NAME | PFELF_SYM_BAD_SHNDX)) == 0);
	if (s->status & PFELF_SYM_BAD_NAME)
		WALK_CHECK(s->name[0] == '\0');
	if (s->raw_shndx != SHN_XINDEX)
		WALK_CHECK(s->shndx == s->raw_shndx);
	WALK_CHECK(s->ver_kind <= PFELF_VER_BAD);
	bool named = s->ver_kind >= PFELF_VER_DEFAULT && s->ver_kind <= PFELF_VER_NEEDED;
	WALK_CHECK(named ? s->version != NULL : s->version == NULL);
	if (t == PFELF_SYMTAB)
		WALK_CHECK(s->ver_kind == PFELF_VER_NONE && s->versym == 0);
}

/* readelf's Name column: the name (or the section's for a section symbol
 * without one) and a version suffix; a cut string when too long. */
static void check_display(struct walk *w, const pfelf_sym *s)
{
	char buf[256];
	int n = pfelf_symbol_display_name(w->f, s, buf, sizeof(buf));
	walk_mix(w, (uint64_t)(int64_t)n);
	if (n == -ENOSPC) {
		WALK_CHECK(strlen(buf) == sizeof(buf) - 1);
		return;
	}
	WALK_CHECK(n >= 0 && (size_t)n == strlen(buf));
	if (!(s->type == STT_SECTION && s->name_off == 0))
		WALK_CHECK(strncmp(buf, s->name, strlen(s->name)) == 0);
	walk_mix_str(w, buf);
	if (n > 0) {
		char cut[256];
		WALK_CHECK(pfelf_symbol_display_name(w->f, s, cut, (size_t)n) == -ENOSPC);
		WALK_CHECK(strlen(cut) == (size_t)n - 1 && memcmp(cut, buf, (size_t)n - 1) == 0);
	}
}

/* Defined in a real section, with a size, of a type the address index holds. */
static bool address_indexed(const pfelf_sym *s)
{
	bool type = s->type <= 2 || s->type == 5 || s->type == 10;
	return type && s->size > 0 && s->raw_shndx >= 1 && s->raw_shndx < 0xff00;
}

static void check_lookups(struct walk *w, enum pfelf_symtab_kind t, const pfelf_sym *s)
{
	pfelf_sym r;
	/* Lookups by name match without any "@VER": leave such names out. */
	if (!(s->status & PFELF_SYM_BAD_NAME) && s->name[0] && !strchr(s->name, '@')) {
		int ret = pfelf_symbol_find(w->f, t, s->name, &r);
		WALK_CHECK(ret == 0 && strcmp(r.name, s->name) == 0);
		walk_mix(w, r.index);
		/* The hash lookup of a known-bad GNU hash shift is UB: skipped
		 * while that fix is pending. */
		if (t == PFELF_DYNSYM && !walk_known_bug("gnu-hash-shift")) {
			ret = pfelf_symbol_lookup(w->f, s->name, &r);
			WALK_CHECK(ret == 0 || ret == -ENOENT || ret == -ENODATA || ret == -EINVAL);
			if (ret == 0)
				WALK_CHECK(strcmp(r.name, s->name) == 0 && r.shndx != 0);
			walk_mix(w, ret == 0 ? r.index : (uint64_t)(int64_t)ret);
		}
	}
	int ret = pfelf_symbol_at(w->f, t, s->value, &r);
	WALK_CHECK(ret == 0 || ret == -ENOENT);
	bool top = s->size > UINT64_MAX - s->value; /* [value, value+size) reaches 2^64 */
	if (address_indexed(s) && !(top && walk_known_bug("symat-top")))
		WALK_CHECK(ret == 0);
	if (ret == 0)
		WALK_CHECK(r.value <= s->value && s->value - r.value < r.size);
	walk_mix(w, ret == 0 ? r.index : (uint64_t)(int64_t)ret);
}

static void walk_table(struct walk *w, enum pfelf_symtab_kind t)
{
	int n = pfelf_symbol_count(w->f, t);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || err_of_table(n));
	WALK_CHECK(pfelf_symbol_count(w->f, t) == n);
	int sec = pfelf_symbol_table_section(w->f, t);
	walk_mix(w, (uint64_t)(int64_t)sec);
	pfelf_sym s;
	if (n < 0) {
		WALK_CHECK(sec == n && pfelf_symbol(w->f, t, 0, &s) == n);
		return;
	}
	WALK_CHECK(sec >= 0 || sec == -ENOENT);
	if (sec > 0)
		WALK_CHECK(sec < pfelf_section_count(w->f));
	uint32_t lim = (uint32_t)n < MAX_SYMS ? (uint32_t)n : MAX_SYMS;
	for (uint32_t i = 0; i < lim; i++) {
		WALK_CHECK(pfelf_symbol(w->f, t, i, &s) == 0);
		check_decoded(&s, i, t);
		walk_mix(w, s.value ^ s.size ^ ((uint64_t)s.info << 8) ^ s.shndx);
		walk_mix_str(w, s.name);
		if (s.version)
			walk_mix_str(w, s.version);
		walk_names_symbol(w, &s);
		check_display(w, &s);
		if (i < MAX_LOOKUPS)
			check_lookups(w, t, &s);
	}
	WALK_CHECK(pfelf_symbol(w->f, t, (uint32_t)n, &s) == -ENOENT);
	/* A name the file does not hold (the fuzzer may well write it in) */
	int ret = pfelf_symbol_find(w->f, t, ABSENT_SYMBOL, &s);
	if (ret == 0)
		WALK_CHECK(in_input(w, ABSENT_SYMBOL) && strcmp(s.name, ABSENT_SYMBOL) == 0);
	else
		WALK_CHECK(ret == -ENOENT);
}

void walk_symbols(struct walk *w)
{
	pfelf_sym s;
	WALK_CHECK(pfelf_symbol_count(w->f, (enum pfelf_symtab_kind)7) == -EINVAL);
	walk_table(w, PFELF_SYMTAB);
	walk_table(w, PFELF_DYNSYM);
	if (walk_known_bug("gnu-hash-shift"))
		return;
	int ret = pfelf_symbol_lookup(w->f, ABSENT_SYMBOL, &s);
	if (ret == 0)
		WALK_CHECK(in_input(w, ABSENT_SYMBOL) && strcmp(s.name, ABSENT_SYMBOL) == 0);
	else
		WALK_CHECK(ret == -ENOENT || ret == -ENODATA || ret == -EINVAL);
}
