/*
 * Hostile ar archives (pfelf/archive*.c), on every backend: archives
 * written by argen.c, then patched. A malformed member is skipped and
 * listed with its reason, the others keep their names and bytes; a header
 * whose size cannot be read ends the walk there; a malformed symbol index
 * is refused as a whole, an entry pointing at no member says so. And the
 * walk is linear: the work an open does (headers, bytes copied, search
 * steps, counted by the library) grows tenfold, not a hundredfold, from
 * 10,000 to 100,000 members.
 */
#include "archive/archive_i.h"
#include "argen.h"
#include "backends.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct arh {
	pfelf_archive *a;
	void *buf;
};

/* Open the bytes with backend b (a file removed at once for mmap and pread). */
static int open_bytes(const uint8_t *bytes, size_t len, enum tb_backend b, struct arh *h)
{
	memset(h, 0, sizeof(*h));
	if (b == TB_MEMORY) {
		h->buf = malloc(len ? len : 1);
		assert_non_null(h->buf);
		memcpy(h->buf, bytes, len);
		int ret = pfelf_archive_open_memory(h->buf, len, 0, &h->a);
		if (ret < 0) {
			free(h->buf);
			h->buf = NULL;
		}
		return ret;
	}
	char *path = tb_write_tmp("ar", bytes, len);
	int ret = pfelf_archive_open(path, b == TB_PREAD ? PFELF_OPEN_NOMMAP : 0, &h->a);
	unlink(path);
	free(path);
	return ret;
}

static void close_h(struct arh *h)
{
	pfelf_archive_close(h->a);
	free(h->buf);
}

/* The archive under test: four members and two index entries. */
static struct argen_member mem[4];
static const struct argen_sym syms[] = {{"names_entry", 0}, {"names_entry", 1}, {"comdat", 3}};
#define NSYMS 3

static void load_members(void)
{
	if (mem[0].data)
		return;
	mem[0] = (struct argen_member){"a.o", NULL, 0};
	mem[1] = (struct argen_member){"long_member_name_1.o", NULL, 0};
	mem[2] = (struct argen_member){"b.txt", "xyz", 3};
	mem[3] = (struct argen_member){"c.o", NULL, 0};
	mem[0].data = tb_slurp(tb_fixture("names.o"), &mem[0].len);
	mem[1].data = tb_slurp(tb_fixture("names.o"), &mem[1].len);
	mem[3].data = tb_slurp(tb_fixture("comdat.o"), &mem[3].len);
}

struct built {
	uint8_t *d;
	size_t len;
	uint64_t off[4]; /* header offsets */
};

static void build(enum argen_format fmt, struct built *x)
{
	load_members();
	x->d = argen_build(fmt, mem, 4, syms, NSYMS, &x->len, x->off);
	assert_non_null(x->d);
}

/* Write s into a header field, padded with spaces. */
static void patch(struct built *x, unsigned member, unsigned field, unsigned width, const char *s)
{
	uint8_t *p = x->d + x->off[member] + field;
	memset(p, ' ', width);
	memcpy(p, s, strlen(s));
}

#define F_NAME 0
#define F_MODE 40
#define F_SIZE 48
#define F_FMAG 58

/*
 * Open x with b and check: the members listed are those of want (indexes
 * into mem, -1 ended), each with its name, position and bytes; nskip
 * headers skipped, the first at header offset skip_off with a reason
 * containing why.
 */
static void expect(struct built *x, enum tb_backend b, const int *want, int nskip,
                   uint64_t skip_off, const char *why, struct arh *h)
{
	assert_ret(open_bytes(x->d, x->len, b, h), 0);
	pfelf_archive *a = h->a;
	int n = 0;
	while (want[n] >= 0)
		n++;
	assert_int_equal(pfelf_archive_member_count(a), n);
	for (int i = 0; i < n; i++) {
		pfelf_ar_member m;
		assert_ret(pfelf_archive_member(a, (uint32_t)i, &m), 0);
		const struct argen_member *g = &mem[want[i]];
		assert_string_equal(m.name, g->name);
		assert_int_equal(m.position, want[i]);
		assert_int_equal(m.header_offset, x->off[want[i]]);
		assert_int_equal(m.size, g->len);
		uint8_t *buf = malloc(g->len + 1);
		assert_non_null(buf);
		assert_ret(pfelf_archive_read(a, m.offset, buf, g->len), (long long)g->len);
		assert_memory_equal(buf, g->data, g->len);
		free(buf);
		pfelf_file *f = NULL;
		int ret = pfelf_archive_open_member(a, (uint32_t)i, 0, &f);
		if (pfelf_is_elf_magic(g->data, g->len)) {
			assert_ret(ret, 0);
			assert_true(pfelf_section_count(f) > 0);
			pfelf_close(f);
		} else {
			assert_ret(ret, -ENOEXEC);
		}
	}
	assert_int_equal(pfelf_archive_skipped_count(a), nskip);
	if (nskip) {
		pfelf_ar_skipped s;
		assert_ret(pfelf_archive_skipped(a, 0, &s), 0);
		assert_int_equal(s.header_offset, skip_off);
		assert_true(s.error == -EINVAL);
		if (!strstr(s.reason, why))
			fail_msg("reason \"%s\", expected \"%s\"", s.reason, why);
	}
}

/* The symbol index: entry i points at member want[i] (PFELF_AR_NO_MEMBER). */
static void expect_syms(pfelf_archive *a, const uint32_t *want)
{
	assert_int_equal(pfelf_archive_symbol_count(a), NSYMS);
	for (uint32_t i = 0; i < NSYMS; i++) {
		pfelf_ar_symbol s;
		assert_ret(pfelf_archive_symbol(a, i, &s), 0);
		assert_string_equal(s.name, syms[i].name);
		assert_int_equal(s.member, want[i]);
	}
}

static void test_intact(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const enum argen_format fmts[] = {ARGEN_GNU, ARGEN_GNU64, ARGEN_BSD, ARGEN_BSD64};
	for (size_t k = 0; k < 4; k++) {
		struct built x;
		struct arh h;
		build(fmts[k], &x);
		expect(&x, b, (const int[]){0, 1, 2, 3, -1}, 0, 0, "", &h);
		expect_syms(h.a, (const uint32_t[]){0, 1, 3});
		close_h(&h);
		free(x.d);
	}
}

/* A "/123" past the // table: that member is skipped, the index entry
 * that named it points at no member. */
static void test_long_name_outside(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_GNU, &x);
	patch(&x, 1, F_NAME, 16, "/99999");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 2, 3, -1}, 1, x.off[1], "outside", &h);
	expect_syms(h.a, (const uint32_t[]){0, PFELF_AR_NO_MEMBER, 2});
	close_h(&h);
	free(x.d);
}

static void test_bad_numeric(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_GNU, &x);
	patch(&x, 2, F_MODE, 8, "6x4");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, 3, -1}, 1, x.off[2], "numeric", &h);
	close_h(&h);
	free(x.d);
}

/* The walk cannot go past a header whose size or magic is bad. */
static void test_bad_size_ends_walk(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_BSD, &x);
	patch(&x, 1, F_SIZE, 10, "12a");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, -1}, 1, x.off[1], "size", &h);
	close_h(&h);
	patch(&x, 1, F_SIZE, 10, "-1");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, -1}, 1, x.off[1], "size", &h);
	close_h(&h);
	free(x.d);
	build(ARGEN_GNU, &x);
	memcpy(x.d + x.off[2] + F_FMAG, "X\n", 2);
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, -1}, 1, x.off[2], "magic", &h);
	close_h(&h);
	free(x.d);
}

static void test_truncated(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_GNU, &x);
	size_t full = x.len;
	x.len = x.off[3] + 60 + 10; /* c.o's bytes cut */
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, 2, -1}, 1, x.off[3], "past the end",
	       &h);
	close_h(&h);
	x.len = x.off[3] + 30; /* c.o's header cut */
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, 2, -1}, 1, x.off[3], "truncated",
	       &h);
	close_h(&h);
	x.len = full;
	free(x.d);
}

/* A symbol index whose count runs past its end is refused as a whole. */
static void test_bad_index(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct built x;
	struct arh h;
	build(ARGEN_GNU, &x);
	memset(x.d + 8 + 60, 0xff, 4); /* the count */
	expect(&x, b, (const int[]){0, 1, 2, 3, -1}, 1, 8, "symbol index", &h);
	assert_ret(pfelf_archive_symbol_count(h.a), -EINVAL);
	pfelf_ar_symbol s;
	assert_ret(pfelf_archive_symbol(h.a, 0, &s), -EINVAL);
	pfelf_ar_skipped k;
	assert_ret(pfelf_archive_skipped(h.a, 0, &k), 0);
	assert_int_equal(k.position, UINT32_MAX);
	close_h(&h);
	/* An entry's offset that is no member header. */
	memcpy(x.d + 8 + 60, "\0\0\0\3", 4);
	memcpy(x.d + 8 + 60 + 4, "\0\0\x30\x39", 4);
	expect(&x, b, (const int[]){0, 1, 2, 3, -1}, 0, 0, "", &h);
	expect_syms(h.a, (const uint32_t[]){PFELF_AR_NO_MEMBER, 1, 3});
	close_h(&h);
	free(x.d);
	/* BSD: a string offset past the string table. */
	build(ARGEN_BSD, &x);
	uint64_t idx = 8 + 60 + 20; /* after the "#1/20" name */
	memset(x.d + idx + 4, 0x7f, 4);
	expect(&x, b, (const int[]){0, 1, 2, 3, -1}, 1, 8, "symbol index", &h);
	assert_ret(pfelf_archive_symbol_count(h.a), -EINVAL);
	close_h(&h);
	free(x.d);
}

static void test_bsd_name_too_long(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_BSD, &x);
	patch(&x, 1, F_NAME, 16, "#1/99999");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 2, 3, -1}, 1, x.off[1], "BSD name",
	       &h);
	close_h(&h);
	free(x.d);
}

/* A special member after the first regular one; a "/0" without a table. */
static void test_misplaced(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_GNU, &x);
	patch(&x, 2, F_NAME, 16, "//");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, 3, -1}, 1, x.off[2], "special", &h);
	close_h(&h);
	free(x.d);
	build(ARGEN_BSD, &x); /* no // table */
	patch(&x, 2, F_NAME, 16, "/0");
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, 3, -1}, 1, x.off[2], "without", &h);
	close_h(&h);
	free(x.d);
}

/* A malformed ELF member gives what pfelf_open_memory gives for its bytes. */
static void test_bad_elf_member(void **state)
{
	struct built x;
	struct arh h;
	build(ARGEN_GNU, &x);
	pfelf_ar_member m;
	expect(&x, TB_STATE_BACKEND(state), (const int[]){0, 1, 2, 3, -1}, 0, 0, "", &h);
	assert_ret(pfelf_archive_member(h.a, 0, &m), 0);
	close_h(&h);
	x.d[m.offset + 4] = 7; /* EI_CLASS */
	pfelf_file *f = NULL;
	int want = pfelf_open_memory(x.d + m.offset, m.size, 0, &f);
	assert_true(want < 0);
	assert_ret(open_bytes(x.d, x.len, TB_STATE_BACKEND(state), &h), 0);
	assert_ret(pfelf_archive_open_member(h.a, 0, 0, &f), want);
	assert_null(f);
	assert_ret(pfelf_archive_open_member(h.a, 3, 0, &f), 0);
	pfelf_close(f);
	close_h(&h);
	free(x.d);
}

static void test_not_archives(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct arh h;
	assert_ret(open_bytes((const uint8_t *)"!<arch>", 7, b, &h), -ENOEXEC);
	assert_ret(open_bytes((const uint8_t *)"!<arch>\r", 8, b, &h), -ENOEXEC);
	assert_ret(open_bytes((const uint8_t *)"\177ELF\2\1\1\0\0\0", 10, b, &h), -ENOEXEC);
	/* The magic and a few bytes: no member, the bytes reported. */
	assert_ret(open_bytes((const uint8_t *)"!<arch>\nab\n", 11, b, &h), 0);
	assert_int_equal(pfelf_archive_member_count(h.a), 0);
	assert_int_equal(pfelf_archive_skipped_count(h.a), 1);
	close_h(&h);
	/* A thin archive with a BSD name. */
	uint8_t thin[8 + 61]; /* the header and snprintf's NUL, left out below */
	memcpy(thin, "!<thin>\n", 8);
	snprintf((char *)thin + 8, 61, "%-16s%-12s%-6s%-6s%-8s%-10s`\n", "#1/4", "0", "0", "0",
	         "644", "4");
	assert_ret(open_bytes(thin, sizeof(thin) - 1, b, &h), 0);
	assert_int_equal(pfelf_archive_member_count(h.a), 0);
	assert_int_equal(pfelf_archive_skipped_count(h.a), 1);
	close_h(&h);
}

/* Work of opening a GNU archive of n one-byte members (half with long
 * names) and one index entry each; the last member and symbol checked. */
static uint64_t open_work(unsigned n, enum tb_backend b)
{
	struct argen_member *m = calloc(n, sizeof(*m));
	struct argen_sym *s = calloc(n, sizeof(*s));
	char **names = calloc(n, sizeof(*names));
	assert_true(m && s && names);
	for (unsigned i = 0; i < n; i++) {
		assert_true(asprintf(&names[i], i % 2 ? "member_with_a_long_name_%u.o" : "m%u.o",
		                     i) > 0);
		m[i] = (struct argen_member){names[i], "x", 1};
		s[i] = (struct argen_sym){names[i], i};
	}
	size_t len;
	uint8_t *d = argen_build(ARGEN_GNU, m, n, s, n, &len, NULL);
	assert_non_null(d);
	struct arh h;
	uint64_t before = pfelf__ar_work();
	assert_ret(open_bytes(d, len, b, &h), 0);
	uint64_t work = pfelf__ar_work() - before;
	assert_int_equal(pfelf_archive_member_count(h.a), n);
	assert_int_equal(pfelf_archive_symbol_count(h.a), n);
	pfelf_ar_member last;
	pfelf_ar_symbol sym;
	assert_ret(pfelf_archive_member(h.a, n - 1, &last), 0);
	assert_string_equal(last.name, names[n - 1]);
	assert_ret(pfelf_archive_symbol(h.a, n - 1, &sym), 0);
	assert_int_equal(sym.member, n - 1);
	/* Linear: every byte copied about once, a few steps per member. */
	if (work > 2 * len + 64 * (uint64_t)n)
		fail_msg("%u members, %zu bytes: work %llu", n, len, (unsigned long long)work);
	close_h(&h);
	for (unsigned i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(m);
	free(s);
	free(d);
	return work;
}

static void test_linear(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	uint64_t w1 = open_work(10000, b), w2 = open_work(100000, b);
	printf("work: 10,000 members %llu, 100,000 members %llu (x%.2f)\n", (unsigned long long)w1,
	       (unsigned long long)w2, (double)w2 / (double)w1);
	assert_true(w2 <= 12 * w1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_intact),
	        TB_BACKEND_TESTS(test_long_name_outside),
	        TB_BACKEND_TESTS(test_bad_numeric),
	        TB_BACKEND_TESTS(test_bad_size_ends_walk),
	        TB_BACKEND_TESTS(test_truncated),
	        TB_BACKEND_TESTS(test_bad_index),
	        TB_BACKEND_TESTS(test_bsd_name_too_long),
	        TB_BACKEND_TESTS(test_misplaced),
	        TB_BACKEND_TESTS(test_bad_elf_member),
	        TB_BACKEND_TESTS(test_not_archives),
	        TB_BACKEND_TESTS(test_linear),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
