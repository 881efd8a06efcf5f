/*
 * ar archives (pfelf/archive*.c) against binutils, on every backend.
 *
 * The archives are built here from the fixtures' objects: by ar (GNU long
 * names and symbol index, duplicate names by `ar q`, a thin archive, an
 * empty one) and by argen.c (the "/SYM64/" index, and the BSD variant with
 * "#1/LEN" names, which binutils cannot write). Oracles: `ar tvO` (names,
 * mode, uid, gid, size, date, offset of the bytes), `ar p` / `ar xN` (the
 * bytes of each member), `objcopy --dump-section` on the extracted member
 * (every byte of each section of an ELF member, read through the member
 * handle) and `nm --print-armap` (the symbol index). Member handles must be
 * zero-copy: their references point into the archive's mapping or buffer,
 * or at the archive's descriptor.
 */
#include "argen.h"
#include "backends.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* An archive opened with a test backend. */
struct arh {
	pfelf_archive *a;
	void *buf;
};

static int ar_open(const char *path, enum tb_backend b, struct arh *h)
{
	memset(h, 0, sizeof(*h));
	if (b == TB_MEMORY) {
		size_t len;
		h->buf = tb_slurp(path, &len);
		return pfelf_archive_open_memory(h->buf, len, 0, &h->a);
	}
	return pfelf_archive_open(path, b == TB_PREAD ? PFELF_OPEN_NOMMAP : 0, &h->a);
}

static void ar_close(struct arh *h)
{
	pfelf_archive_close(h->a);
	free(h->buf);
	h->a = NULL;
	h->buf = NULL;
}

/* ------------------------------------------------------------ fixtures */

static char *dir; /* where the archives are built */

static char *in_dir(const char *name)
{
	char *p;
	assert_true(asprintf(&p, "%s/%s", dir, name) > 0);
	return p;
}

static void write_file(const char *name, const void *bytes, size_t len)
{
	char *p = in_dir(name);
	FILE *fp = fopen(p, "wb");
	assert_non_null(fp);
	assert_int_equal(fwrite(bytes, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(p);
}

static void sh(const char *cmd)
{
	char *full;
	assert_true(asprintf(&full, "cd %s && { %s; } >/dev/null 2>&1 && echo ok", dir, cmd) > 0);
	char *out = tb_run(full, NULL);
	if (strcmp(out, "ok\n") != 0)
		fail_msg("%s: failed", cmd);
	free(out);
	free(full);
}

static const char *const objects[] = {"many.o", "names.o", "comdat.o", "bigendian.o",
                                      "bigendian32.o"};
#define LONG_NAME "a_very_long_member_name_here.o"

/* The members and index argen writes (the same bytes as the ar-built ones). */
static struct argen_member gen_members[5];
static const struct argen_sym gen_syms[] = {
        {"many_entry", 0}, {"many_data", 0}, {"names_entry", 1}, {"names_entry", 2}};
#define N_GEN_SYMS (sizeof(gen_syms) / sizeof(gen_syms[0]))

static void gen(const char *name, enum argen_format fmt)
{
	size_t len;
	uint8_t *bytes = argen_build(fmt, gen_members, 5, gen_syms, N_GEN_SYMS, &len, NULL);
	assert_non_null(bytes);
	write_file(name, bytes, len);
	free(bytes);
}

static void build(void)
{
	if (dir)
		return;
	assert_true(asprintf(&dir, "%s/archives", tb_tmpdir()) > 0);
	assert_int_equal(mkdir(dir, 0700), 0);
	char *sub = in_dir("sub");
	assert_int_equal(mkdir(sub, 0700), 0);
	free(sub);
	for (size_t i = 0; i < sizeof(objects) / sizeof(objects[0]); i++) {
		size_t len;
		void *bytes = tb_slurp(tb_fixture(objects[i]), &len);
		write_file(objects[i], bytes, len);
		if (i == 1) {
			write_file(LONG_NAME, bytes, len);
			write_file("sub/names.o", bytes, len);
			write_file("a name with spaces.o", bytes, len);
		}
		free(bytes);
	}
	write_file("odd.txt", "odd", 3); /* an odd size: the next member is padded */
	sh("ar rcs gnu.a many.o names.o " LONG_NAME " odd.txt bigendian.o bigendian32.o comdat.o");
	sh("ar q dup.a names.o many.o && ar q dup.a names.o odd.txt names.o && ar s dup.a");
	sh("ar rcT thin.a sub/names.o many.o " LONG_NAME);
	sh("ar rc empty.a");
	const char *gnames[] = {"many.o", "a name with spaces.o", LONG_NAME, "odd.txt", "comdat.o"};
	const char *gsrc[] = {"many.o", "names.o", "names.o", "odd.txt", "comdat.o"};
	for (size_t i = 0; i < 5; i++) {
		char *p = in_dir(gsrc[i]);
		gen_members[i].name = gnames[i];
		gen_members[i].data = tb_slurp(p, &gen_members[i].len);
		free(p);
	}
	gen("gnu64.a", ARGEN_GNU64);
	gen("bsd.a", ARGEN_BSD);
	gen("bsd64.a", ARGEN_BSD64);
}

/* -------------------------------------------------------------- oracles */

struct ar_line {
	char mode[10];
	unsigned uid, gid;
	unsigned long long size;
	char date[32];
	char name[256];
	unsigned long long offset; /* ~0 when ar printed none (thin) */
};

/* `ar tvO` of file (in dir: ar shows a thin member's relative path joined
 * to the archive's as given): its lines parsed into *out; the count. */
static size_t ar_tv(const char *file, struct ar_line **out)
{
	char *q = tb_shell_quote(file), *cmd;
	assert_true(asprintf(&cmd, "cd %s && TZ=UTC ar tvO %s", dir, q) > 0);
	char *text = tb_run(cmd, NULL);
	size_t n = 0, cap = 16;
	struct ar_line *l = calloc(cap, sizeof(*l));
	assert_non_null(l);
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		if (n == cap) {
			cap *= 2;
			l = realloc(l, cap * sizeof(*l));
			assert_non_null(l);
		}
		struct ar_line *e = &l[n++];
		char mon[4];
		int day, hh, mm, year, used = 0;
		if (sscanf(line, "%9s %u/%u %llu %3s %d %d:%d %d %n", e->mode, &e->uid, &e->gid,
		           &e->size, mon, &day, &hh, &mm, &year, &used) != 9 ||
		    used == 0)
			fail_msg("ar tvO line: %s", line);
		snprintf(e->date, sizeof(e->date), "%s %2d %02d:%02d %d", mon, day, hh, mm, year);
		char *rest = line + used, *sp = strrchr(rest, ' ');
		e->offset = ~0ull;
		if (sp && strncmp(sp, " 0x", 3) == 0) {
			e->offset = strtoull(sp + 1, NULL, 16);
			*sp = '\0';
		}
		snprintf(e->name, sizeof(e->name), "%s", rest);
	}
	free(text);
	free(cmd);
	free(q);
	*out = l;
	return n;
}

/* The bytes of the k-th (from 1) member named name: `ar p` when the name is
 * unique, else `ar xN k` into a directory of its own. */
static uint8_t *ar_bytes(const char *path, const char *name, unsigned k, bool unique, size_t *len)
{
	char *qa = tb_shell_quote(path), *qn = tb_shell_quote(name), *cmd;
	char *xdir = in_dir("x");
	if (unique) {
		assert_true(asprintf(&cmd, "ar p %s %s", qa, qn) > 0);
		uint8_t *out = (uint8_t *)tb_run(cmd, len);
		free(cmd);
		free(qa);
		free(qn);
		free(xdir);
		return out;
	}
	assert_true(asprintf(&cmd, "rm -rf %s && mkdir %s && cd %s && ar xN %u %s %s && cat %s",
	                     xdir, xdir, xdir, k, qa, qn, qn) > 0);
	uint8_t *out = (uint8_t *)tb_run(cmd, len);
	free(cmd);
	free(qa);
	free(qn);
	free(xdir);
	return out;
}

static void mode_string(uint32_t mode, char *s)
{
	const char *rwx = "rwxrwxrwx";
	for (int i = 0; i < 9; i++)
		s[i] = mode & (0400u >> i) ? rwx[i] : '-';
	s[9] = '\0';
}

static void date_string(uint64_t date, char *s, size_t len)
{
	time_t t = (time_t)date;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(s, len, "%b %e %H:%M %Y", &tm);
}

/* --------------------------------------------------- member section bytes */

static bool dumpable(const char *name)
{
	if (!*name || strchr(name, '='))
		return false;
	for (const char *p = name; *p; p++)
		if (*p < 0x21 || *p > 0x7e)
			return false;
	return true;
}

/* Every section of member handle f against the extracted member (bytes at
 * sh_offset) and against objcopy --dump-section of it (sections with a
 * name unique in the member). Returns the sections objcopy checked. */
static unsigned check_sections(pfelf_archive *a, const pfelf_ar_member *m, pfelf_file *f,
                               enum tb_backend b, const uint8_t *member, size_t len)
{
	pfelf_ref whole;
	assert_ret(pfelf_archive_get_ref(a, m->offset, m->size, &whole), 0);
	int n = pfelf_section_count(f);
	assert_true(n >= 0);
	char *mpath = in_dir("member.o"), *out = in_dir("member.out");
	write_file("member.o", member, len);
	/* One objcopy for every dumpable section of a unique name. */
	char *cmd = strdup("objcopy");
	bool *dumped = calloc((size_t)n + 1, sizeof(bool));
	assert_non_null(dumped);
	for (int i = 1; i < n; i++) {
		const pfelf_shdr *s;
		assert_ret(pfelf_section(f, (uint32_t)i, &s), 0);
		const pfelf_shdr *first;
		/* binutils shows no symbol, string, relocation or index
		 * table as a section */
		if (s->type == 8 || s->type == 2 || s->type == 3 || s->type == 4 || s->type == 9 ||
		    s->type == 18 || s->size == 0 || s->status || !dumpable(s->name) ||
		    pfelf_section_by_name(f, s->name, &first) != 0 || first->index != s->index)
			continue;
		bool dup = false;
		for (int j = i + 1; j < n && !dup; j++) {
			const pfelf_shdr *t;
			assert_ret(pfelf_section(f, (uint32_t)j, &t), 0);
			dup = strcmp(t->name, s->name) == 0;
		}
		if (dup)
			continue;
		char *arg, *q, *next;
		assert_true(asprintf(&arg, "%s=%s/s%d", s->name, dir, i) > 0);
		q = tb_shell_quote(arg);
		assert_true(asprintf(&next, "%s --dump-section %s", cmd, q) > 0);
		free(cmd);
		free(arg);
		free(q);
		cmd = next;
		dumped[i] = true;
	}
	char *full;
	assert_true(asprintf(&full, "%s %s %s && echo ok", cmd, mpath, out) > 0);
	char *res = tb_run(full, NULL);
	bool objcopy_ok = strcmp(res, "ok\n") == 0;
	if (!objcopy_ok)
		printf("objcopy failed on member %s (compared with ar's bytes only)\n", m->name);
	free(res);
	free(full);
	free(cmd);
	unsigned checked = 0;
	for (int i = 1; i < n; i++) {
		const pfelf_shdr *s;
		assert_ret(pfelf_section(f, (uint32_t)i, &s), 0);
		if (s->type == 8 || s->status & PFELF_ST_OUT_OF_FILE)
			continue;
		assert_true(s->offset <= len && s->size <= len - s->offset);
		uint8_t *buf = malloc(s->size + 1);
		assert_non_null(buf);
		assert_ret(pfelf_read(f, s->offset, buf, s->size), (long long)s->size);
		assert_memory_equal(buf, member + s->offset, s->size);
		if (objcopy_ok && dumped[i]) {
			char name[64];
			size_t dlen;
			snprintf(name, sizeof(name), "s%d", i);
			char *p = in_dir(name);
			uint8_t *d = tb_slurp(p, &dlen);
			assert_int_equal(dlen, s->size);
			assert_memory_equal(buf, d, dlen);
			unlink(p);
			free(p);
			free(d);
			checked++;
		}
		/* Zero-copy: the member's reference is a range of the archive's. */
		pfelf_ref r;
		assert_ret(pfelf_get_ref(f, s->offset, s->size, &r), 0);
		if (b == TB_PREAD) {
			assert_null(r.ptr);
			assert_int_equal(r.fd, whole.fd);
			assert_int_equal(r.pos, m->offset + s->offset);
		} else {
			assert_true(r.ptr == (const uint8_t *)whole.ptr + s->offset);
		}
		pfelf_put_ref(f, &r);
		free(buf);
	}
	unlink(mpath);
	unlink(out);
	free(mpath);
	free(out);
	free(dumped);
	return checked;
}

/* ------------------------------------------------------------- the check */

struct expect {
	const char *file;
	bool thin;
	enum pfelf_ar_index kind;
	bool nm_index;        /* nm --print-armap reads the index */
	bool gen_index;       /* the index is gen_syms */
	unsigned min_objcopy; /* sections objcopy must have checked, at least */
};

static void check_index(pfelf_archive *a, const struct expect *x)
{
	assert_int_equal(pfelf_archive_index_kind(a), x->kind);
	int ns = pfelf_archive_symbol_count(a);
	assert_true(ns >= 0);
	if (x->gen_index) {
		assert_int_equal(ns, N_GEN_SYMS);
		for (int i = 0; i < ns; i++) {
			pfelf_ar_symbol s;
			assert_ret(pfelf_archive_symbol(a, (uint32_t)i, &s), 0);
			assert_string_equal(s.name, gen_syms[i].name);
			assert_int_equal(s.member, gen_syms[i].member);
		}
	}
	if (!x->nm_index)
		return;
	char *q = tb_shell_quote(x->file), *cmd;
	assert_true(asprintf(&cmd, "cd %s && nm --print-armap %s 2>/dev/null", dir, q) > 0);
	char *text = tb_run(cmd, NULL);
	char *p = strstr(text, "Archive index:\n");
	int seen = 0;
	if (p) {
		p += strlen("Archive index:\n");
		for (char *line = strtok(p, "\n"); line && *line; line = strtok(NULL, "\n")) {
			char *in = strstr(line, " in ");
			if (!in)
				break;
			*in = '\0';
			pfelf_ar_symbol s;
			pfelf_ar_member m;
			assert_ret(pfelf_archive_symbol(a, (uint32_t)seen, &s), 0);
			assert_string_equal(s.name, line);
			assert_ret(pfelf_archive_member(a, s.member, &m), 0);
			assert_string_equal(m.name, in + 4);
			assert_int_equal(s.header_offset, m.header_offset);
			seen++;
		}
	}
	assert_int_equal(seen, ns);
	assert_true(ns > 0 || x->kind == PFELF_AR_INDEX_NONE);
	free(text);
	free(cmd);
	free(q);
}

static void check_archive(const struct expect *x, enum tb_backend b)
{
	build();
	char *path = in_dir(x->file);
	struct arh h;
	assert_ret(ar_open(path, b, &h), 0);
	pfelf_archive *a = h.a;
	assert_int_equal(pfelf_archive_backend(a), tb_backend_expected(b));
	assert_int_equal(pfelf_archive_is_thin(a), x->thin);
	assert_int_equal(pfelf_archive_size(a), tb_file_size(path));
	assert_int_equal(pfelf_archive_skipped_count(a), 0);
	struct ar_line *l;
	size_t n = ar_tv(x->file, &l);
	assert_int_equal(pfelf_archive_member_count(a), n);
	unsigned objcopy_checked = 0;
	for (size_t i = 0; i < n; i++) {
		pfelf_ar_member m;
		assert_ret(pfelf_archive_member(a, (uint32_t)i, &m), 0);
		char s[64];
		assert_int_equal(m.index, i);
		assert_int_equal(m.position, i);
		assert_string_equal(m.name, l[i].name);
		assert_int_equal(m.size, l[i].size);
		assert_int_equal(m.uid, l[i].uid);
		assert_int_equal(m.gid, l[i].gid);
		mode_string(m.mode, s);
		assert_string_equal(s, l[i].mode);
		date_string(m.date, s, sizeof(s));
		assert_string_equal(s, l[i].date);
		assert_int_equal(m.thin, x->thin);
		pfelf_file *f = NULL;
		if (x->thin) {
			assert_int_equal(l[i].offset, ~0ull);
			assert_ret(pfelf_archive_open_member(a, (uint32_t)i, 0, &f), -EXDEV);
			assert_null(f);
			continue;
		}
		assert_int_equal(m.offset, l[i].offset);
		/* Which instance of its name it is (ar xN counts from 1). */
		unsigned k = 1, same = 0;
		for (size_t j = 0; j < n; j++) {
			if (strcmp(l[j].name, m.name) == 0) {
				same++;
				if (j < i)
					k++;
			}
		}
		size_t len;
		uint8_t *bytes = ar_bytes(path, m.name, k, same == 1, &len);
		assert_int_equal(len, m.size);
		uint8_t *mine = malloc(len + 1);
		assert_non_null(mine);
		assert_ret(pfelf_archive_read(a, m.offset, mine, len), (long long)len);
		assert_memory_equal(mine, bytes, len);
		int ret = pfelf_archive_open_member(a, (uint32_t)i, 0, &f);
		if (pfelf_is_elf_magic(bytes, len)) {
			assert_ret(ret, 0);
			assert_int_equal(pfelf_backend(f), tb_backend_expected(b));
			assert_int_equal(pfelf_size(f), m.size);
			assert_ret(pfelf_read(f, 0, mine, len), (long long)len);
			assert_memory_equal(mine, bytes, len);
			objcopy_checked += check_sections(a, &m, f, b, bytes, len);
			pfelf_close(f);
		} else {
			assert_ret(ret, -ENOEXEC);
			assert_null(f);
		}
		free(mine);
		free(bytes);
	}
	pfelf_ar_member m;
	assert_ret(pfelf_archive_member(a, (uint32_t)n, &m), -ENOENT);
	assert_true(objcopy_checked >= x->min_objcopy);
	check_index(a, x);
	free(l);
	ar_close(&h);
	free(path);
	pfelf_registry_stats st;
	pfelf_registry_stats_get(&st);
	assert_int_equal(st.handles, 0);
}

/* many.o alone has hundreds of sections objcopy can dump. */
#define OBJCOPY_FLOOR 100

static void test_gnu(void **state)
{
	struct expect x = {"gnu.a", false, PFELF_AR_INDEX_GNU, true, false, OBJCOPY_FLOOR};
	check_archive(&x, TB_STATE_BACKEND(state));
}

static void test_duplicates(void **state)
{
	struct expect x = {"dup.a", false, PFELF_AR_INDEX_GNU, true, false, OBJCOPY_FLOOR};
	check_archive(&x, TB_STATE_BACKEND(state));
}

static void test_thin(void **state)
{
	struct expect x = {"thin.a", true, PFELF_AR_INDEX_GNU, true, false, 0};
	check_archive(&x, TB_STATE_BACKEND(state));
}

static void test_empty(void **state)
{
	struct expect x = {"empty.a", false, PFELF_AR_INDEX_NONE, true, false, 0};
	check_archive(&x, TB_STATE_BACKEND(state));
}

static void test_gnu64(void **state)
{
	struct expect x = {"gnu64.a", false, PFELF_AR_INDEX_GNU64, true, true, OBJCOPY_FLOOR};
	check_archive(&x, TB_STATE_BACKEND(state));
}

static void test_bsd(void **state)
{
	struct expect x = {"bsd.a", false, PFELF_AR_INDEX_BSD, true, true, OBJCOPY_FLOOR};
	check_archive(&x, TB_STATE_BACKEND(state));
}

/* binutils misreads the 64-bit ranlib: the index is checked against argen's. */
static void test_bsd64(void **state)
{
	struct expect x = {"bsd64.a", false, PFELF_AR_INDEX_BSD64, false, true, OBJCOPY_FLOOR};
	check_archive(&x, TB_STATE_BACKEND(state));
}

/* Member handles hold the archive: closing it first leaves them readable,
 * views outlive both, and everything is released at the end. */
static void test_lifetime(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	build();
	char *path = in_dir("gnu.a");
	struct arh h;
	assert_ret(ar_open(path, b, &h), 0);
	pfelf_ar_member m;
	assert_ret(pfelf_archive_member(h.a, 0, &m), 0);
	size_t len;
	uint8_t *bytes = ar_bytes(path, m.name, 1, true, &len);
	pfelf_file *f1, *f2;
	assert_ret(pfelf_archive_open_member(h.a, 0, 0, &f1), 0);
	assert_ret(pfelf_archive_open_member(h.a, 0, 0, &f2), 0);
	pfelf_archive_close(h.a);
	h.a = NULL;
	pfelf_identity id;
	assert_ret(pfelf_get_identity(f1, &id), b == TB_MEMORY ? -EINVAL : 0);
	pfelf_view v;
	assert_ret(pfelf_view_get(f1, 0, len, 0, &v), 0);
	pfelf_close(f1);
	uint8_t *buf = malloc(len);
	assert_non_null(buf);
	assert_ret(pfelf_read(f2, 0, buf, len), (long long)len);
	assert_memory_equal(buf, bytes, len);
	assert_ret(pfelf_advise(f2, 0, 0, PFELF_ADVICE_WILLNEED), 0);
	assert_ret(pfelf_drop_pages(f2), 0);
	assert_true(pfelf_section_count(f2) > 100);
	pfelf_close(f2);
	assert_int_equal(tb_kernel_copy(v.data, v.len, buf), len);
	assert_memory_equal(buf, bytes, len);
	pfelf_view_release(&v);
	pfelf_registry_stats st;
	pfelf_registry_stats_get(&st);
	assert_int_equal(st.mappings, 0);
	assert_int_equal(st.handles, 0);
	free(buf);
	free(bytes);
	ar_close(&h);
	free(path);
}

/* The archive shrinks under open handles: reads of bytes that are gone
 * give -EIO through the member handle and the archive handle (the kernel
 * copies out of the mapping: no SIGBUS); bytes still there read alike. */
static void test_truncated_after_open(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	build();
	char *src = in_dir("gnu.a");
	char *path = tb_copy_tmp("shrink", src);
	struct arh h;
	assert_ret(ar_open(path, b, &h), 0);
	pfelf_ar_member m;
	assert_ret(pfelf_archive_member(h.a, 0, &m), 0); /* many.o, the first */
	pfelf_file *f;
	assert_ret(pfelf_archive_open_member(h.a, 0, 0, &f), 0);
	assert_true(pfelf_section_count(f) > 100);
	uint64_t keep = m.offset + 64; /* the ELF header stays */
	uint64_t cut = (keep + 8192) & ~(uint64_t)4095;
	assert_true(cut + 4096 < m.offset + m.size);
	assert_int_equal(truncate(path, (off_t)cut), 0);
	uint8_t buf[64], want[64];
	tb_pread_exact(src, m.offset, want, sizeof(want));
	assert_ret(pfelf_read(f, 0, buf, sizeof(buf)), 64);
	assert_memory_equal(buf, want, sizeof(want));
	uint64_t gone = cut + 4096 - m.offset; /* a whole page past the new end */
	assert_ret(pfelf_read(f, gone, buf, sizeof(buf)), -EIO);
	assert_ret(pfelf_archive_read(h.a, m.offset + gone, buf, sizeof(buf)), -EIO);
	pfelf_close(f);
	ar_close(&h);
	unlink(path);
	free(path);
	free(src);
}

/* pfelf_archive_open_fd, the argument errors and pfelf_is_archive_magic. */
static void test_open_errors(void **state)
{
	(void)state;
	build();
	pfelf_archive *a = (pfelf_archive *)&a;
	char *p = in_dir("many.o");
	assert_ret(pfelf_archive_open(p, 0, &a), -ENOEXEC);
	assert_null(a);
	assert_ret(pfelf_archive_open(dir, 0, &a), -EISDIR);
	assert_ret(pfelf_archive_open("/dev/null", 0, &a), -EINVAL);
	assert_ret(pfelf_archive_open_memory("!<arch>", 7, 0, &a), -ENOEXEC);
	assert_ret(pfelf_archive_open_memory(NULL, 8, 0, &a), -EINVAL);
	assert_ret(pfelf_archive_open_fd(-1, 0, &a), -EINVAL);
	/* the quick check elffs's probe uses */
	assert_int_equal(pfelf_is_archive_magic("!<arch>\n", 8), 1);
	assert_int_equal(pfelf_is_archive_magic("!<thin>\nxyz", 11), 1);
	assert_int_equal(pfelf_is_archive_magic("!<arch>", 7), 0);
	assert_int_equal(pfelf_is_archive_magic("!<arch>\r", 8), 0);
	assert_int_equal(pfelf_is_archive_magic("\x7f"
	                                        "ELF\2\1\1\0",
	                                        8),
	                 0);
	assert_int_equal(pfelf_is_archive_magic(NULL, 8), 0);
	free(p);
	p = in_dir("gnu.a");
	int fd = open(p, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_ret(pfelf_archive_open_fd(fd, PFELF_OPEN_NOMMAP, &a), 0);
	assert_int_equal(pfelf_archive_backend(a), PFELF_BACKEND_PREAD);
	pfelf_file *f;
	assert_ret(pfelf_archive_open_member(a, 0, 0, &f), 0);
	pfelf_archive_close(a);
	assert_true(pfelf_section_count(f) > 0);
	pfelf_close(f);
	assert_int_equal(fcntl(fd, F_GETFD), FD_CLOEXEC); /* still the caller's */
	close(fd);
	free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_gnu),
	        TB_BACKEND_TESTS(test_duplicates),
	        TB_BACKEND_TESTS(test_thin),
	        TB_BACKEND_TESTS(test_empty),
	        TB_BACKEND_TESTS(test_gnu64),
	        TB_BACKEND_TESTS(test_bsd),
	        TB_BACKEND_TESTS(test_bsd64),
	        TB_BACKEND_TESTS(test_lifetime),
	        /* a caller's buffer cannot shrink: file backends only */
	        {"test_truncated_after_open/mmap", test_truncated_after_open, NULL, NULL,
	         &tb_backend_states[TB_MMAP]},
	        {"test_truncated_after_open/pread", test_truncated_after_open, NULL, NULL,
	         &tb_backend_states[TB_PREAD]},
	        cmocka_unit_test(test_open_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
