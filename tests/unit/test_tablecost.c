/*
 * pfelf's table costs (pfelf_cost_*, pfelf.h) against what pfelf really
 * allocates: on every fixture pfelf opens, the tables are loaded (section
 * names, notes, both symbol tables with their by-name index, hash and
 * version tables, the dynamic entries and strings, the symbols of
 * DT_SYMTAB of a file without sections) and each allocation's usable
 * size, as malloc reports it, must stay within the bound of the
 * allocation plus malloc's rounding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "backends.h"
#include "tables/tables_i.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

/* What malloc may give beyond the bytes asked for: its granule rounding
 * (up to 24 bytes), a chunk of one granule (16 bytes) more when the
 * chunk it reuses is too small to split (glibc splits only a remainder of
 * at least 32 bytes, so which it gives depends on the heap's history),
 * and a page for a block large enough to be mapped on its own. */
#define SLACK      40
#define PAGE_SLACK 4096
#define MAPPED_MIN (64 << 10)

static uint64_t usable(const void *p)
{
	return p ? (uint64_t)malloc_usable_size((void *)p) : 0;
}

/* The bound of section index i's tables (0 for none or out of the table). */
static uint64_t section_bound(pfelf_file *f, uint32_t i)
{
	const pfelf_shdr *sh;
	if (i == 0 || pfelf_section(f, i, &sh) < 0)
		return 0;
	return pfelf_cost_section_tables(sh, pfelf_header(f)->shstrndx);
}

/* got, the usable bytes of nalloc allocations, within bound plus rounding. */
static void within(const char *name, const char *what, uint64_t got, uint64_t bound,
                   unsigned nalloc)
{
	bound += nalloc * (SLACK + (bound >= MAPPED_MIN ? PAGE_SLACK : 0));
	if (got > bound)
		fail_msg("%s: %s: %llu bytes allocated, bound %llu", name, what,
		         (unsigned long long)got, (unsigned long long)bound);
}

/* The section of type whose tables were loaded (first of that type). */
static uint32_t first_of_type(pfelf_file *f, uint32_t type)
{
	int n = pfelf_section_count(f);
	for (int i = 1; i < n; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(f, (uint32_t)i, &sh) == 0 && sh->type == type)
			return (uint32_t)i;
	}
	return 0;
}

/* Notes: their array and data within their bounds. */
static unsigned check_notes(const char *name, pfelf_file *f)
{
	pfelf_notes_cost c;
	assert_int_equal(pfelf_cost_notes(f, &c), 0);
	if (pfelf_note_count(f) <= 0)
		return 0;
	const struct pfelf__notes *n = &f->tables->notes;
	within(name, "note array", usable(n->notes), c.array, 1);
	within(name, "note data", usable(n->data), c.data, 1);
	return 1;
}

/* A symbol table from its section: the copy and the by-name index within
 * the table's bound, the strings within their section's. */
static unsigned check_symbols(const char *name, pfelf_file *f, enum pfelf_symtab_kind k)
{
	pfelf_sym s;
	(void)pfelf_symbol_find(f, k, "main", &s); /* builds the by-name index */
	const struct pfelf__symtab *t = &f->tables->sym[k];
	if (!t->raw || t->section == 0)
		return 0;
	const pfelf_shdr *sh;
	assert_int_equal(pfelf_section(f, t->section, &sh), 0);
	within(name, "symbols and by-name index", usable(t->raw) + usable(t->byname),
	       section_bound(f, t->section), 2);
	within(name, "symbol names", usable(t->str), section_bound(f, sh->link), 1);
	return 1;
}

/* Hash and version tables of the dynamic symbols. */
static unsigned check_dynamic(const char *name, pfelf_file *f)
{
	pfelf_sym s;
	unsigned seen = 0;
	(void)pfelf_symbol_lookup(f, "main", &s);   /* loads the hash tables */
	(void)pfelf_symbol(f, PFELF_DYNSYM, 1, &s); /* and the versions */
	const struct pfelf__hash *h = &f->tables->hash;
	uint32_t gnu = first_of_type(f, SHT_GNU_HASH), sysv = first_of_type(f, SHT_HASH);
	if (h->has_gnu && gnu) {
		within(name, "GNU hash",
		       usable(h->gnu_bloom) + usable(h->gnu_buckets) + usable(h->gnu_chain),
		       section_bound(f, gnu), 3);
		seen++;
	}
	if (h->has_sysv && sysv)
		within(name, "SysV hash", usable(h->sysv_bucket) + usable(h->sysv_chain),
		       section_bound(f, sysv), 2);
	const struct pfelf__versions *v = &f->tables->ver;
	uint32_t vs = first_of_type(f, SHT_GNU_versym), vd = first_of_type(f, SHT_GNU_verdef),
	         vn = first_of_type(f, SHT_GNU_verneed);
	if (v->versym && vs)
		within(name, "versym", usable(v->versym), section_bound(f, vs), 1);
	if (v->defs && vd)
		within(name, "verdef", usable(v->defs), section_bound(f, vd), 1);
	if (v->needs && vn) {
		within(name, "verneed", usable(v->needs), section_bound(f, vn), 1);
		seen++;
	}
	return seen;
}

/* The dynamic entries, their strings and, without a .dynsym section, the
 * symbols of DT_SYMTAB with their index, hash and version tables. */
static unsigned check_dynamic_cost(const char *name, pfelf_file *f)
{
	pfelf_dynamic_cost c;
	assert_int_equal(pfelf_cost_dynamic(f, &c), 0);
	if (pfelf_dynamic_count(f) <= 0)
		return 0;
	const struct pfelf__dyn *d = &f->tables->dyn;
	within(name, "dynamic entries", usable(d->ents), c.entries, 1);
	uint32_t strsec = 0; /* the string table of a SHT_DYNAMIC section, when no DT_STRSZ */
	for (int i = 1; i < pfelf_section_count(f); i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(f, (uint32_t)i, &sh) == 0 && sh->type == SHT_DYNAMIC)
			strsec = sh->link;
	}
	uint64_t dynstr = section_bound(f, strsec);
	within(name, "dynamic strings", usable(d->str), c.strings > dynstr ? c.strings : dynstr, 1);
	if (first_of_type(f, SHT_DYNSYM))
		return 1;
	pfelf_sym s;
	(void)pfelf_symbol_find(f, PFELF_DYNSYM, "main", &s);
	(void)pfelf_symbol_lookup(f, "main", &s);
	(void)pfelf_symbol(f, PFELF_DYNSYM, 1, &s);
	const struct pfelf__symtab *t = &f->tables->sym[PFELF_DYNSYM];
	const struct pfelf__hash *h = &f->tables->hash;
	const struct pfelf__versions *v = &f->tables->ver;
	within(name, "DT_SYMTAB symbols and their tables",
	       usable(t->raw) + usable(t->byname) + usable(h->gnu_bloom) + usable(h->gnu_buckets) +
	               usable(h->gnu_chain) + usable(h->sysv_bucket) + usable(h->sysv_chain) +
	               usable(v->versym) + usable(v->defs) + usable(v->needs),
	       c.symbols, 10);
	within(name, "DT_SYMTAB strings", usable(t->str), c.symbol_strings, 1);
	return t->raw ? 10 : 1;
}

static void test_bounds_hold(void **state)
{
	(void)state;
	const char *const *names, *const *kinds;
	size_t n = tb_manifest(&names, &kinds);
	unsigned shstr = 0, notes = 0, syms = 0, dyn = 0, dyncost = 0;
	for (size_t i = 0; i < n; i++) {
		pfelf_file *f;
		if (pfelf_open(tb_fixture(names[i]), PFELF_OPEN_NOMMAP, &f) < 0)
			continue;
		if (pfelf_section_count(f) > 0 && f->shstr) {
			const pfelf_shdr *sh;
			assert_int_equal(pfelf_section(f, pfelf_header(f)->shstrndx, &sh), 0);
			within(names[i], "section names", usable(f->shstr),
			       pfelf_cost_name_table(sh->size), 1);
			shstr++;
		}
		notes += check_notes(names[i], f);
		syms += check_symbols(names[i], f, PFELF_SYMTAB);
		syms += check_symbols(names[i], f, PFELF_DYNSYM);
		dyn += check_dynamic(names[i], f);
		dyncost += check_dynamic_cost(names[i], f);
		pfelf_close(f);
	}
	/* what the fixtures hold: exec, pie and libshared.so have all of it */
	assert_true(shstr >= 8 && notes >= 3 && syms >= 6 && dyn >= 3);
	/* exec, pie, libshared.so; noshdr: its symbols through DT_SYMTAB */
	assert_true(dyncost >= 13);
}

/* The bounds themselves: the name table refused over 64 MiB, a string
 * table counted with its guard NUL, other sections cost nothing. */
static void test_bound_values(void **state)
{
	(void)state;
	assert_int_equal(pfelf_cost_name_table(1000), 1000);
	assert_int_equal(pfelf_cost_name_table(((uint64_t)64 << 20) + 1), 0);
	pfelf_shdr sh = {.type = SHT_PROGBITS, .size = 4096, .index = 3};
	assert_int_equal(pfelf_cost_section_tables(&sh, 1), 0);
	sh.type = SHT_STRTAB;
	assert_int_equal(pfelf_cost_section_tables(&sh, 3), 0);
	assert_int_equal(pfelf_cost_section_tables(&sh, 1), 4097);
	sh.type = SHT_DYNSYM;
	assert_true(pfelf_cost_section_tables(&sh, 1) >= 4096 + 4096 / 16 * 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_bounds_hold),
	        cmocka_unit_test(test_bound_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
