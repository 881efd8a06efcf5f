/*
 * Malformed headers: one test per validation rule, each built by patching
 * a copy of a good fixture (ELF64 and ELF32, both byte orders) and opened
 * through every backend. Each asserts the errno pfelf.h documents: -ENOEXEC
 * for "not ELF", -EINVAL for malformed; a table that cannot load fails
 * either the open or the first call that loads it, and every later call of
 * that table, while the other table stays usable.
 */
#include "backends.h"
#include "readelf_parse.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A good fixture to patch, with where its header fields are. */
struct base {
	const char *name;
	uint8_t *b;
	size_t len;
	bool be, is64;
	size_t a; /* size of an address field: 4 or 8 */
	struct re_file rf;
};

static const char *const base_names[] = {"exec", "armhf-libc.so.6", "bigendian.o", "bigendian32.o"};
#define NBASES    (sizeof(base_names) / sizeof(base_names[0]))
#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))
static struct base bases[NBASES];

static int load_bases(void **state)
{
	for (size_t i = 0; i < NBASES; i++) {
		struct base *x = &bases[i];

		x->name = base_names[i];
		x->b = tb_slurp(tb_fixture(x->name), &x->len);
		x->is64 = x->b[4] == 2;
		x->be = x->b[5] == 2;
		x->a = x->is64 ? 8 : 4;
		re_load(tb_fixture(x->name), &x->rf);
	}
	return 0;
}

static int free_bases(void **state)
{
	for (size_t i = 0; i < NBASES; i++) {
		free(bases[i].b);
		re_file_free(&bases[i].rf);
	}
	return 0;
}

/* Header field offsets. */
static size_t o_phoff(const struct base *x)
{
	return x->is64 ? 32 : 28;
}
static size_t o_shoff(const struct base *x)
{
	return x->is64 ? 40 : 32;
}
static size_t o_ehsize(const struct base *x)
{
	return x->is64 ? 52 : 40;
}
#define O_PHENTSIZE(x) (o_ehsize(x) + 2)
#define O_PHNUM(x)     (o_ehsize(x) + 4)
#define O_SHENTSIZE(x) (o_ehsize(x) + 6)
#define O_SHNUM(x)     (o_ehsize(x) + 8)
#define O_SHSTRNDX(x)  (o_ehsize(x) + 10)

static uint64_t get(const struct base *x, const uint8_t *b, size_t off, size_t size)
{
	return tb_get(b + off, size, x->be);
}

static void put(const struct base *x, uint8_t *b, size_t off, size_t size, uint64_t v)
{
	tb_put(b + off, size, x->be, v);
}

/* Offset of a field of section header i: sh_name 0, sh_type 4, then by class. */
enum shf { SH_NAME, SH_OFFSET, SH_SIZE, SH_LINK, SH_INFO };
static size_t o_sh(const struct base *x, uint32_t i, enum shf f, size_t *size)
{
	static const size_t off64[] = {0, 24, 32, 40, 44}, off32[] = {0, 16, 20, 24, 28};
	uint64_t shoff = get(x, x->b, o_shoff(x), x->a);
	uint64_t ent = get(x, x->b, O_SHENTSIZE(x), 2);

	*size = (f == SH_OFFSET || f == SH_SIZE) ? x->a : 4;
	return (size_t)(shoff + i * ent) + (x->is64 ? off64[f] : off32[f]);
}

static uint64_t get_sh(const struct base *x, uint32_t i, enum shf f)
{
	size_t size, off = o_sh(x, i, f, &size);

	return get(x, x->b, off, size);
}

static void put_sh(const struct base *x, uint8_t *b, uint32_t i, enum shf f, uint64_t v)
{
	size_t size, off = o_sh(x, i, f, &size);

	put(x, b, off, size, v);
}

static uint8_t *copy_of(const struct base *x)
{
	uint8_t *c = malloc(x->len);

	assert_non_null(c);
	memcpy(c, x->b, x->len);
	return c;
}

static bool has_phdrs(const struct base *x)
{
	return get(x, x->b, O_PHNUM(x), 2) > 0;
}

static uint64_t umax(const struct base *x)
{
	return x->is64 ? UINT64_MAX : UINT32_MAX;
}

/* Open the bytes; expect exactly err. */
static void expect_open(const struct base *x, const uint8_t *b, size_t len, enum tb_backend be,
                        int err, const char *what)
{
	struct tb_handle h;
	int ret = tb_open_bytes(b, len, be, &h);

	if (ret != err)
		fail_msg("%s, %s: open = %d (%s), expected %d (%s)", x->name, what, ret,
		         tb_errname(ret), err, tb_errname(err));
	if (ret == 0)
		tb_close(&h);
}

enum table { SECTIONS, SEGMENTS };

/*
 * A table that cannot load: the open fails with -EINVAL, or it succeeds
 * and every call that needs the table says -EINVAL, while the other table
 * still loads (when the base has it).
 */
static void expect_table_einval(const struct base *x, const uint8_t *b, enum tb_backend be,
                                enum table t, const char *what)
{
	const pfelf_shdr *sh;
	const pfelf_phdr *ph;
	const char *name;
	struct tb_handle h;
	int ret = tb_open_bytes(b, x->len, be, &h);

	if (ret == -EINVAL)
		return;
	if (ret != 0)
		fail_msg("%s, %s: open = %d (%s), expected 0 or -EINVAL", x->name, what, ret,
		         tb_errname(ret));
	if (t == SECTIONS) {
		ret = pfelf_section_count(h.f);
		if (ret != -EINVAL)
			fail_msg("%s, %s: pfelf_section_count = %d (%s), expected -EINVAL", x->name,
			         what, ret, tb_errname(ret));
		assert_ret(pfelf_section_count(h.f), -EINVAL);
		assert_ret(pfelf_section(h.f, 0, &sh), -EINVAL);
		assert_ret(pfelf_section(h.f, 1, &sh), -EINVAL);
		assert_ret(pfelf_section_by_name(h.f, ".text", &sh), -EINVAL);
		assert_ret(pfelf_section_name(h.f, 1, &name), -EINVAL);
		if (has_phdrs(x))
			assert_ret(pfelf_segment_count(h.f), x->rf.nseg);
	} else {
		ret = pfelf_segment_count(h.f);
		if (ret != -EINVAL)
			fail_msg("%s, %s: pfelf_segment_count = %d (%s), expected -EINVAL", x->name,
			         what, ret, tb_errname(ret));
		assert_ret(pfelf_segment_count(h.f), -EINVAL);
		assert_ret(pfelf_segment(h.f, 0, &ph), -EINVAL);
		uint8_t byte;
		assert_ret(pfelf_read_vaddr(h.f, pfelf_header(h.f)->entry, &byte, 1), -EINVAL);
	}
	tb_close(&h);
}

/* For each of the n values in bad[], a copy of x with that value in the header field at off. */
static void expect_field_table_einval(const struct base *x, enum tb_backend be, size_t off,
                                      size_t size, const uint64_t *bad, size_t n, enum table t,
                                      const char *what)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t *c = copy_of(x);

		put(x, c, off, size, bad[i]);
		expect_table_einval(x, c, be, t, what);
		free(c);
	}
}

static void test_bad_magic(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		for (int i = 0; i < 4; i++) {
			uint8_t *c = copy_of(&bases[k]);

			c[i] ^= 0x01;
			expect_open(&bases[k], c, bases[k].len, be, -ENOEXEC, "bad magic");
			c[i] = 0;
			expect_open(&bases[k], c, bases[k].len, be, -ENOEXEC, "bad magic");
			free(c);
		}
	}
}

static void test_short_file(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		size_t need = x->is64 ? 64 : 52;
		struct tb_handle h;

		/* too short to hold the magic: not ELF */
		for (size_t len = 0; len < 4; len++)
			expect_open(x, x->b, len, be, -ENOEXEC, "shorter than the magic");
		/* the magic but no whole e_ident: pfelf.h leaves ENOEXEC or EINVAL open */
		for (size_t len = 4; len < 16; len++) {
			int ret = tb_open_bytes(x->b, len, be, &h);

			if (ret != -ENOEXEC && ret != -EINVAL)
				fail_msg("%s cut to %zu bytes: open = %d (%s)", x->name, len, ret,
				         tb_errname(ret));
		}
		/* a whole e_ident, a cut header: malformed */
		for (size_t len = 16; len < need; len++)
			expect_open(x, x->b, len, be, -EINVAL, "shorter than the header");
	}
}

/* e_ident[at] set to values no ELF file has: every base fails to open with -EINVAL. */
static void expect_bad_ident_byte(enum tb_backend be, size_t at, const char *what)
{
	static const uint8_t bad[] = {0, 3, 0xff};

	for (size_t k = 0; k < NBASES; k++)
		for (size_t i = 0; i < sizeof(bad); i++) {
			uint8_t *c = copy_of(&bases[k]);

			c[at] = bad[i];
			expect_open(&bases[k], c, bases[k].len, be, -EINVAL, what);
			free(c);
		}
}

static void test_bad_class(void **state)
{
	expect_bad_ident_byte(TB_STATE_BACKEND(state), 4, "bad EI_CLASS");
}

static void test_bad_data(void **state)
{
	expect_bad_ident_byte(TB_STATE_BACKEND(state), 5, "bad EI_DATA");
}

/* EI_VERSION, e_version and e_ehsize say nothing about the layout of the
 * rest: readelf reads such files, and so does pfelf (elffs's info notes
 * them). A handle opens and keeps the values as they are. */
static void expect_accepted(const struct base *x, const uint8_t *c, enum tb_backend be,
                            const char *what)
{
	struct tb_handle h;
	int ret = tb_open_bytes(c, x->len, be, &h);
	if (ret != 0)
		fail_msg("%s, %s: open = %d (%s), expected 0", x->name, what, ret, tb_errname(ret));
	const pfelf_ehdr *e = pfelf_header(h.f);
	assert_memory_equal(e->ident, c, 16);
	assert_int_equal(e->version, tb_get(c + 20, 4, x->be));
	assert_int_equal(e->ehsize, tb_get(c + o_ehsize(x), 2, x->be));
	assert_true(pfelf_section_count(h.f) > 0);
	tb_close(&h);
}

static void test_odd_version(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);
	static const uint64_t odd[] = {0, 2, 0x70, 0xffffffff};

	for (size_t k = 0; k < NBASES; k++)
		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			uint8_t *c = copy_of(&bases[k]);

			c[6] = (uint8_t)odd[i];
			expect_accepted(&bases[k], c, be, "odd EI_VERSION");
			c[6] = 1;
			put(&bases[k], c, 20, 4, odd[i]);
			expect_accepted(&bases[k], c, be, "odd e_version");
			free(c);
		}
}

static void test_odd_ehsize(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		const uint64_t odd[] = {0, 16, (uint64_t)(x->is64 ? 63 : 51), 100, 0xffff};

		for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
			uint8_t *c = copy_of(x);

			put(x, c, o_ehsize(x), 2, odd[i]);
			expect_accepted(x, c, be, "odd e_ehsize");
			free(c);
		}
	}
}

static void test_shentsize_wrong(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		const uint64_t bad[] = {0, 1, (uint64_t)(x->is64 ? 63 : 39)};

		expect_field_table_einval(x, be, O_SHENTSIZE(x), 2, bad, NELEMS(bad), SECTIONS,
		                          "e_shentsize wrong");
	}
}

static void test_phentsize_wrong(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);
	int done = 0;

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		const uint64_t bad[] = {0, 1, (uint64_t)(x->is64 ? 55 : 31)};

		if (!has_phdrs(x))
			continue;
		expect_field_table_einval(x, be, O_PHENTSIZE(x), 2, bad, NELEMS(bad), SEGMENTS,
		                          "e_phentsize wrong");
		done += (int)NELEMS(bad);
	}
	assert_true(done >= 6);
}

static void test_shoff_past_end(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		const uint64_t bad[] = {x->len, x->len - 1, x->len + 4096, umax(x), umax(x) - 63};

		expect_field_table_einval(x, be, o_shoff(x), x->a, bad, NELEMS(bad), SECTIONS,
		                          "e_shoff past the end");
	}
}

static void test_phoff_past_end(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		const uint64_t bad[] = {x->len, x->len - 1, x->len + 4096, umax(x), umax(x) - 55};

		if (!has_phdrs(x))
			continue;
		expect_field_table_einval(x, be, o_phoff(x), x->a, bad, NELEMS(bad), SEGMENTS,
		                          "e_phoff past the end");
	}
}

/* e_shoff + e_shnum * e_shentsize wraps around (ELF64), or lies past 4 GiB (ELF32). */
static void test_table_end_overflow(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		uint64_t shnum = get(x, x->b, O_SHNUM(x), 2), ent = get(x, x->b, O_SHENTSIZE(x), 2);
		uint64_t phnum = get(x, x->b, O_PHNUM(x), 2),
		         pent = get(x, x->b, O_PHENTSIZE(x), 2);
		uint8_t *c = copy_of(x);

		assert_true(shnum > 2);
		/* the table's first entries fit below the top, its end wraps */
		put(x, c, o_shoff(x), x->a, umax(x) - (shnum / 2) * ent + 1);
		expect_table_einval(x, c, be, SECTIONS, "e_shoff + size overflows");
		if (phnum > 2) {
			memcpy(c, x->b, x->len);
			put(x, c, o_phoff(x), x->a, umax(x) - (phnum / 2) * pent + 1);
			expect_table_einval(x, c, be, SEGMENTS, "e_phoff + size overflows");
		}
		free(c);
	}
}

static void test_phnum_huge(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	alarm(60);
	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		uint8_t *c;

		if (!has_phdrs(x))
			continue;
		c = copy_of(x);
		put(x, c, O_PHNUM(x), 2, 0xfffe);
		expect_table_einval(x, c, be, SEGMENTS, "e_phnum huge");
		/* PN_XNUM with a huge real count in section 0's sh_info */
		put(x, c, O_PHNUM(x), 2, 0xffff);
		put_sh(x, c, 0, SH_INFO, 0xffffffff);
		expect_table_einval(x, c, be, SEGMENTS, "PN_XNUM, sh_info huge");
		put_sh(x, c, 0, SH_INFO, 0x7fffffff);
		expect_table_einval(x, c, be, SEGMENTS, "PN_XNUM, sh_info 2^31-1");
		free(c);
	}
	alarm(0);
}

/* e_shnum == 0: the real count in section 0's sh_size, here far larger than the file. */
static void test_shnum_extended_huge(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	alarm(60); /* never a hang, never an allocation the size of the claim */
	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		const uint64_t bad[] = {0xffffffff, 0x7fffffff, 0x10000, umax(x)};

		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			uint8_t *c = copy_of(x);

			put(x, c, O_SHNUM(x), 2, 0);
			put_sh(x, c, 0, SH_SIZE, bad[i]);
			expect_table_einval(x, c, be, SECTIONS, "extended e_shnum huge");
			free(c);
		}
	}
	alarm(0);
}

/*
 * Names of every section must fail with -EINVAL, the table itself loads
 * (section patched excepted, its header matches readelf's of the base).
 */
static void expect_names_einval(const struct base *x, const uint8_t *c, enum tb_backend be,
                                uint32_t patched, const char *what)
{
	struct tb_handle h;
	const pfelf_shdr *sh;
	const char *name;
	int ret = tb_open_bytes(c, x->len, be, &h);

	if (ret != 0)
		fail_msg("%s, %s: open = %d (%s), expected 0", x->name, what, ret, tb_errname(ret));
	assert_ret(pfelf_section_count(h.f), x->rf.nsec);
	for (size_t i = 0; i < x->rf.nsec; i++) {
		const struct re_section *r = &x->rf.sec[i];

		assert_ret(pfelf_section_name(h.f, r->index, &name), -EINVAL);
		assert_ret(pfelf_section(h.f, r->index, &sh), 0);
		assert_non_null(sh->name);
		assert_string_equal(sh->name, "");
		assert_true(sh->status & PFELF_ST_BAD_NAME);
		if (r->index != patched) {
			assert_int_equal(sh->offset, r->off);
			assert_int_equal(sh->size, r->size);
		}
	}
	assert_ret(pfelf_section_by_name(h.f, ".text", &sh), -ENOENT);
	if (has_phdrs(x))
		assert_ret(pfelf_segment_count(h.f), x->rf.nseg);
	tb_close(&h);
}

static void test_shstrndx_out_of_range(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		uint64_t shnum = get(x, x->b, O_SHNUM(x), 2);
		uint8_t *c = copy_of(x);

		put(x, c, O_SHSTRNDX(x), 2, shnum);
		expect_names_einval(x, c, be, UINT32_MAX, "e_shstrndx == e_shnum");
		put(x, c, O_SHSTRNDX(x), 2, 0xfeff);
		expect_names_einval(x, c, be, UINT32_MAX, "e_shstrndx 0xfeff");
		put(x, c, O_SHSTRNDX(x), 2, 0);
		expect_names_einval(x, c, be, UINT32_MAX, "e_shstrndx 0 (no name table)");
		/* SHN_XINDEX, the real index in section 0's sh_link, out of range */
		put(x, c, O_SHSTRNDX(x), 2, 0xffff);
		put_sh(x, c, 0, SH_LINK, shnum + 5);
		expect_names_einval(x, c, be, UINT32_MAX, "SHN_XINDEX, sh_link out of range");
		put_sh(x, c, 0, SH_LINK, 0xffffffff);
		expect_names_einval(x, c, be, UINT32_MAX, "SHN_XINDEX, sh_link 0xffffffff");
		free(c);
	}
}

/* The name table itself lies outside the file or claims a huge size. */
static void test_strtab_out_of_file(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		uint32_t str = (uint32_t)get(x, x->b, O_SHSTRNDX(x), 2);
		uint8_t *c = copy_of(x);

		put_sh(x, c, str, SH_OFFSET, x->len + 1);
		expect_names_einval(x, c, be, str, "name table past the end");
		memcpy(c, x->b, x->len);
		put_sh(x, c, str, SH_SIZE, umax(x));
		expect_names_einval(x, c, be, str, "name table size huge");
		free(c);
	}
}

/*
 * Open c; the sections in bad[] (flags per index) must have no name
 * (-EINVAL, BAD_NAME, ""), every other one its name as readelf prints it
 * for the base file.
 */
static void expect_some_names_bad(const struct base *x, const uint8_t *c, const bool *bad,
                                  enum tb_backend be, const char *what)
{
	struct tb_handle h;
	const pfelf_shdr *sh;
	const char *name;
	int nbad = 0;

	assert_ret(tb_open_bytes(c, x->len, be, &h), 0);
	assert_ret(pfelf_section_count(h.f), x->rf.nsec);
	for (size_t i = 0; i < x->rf.nsec; i++) {
		const struct re_section *r = &x->rf.sec[i];
		int ret = pfelf_section_name(h.f, r->index, &name);

		assert_ret(pfelf_section(h.f, r->index, &sh), 0);
		if (bad[i]) {
			nbad++;
			if (ret != -EINVAL)
				fail_msg("%s, %s: section %u name = %d (%s), expected -EINVAL",
				         x->name, what, r->index, ret, tb_errname(ret));
			assert_string_equal(sh->name, "");
			assert_true(sh->status & PFELF_ST_BAD_NAME);
		} else {
			if (ret != 0)
				fail_msg("%s, %s: section %u (%s) name = %d (%s)", x->name, what,
				         r->index, r->name, ret, tb_errname(ret));
			assert_string_equal(name, r->name);
			assert_string_equal(sh->name, r->name);
			assert_false(sh->status & PFELF_ST_BAD_NAME);
		}
	}
	assert_true(nbad > 0);
	tb_close(&h);
}

static void test_sh_name_past_end(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		uint32_t str = (uint32_t)get(x, x->b, O_SHSTRNDX(x), 2);
		uint64_t strsize = get_sh(x, str, SH_SIZE);
		bool *bad = calloc(x->rf.nsec, sizeof(*bad));
		const uint64_t past[] = {strsize, strsize + 1, 0xffffffff};

		assert_non_null(bad);
		bad[1] = true;
		for (size_t i = 0; i < sizeof(past) / sizeof(past[0]); i++) {
			uint8_t *c = copy_of(x);

			put_sh(x, c, 1, SH_NAME, past[i]);
			expect_some_names_bad(x, c, bad, be, "sh_name past the name table");
			free(c);
		}
		free(bad);
	}
}

/* The name table's last byte is not NUL (or is cut off): the last name has no end. */
static void test_strtab_no_final_nul(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);

	for (size_t k = 0; k < NBASES; k++) {
		const struct base *x = &bases[k];
		uint32_t str = (uint32_t)get(x, x->b, O_SHSTRNDX(x), 2);
		uint64_t stroff = get_sh(x, str, SH_OFFSET), strsize = get_sh(x, str, SH_SIZE);
		bool *bad = calloc(x->rf.nsec, sizeof(*bad));
		uint8_t *c;
		int nbad = 0;

		assert_non_null(bad);
		assert_int_equal(x->b[stroff + strsize - 1], 0);
		/* the names (suffixes included) whose NUL is the table's last byte */
		for (size_t i = 0; i < x->rf.nsec; i++) {
			uint64_t at = get_sh(x, x->rf.sec[i].index, SH_NAME);

			bad[i] = at + strlen(x->rf.sec[i].name) == strsize - 1;
			nbad += bad[i];
		}
		assert_true(nbad > 0);
		c = copy_of(x);
		c[stroff + strsize - 1] = 'X';
		expect_some_names_bad(x, c, bad, be, "name table without a final NUL");
		memcpy(c, x->b, x->len);
		put_sh(x, c, str, SH_SIZE, strsize - 1);
		expect_some_names_bad(x, c, bad, be, "name table cut before its final NUL");
		free(c);
		free(bad);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_bad_magic),
	        TB_BACKEND_TESTS(test_short_file),
	        TB_BACKEND_TESTS(test_bad_class),
	        TB_BACKEND_TESTS(test_bad_data),
	        TB_BACKEND_TESTS(test_odd_version),
	        TB_BACKEND_TESTS(test_odd_ehsize),
	        TB_BACKEND_TESTS(test_shentsize_wrong),
	        TB_BACKEND_TESTS(test_phentsize_wrong),
	        TB_BACKEND_TESTS(test_shoff_past_end),
	        TB_BACKEND_TESTS(test_phoff_past_end),
	        TB_BACKEND_TESTS(test_table_end_overflow),
	        TB_BACKEND_TESTS(test_phnum_huge),
	        TB_BACKEND_TESTS(test_shnum_extended_huge),
	        TB_BACKEND_TESTS(test_shstrndx_out_of_range),
	        TB_BACKEND_TESTS(test_strtab_out_of_file),
	        TB_BACKEND_TESTS(test_sh_name_past_end),
	        TB_BACKEND_TESTS(test_strtab_no_final_nul),
	};

	return cmocka_run_group_tests(tests, load_bases, free_bases);
}
