/*
 * Names (pfelf/elf/names.c), each against readelf: section type names and flag
 * letters, segment type names and flags, over files written here with every
 * value of interest for several machines; machine, file type and OS/ABI
 * names over copies of a fixture with the header field patched; -ENOSPC.
 */
#include "backends.h"
#include "compare.h"
#include "readelf_parse.h"
#include "synth.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const uint16_t machines[] = {EM_X86_64, EM_386, EM_ARM, EM_AARCH64, EM_S390, EM_MIPS};

/* Section types per machine and OS/ABI: every machine readelf 2.40 names
 * processor, OS or user section types of (and its aliases), Solaris' OS
 * range, and machines without names. */
static const struct {
	uint16_t machine;
	uint8_t osabi;
	uint8_t elfclass;
} sec_machines[] = {
        {0, 0, 2},           {EM_X86_64, 0, 2},
        {180, 0, 2},         {181, 0, 2},
        {EM_386, 0, 1},      {EM_ARM, 0, 1},
        {EM_AARCH64, 0, 2},  {EM_S390, 0, 2},
        {EM_MIPS, 0, 1},     {EM_MIPS_RS3_LE, 0, 2},
        {EM_PARISC, 0, 2},   {36, 0, 1},
        {EM_ARC, 0, 1},      {EM_ARC_COMPACT, 0, 1},
        {EM_ARCV2, 0, 1},    {EM_IA_64, 0, 2},
        {EM_IA_64, 13, 2},   {EM_IA_64, 6, 2},
        {EM_V850, 0, 1},     {0x9080, 0, 1},
        {EM_MSP430, 0, 1},   {0x1059, 0, 1},
        {EM_TI_C6000, 0, 1}, {EM_RISCV, 0, 2},
        {250, 0, 2},         {252, 0, 1},
        {EM_SPARC, 6, 1},    {EM_SPARCV9, 6, 2},
        {EM_X86_64, 6, 2},   {EM_386, 3, 1},
        {EM_X86_64, 9, 2},   {EM_SPARCV9, 0, 2},
        {EM_PPC64, 0, 2},    {258, 0, 2},
};

/* 0x70000000 to 0x7000003f: every processor type readelf names and the
 * holes; the others readelf names (TI's 0x7f000000.., IA-64's
 * 0x78XX0000 OS/ABI names and 0x79000000, V850's user types), the OS
 * range's (GNU, Solaris, IA-64 VMS) and the generic ones. */
static uint32_t sec_types[256];
static size_t nsec_types;

static void init_sec_types(void)
{
	static const uint32_t more[] = {
	        0x6fff4700, 0x6fff4701, 0x78000000, 0x78010000, 0x78060000, 0x78120000,
	        0x78400000, 0x78610000, 0x78ff0000, 0x78ffffff, 0x79000000, 0x79000001,
	        0x70000100, 0x7ffffffc, 0x7ffffffd, 0x7ffffffe, 0x7fffffff, 0x80000000,
	        0x80000001, 0x8fffffff, 0xa0000000, 0xa0000001, 0xfffffffe, 0xffffffff,
	};
	nsec_types = 0;
	for (uint32_t t = 0; t <= 20; t++)
		sec_types[nsec_types++] = t;
	for (uint32_t t = 0x60000000; t < 0x60000008; t++)
		sec_types[nsec_types++] = t;
	for (uint32_t t = 0x6fffffe8; t != 0x70000040; t++)
		sec_types[nsec_types++] = t;
	for (uint32_t t = 0x7f000000; t < 0x7f000008; t++)
		sec_types[nsec_types++] = t;
	for (size_t i = 0; i < ARRAY_SIZE(more); i++)
		sec_types[nsec_types++] = more[i];
	assert_true(nsec_types <= ARRAY_SIZE(sec_types));
}

static const uint64_t sec_flags[] = {
        0x0,
        0x1,
        0x2,
        0x3,
        0x4,
        0x6,
        0x7,
        0x10,
        0x20,
        0x30,
        0x32,
        0x40,
        0x42,
        0x80,
        0x100,
        0x200,
        0x400,
        0x403,
        0x800,
        0x802,
        0x1000,
        0x2000,
        0x100000,
        0x200000,
        0x200002,
        0x1000000,
        0x10000000,
        0x10000002,
        0x20000000,
        0x20000006,
        0x40000000,
        0x80000000,
        0x80000002,
        0x0ff00000,
        0xf0000000,
        0xfff00000,
        0x7f00ff,
        0x100000000ULL,
        0x8000000000000000ULL,
};

static const uint32_t seg_types[] = {
        0,          1,          2,          3,          4,          5,          6,
        7,          8,          9,          0x60000000, 0x6474e550, 0x6474e551, 0x6474e552,
        0x6474e553, 0x6474e554, 0x6fffffff, 0x70000000, 0x70000001, 0x70000002, 0x70000003,
        0x70000004, 0x7fffffff, 0x80000000, 0xffffffff,
};

static void section_names_for(uint16_t machine, uint8_t osabi, int elfclass, unsigned *checked,
                              unsigned *bad)
{
	size_t n = nsec_types > ARRAY_SIZE(sec_flags) ? nsec_types : ARRAY_SIZE(sec_flags);
	struct tb_synth_sec *secs = calloc(n, sizeof(*secs));
	char(*names)[24] = calloc(n, sizeof(*names));
	struct tb_synth s = {elfclass, false, machine, ET_REL, osabi, 0x100, n, secs, 0, NULL};
	struct re_file rf;
	size_t len;
	uint8_t *elf;
	char *path;

	assert_non_null(secs);
	assert_non_null(names);
	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "s%zu", i);
		secs[i].name = names[i];
		secs[i].type = sec_types[i % nsec_types];
		secs[i].flags = sec_flags[i % ARRAY_SIZE(sec_flags)];
		secs[i].offset = TB_SYNTH_PAYLOAD;
		secs[i].size = 0x10;
	}
	elf = tb_synth_build(&s, &len);
	path = tb_write_tmp("sectypes", elf, len);
	re_load(path, &rf);
	assert_int_equal(rf.nsec, n + 2);
	for (size_t i = 0; i < n; i++) {
		const struct re_section *r = &rf.sec[i + 1];
		char buf[128];
		int ret;

		assert_string_equal(r->name, names[i]);
		ret = pfelf_section_type_name_os(secs[i].type, machine, osabi, buf, sizeof(buf));
		if (ret < 0 || strcmp(buf, r->type) != 0 || (size_t)ret != strlen(buf)) {
			printf("MISMATCH machine %u OS/ABI %u section type %#x: pfelf '%s' (%d), "
			       "readelf '%s'\n",
			       machine, osabi, secs[i].type, ret < 0 ? "" : buf, ret, r->type);
			*bad += 1;
		}
		if (osabi == 0) {
			char plain[128];
			int ret0 = pfelf_section_type_name(secs[i].type, machine, plain,
			                                   sizeof(plain));
			if (ret0 != ret || strcmp(plain, buf) != 0) {
				printf("MISMATCH machine %u section type %#x: OS/ABI 0 '%s'\n",
				       machine, secs[i].type, plain);
				*bad += 1;
			}
		}
		/* an ELF32 sh_flags holds the low 32 bits */
		uint64_t flags = elfclass == ELFCLASS32 ? (uint32_t)secs[i].flags : secs[i].flags;
		ret = pfelf_section_flags_string(flags, machine, osabi, buf, sizeof(buf));
		if (ret < 0 || strcmp(buf, r->flags) != 0 || (size_t)ret != strlen(buf)) {
			printf("MISMATCH machine %u section flags %#" PRIx64
			       ": pfelf '%s' (%d), readelf '%s'\n",
			       machine, flags, ret < 0 ? "" : buf, ret, r->flags);
			*bad += 1;
		}
		*checked += 1;
	}
	re_file_free(&rf);
	unlink(path);
	free(path);
	free(elf);
	free(secs);
	free(names);
}

/* Section type names and flag letters, as readelf -SW prints them, for
 * every machine and OS/ABI of sec_machines. */
static void test_section_names(void **state)
{
	unsigned checked = 0, bad = 0;

	init_sec_types();
	for (size_t m = 0; m < ARRAY_SIZE(sec_machines); m++)
		section_names_for(sec_machines[m].machine, sec_machines[m].osabi,
		                  sec_machines[m].elfclass, &checked, &bad);
	printf("# %u section types and flag sets compared with readelf, %u mismatches\n", checked,
	       bad);
	assert_int_equal(bad, 0);
}

static void segment_names_for(uint16_t machine, unsigned *checked, unsigned *bad)
{
	size_t n = ARRAY_SIZE(seg_types);
	struct tb_synth_seg segs[ARRAY_SIZE(seg_types)];
	struct tb_synth s = {ELFCLASS64, false, machine, ET_EXEC, 0, 0x100, 0, NULL, n, segs};
	struct re_file rf;
	size_t len;
	uint8_t *elf;
	char *path;

	memset(segs, 0, sizeof(segs));
	for (size_t i = 0; i < n; i++) {
		segs[i].type = seg_types[i];
		/* every R/W/E combination, some with bits readelf ignores */
		segs[i].flags = (uint32_t)(i % 8) | (i % 3 ? 0 : 0xf0000000u);
		/* offset 0: an INTERP's "string" is the ELF magic, no newline */
		segs[i].offset = 0;
		segs[i].vaddr = 0x400000 + i * 0x1000;
		segs[i].filesz = segs[i].memsz = 0x10;
		segs[i].align = 0x1000;
	}
	elf = tb_synth_build(&s, &len);
	path = tb_write_tmp("segtypes", elf, len);
	re_load(path, &rf);
	assert_int_equal(rf.nseg, n);
	for (size_t i = 0; i < n; i++) {
		char buf[128];
		int ret = pfelf_segment_type_name(segs[i].type, machine, buf, sizeof(buf));

		if (ret < 0 || !cmp_segment_type_ok(buf, rf.seg[i].type, segs[i].type, true) ||
		    (size_t)ret != strlen(buf)) {
			printf("MISMATCH machine %u segment type %#x: pfelf '%s' (%d), readelf "
			       "'%s'\n",
			       machine, segs[i].type, ret < 0 ? "" : buf, ret, rf.seg[i].type);
			*bad += 1;
		}
		ret = pfelf_segment_flags_string(segs[i].flags, buf, sizeof(buf));
		if (ret < 0 || strcmp(buf, rf.seg[i].flags) != 0 || (size_t)ret != strlen(buf)) {
			printf("MISMATCH segment flags %#x: pfelf '%s' (%d), readelf '%s'\n",
			       segs[i].flags, ret < 0 ? "" : buf, ret, rf.seg[i].flags);
			*bad += 1;
		}
		*checked += 1;
	}
	re_file_free(&rf);
	unlink(path);
	free(path);
	free(elf);
}

/* Segment type names and flags against readelf -lW (see cmp_segment_type_ok). */
static void test_segment_names(void **state)
{
	unsigned checked = 0, bad = 0;

	for (size_t m = 0; m < ARRAY_SIZE(machines); m++)
		segment_names_for(machines[m], &checked, &bad);
	printf("# %u segment types and flags compared with readelf, %u mismatches\n", checked, bad);
	assert_int_equal(bad, 0);
}

/*
 * Copies of exec with one header field patched, all given to one readelf
 * -hW run; returns what it printed for key, per copy (malloc'd strings).
 */
static char **readelf_h_patched(size_t off, size_t size, const uint64_t *values, size_t n,
                                const char *key)
{
	size_t len, klen = strlen(key);
	uint8_t *elf = tb_slurp(tb_fixture("exec"), &len);
	char **paths = calloc(n, sizeof(*paths)), **out = calloc(n, sizeof(*out));
	char *cmd = NULL, *text, *line, *save = NULL;
	size_t cmdlen = 0, cur = 0;
	FILE *mem = open_memstream(&cmd, &cmdlen);

	assert_non_null(paths);
	assert_non_null(out);
	fputs("readelf -hW", mem);
	for (size_t i = 0; i < n; i++) {
		tb_put(elf + off, size, false, values[i]);
		paths[i] = tb_write_tmp("patched", elf, len);
		fprintf(mem, " %s", paths[i]); /* tb_tmpdir() has no blanks or quotes */
	}
	fputs(" 2>/dev/null", mem);
	fclose(mem);
	text = tb_run(cmd, NULL);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "File: ", 6)) {
			for (cur = 0; cur < n && strcmp(paths[cur], line + 6); cur++)
				;
		} else if (cur < n && !strncmp(line, "  ", 2) && !strncmp(line + 2, key, klen) &&
		           line[2 + klen] == ':') {
			out[cur] = strdup(line + 3 + klen + strspn(line + 3 + klen, " "));
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (!out[i])
			fail_msg("readelf -h printed no %s for value %#" PRIx64, key, values[i]);
		unlink(paths[i]);
		free(paths[i]);
	}
	free(paths);
	free(text);
	free(cmd);
	free(elf);
	return out;
}

typedef int (*name_fn)(uint64_t v, char *buf, size_t len);

static int machine_fn(uint64_t v, char *buf, size_t len)
{
	return pfelf_machine_name((uint16_t)v, buf, len);
}

static int type_fn(uint64_t v, char *buf, size_t len)
{
	return pfelf_type_name((uint16_t)v, buf, len);
}

static int osabi_fn(uint64_t v, char *buf, size_t len)
{
	return pfelf_osabi_name((uint8_t)v, buf, len);
}

static void check_header_names(size_t off, size_t size, const uint64_t *values, size_t n,
                               const char *key, name_fn fn)
{
	char **theirs = readelf_h_patched(off, size, values, n, key);
	unsigned bad = 0;

	for (size_t i = 0; i < n; i++) {
		char buf[256];
		int ret = fn(values[i], buf, sizeof(buf));

		if (ret < 0 || strcmp(buf, theirs[i]) != 0 || (size_t)ret != strlen(buf)) {
			printf("MISMATCH %s %#" PRIx64 ": pfelf '%s' (%d), readelf '%s'\n", key,
			       values[i], ret < 0 ? "" : buf, ret, theirs[i]);
			bad++;
		}
		free(theirs[i]);
	}
	free(theirs);
	printf("# %zu %s names compared with readelf -h, %u mismatches\n", n, key, bad);
	assert_int_equal(bad, 0);
}

static void test_machine_names(void **state)
{
	static const uint64_t v[] = {EM_X86_64,  EM_S390,  EM_ARM,   EM_AARCH64, EM_386,
	                             EM_NONE,    EM_MIPS,  EM_PPC64, EM_PPC,     EM_RISCV,
	                             EM_SPARCV9, EM_IA_64, 0x7777};

	check_header_names(18, 2, v, ARRAY_SIZE(v), "Machine", machine_fn);
}

static void test_type_names(void **state)
{
	static const uint64_t v[] = {ET_NONE, ET_REL, ET_EXEC, ET_DYN, ET_CORE, 5, 0xfe00, 0xff00};

	check_header_names(16, 2, v, ARRAY_SIZE(v), "Type", type_fn);
}

static void test_osabi_names(void **state)
{
	uint64_t v[19];

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		v[i] = i;
	check_header_names(EI_OSABI, 1, v, ARRAY_SIZE(v), "OS/ABI", osabi_fn);
}

/* Every name function: -ENOSPC and a cut, NUL-ended string when buf is too small. */
static void check_enospc(const char *what, int (*call)(void *arg, char *buf, size_t len), void *arg)
{
	char full[256], buf[256];
	int len = call(arg, full, sizeof(full));

	if (len <= 0)
		fail_msg("%s: %d", what, len);
	assert_int_equal(len, strlen(full));
	assert_ret(call(arg, buf, (size_t)len + 1), len);
	assert_string_equal(buf, full);
	for (int cut = 1; cut <= len; cut++) {
		memset(buf, 'Z', sizeof(buf));
		assert_ret(call(arg, buf, (size_t)cut), -ENOSPC);
		assert_int_equal(strlen(buf), cut - 1);
		assert_memory_equal(buf, full, (size_t)cut - 1);
		assert_int_equal(buf[cut], 'Z'); /* nothing written past buflen */
	}
	buf[0] = 'Z';
	assert_ret(call(arg, buf, 0), -ENOSPC);
	assert_int_equal(buf[0], 'Z');
}

static int c_sectype(void *a, char *b, size_t l)
{
	return pfelf_section_type_name(SHT_PROGBITS, EM_X86_64, b, l);
}
static int c_secflags(void *a, char *b, size_t l)
{
	return pfelf_section_flags_string(SHF_WRITE | SHF_ALLOC | SHF_EXECINSTR, EM_X86_64, 0, b,
	                                  l);
}
static int c_segtype(void *a, char *b, size_t l)
{
	return pfelf_segment_type_name(PT_GNU_EH_FRAME, EM_X86_64, b, l);
}
static int c_segtype_hex(void *a, char *b, size_t l)
{
	return pfelf_segment_type_name(0x12345678, EM_X86_64, b, l);
}
static int c_segflags(void *a, char *b, size_t l)
{
	return pfelf_segment_flags_string(PF_R | PF_W | PF_X, b, l);
}
static int c_machine(void *a, char *b, size_t l)
{
	return pfelf_machine_name(EM_X86_64, b, l);
}
static int c_type(void *a, char *b, size_t l)
{
	return pfelf_type_name(ET_EXEC, b, l);
}
static int c_osabi(void *a, char *b, size_t l)
{
	return pfelf_osabi_name(ELFOSABI_GNU, b, l);
}
static int c_filetype(void *a, char *b, size_t l)
{
	return pfelf_file_type_name(a, b, l);
}

static void test_enospc(void **state)
{
	pfelf_file *f;
	char buf[8];

	check_enospc("section type", c_sectype, NULL);
	check_enospc("section flags", c_secflags, NULL);
	check_enospc("segment type", c_segtype, NULL);
	check_enospc("segment type hex", c_segtype_hex, NULL);
	check_enospc("segment flags", c_segflags, NULL);
	check_enospc("machine", c_machine, NULL);
	check_enospc("type", c_type, NULL);
	check_enospc("osabi", c_osabi, NULL);
	assert_ret(pfelf_open(tb_fixture("pie"), 0, &f), 0);
	check_enospc("file type", c_filetype, f);
	pfelf_close(f);
	/* empty strings fit in one byte */
	assert_ret(pfelf_section_flags_string(0, EM_X86_64, 0, buf, 1), 0);
	assert_string_equal(buf, "");
	assert_ret(pfelf_segment_flags_string(0, buf, 1), 0);
	assert_string_equal(buf, "");
	assert_ret(pfelf_segment_type_name(0x12345678, EM_X86_64, buf, 0), -ENOSPC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_section_names), cmocka_unit_test(test_segment_names),
	        cmocka_unit_test(test_machine_names), cmocka_unit_test(test_type_names),
	        cmocka_unit_test(test_osabi_names),   cmocka_unit_test(test_enospc),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
