/*
 * Relocations against readelf -rW: every entry line of every SHT_REL,
 * SHT_RELA and SHT_RELR section of the relocation fixtures (x86-64 and
 * i386 objects and shared libraries with versions, an IFUNC, TLS and RELR;
 * AArch64, RISC-V, PPC64 little and big endian and s390x objects and
 * shared libraries from the cross binutils, with PLT, GOT, TLS, defined
 * and needed versions, gas's local labels (control characters, which
 * readelf writes as ^X) and RELR on PPC64; a little-endian MIPS64 object
 * with its packed r_info) and of the foreign
 * libcs (S/390, ARM) and x86-64 fixtures, rebuilt from pfelf and compared
 * with readelf's whole line. The type names of every machine readelf 2.40
 * names (102 e_machine values, ELF32 and ELF64), one REL and one RELA entry
 * of every type, line for line; the hostile relbomb.o (bad symbol
 * indexes, a section past the end of the file, 1.26 M RELR addresses);
 * random access, tell and seek. Every case on the three backends.
 */
#include "backends.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LINE          8192
#define STT_SECTION   3
#define STT_GNU_IFUNC 10
#define EM_MIPS       8
#define EM_SPARCV9    43
#define EM_ALPHA      0x9026

static const char *reloc_fixture(const char *name)
{
	const char *dir = getenv("ELFFS_RELOC_FIXTURES");
	if (!dir)
		fail_msg("ELFFS_RELOC_FIXTURES is not set");
	return tb_keep_path(dir, name);
}

/* ------------------------------------------------ pfelf's line, readelf's way */

struct symsrc {
	bool ok;        /* a symbol table pfelf reads */
	bool dyn;       /* it is .dynsym: names get versions */
	uint32_t count; /* its symbols */
};

static struct symsrc symtab_of(pfelf_file *f, const pfelf_relsec *s)
{
	struct symsrc src = {0};
	const pfelf_shdr *sh;
	if (s->symtab == 0 || pfelf_section(f, s->symtab, &sh) < 0)
		return src;
	enum pfelf_symtab_kind k = sh->type == 11 ? PFELF_DYNSYM : PFELF_SYMTAB;
	if ((sh->type != 2 && sh->type != 11) || pfelf_symbol_table_section(f, k) != (int)s->symtab)
		return src;
	int n = pfelf_symbol_count(f, k);
	src.ok = n >= 0;
	src.dyn = k == PFELF_DYNSYM;
	src.count = n > 0 ? (uint32_t)n : 0;
	return src;
}

static size_t put(char *b, size_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static size_t put(char *b, size_t at, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(b + at, LINE - at, fmt, ap);
	va_end(ap);
	assert_true(n >= 0 && (size_t)n < LINE - at);
	return at + (size_t)n;
}

static const char *version_suffix(const pfelf_sym *s, char *buf, size_t len)
{
	buf[0] = 0;
	if (s->ver_kind == PFELF_VER_DEFAULT)
		snprintf(buf, len, "@@%s", s->version);
	else if (s->ver_kind == PFELF_VER_HIDDEN || s->ver_kind == PFELF_VER_NEEDED)
		snprintf(buf, len, "@%s", s->version);
	return buf;
}

/* s as readelf's print_symbol writes it: control characters as '^' and
 * c + 0x40 (gas's local labels ".L1\0021" read ".L1^B1"). */
static const char *shown(const char *s, char *buf, size_t len)
{
	size_t n = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		assert_true(n + 3 <= len);
		if (*p < 0x20 || *p == 0x7f) {
			buf[n++] = '^';
			buf[n++] = (char)(*p + 0x40);
		} else {
			buf[n++] = (char)*p;
		}
	}
	buf[n] = 0;
	return buf;
}

static size_t put_symbol(pfelf_file *f, const pfelf_reloc *r, const struct symsrc *src, char *b,
                         size_t at)
{
	bool is64 = pfelf_header(f)->elfclass == 2;
	pfelf_sym s;
	char ver[512], name_buf[LINE];
	assert_ret(pfelf_symbol(f, src->dyn ? PFELF_DYNSYM : PFELF_SYMTAB, r->sym, &s), 0);
	version_suffix(&s, ver, sizeof(ver));
	at = put(b, at, " ");
	if (s.type == STT_GNU_IFUNC) {
		const char *name =
		        shown(s.name_off == 0 || (s.status & PFELF_SYM_BAD_NAME) ? "??" : s.name,
		              name_buf, sizeof(name_buf));
		size_t len = strlen(name), width = is64 ? 14 : 8;
		at = put(b, at, "%s%s()%-*s", name, ver, len <= width ? (int)(width + 1 - len) : 1,
		         " ");
	} else {
		at = put(b, at, "%0*" PRIx64 "%s", is64 ? 16 : 8, s.value, is64 ? " " : "   ");
	}
	if (s.name_off == 0) {
		const pfelf_shdr *sh;
		const char *name = "<null>";
		if (s.type == STT_SECTION && pfelf_section(f, s.shndx, &sh) == 0)
			name = sh->name;
		at = put(b, at, "%s", shown(name, name_buf, sizeof(name_buf)));
	} else {
		at = put(b, at, "%s%s", shown(s.name, name_buf, sizeof(name_buf)), ver);
	}
	if (r->has_addend)
		at = r->addend < 0 ? put(b, at, " - %" PRIx64, -(uint64_t)r->addend)
		                   : put(b, at, " + %" PRIx64, (uint64_t)r->addend);
	return at;
}

/* The type column: 22 wide, or Type2/Type3's 17 cut at 17; *name is the
 * type's name or NULL. */
static size_t put_type(const pfelf_ehdr *eh, uint32_t type, bool main, char *b, size_t at,
                       const char **name)
{
	*name = pfelf_reloc_type_string_hdr(eh, type);
	if (!*name)
		return put(b, at, "unrecognized: %-7x", type);
	return main ? put(b, at, "%-22s", *name) : put(b, at, "%-17.17s", *name);
}

/* Alpha's R_ALPHA_LITUSE (RELA): what the addend says, as readelf 2.40. */
static size_t put_lituse(int64_t addend, char *b, size_t at)
{
	static const char *const use[] = {"ADDR",  "BASE",   "BYTOFF",   "JSR",
	                                  "TLSGD", "TLSLDM", "JSRDIRECT"};
	if (addend >= 0 && addend < 7)
		return put(b, at, " (%s)", use[addend]);
	return put(b, at, " <unknown addend: %" PRIx64 ">", (uint64_t)addend);
}

/* readelf -rW's line(s) of r, a relocation of section s of f. */
static void reloc_line(pfelf_file *f, const pfelf_relsec *s, const struct symsrc *src,
                       const pfelf_reloc *r, char *b)
{
	const pfelf_ehdr *eh = pfelf_header(f);
	bool is64 = eh->elfclass == 2;
	size_t at = 0;
	if (s->type == PFELF_SHT_RELR) {
		put(b, 0, "%0*" PRIx64, is64 ? 16 : 8, r->offset);
		return;
	}
	if (is64)
		at = put(b, at, "%16.16" PRIx64 "  %16.16" PRIx64 " ", r->offset, r->info);
	else
		at = put(b, at, "%8.8" PRIx64 "  %8.8" PRIx64 " ", r->offset, r->info);
	const char *name, *other;
	at = put_type(eh, r->type, true, b, at, &name);
	if (eh->machine == EM_ALPHA && r->has_addend && name &&
	    strcmp(name, "R_ALPHA_LITUSE") == 0) {
		at = put_lituse(r->addend, b, at);
	} else if (r->sym && src->ok && r->sym < src->count) {
		at = put_symbol(f, r, src, b, at);
	} else if (!r->sym && r->has_addend) {
		at = put(b, at, "%*c", is64 ? 20 : 12, ' ');
		at = r->addend < 0 ? put(b, at, "-%" PRIx64, -(uint64_t)r->addend)
		                   : put(b, at, "%" PRIx64, (uint64_t)r->addend);
	}
	if (eh->machine == EM_SPARCV9 && name && strcmp(name, "R_SPARC_OLO10") == 0)
		at = put(b, at, " + %" PRIx64, (uint64_t)pfelf_reloc_type_data(r));
	if (is64 && eh->machine == EM_MIPS) {
		at = put(b, at, "\n                    Type2: ");
		at = put_type(eh, r->type2, false, b, at, &other);
		at = put(b, at, "\n                    Type3: ");
		at = put_type(eh, r->type3, false, b, at, &other);
	}
}

/* ----------------------------------------------------- readelf's groups */

struct group {
	char name[256];
	char **lines;
	size_t n, cap;
};

static void add_line(struct group *g, const char *s, size_t len)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		g->lines = realloc(g->lines, g->cap * sizeof(*g->lines));
		assert_non_null(g->lines);
	}
	g->lines[g->n++] = strndup(s, len);
}

/* The entry lines of each relocation section readelf -rW prints; MIPS64's
 * Type2 and Type3 lines joined to their entry with newlines. */
static size_t readelf_groups(const char *path, struct group **out)
{
	char *q = tb_shell_quote(path), *cmd;
	assert_true(asprintf(&cmd, "readelf -rW %s 2>/dev/null", q) > 0);
	char *text = tb_run(cmd, NULL);
	free(cmd);
	free(q);
	struct group *gs = NULL;
	size_t n = 0;
	for (char *p = text, *nl; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		size_t len = (size_t)(nl - p);
		if (strncmp(p, "Relocation section '", 20) == 0) {
			gs = realloc(gs, (n + 1) * sizeof(*gs));
			assert_non_null(gs);
			memset(&gs[n], 0, sizeof(gs[n]));
			const char *end = strstr(p + 20, "' at offset");
			assert_non_null(end);
			snprintf(gs[n].name, sizeof(gs[n].name), "%.*s", (int)(end - p - 20),
			         p + 20);
			n++;
		} else if (n && len > 0 && strncmp(p, "                    Type", 24) == 0) {
			struct group *g = &gs[n - 1];
			char *joined;
			assert_true(asprintf(&joined, "%s\n%.*s", g->lines[g->n - 1], (int)len, p) >
			            0);
			free(g->lines[g->n - 1]);
			g->lines[g->n - 1] = joined;
		} else if (n && len > 0 && memmem(p, len, "Offset", 6) == NULL &&
		           !(len > 8 && strncmp(nl - 8, " offsets", 8) == 0) &&
		           !(len > 7 && strncmp(nl - 7, " offset", 7) == 0)) {
			add_line(&gs[n - 1], p, len);
		}
		if (!*nl)
			break;
	}
	free(text);
	*out = gs;
	return n;
}

static void free_groups(struct group *gs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < gs[i].n; j++)
			free(gs[i].lines[j]);
		free(gs[i].lines);
	}
	free(gs);
}

/* Compare every relocation of path with readelf; the entries compared. */
static unsigned long compare_file(const char *path, enum tb_backend b)
{
	struct group *gs;
	size_t ng = readelf_groups(path, &gs), k = 0;
	struct tb_handle h;
	tb_open_ok(path, b, &h);
	int nsec = pfelf_section_count(h.f);
	assert_true(nsec >= 0);
	unsigned long entries = 0;
	char *line = malloc(LINE);
	assert_non_null(line);
	for (uint32_t i = 1; i < (uint32_t)nsec; i++) {
		pfelf_relsec s;
		const pfelf_shdr *sh;
		assert_ret(pfelf_section(h.f, i, &sh), 0);
		int ret = pfelf_reloc_section(h.f, i, &s);
		if (ret == -ENODATA || sh->size == 0)
			continue;
		if (k >= ng)
			fail_msg("%s: readelf printed no group for section %u", path, i);
		struct group *g = &gs[k++];
		assert_string_equal(g->name, sh->name);
		if (ret == -EINVAL) { /* past the end: readelf prints no entries either */
			assert_int_equal(g->n, 0);
			continue;
		}
		assert_ret(ret, 0);
		struct symsrc src = symtab_of(h.f, &s);
		pfelf_reloc_iter it;
		pfelf_reloc r;
		assert_ret(pfelf_reloc_iter_init(h.f, i, &it), 0);
		size_t j = 0;
		while ((ret = pfelf_reloc_next(&it, &r)) == 1) {
			reloc_line(h.f, &s, &src, &r, line);
			if (j >= g->n)
				fail_msg("%s %s: pfelf has more than readelf's %zu entries", path,
				         g->name, g->n);
			if (strcmp(line, g->lines[j]) != 0)
				fail_msg("%s %s entry %zu:\n  pfelf:   '%s'\n  readelf: '%s'", path,
				         g->name, j, line, g->lines[j]);
			j++;
		}
		assert_ret(ret, 0);
		assert_int_equal(j, g->n);
		entries += j;
	}
	assert_int_equal(k, ng);
	free(line);
	tb_close(&h);
	free_groups(gs, ng);
	return entries;
}

/* Files of the relocation fixtures, and of the main fixtures, that are compared. */
static const char *const reloc_files[] = {
        "reloc64.o",       "libreloc64.so",       "reloc32.o",       "libreloc32.so",
        "reloc-aarch64.o", "libreloc-aarch64.so", "reloc-riscv64.o", "libreloc-riscv64.so",
        "reloc-ppc64le.o", "libreloc-ppc64le.so", "reloc-ppc64.o",   "libreloc-ppc64.so",
        "reloc-ppc64v1.o", "libreloc-ppc64v1.so", "reloc-s390x.o",   "libreloc-s390x.so",
        "mips64el.o",      "relnames.o"};
static const char *const main_files[] = {"libshared.so",    "exec",           "pie", "comdat.o",
                                         "s390x-libc.so.6", "armhf-libc.so.6"};

static void test_readelf(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	unsigned long total = 0, n;
	for (size_t i = 0; i < sizeof(reloc_files) / sizeof(reloc_files[0]); i++) {
		n = compare_file(reloc_fixture(reloc_files[i]), b);
		if (n == 0)
			fail_msg("%s: no relocations compared", reloc_files[i]);
		print_message("%s: %s: %lu\n", tb_backend_label(b), reloc_files[i], n);
		total += n;
	}
	for (size_t i = 0; i < sizeof(main_files) / sizeof(main_files[0]); i++) {
		n = compare_file(tb_fixture(main_files[i]), b);
		if (n == 0)
			fail_msg("%s: no relocations compared", main_files[i]);
		total += n;
	}
	print_message("%s: %lu relocations equal to readelf's\n", tb_backend_label(b), total);
}

/* The fixtures of MANIFEST marked what ("types", "sectypes"), in order. */
static size_t manifest(const char *what, char ***out)
{
	FILE *f = fopen(reloc_fixture("MANIFEST"), "r");
	char line[512], name[256], kind[64];
	char **v = NULL;
	size_t n = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %63s", name, kind) == 2 && strcmp(kind, what) == 0) {
			v = realloc(v, (n + 1) * sizeof(*v));
			assert_non_null(v);
			v[n++] = strdup(name);
		}
	fclose(f);
	*out = v;
	return n;
}

/* One REL and one RELA entry of every type of every machine readelf 2.40
 * names relocations of (ELF32 and ELF64, both tables of MSP430 and NFP,
 * Alpha's LITUSE and SPARC V9's OLO10 quirks, machines without a table):
 * each line is readelf's, and every type readelf names pfelf names. */
static void test_type_names(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	unsigned long named = 0, lines = 0;
	char **files;
	size_t n = manifest("types", &files);
	assert_true(n > 100);
	for (size_t i = 0; i < n; i++) {
		lines += compare_file(reloc_fixture(files[i]), b);
		struct tb_handle h;
		tb_open_ok(reloc_fixture(files[i]), b, &h);
		const pfelf_ehdr *eh = pfelf_header(h.f);
		for (uint32_t t = 0; t < 4096; t++) {
			char buf[64];
			int ret = pfelf_reloc_type_name(eh->machine, t, buf, sizeof(buf));
			assert_true(ret > 0);
			if (pfelf_reloc_type_string_hdr(eh, t))
				named++;
			if (!pfelf_reloc_type_string(eh->machine, t))
				assert_true(strncmp(buf, "unrecognized: ", 14) == 0);
		}
		tb_close(&h);
		free(files[i]);
	}
	free(files);
	print_message("%s: %zu type probes, %lu lines equal to readelf's, %lu names\n",
	              tb_backend_label(b), n, lines, named);
	assert_true(named > 4000);
	assert_null(pfelf_reloc_type_string_hdr(NULL, 1));
	char small[4];
	assert_ret(pfelf_reloc_type_name(62, 7, small, sizeof(small)), -ENOSPC);
}

/* MIPS64 little endian: the fields of the packed r_info. */
static void test_mips64(void **state)
{
	struct tb_handle h;
	tb_open_ok(reloc_fixture("mips64el.o"), TB_STATE_BACKEND(state), &h);
	const pfelf_shdr *sh;
	assert_ret(pfelf_section_by_name(h.f, ".rela.text", &sh), 0);
	pfelf_reloc r;
	assert_ret(pfelf_reloc_get(h.f, sh->index, 0, &r), 0);
	assert_int_equal(r.sym, 2);
	assert_int_equal(r.type, 5);
	assert_int_equal(r.type2, 24);
	assert_int_equal(r.type3, 7);
	assert_int_equal(r.ssym, 0);
	assert_true(r.addend == -8);
	assert_ret(pfelf_reloc_get(h.f, sh->index, 4, &r), 0);
	assert_int_equal(r.ssym, 1);
	assert_int_equal(r.type3, 200);
	assert_ret(pfelf_reloc_get(h.f, sh->index, 6, &r), -ENOENT);
	tb_close(&h);
}

/* relbomb.o: bounded, lazy, no crash; tell and seek resume where they were. */
static void test_hostile(void **state)
{
	struct tb_handle h;
	tb_open_ok(reloc_fixture("relbomb.o"), TB_STATE_BACKEND(state), &h);
	const pfelf_shdr *sh;
	pfelf_relsec s;
	pfelf_reloc r, r2;
	pfelf_reloc_iter it;
	assert_ret(pfelf_section_by_name(h.f, ".rela.huge", &sh), 0);
	assert_ret(pfelf_reloc_section(h.f, sh->index, &s), -EINVAL);
	assert_ret(pfelf_reloc_iter_init(h.f, sh->index, &it), -EINVAL);
	assert_ret(pfelf_reloc_get(h.f, 1, 0, &r), -ENODATA); /* .text */

	assert_ret(pfelf_section_by_name(h.f, ".rela.bad", &sh), 0);
	assert_ret(pfelf_reloc_section(h.f, sh->index, &s), 0);
	assert_int_equal(s.count, 200000);
	assert_ret(pfelf_reloc_get(h.f, sh->index, 199999, &r), 0);
	assert_int_equal(r.sym, 0x7fff0000u + 199999u);
	assert_true(r.addend == -199999);

	assert_ret(pfelf_section_by_name(h.f, ".relr.dyn", &sh), 0);
	assert_ret(pfelf_reloc_get(h.f, sh->index, 0, &r), -ENODATA);
	assert_ret(pfelf_reloc_iter_init(h.f, sh->index, &it), 0);
	uint64_t n = 0, expect = 0x10000;
	pfelf_reloc_pos mid;
	pfelf_reloc_iter again = it;
	int ret;
	while ((ret = pfelf_reloc_next(&it, &r)) == 1) {
		if (r.offset != expect)
			fail_msg("RELR address %" PRIu64 ": %" PRIx64 ", expected %" PRIx64, n,
			         r.offset, expect);
		expect += 8;
		if (++n == 777777)
			pfelf_reloc_tell(&it, &mid);
	}
	assert_ret(ret, 0);
	assert_int_equal(n, 1 + 20000 * 63);
	pfelf_reloc_seek(&again, &mid);
	assert_ret(pfelf_reloc_next(&again, &r2), 1);
	assert_int_equal(r2.offset, 0x10000 + 777777 * 8);
	tb_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_readelf),
	        TB_BACKEND_TESTS(test_type_names),
	        TB_BACKEND_TESTS(test_mips64),
	        TB_BACKEND_TESTS(test_hostile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
