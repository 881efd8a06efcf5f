/*
 * The ELF header (pfelf/elf/header.c): every field of pfelf_header() against
 * what `readelf -hW` prints for every fixture, extended numbering included,
 * plus pfelf_file_type_name and pfelf_is_pie (readelf's Type line).
 */
#include "backends.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* readelf -hW as "key: value" pairs; "Version" occurs twice (ident, e_version). */
struct rh {
	char *text;
	char *key[40], *val[40];
	size_t n;
};

static void rh_load(const char *path, struct rh *r)
{
	char *q = tb_shell_quote(path), *cmd, *line, *save = NULL;

	assert_true(asprintf(&cmd, "readelf -hW %s 2>/dev/null", q) > 0);
	memset(r, 0, sizeof(*r));
	r->text = tb_run(cmd, NULL);
	for (line = strtok_r(r->text, "\n", &save); line && r->n < 40;
	     line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "  ", 2) != 0 || !colon)
			continue;
		*colon = 0;
		r->key[r->n] = line + 2;
		r->val[r->n] = colon + 1 + strspn(colon + 1, " ");
		r->n++;
	}
	free(q);
	free(cmd);
	if (r->n < 19)
		fail_msg("readelf -hW %s printed %zu fields", path, r->n);
}

/* The nth (0-based) value of key. */
static const char *rh_get(const struct rh *r, const char *key, int nth)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->key[i], key) && nth-- == 0)
			return r->val[i];
	fail_msg("readelf -h printed no '%s'", key);
	return NULL;
}

/* "N", "N (bytes)", "0x1c", "65535 (14)": the first number, and the one in parentheses. */
static uint64_t rh_num(const struct rh *r, const char *key, int nth, uint64_t *paren)
{
	const char *v = rh_get(r, key, nth), *p;
	char *end;
	uint64_t n = strtoull(v, &end, 0);

	if (end == v)
		fail_msg("readelf -h %s: '%s' is not a number", key, v);
	if (paren) {
		p = strchr(end, '(');
		*paren = p && p[1] >= '0' && p[1] <= '9' ? strtoull(p + 1, NULL, 0) : n;
	}
	return n;
}

static void check_name(const char *what, int ret, const char *mine, const char *theirs)
{
	if (ret < 0)
		fail_msg("%s: pfelf returned %d (%s)", what, ret, tb_errname(ret));
	if (strcmp(mine, theirs) != 0)
		fail_msg("%s: pfelf '%s', readelf '%s'", what, mine, theirs);
	assert_int_equal(ret, strlen(mine));
}

static void check_path(const char *path, enum tb_backend b)
{
	struct tb_handle h;
	const pfelf_ehdr *e;
	uint64_t ext;
	unsigned magic[16];
	char buf[128];
	struct rh r;

	rh_load(path, &r);
	tb_open_ok(path, b, &h);
	e = pfelf_header(h.f);
	assert_non_null(e);
	assert_ptr_equal(pfelf_header(h.f), e); /* owned by the handle */

	assert_int_equal(sscanf(rh_get(&r, "Magic", 0),
	                        "%x %x %x %x %x %x %x %x %x %x %x %x %x %x %x %x", &magic[0],
	                        &magic[1], &magic[2], &magic[3], &magic[4], &magic[5], &magic[6],
	                        &magic[7], &magic[8], &magic[9], &magic[10], &magic[11], &magic[12],
	                        &magic[13], &magic[14], &magic[15]),
	                 16);
	for (int i = 0; i < 16; i++)
		assert_int_equal(e->ident[i], magic[i]);
	assert_int_equal(e->elfclass, strcmp(rh_get(&r, "Class", 0), "ELF64") ? 1 : 2);
	assert_string_equal(rh_get(&r, "Class", 0), e->elfclass == 2 ? "ELF64" : "ELF32");
	assert_non_null(
	        strstr(rh_get(&r, "Data", 0), e->data == 1 ? "little endian" : "big endian"));
	assert_int_equal(e->ident[6], rh_num(&r, "Version", 0, NULL));
	assert_int_equal(e->osabi, e->ident[7]);
	assert_int_equal(e->abiversion, rh_num(&r, "ABI Version", 0, NULL));
	assert_int_equal(e->abiversion, e->ident[8]);
	assert_int_equal(e->version, rh_num(&r, "Version", 1, NULL));
	assert_int_equal(e->entry, rh_num(&r, "Entry point address", 0, NULL));
	assert_int_equal(e->phoff, rh_num(&r, "Start of program headers", 0, NULL));
	assert_int_equal(e->shoff, rh_num(&r, "Start of section headers", 0, NULL));
	assert_int_equal(e->flags, rh_num(&r, "Flags", 0, NULL));
	assert_int_equal(e->ehsize, rh_num(&r, "Size of this header", 0, NULL));
	assert_int_equal(e->phentsize, rh_num(&r, "Size of program headers", 0, NULL));
	assert_int_equal(e->shentsize, rh_num(&r, "Size of section headers", 0, NULL));
	assert_int_equal(e->raw_phnum, rh_num(&r, "Number of program headers", 0, &ext));
	assert_int_equal(e->phnum, ext);
	assert_int_equal(e->raw_shnum, rh_num(&r, "Number of section headers", 0, &ext));
	assert_int_equal(e->shnum, ext);
	assert_int_equal(e->raw_shstrndx, rh_num(&r, "Section header string table index", 0, &ext));
	assert_int_equal(e->shstrndx, ext);

	/* the names readelf prints in the header */
	check_name("type", pfelf_file_type_name(h.f, buf, sizeof(buf)), buf, rh_get(&r, "Type", 0));
	assert_int_equal(pfelf_is_pie(h.f),
	                 strstr(rh_get(&r, "Type", 0), "Position-Independent") != NULL);
	if (!pfelf_is_pie(h.f))
		check_name("type", pfelf_type_name(e->type, buf, sizeof(buf)), buf,
		           rh_get(&r, "Type", 0));
	check_name("machine", pfelf_machine_name(e->machine, buf, sizeof(buf)), buf,
	           rh_get(&r, "Machine", 0));
	check_name("osabi", pfelf_osabi_name(e->osabi, buf, sizeof(buf)), buf,
	           rh_get(&r, "OS/ABI", 0));
	tb_close(&h);
	free(r.text);
}

static void check_fixture(const char *name, enum tb_backend b)
{
	check_path(tb_fixture(name), b);
}

static const char *odd_fixture(const char *name)
{
	const char *dir = getenv("ELFFS_ODD_FIXTURES");
	if (!dir)
		fail_msg("ELFFS_ODD_FIXTURES is not set");
	return tb_keep_path(dir, name);
}

/*
 * Headers readelf reads though a field is unusual (e_version
 * 0x70, EI_VERSION 0, e_ehsize 0, 100 and past the end): opened, every
 * field as readelf -hW prints it, pfelf_header_why says nothing; the
 * tables are readelf -SW's count.
 */
static void test_odd_headers(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	static const char *const odd[] = {"hdr-version70", "hdr-eiversion0", "hdr-ehsize0",
	                                  "hdr-ehsize100", "hdr-ehsize-big"};
	for (size_t i = 0; i < sizeof(odd) / sizeof(odd[0]); i++) {
		const char *path = odd_fixture(odd[i]);
		check_path(path, b);
		char why[128] = "x";
		FILE *fp = fopen(path, "rb");
		assert_non_null(fp);
		assert_int_equal(pfelf_header_why(fileno(fp), why, sizeof(why)), 0);
		assert_string_equal(why, "");
		fclose(fp);
	}
}

/*
 * Headers pfelf refuses (EI_CLASS 3, EI_DATA 3, 40 bytes of an ELF64 file,
 * PN_XNUM without section headers, extended numbering with e_shentsize 0):
 * every backend says -EINVAL, and
 * pfelf_header_why says the same errno and names the field.
 */
static void test_refused_headers(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	static const char *const bad[][2] = {{"refused-class3", "EI_CLASS 3"},
	                                     {"refused-data3", "EI_DATA 3"},
	                                     {"refused-short", "shorter than an ELF64 header"},
	                                     {"refused-pnxnum", "PN_XNUM"},
	                                     {"refused-shentsize0", "e_shentsize 0"}};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *path = odd_fixture(bad[i][0]);
		struct tb_handle h;
		int ret = tb_open(path, b, &h);
		if (ret == 0)
			tb_close(&h);
		assert_int_equal(ret, -EINVAL);
		char why[128];
		FILE *fp = fopen(path, "rb");
		assert_non_null(fp);
		assert_int_equal(pfelf_header_why(fileno(fp), why, sizeof(why)), -EINVAL);
		if (!strstr(why, bad[i][1]))
			fail_msg("%s: pfelf_header_why says '%s', not '%s'", bad[i][0], why,
			         bad[i][1]);
		assert_int_equal(pfelf_header_why(fileno(fp), NULL, 0), -EINVAL);
		char tiny[8];
		assert_int_equal(pfelf_header_why(fileno(fp), tiny, sizeof(tiny)), -EINVAL);
		assert_int_equal(strlen(tiny), sizeof(tiny) - 1); /* cut to fit */
		fclose(fp);
	}
	char why[64];
	assert_int_equal(pfelf_header_why(-1, why, sizeof(why)), -EINVAL);
}

/*
 * PFELF_OPEN_RAW (mmap and pread): each refused header opens as its bytes
 * only (pfelf_header_error -EINVAL, e_ident kept, no section or segment,
 * every byte readable: pfelf_read and a zero-copy reference of the whole
 * file); an accepted header opens as without the flag; a file without ELF
 * magic, or shorter than it, is still -ENOEXEC.
 */
static void test_raw_open(void **state)
{
	(void)state;
	static const char *const bad[] = {"refused-class3", "refused-data3", "refused-short",
	                                  "refused-pnxnum", "refused-shentsize0"};
	for (unsigned nommap = 0; nommap < 2; nommap++) {
		unsigned flags = PFELF_OPEN_RAW | (nommap ? PFELF_OPEN_NOMMAP : 0);
		for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			const char *path = odd_fixture(bad[i]);
			size_t len;
			uint8_t *want = tb_slurp(path, &len);
			pfelf_file *f;
			assert_ret(pfelf_open(path, flags, &f), 0);
			assert_ret(pfelf_header_error(f), -EINVAL);
			assert_int_equal(pfelf_size(f), len);
			assert_memory_equal(pfelf_header(f)->ident, want, 16);
			assert_ret(pfelf_section_count(f), 0);
			assert_ret(pfelf_segment_count(f), 0);
			uint8_t *got = malloc(len);
			assert_non_null(got);
			assert_ret(pfelf_read(f, 0, got, len), len);
			assert_memory_equal(got, want, len);
			pfelf_ref ref;
			assert_ret(pfelf_get_ref(f, 0, len, &ref), 0);
			pfelf_put_ref(f, &ref);
			free(got);
			free(want);
			pfelf_close(f);
		}
		pfelf_file *f;
		assert_ret(pfelf_open(tb_fixture("exec"), flags, &f), 0);
		assert_ret(pfelf_header_error(f), 0);
		assert_true(pfelf_section_count(f) > 0);
		pfelf_close(f);
		char dir[] = "/tmp/pfelf-raw-XXXXXX";
		assert_non_null(mkdtemp(dir));
		char path[64];
		static const char *const notelf[] = {"\177ELX and more than sixteen bytes",
		                                     "\177EL"};
		for (size_t i = 0; i < 2; i++) {
			snprintf(path, sizeof(path), "%s/f", dir);
			FILE *fp = fopen(path, "wb");
			assert_non_null(fp);
			fputs(notelf[i], fp);
			fclose(fp);
			assert_ret(pfelf_open(path, flags, &f), -ENOEXEC);
			unlink(path);
		}
		rmdir(dir);
	}
}

static void test_header_fixtures(void **state)
{
	tb_each_fixture(TB_STATE_BACKEND(state), check_fixture);
}

/* Extended numbering, stated without readelf: the raw fields and section 0 say it. */
static void test_extended_numbering(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle h;
	const pfelf_ehdr *e;
	const pfelf_shdr *s0;

	tb_open_ok(tb_fixture("xnum.o"), b, &h);
	e = pfelf_header(h.f);
	assert_int_equal(e->raw_shnum, 0);
	assert_int_equal(e->raw_shstrndx, 0xffff);
	assert_true(e->shnum > 65280);
	assert_ret(pfelf_section_count(h.f), e->shnum);
	assert_ret(pfelf_section(h.f, 0, &s0), 0);
	assert_int_equal(s0->size, e->shnum);
	assert_int_equal(s0->link, e->shstrndx);
	assert_true(e->shstrndx >= 0xff00 && e->shstrndx < e->shnum);
	tb_close(&h);

	tb_open_ok(tb_fixture("phxnum"), b, &h);
	e = pfelf_header(h.f);
	assert_int_equal(e->raw_phnum, 0xffff);
	assert_ret(pfelf_section(h.f, 0, &s0), 0);
	assert_int_equal(e->phnum, s0->info);
	assert_ret(pfelf_segment_count(h.f), e->phnum);
	tb_close(&h);

	tb_open_ok(tb_fixture("noshdr"), b, &h);
	e = pfelf_header(h.f);
	assert_int_equal(e->shnum, 0);
	assert_int_equal(e->shstrndx, 0);
	assert_ret(pfelf_section_count(h.f), 0);
	assert_true(e->phnum > 0);
	tb_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_header_fixtures), TB_BACKEND_TESTS(test_extended_numbering),
	        TB_BACKEND_TESTS(test_odd_headers),     TB_BACKEND_TESTS(test_refused_headers),
	        cmocka_unit_test(test_raw_open),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
