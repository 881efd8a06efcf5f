/*
 * The debug-file writer (pfelf_dbgw_*), its files parsed back by pfelf on
 * every backend: for the four classes and byte orders, a binary written
 * here (tb_synth) and the real fixtures (exec, pie, the s390x and armhf
 * libcs): the header's fields, the SHT_NOBITS copy of every SHF_ALLOC
 * section, the PT_LOADs without file bytes, the build-id note, one
 * STT_FUNC symbol per function (name, value, size, binding, the section of
 * its entry, locals first, each binding by address), names kept once in
 * .debug_str, NUL bytes written "^@". Then every -EINVAL, which leaves the
 * writer as it was, and the bound: -EFBIG below what a file needs, kept,
 * never more held than allowed; random calls, good and bad, under random
 * bounds. The lines and the tools: test_dbgw_lines.c and test_dbgw_tools.py.
 */
#include "backends.h"
#include "dbgw_helpers.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A function given to the writer and what pfelf must read back. */
struct fn {
	uint32_t unit;
	uint64_t lo, hi;
	const char *name;
	size_t namelen;
	unsigned flags;
	const char *shown;   /* its symbol's name */
	const char *section; /* the section of its symbol, NULL for SHN_ABS */
};

/* Out of address order; names repeated, with a NUL, blanks and a tab. */
static const struct fn fns[] = {
        {0, 0x401100, 0x401180, "main", 4, PFELF_DBGW_GLOBAL, "main", ".text"},
        {0, 0x401000, 0x401100, "helper", 6, PFELF_DBGW_LOCAL, "helper", ".text"},
        {1, 0x402000, 0x402040, "helper", 6, PFELF_DBGW_LOCAL, "helper", ".text"},
        {1, 0x401180, 0x4011c0, "weak\0fn", 7, PFELF_DBGW_WEAK, "weak^@fn", ".text"},
        {1, 0x406010, 0x406020, "in data", 7, PFELF_DBGW_LOCAL, "in data", ".data"},
        {1, 0x500000, 0x500010, "outside", 7, PFELF_DBGW_GLOBAL, "outside", NULL},
        {0, 0x401200, 0x401200, "empty", 5, PFELF_DBGW_GLOBAL, "empty", ".text"},
        {1, 0x403000, 0x403100, "type..eq.struct { a int; b\tstring }", 35, PFELF_DBGW_GLOBAL,
         "type..eq.struct { a int; b\tstring }", ".text"},
};
#define NFNS (sizeof(fns) / sizeof(fns[0]))

static void add_fns(pfelf_dbgw *w, const struct fn *f, size_t n)
{
	uint32_t id;
	assert_ret(pfelf_dbgw_unit(w, "unit zero", 9, PFELF_DW_LANG_C99, &id), 0);
	assert_ret(id, 0);
	assert_ret(pfelf_dbgw_unit(w, "unit\0one", 8, 0, &id), 0);
	assert_ret(pfelf_dbgw_file(w, 0, "/src/zero.c", 11, &id), 0);
	for (size_t i = 0; i < n; i++) {
		assert_ret(pfelf_dbgw_func(w, f[i].unit, f[i].lo, f[i].hi, f[i].name, f[i].namelen,
		                           f[i].flags),
		           0);
		if (f[i].unit == 0 && f[i].hi > f[i].lo)
			assert_ret(pfelf_dbgw_line(w, f[i].lo, 0, 10 + (uint32_t)i), 0);
	}
}

/* Write a debug file for the binary open in bin. */
static void *write_debug(pfelf_file *bin, const struct fn *f, size_t n, uint64_t *size)
{
	pfelf_dbgw *w;
	void *bytes;
	assert_ret(pfelf_dbgw_new(pfelf_header(bin), 64 << 20, &w), 0);
	assert_ret(pfelf_dbgw_copy_layout(w, bin), 0);
	add_fns(w, f, n);
	assert_ret(pfelf_dbgw_finish(w, &bytes, size), 0);
	assert_true(pfelf_dbgw_peak(w) <= 64 << 20);
	pfelf_dbgw_free(w);
	return bytes;
}

static const char *section_name(pfelf_file *f, uint32_t index)
{
	const char *name;
	if (index == SHN_ABS)
		return NULL;
	assert_ret(pfelf_section_name(f, index, &name), 0);
	return name;
}

/* A name of the writer's own sections. */
static bool own_name(const char *name)
{
	return !strcmp(name, ".symtab") || !strcmp(name, ".strtab") || !strcmp(name, ".shstrtab") ||
	       !strncmp(name, ".debug_", 7);
}

/* Every SHF_ALLOC section of bin has its copy in dbg: same name, flags (but
 * those a copy drops), address and size, in the same order; NOBITS but the
 * build-id note's. No other section of bin is there. */
static void check_copies(pfelf_file *bin, pfelf_file *dbg)
{
	int n = pfelf_section_count(bin), m = pfelf_section_count(dbg);
	uint32_t at = 1;
	assert_true(n > 0 && m > 0);
	for (uint32_t i = 1; i < (uint32_t)n; i++) {
		const pfelf_shdr *s, *d;
		assert_ret(pfelf_section(bin, i, &s), 0);
		if (!(s->flags & SHF_ALLOC)) {
			if (!own_name(s->name))
				assert_ret(pfelf_section_by_name(dbg, s->name, &d), -ENOENT);
			continue;
		}
		assert_ret(pfelf_section(dbg, at++, &d), 0);
		assert_string_equal(d->name, s->name);
		bool note = s->type == SHT_NOTE && !strcmp(s->name, ".note.gnu.build-id");
		assert_ret(d->type, note ? SHT_NOTE : SHT_NOBITS);
		assert_ret(d->flags, s->flags & ~(uint64_t)(SHF_INFO_LINK | SHF_LINK_ORDER |
		                                            SHF_GROUP | SHF_COMPRESSED));
		assert_ret(d->addr, s->addr);
		assert_ret(d->size, s->size);
		assert_ret(d->link, 0);
		assert_ret(d->info, 0);
	}
}

/* Its PT_LOADs, in order, without file bytes; a PT_NOTE of the note. */
static void check_segments(pfelf_file *bin, pfelf_file *dbg, uint64_t note_addr)
{
	int n = pfelf_segment_count(bin), m = pfelf_segment_count(dbg), at = 0;
	for (int i = 0; i < n; i++) {
		const pfelf_phdr *p, *d;
		assert_ret(pfelf_segment(bin, (uint32_t)i, &p), 0);
		if (p->type != PT_LOAD)
			continue;
		assert_ret(pfelf_segment(dbg, (uint32_t)at++, &d), 0);
		assert_ret(d->type, PT_LOAD);
		assert_ret(d->flags, p->flags);
		assert_ret(d->vaddr, p->vaddr);
		assert_ret(d->memsz, p->memsz);
		assert_ret(d->align, p->align);
		assert_ret(d->filesz, 0);
		if (p->align > 1 && !(p->align & (p->align - 1)) && d->offset)
			assert_ret(d->offset % p->align, d->vaddr % p->align);
	}
	if (note_addr) {
		const pfelf_phdr *d;
		assert_ret(pfelf_segment(dbg, (uint32_t)at++, &d), 0);
		assert_ret(d->type, PT_NOTE);
		assert_ret(d->vaddr, note_addr);
		assert_true(d->filesz > 0 && !(d->status & PFELF_ST_OUT_OF_FILE));
	}
	assert_ret(m, at);
}

/* The functions as symbols: locals then the others, each by address. */
static void check_symbols(pfelf_file *dbg, const struct fn *f, size_t n)
{
	int count = pfelf_symbol_count(dbg, PFELF_SYMTAB);
	const pfelf_shdr *symtab;
	assert_ret(count, (int)n + 1);
	assert_ret(pfelf_section_by_name(dbg, ".symtab", &symtab), 0);
	bool seen[64] = {false};
	assert_true(n <= 64);
	uint64_t last = 0;
	uint8_t last_bind = STB_LOCAL;
	for (uint32_t i = 1; i < (uint32_t)count; i++) {
		pfelf_sym s;
		assert_ret(pfelf_symbol(dbg, PFELF_SYMTAB, i, &s), 0);
		assert_ret(s.type, STT_FUNC);
		assert_ret(s.bind == STB_LOCAL, i < symtab->info);
		if (s.bind != STB_LOCAL && last_bind == STB_LOCAL)
			last = 0;
		assert_true(s.value >= last);
		last = s.value;
		last_bind = s.bind;
		size_t k = 0;
		while (k < n && (seen[k] || f[k].lo != s.value || strcmp(f[k].shown, s.name)))
			k++;
		if (k == n)
			fail_msg("symbol %s at %#llx was not given", s.name,
			         (unsigned long long)s.value);
		seen[k] = true;
		assert_ret(s.size, f[k].hi - f[k].lo);
		assert_ret(s.bind, f[k].flags == PFELF_DBGW_GLOBAL ? STB_GLOBAL
		                   : f[k].flags == PFELF_DBGW_WEAK ? STB_WEAK
		                                                   : STB_LOCAL);
		const char *sec = section_name(dbg, s.shndx);
		if (!f[k].section != !sec || (sec && strcmp(sec, f[k].section)))
			fail_msg("%s: in section %s, want %s", s.name, sec ? sec : "ABS",
			         f[k].section ? f[k].section : "ABS");
		if (s.size && sec) {
			pfelf_sym at;
			assert_ret(pfelf_symbol_at(dbg, PFELF_SYMTAB, s.value + s.size - 1, &at),
			           0);
			assert_string_equal(at.name, s.name);
		}
	}
}

static size_t count_string(const uint8_t *p, size_t len, const char *s)
{
	size_t n = 0, sl = strlen(s) + 1;
	for (size_t i = 0; i + sl <= len; i++)
		n += (i == 0 || p[i - 1] == 0) && memcmp(p + i, s, sl) == 0;
	return n;
}

/* The DWARF sections are there; names once in .debug_str and .strtab. */
static void check_dwarf(pfelf_file *dbg)
{
	static const char *const names[] = {".debug_abbrev", ".debug_info",    ".debug_line",
	                                    ".debug_str",    ".debug_aranges", ".debug_ranges"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const pfelf_shdr *s;
		assert_ret(pfelf_section_by_name(dbg, names[i], &s), 0);
		assert_ret(s->type, SHT_PROGBITS);
		assert_true(s->size > 0 && !(s->status & PFELF_ST_OUT_OF_FILE));
	}
	size_t len;
	uint8_t *str = dbgw_section_bytes(dbg, ".debug_str", &len);
	assert_ret(count_string(str, len, "helper"), 1);
	assert_ret(count_string(str, len, "weak^@fn"), 1);
	assert_ret(count_string(str, len, "unit^@one"), 1);
	free(str);
	str = dbgw_section_bytes(dbg, ".strtab", &len);
	assert_ret(count_string(str, len, "helper"), 1);
	free(str);
}

static void roundtrip(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	for (size_t t = 0; t < DBGW_NTARGETS; t++) {
		size_t len;
		uint8_t *bin_bytes = dbgw_synth_binary(&dbgw_targets[t], true, &len);
		struct tb_handle bin, dbg;
		assert_ret(tb_open_bytes(bin_bytes, len, b, &bin), 0);
		uint64_t size;
		void *bytes = write_debug(bin.f, fns, NFNS, &size);
		assert_ret(tb_open_bytes(bytes, size, b, &dbg), 0);
		const pfelf_ehdr *e = pfelf_header(dbg.f), *s = pfelf_header(bin.f);
		assert_ret(e->elfclass, s->elfclass);
		assert_ret(e->data, s->data);
		assert_ret(e->machine, s->machine);
		assert_ret(e->type, ET_EXEC);
		assert_ret(e->osabi, ELFOSABI_GNU);
		assert_ret(e->entry, s->entry);
		const uint8_t *id;
		assert_ret(pfelf_build_id(dbg.f, &id), sizeof(dbgw_build_id));
		assert_memory_equal(id, dbgw_build_id, sizeof(dbgw_build_id));
		check_copies(bin.f, dbg.f);
		check_segments(bin.f, dbg.f, DBGW_NOTE_ADDR);
		check_symbols(dbg.f, fns, NFNS);
		check_dwarf(dbg.f);
		tb_close(&dbg);
		tb_close(&bin);
		free(bytes);
		free(bin_bytes);
	}
}

/* ------------------------------------------------------- real fixtures */

/* The defined functions of bin's table t (at most max) as fns. */
static size_t functions_of(pfelf_file *bin, enum pfelf_symtab_kind t, struct fn *out, size_t max)
{
	int n = pfelf_symbol_count(bin, t);
	size_t k = 0;
	for (int i = 1; i < n && k < max; i++) {
		pfelf_sym s;
		assert_ret(pfelf_symbol(bin, t, (uint32_t)i, &s), 0);
		if (s.type != STT_FUNC || s.shndx == SHN_UNDEF || s.shndx >= SHN_LORESERVE ||
		    s.bind > STB_WEAK)
			continue;
		/* One symbol per address: aliases would make the match ambiguous. */
		bool dup = false;
		for (size_t j = 0; j < k && !dup; j++)
			dup = out[j].lo == s.value;
		if (dup)
			continue;
		out[k] = (struct fn){0,
		                     s.value,
		                     s.value + s.size,
		                     s.name,
		                     strlen(s.name),
		                     s.bind == STB_GLOBAL ? PFELF_DBGW_GLOBAL
		                     : s.bind == STB_WEAK ? PFELF_DBGW_WEAK
		                                          : PFELF_DBGW_LOCAL,
		                     s.name,
		                     section_name(bin, s.shndx)};
		k++;
	}
	return k;
}

static void one_fixture(const char *name, enum pfelf_symtab_kind t, enum tb_backend b)
{
	struct tb_handle bin, dbg;
	struct fn f[64];
	tb_open_ok(tb_fixture(name), b, &bin);
	size_t n = functions_of(bin.f, t, f, 64);
	assert_true(n > 4);
	uint64_t size;
	void *bytes = write_debug(bin.f, f, n, &size);
	assert_ret(tb_open_bytes(bytes, size, b, &dbg), 0);
	const uint8_t *want, *got;
	int idlen = pfelf_build_id(bin.f, &want);
	assert_true(idlen > 0);
	assert_ret(pfelf_build_id(dbg.f, &got), idlen);
	assert_memory_equal(got, want, (size_t)idlen);
	const pfelf_shdr *note;
	assert_ret(pfelf_section_by_name(bin.f, ".note.gnu.build-id", &note), 0);
	check_copies(bin.f, dbg.f);
	check_segments(bin.f, dbg.f, note->addr);
	check_symbols(dbg.f, f, n);
	tb_close(&dbg);
	tb_close(&bin);
	free(bytes);
}

static void fixtures(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	one_fixture("exec", PFELF_SYMTAB, b);
	one_fixture("pie", PFELF_SYMTAB, b);
	one_fixture("s390x-libc.so.6", PFELF_DYNSYM, b);
	one_fixture("armhf-libc.so.6", PFELF_DYNSYM, b);
}

/* ------------------------------------------------------------- errors */

/* Each bad call: -EINVAL, and the writer goes on as if it was not made. */
static void errors(void **state)
{
	(void)state;
	pfelf_dbgw *w;
	pfelf_ehdr e = dbgw_target_ehdr(&dbgw_targets[1], ET_DYN); /* ELF32 */
	e.elfclass = 3;
	assert_ret(pfelf_dbgw_new(&e, 1 << 20, &w), -EINVAL);
	e = dbgw_target_ehdr(&dbgw_targets[1], ET_DYN);
	e.data = 0;
	assert_ret(pfelf_dbgw_new(&e, 1 << 20, &w), -EINVAL);
	e = dbgw_target_ehdr(&dbgw_targets[1], ET_DYN);
	assert_ret(pfelf_dbgw_new(&e, 16, &w), -EFBIG);
	assert_ret(pfelf_dbgw_new(&e, 1 << 20, &w), 0);
	uint32_t u, other, file, file1;
	assert_ret(pfelf_dbgw_line(w, 0x1000, 0, 1), -EINVAL); /* no function */
	assert_ret(pfelf_dbgw_unit(w, NULL, 1, 0, &u), -EINVAL);
	assert_ret(pfelf_dbgw_unit(w, "u", 1, 0, &u), 0);
	assert_ret(pfelf_dbgw_unit(w, "v", 1, 0, &other), 0);
	assert_ret(pfelf_dbgw_file(w, 2, "f.c", 3, &file), -EINVAL);
	assert_ret(pfelf_dbgw_file(w, u, NULL, 3, &file), -EINVAL);
	assert_ret(pfelf_dbgw_file(w, u, "f.c", 3, &file), 0);
	assert_ret(pfelf_dbgw_file(w, other, "g.c", 3, &file1), 0);
	assert_ret(pfelf_dbgw_func(w, 2, 0x1000, 0x1100, "f", 1, 0), -EINVAL);
	assert_ret(pfelf_dbgw_func(w, u, 0x1100, 0x1000, "f", 1, 0), -EINVAL);
	assert_ret(pfelf_dbgw_func(w, u, 0x1000, 0x100000000ull, "f", 1, 0), -EINVAL);
	assert_ret(pfelf_dbgw_func(w, u, 0x1000, 0x1100, "f", 1, 3), -EINVAL);
	assert_ret(pfelf_dbgw_func(w, u, 0x1000, 0x1100, NULL, 1, 0), -EINVAL);
	assert_ret(pfelf_dbgw_func(w, u, 0x1000, 0x1100, "f", 1, PFELF_DBGW_GLOBAL), 0);
	assert_ret(pfelf_dbgw_line(w, 0x0fff, file, 1), -EINVAL);  /* below lo */
	assert_ret(pfelf_dbgw_line(w, 0x1100, file, 1), -EINVAL);  /* at hi */
	assert_ret(pfelf_dbgw_line(w, 0x1000, file1, 1), -EINVAL); /* another unit's */
	assert_ret(pfelf_dbgw_line(w, 0x1000, 9, 1), -EINVAL);     /* unknown */
	assert_ret(pfelf_dbgw_line(w, 0x1010, file, 5), 0);
	assert_ret(pfelf_dbgw_line(w, 0x100f, file, 6), -EINVAL); /* going back */
	assert_ret(pfelf_dbgw_line(w, 0x1020, file, 7), 0);
	struct tb_handle elf64;
	tb_open_ok(tb_fixture("exec"), TB_MEMORY, &elf64);
	assert_ret(pfelf_dbgw_copy_layout(w, elf64.f), -EINVAL); /* another class */
	tb_close(&elf64);
	void *bytes;
	uint64_t size;
	assert_ret(pfelf_dbgw_finish(w, &bytes, &size), 0);
	assert_ret(pfelf_dbgw_unit(w, "late", 4, 0, &u), -EINVAL);
	assert_ret(pfelf_dbgw_func(w, 0, 0x2000, 0x2100, "late", 4, 0), -EINVAL);
	assert_ret(pfelf_dbgw_line(w, 0x1030, file, 1), -EINVAL);
	void *again;
	uint64_t again_size;
	assert_ret(pfelf_dbgw_finish(w, &again, &again_size), -EINVAL);
	assert_null(again);
	pfelf_dbgw_free(w);
	pfelf_dbgw_free(NULL);

	/* What the refused calls would have changed is not there. */
	struct tb_handle dbg;
	assert_ret(tb_open_bytes(bytes, size, TB_MEMORY, &dbg), 0);
	assert_ret(pfelf_symbol_count(dbg.f, PFELF_SYMTAB), 2);
	pfelf_sym s;
	assert_ret(pfelf_symbol(dbg.f, PFELF_SYMTAB, 1, &s), 0);
	assert_string_equal(s.name, "f");
	assert_ret(s.value, 0x1000);
	assert_ret(s.size, 0x100);
	assert_string_equal(section_name(dbg.f, s.shndx), ".text"); /* no layout: its own */
	const pfelf_shdr *text;
	assert_ret(pfelf_section(dbg.f, s.shndx, &text), 0);
	assert_ret(text->type, SHT_NOBITS);
	assert_ret(text->addr, 0x1000);
	assert_ret(text->size, 0x100);
	assert_ret(pfelf_segment_count(dbg.f), 0);
	tb_close(&dbg);
	free(bytes);
}

/* ------------------------------------------------------------- the bound */

/* Write the fixture's functions under max: the result of the first call
 * that fails (or of finish), the peak in *peak. */
static int write_under(pfelf_file *bin, uint64_t max, uint64_t *peak, uint64_t *size)
{
	pfelf_dbgw *w;
	int ret = pfelf_dbgw_new(pfelf_header(bin), max, &w);
	if (ret < 0)
		return ret;
	uint32_t u, file;
	ret = pfelf_dbgw_copy_layout(w, bin);
	if (ret == 0)
		ret = pfelf_dbgw_unit(w, "u", 1, PFELF_DW_LANG_C99, &u);
	if (ret == 0)
		ret = pfelf_dbgw_file(w, u, "/src/file.c", 11, &file);
	for (uint32_t i = 0; i < 2000 && ret == 0; i++) {
		char name[32];
		int n = snprintf(name, sizeof(name), "function_%u", i);
		uint64_t lo = 0x400000 + 0x100ull * i;
		ret = pfelf_dbgw_func(w, u, lo, lo + 0x100, name, (size_t)n, i & 1);
		for (uint32_t r = 0; r < 16 && ret == 0; r++)
			ret = pfelf_dbgw_line(w, lo + 16 * r, file, i * 7 + r * r);
	}
	void *bytes = NULL;
	if (ret == 0)
		ret = pfelf_dbgw_finish(w, &bytes, size);
	else /* the error is kept */
		assert_ret(pfelf_dbgw_unit(w, "x", 1, 0, &u), ret);
	*peak = pfelf_dbgw_peak(w);
	assert_true(*peak <= max);
	free(bytes);
	pfelf_dbgw_free(w);
	return ret;
}

static void bound(void **state)
{
	(void)state;
	struct tb_handle bin;
	tb_open_ok(tb_fixture("exec"), TB_MEMORY, &bin);
	uint64_t peak, size, need;
	assert_ret(write_under(bin.f, UINT64_MAX, &need, &size), 0);
	assert_true(need > size);
	/* Exactly what it needs: it fits; a byte less, at any place, does not. */
	assert_ret(write_under(bin.f, need, &peak, &size), 0);
	assert_ret(peak, need);
	assert_ret(write_under(bin.f, need - 1, &peak, &size), -EFBIG);
	for (uint64_t max = 1024; max < need; max += need / 37)
		assert_ret(write_under(bin.f, max, &peak, &size), -EFBIG);
	tb_close(&bin);
}

/* ------------------------------------------------------- random calls */

/* Random bytes of a random length (NULs, blanks, any value) into buf. */
static size_t random_name(uint64_t *rnd, char *buf, size_t cap)
{
	size_t n = tb_rand(rnd) % cap;
	for (size_t i = 0; i < n; i++)
		buf[i] = (char)(tb_rand(rnd) % 4 ? 'a' + tb_rand(rnd) % 26 : tb_rand(rnd) % 256);
	return n;
}

/* One random call; what it returned. Counts the functions taken. */
static int random_call(pfelf_dbgw *w, uint64_t *rnd, uint64_t *last_lo, uint32_t *taken)
{
	char name[40];
	size_t len = random_name(rnd, name, sizeof(name));
	uint32_t id, any = (uint32_t)(tb_rand(rnd) % 12);
	uint64_t k = tb_rand(rnd), lo = 0x1000 + (k >> 8) % 0x10000;
	int ret;
	switch (k % 8) {
	case 0:
		return pfelf_dbgw_unit(w, name, len, (uint16_t)(k >> 40), &id);
	case 1:
		return pfelf_dbgw_file(w, any, name, len, &id);
	case 2:
	case 3:
		if (k % 97 == 0)
			lo += (uint64_t)1 << 32; /* past ELF32 */
		ret = pfelf_dbgw_func(w, any, lo, lo + (k >> 40) % 0x300 - 8, name, len,
		                      (unsigned)(k >> 20) % 4);
		if (ret == 0) {
			*last_lo = lo;
			(*taken)++;
		}
		return ret;
	default:
		return pfelf_dbgw_line(w, *last_lo + (k >> 16) % 0x280 - 0x10, any,
		                       (uint32_t)(k >> 32) % 5000);
	}
}

/* Calls of every kind, good and bad, under bounds of every size: each
 * returns 0, -EINVAL or -EFBIG (kept from then on), the writer never
 * holds more than its bound, and a finished file has every function taken. */
static void random_calls(void **state)
{
	(void)state;
	uint64_t rnd = tb_seed();
	static const uint64_t bounds[] = {2048, 8192, 32768, 1 << 20};
	unsigned files = 0, refused = 0, big = 0;
	for (unsigned iter = 0; iter < 400; iter++) {
		const struct dbgw_target *t = &dbgw_targets[iter % DBGW_NTARGETS];
		size_t len;
		uint8_t *bin_bytes = dbgw_synth_binary(t, true, &len);
		struct tb_handle bin;
		assert_ret(tb_open_bytes(bin_bytes, len, TB_MEMORY, &bin), 0);
		uint64_t max = bounds[tb_rand(&rnd) % 4];
		pfelf_dbgw *w;
		int kept = pfelf_dbgw_new(pfelf_header(bin.f), max, &w);
		if (kept == 0 && tb_rand(&rnd) % 2)
			kept = pfelf_dbgw_copy_layout(w, bin.f);
		uint64_t last_lo = 0;
		uint32_t taken = 0;
		for (unsigned c = 0; kept == 0 && c < 300; c++) {
			int ret = random_call(w, &rnd, &last_lo, &taken);
			if (ret != 0 && ret != -EINVAL && ret != -EFBIG)
				fail_msg("a call returned %d", ret);
			refused += ret == -EINVAL;
			if (ret == -EFBIG)
				kept = ret;
		}
		void *bytes = NULL;
		uint64_t size = 0;
		if (w) {
			int ret = pfelf_dbgw_finish(w, &bytes, &size);
			if (kept)
				assert_ret(ret, kept);
			else if (ret != 0 && ret != -EFBIG)
				fail_msg("finish returned %d", ret);
			assert_true(pfelf_dbgw_peak(w) <= max);
			pfelf_dbgw_free(w);
		}
		big += !bytes;
		if (bytes) {
			struct tb_handle dbg;
			files++;
			assert_ret(tb_open_bytes(bytes, size, TB_MEMORY, &dbg), 0);
			assert_ret(pfelf_symbol_count(dbg.f, PFELF_SYMTAB), taken + 1);
			free(bytes);
			tb_close(&dbg);
		}
		tb_close(&bin);
		free(bin_bytes);
	}
	print_message("%u files, %u over their bound, %u calls refused\n", files, big, refused);
	assert_true(files > 50 && big > 50);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(roundtrip),    TB_BACKEND_TESTS(fixtures),
	        cmocka_unit_test(errors),       cmocka_unit_test(bound),
	        cmocka_unit_test(random_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
