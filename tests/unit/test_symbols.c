/*
 * Symbols against readelf -sW: every symbol of every ELF fixture (local,
 * foreign and metadata ones) and of every ELF file under
 * /usr/lib/x86_64-linux-gnu, both tables, each line rebuilt from pfelf and
 * compared with readelf's whole line (value, size, type, bind, visibility,
 * Ndx, name@VER). Then hash lookups against a linear scan, the name and
 * address indexes, the SHN_XINDEX object, and hostile tables (looping and
 * overlong chains, counts past the end, names without NUL).
 *
 * The machine's files add variety, never a floor: what the walk must have
 * compared is what the fixtures hold, so the test passes the same on a
 * machine with few packages.
 */
#include "meta_helpers.h"

#include "tables/tables_i.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIBDIR    "/usr/lib/x86_64-linux-gnu"
#define LINE_MAX_ (1 << 16)
#define SHOW_MAX  20

/* ------------------------------------------------- readelf's line */

/* The readelf -sW line of symbol s (-1 when its name cannot be made);
 * st_other bits beyond the visibility as readelf prints them: " %-7s" of
 * the visibility, " [%s] " of pfelf_symbol_vis_text's words, " %4s " of
 * the index. */
static int sym_line(pfelf_file *f, const pfelf_sym *s, char *buf, size_t len)
{
	char type[64], bind[64], vis[64], ndx[64], words[80] = "";
	static __thread char name[LINE_MAX_ - 1024];
	assert_true(pfelf_symbol_type_name(f, s->type, type, sizeof(type)) > 0);
	assert_true(pfelf_symbol_bind_name(f, s->bind, bind, sizeof(bind)) > 0);
	assert_true(pfelf_symbol_vis_text(f, s->other, vis, sizeof(vis)) > 0);
	char *br = strstr(vis, " [");
	if (br) {
		snprintf(words, sizeof(words), " %s ", br + 1);
		*br = '\0';
	}
	assert_true(pfelf_symbol_shndx_name(f, s, ndx, sizeof(ndx)) > 0);
	if (pfelf_symbol_display_name(f, s, name, sizeof(name)) < 0)
		return -1;
	bool is64 = pfelf_header(f)->elfclass == 2;
	char size[32];
	if (s->size <= 99999)
		snprintf(size, sizeof(size), "%5llu", (unsigned long long)s->size);
	else
		snprintf(size, sizeof(size), "0x%llx", (unsigned long long)s->size);
	snprintf(buf, len, "%6u: %0*llx %s %-7s %-6s %-7s%s %4s %s", s->index, is64 ? 16 : 8,
	         (unsigned long long)s->value, size, type, bind, vis, words, ndx, name);
	return 0;
}

/* ------------------------------------------------ the oracle walk */

/* What the walk compares in each file: its counters, named in failure messages. */
enum { SEEN_TABLES, SEEN_SYMBOLS, SEEN_LOOKUPS, NSEEN };
static const char *const seen_label[NSEEN] = {"tables", "symbols", "hash lookups"};

struct walk {
	struct tb_walk base; /* first: the state tb_walk_teardown frees */
	struct cand *cand;   /* check_hash's scan, freed by the next or the teardown */
	int kind;            /* table being compared, -1 none */
	long expect;         /* entries readelf announced */
	long seen;           /* lines compared in this table */
	unsigned long symbols, mismatches, skipped_other, tables, skipped_tables;
	unsigned long lookups, lookup_files;
	char *line;
};

/* One defined dynamic symbol, for the scan that pfelf_symbol_lookup must match. */
struct cand {
	const char *name;
	uint32_t index;
	int rank; /* 2 default version (or none), 1 hidden version */
};

static int cmp_cand(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Every defined dynamic symbol name through the hash table, against a
 * linear scan of the table: per name, the best rank, then the lowest index. */
static void check_hash(struct walk *w)
{
	pfelf_file *f = w->base.h.f;
	int n = pfelf_symbol_count(f, PFELF_DYNSYM);
	pfelf_sym s;
	if (n <= 0 || pfelf_symbol_lookup(f, "", &s) == -ENODATA)
		return;
	free(w->cand);
	struct cand *c = w->cand = calloc((size_t)n, sizeof(*c));
	assert_non_null(c);
	size_t k = 0;
	for (int i = 0; i < n; i++) {
		assert_ret(pfelf_symbol(f, PFELF_DYNSYM, (uint32_t)i, &s), 0);
		if (s.shndx != 0 && s.bind != 0 && !(s.status & PFELF_SYM_BAD_NAME))
			c[k++] = (struct cand){s.name, s.index, (s.versym & 0x8000) ? 1 : 2};
	}
	qsort(c, k, sizeof(*c), cmp_cand);
	for (size_t i = 0; i < k;) {
		size_t best = i, j = i;
		for (; j < k && strcmp(c[j].name, c[i].name) == 0; j++)
			if (c[j].rank > c[best].rank)
				best = j;
		int ret = pfelf_symbol_lookup(f, c[i].name, &s);
		if (ret != 0 || s.index != c[best].index)
			fail_msg("%s: lookup(%s) = %d index %u, linear scan %u", w->base.path,
			         c[i].name, ret, ret == 0 ? s.index : 0, c[best].index);
		w->lookups++;
		tb_walk_count(&w->base, SEEN_LOOKUPS);
		i = j;
	}
	char absent[64];
	snprintf(absent, sizeof(absent), "pfelf_absent_%u_name", w->base.files);
	assert_ret(pfelf_symbol_lookup(f, absent, &s), -ENOENT);
	free(c);
	w->cand = NULL;
	w->lookup_files++;
}

static void end_file(struct walk *w)
{
	if (!w->base.open)
		return;
	if (w->kind >= 0 && w->seen != w->expect)
		fail_msg("%s: readelf listed %ld symbols, expected %ld", w->base.path, w->seen,
		         w->expect);
	check_hash(w);
	tb_walk_close(&w->base);
}

static void start_file(struct walk *w, const char *path)
{
	end_file(w);
	w->kind = -1;
	tb_walk_open(&w->base, path);
}

static void start_table(struct walk *w, const char *line)
{
	char name[512];
	long n;
	pfelf_file *f = w->base.h.f;
	if (w->kind >= 0 && w->seen != w->expect)
		fail_msg("%s: readelf listed %ld symbols, expected %ld", w->base.path, w->seen,
		         w->expect);
	w->kind = -1;
	if (sscanf(line, "Symbol table '%511[^']' contains %ld entr", name, &n) != 2)
		fail_msg("%s: cannot parse \"%s\"", w->base.path, line);
	const pfelf_shdr *sh;
	assert_ret(pfelf_section_by_name(f, name, &sh), 0);
	int kind = sh->type == 2 ? PFELF_SYMTAB : PFELF_DYNSYM;
	if (pfelf_symbol_table_section(f, kind) != (int)sh->index) {
		w->skipped_tables++; /* a second table of the same type */
		return;
	}
	assert_ret(pfelf_symbol_count(f, kind), n);
	w->kind = kind;
	w->expect = n;
	w->seen = 0;
	w->tables++;
	tb_walk_count(&w->base, SEEN_TABLES);
}

static void compare_symbol(struct walk *w, const char *line)
{
	char *end;
	unsigned long idx = strtoul(line, &end, 10);
	pfelf_sym s;
	assert_ret(pfelf_symbol(w->base.h.f, w->kind, (uint32_t)idx, &s), 0);
	w->seen++;
	w->symbols++;
	tb_walk_count(&w->base, SEEN_SYMBOLS);
	if (sym_line(w->base.h.f, &s, w->line, LINE_MAX_) < 0) {
		w->skipped_other++;
		return;
	}
	if (strcmp(w->line, line) != 0) {
		if (w->mismatches++ < SHOW_MAX)
			print_message("%s %s:\n  readelf: [%s]\n  pfelf:   [%s]\n", w->base.path,
			              w->kind ? "dynsym" : "symtab", line, w->line);
	}
}

static void walk_line(char *line, void *arg)
{
	struct walk *w = arg;
	if (strncmp(line, "File: ", 6) == 0)
		start_file(w, line + 6);
	else if (strncmp(line, "Symbol table '", 14) == 0)
		start_table(w, line);
	else if (w->kind >= 0 && strchr(line, ':') && line[strspn(line, " ")] >= '0' &&
	         line[strspn(line, " ")] <= '9')
		compare_symbol(w, line);
}

/* The walk lives in the test's state: the teardown frees it even when a check fails. */
static int setup_run(void **state)
{
	struct walk *w = calloc(1, sizeof(*w));
	if (!w)
		return -1;
	w->kind = -1;
	w->line = malloc(LINE_MAX_);
	*state = w;
	return w->line ? 0 : -1;
}

static int teardown_run(void **state)
{
	struct walk *w = *state;
	free(w->line);
	free(w->cand);
	return tb_walk_teardown(state);
}

/*
 * What the fixtures hold, by the way they are made: the foreign libcs
 * export thousands of symbols (a GNU hash table each; ELF64 big endian and
 * ELF32); what gcc linked has a .dynsym and a .symtab, the libraries
 * defined symbols to look up (libmeta-sysv.so through DT_HASH only); the
 * objects made by as, objcopy and g++ a .symtab, big-endian ones included;
 * the Go program (when go was there to build it) a large .symtab.
 */
static const struct tb_floor fixture_floor[] = {
        {"s390x-libc.so.6", TB_FIXTURE, {1, 1000, 1000}},
        {"armhf-libc.so.6", TB_FIXTURE, {1, 1000, 1000}},
        {"exec", TB_FIXTURE, {2, 20, 0}},
        {"pie", TB_FIXTURE, {2, 20, 0}},
        {"libshared.so", TB_FIXTURE, {2, 20, 1}},
        {"many.o", TB_FIXTURE, {1, 1, 0}},
        {"comdat.o", TB_FIXTURE, {1, 1, 0}},
        {"bigendian.o", TB_FIXTURE, {1, 1, 0}},
        {"bigendian32.o", TB_FIXTURE, {1, 1, 0}},
        {"libmeta.so", TB_META, {2, 20, 1}},
        {"libmeta-sysv.so", TB_META, {2, 20, 1}},
        {"user-rpath", TB_META, {2, 20, 0}},
        {"xindex.o", TB_META, {1, 1, 0}},
        {"zstd.o", TB_META, {1, 1, 0}},
        {"hello", TB_META_IF_BUILT, {1, 1000, 0}},
};

static void test_readelf_all(void **state)
{
	struct walk *w = *state;
	double t0 = tb_now();
	tb_walk_readelf(&w->base, LIBDIR, NSEEN, "-sW", walk_line, w);
	end_file(w);
	unsigned long fx[NSEEN];
	tb_walk_fixture_sum(&w->base, fx);
	size_t nfix = w->base.fixtures;
	print_message("symbols: %u files (%zu fixtures, %zu from " LIBDIR "), %lu tables, %lu "
	              "symbols compared with readelf -sW, %lu mismatches, %lu with st_other bits "
	              "not compared, %lu extra tables skipped; %lu hash lookups in %lu files "
	              "equal to a linear scan (%.1f s); the fixtures alone: %lu tables, %lu "
	              "symbols, %lu lookups\n",
	              w->base.files, nfix, w->base.list.n - nfix, w->tables, w->symbols,
	              w->mismatches, w->skipped_other, w->skipped_tables, w->lookups,
	              w->lookup_files, tb_now() - t0, fx[SEEN_TABLES], fx[SEEN_SYMBOLS],
	              fx[SEEN_LOOKUPS]);
	assert_int_equal(w->base.files, w->base.list.n);
	assert_int_equal(w->mismatches, 0);
	tb_walk_floors(&w->base, fixture_floor, sizeof(fixture_floor) / sizeof(fixture_floor[0]),
	               seen_label);
}

/* ------------------------------------------------ indexes vs scans */

static bool addr_indexed(const pfelf_sym *s)
{
	bool in_section =
	        s->shndx != 0 && (s->shndx < 0xff00 ||
	                          (s->raw_shndx == 0xffff && !(s->status & PFELF_SYM_BAD_SHNDX)));
	bool typed = s->type <= 2 || s->type == 5 || s->type == 10;
	return in_section && typed && s->size > 0;
}

static long linear_at(pfelf_file *f, int kind, int n, uint64_t addr)
{
	long best = -1;
	pfelf_sym b = {0}, s;
	for (int i = 0; i < n; i++) {
		assert_ret(pfelf_symbol(f, kind, (uint32_t)i, &s), 0);
		if (!addr_indexed(&s) || addr < s.value || addr - s.value >= s.size)
			continue;
		if (best < 0 || s.value > b.value || (s.value == b.value && s.size < b.size)) {
			best = i;
			b = s;
		}
	}
	return best;
}

static long linear_find(pfelf_file *f, int kind, int n, const char *name)
{
	long best = -1;
	int best_rank = 0;
	for (int i = 0; i < n; i++) {
		pfelf_sym s;
		assert_ret(pfelf_symbol(f, kind, (uint32_t)i, &s), 0);
		if ((s.status & PFELF_SYM_BAD_NAME) || strcmp(s.name, name) != 0)
			continue;
		int rank = s.shndx == 0 ? 1 : (s.versym & 0x8000) ? 2 : 3;
		if (rank > best_rank) {
			best_rank = rank;
			best = i;
		}
	}
	return best;
}

/* Up to 80 symbols of each table: find by name and by three addresses. */
static unsigned check_indexes(pfelf_file *f, const char *path)
{
	unsigned checks = 0;
	for (int kind = 0; kind < 2; kind++) {
		int n = pfelf_symbol_count(f, kind);
		assert_true(n >= 0);
		int step = n > 80 ? n / 80 : 1;
		for (int i = 0; i < n; i += step) {
			pfelf_sym s, got;
			assert_ret(pfelf_symbol(f, kind, (uint32_t)i, &s), 0);
			if (!(s.status & PFELF_SYM_BAD_NAME)) {
				long want = linear_find(f, kind, n, s.name);
				assert_ret(pfelf_symbol_find(f, kind, s.name, &got), 0);
				if ((long)got.index != want)
					fail_msg("%s: find(%s) = %u, scan %ld", path, s.name,
					         got.index, want);
				checks++;
			}
			uint64_t addrs[3] = {s.value, s.value + s.size / 2, s.value + s.size - 1};
			for (int a = 0; a < 3 && addr_indexed(&s); a++) {
				long want = linear_at(f, kind, n, addrs[a]);
				int ret = pfelf_symbol_at(f, kind, addrs[a], &got);
				if (ret != 0 || (long)got.index != want)
					fail_msg("%s: at(0x%llx) = %d/%u, scan %ld", path,
					         (unsigned long long)addrs[a], ret, got.index,
					         want);
				checks++;
			}
		}
		pfelf_sym got;
		assert_ret(pfelf_symbol_find(f, kind, "pfelf_no_such_symbol", &got), -ENOENT);
		assert_ret(pfelf_symbol_at(f, kind, UINT64_MAX, &got), -ENOENT);
	}
	return checks;
}

/*
 * st_other of every machine readelf names: each odd fixture
 * other-<m> holds 256 symbols, st_other 0 to 255, in .symtab and .dynsym;
 * every line rebuilt from pfelf (pfelf_symbol_vis_text) equals readelf -sW's,
 * through every backend.
 */
static void test_st_other(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);
	static const char *const files[] = {
	        "other-x86-64.o", "other-sparcv9.o",    "other-mips.o",        "other-mips64.o",
	        "other-ppc64.o",  "other-ppc64-abi1.o", "other-aarch64.o",     "other-riscv.o",
	        "other-alpha.o",  "other-ia64-vms.o",   "other-ia64-vms-exec", "other-solaris.o"};
	const char *dir = getenv("ELFFS_ODD_FIXTURES");
	if (!dir)
		fail_msg("ELFFS_ODD_FIXTURES is not set");
	char *line = malloc(LINE_MAX_);
	assert_non_null(line);
	unsigned long compared = 0, worded = 0;
	for (size_t k = 0; k < sizeof(files) / sizeof(files[0]); k++) {
		const char *path = tb_keep_path(dir, files[k]);
		char *q = tb_shell_quote(path), *cmd, *save = NULL;
		assert_true(asprintf(&cmd, "LC_ALL=C readelf -sW %s 2>/dev/null", q) > 0);
		char *text = tb_run(cmd, NULL);
		struct tb_handle h;
		tb_open_ok(path, be, &h);
		int kind = -1;
		for (char *ln = strtok_r(text, "\n", &save); ln; ln = strtok_r(NULL, "\n", &save)) {
			if (strncmp(ln, "Symbol table '", 14) == 0) {
				kind = strstr(ln, "'.dynsym'") ? PFELF_DYNSYM : PFELF_SYMTAB;
				continue;
			}
			char *end;
			unsigned long idx = strtoul(ln, &end, 10);
			if (kind < 0 || end == ln || *end != ':')
				continue;
			pfelf_sym s;
			assert_ret(
			        pfelf_symbol(h.f, (enum pfelf_symtab_kind)kind, (uint32_t)idx, &s),
			        0);
			assert_int_equal(sym_line(h.f, &s, line, LINE_MAX_), 0);
			if (strcmp(line, ln) != 0)
				fail_msg("%s %s:\n  readelf: [%s]\n  pfelf:   [%s]", files[k],
				         kind ? "dynsym" : "symtab", ln, line);
			compared++;
			worded += strchr(ln, '[') != NULL;
		}
		tb_close(&h);
		free(text);
		free(cmd);
		free(q);
	}
	assert_true(compared >= 12 * 2 * 257);
	assert_true(worded > 12 * 2 * 100);
	free(line);
}

static void test_indexes(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *files[] = {tb_fixture("exec"),
	                       tb_fixture("libshared.so"),
	                       tb_fixture("many.o"),
	                       tb_fixture("s390x-libc.so.6"),
	                       tb_fixture("armhf-libc.so.6"),
	                       tb_meta_fixture("libmeta.so"),
	                       tb_meta_fixture("zexec"),
	                       LIBDIR "/libc.so.6"};
	unsigned checks = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct tb_handle h;
		tb_open_ok(files[i], b, &h);
		checks += check_indexes(h.f, files[i]);
		tb_close(&h);
	}
	print_message("indexes (%s): %u name and address lookups equal to linear scans\n",
	              tb_backend_label(b), checks);
	assert_true(checks > 500);
}

/* Versioned names of a library the fixtures built with a version script. */
static void test_versions(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle h;
	pfelf_sym s;
	char name[256];
	tb_open_ok(tb_meta_fixture("libmeta.so"), b, &h);
	assert_ret(pfelf_symbol_lookup(h.f, "meta_versioned", &s), 0);
	assert_int_equal(s.ver_kind, PFELF_VER_DEFAULT);
	assert_string_equal(s.version, "METAV_2");
	assert_true(pfelf_symbol_display_name(h.f, &s, name, sizeof(name)) > 0);
	assert_string_equal(name, "meta_versioned@@METAV_2");
	pfelf_sym t;
	assert_ret(pfelf_symbol_find(h.f, PFELF_DYNSYM, "meta_versioned", &t), 0);
	assert_int_equal(t.index, s.index);
	const char *soname;
	assert_ret(pfelf_soname(h.f, &soname), 0);
	assert_string_equal(soname, "libmeta.so.1");
	tb_close(&h);

	tb_open_ok(tb_meta_fixture("user-rpath"), b, &h);
	assert_ret(pfelf_symbol_find(h.f, PFELF_DYNSYM, "meta_versioned", &s), 0);
	assert_int_equal(s.ver_kind, PFELF_VER_NEEDED);
	assert_string_equal(s.version, "METAV_2");
	assert_ret(pfelf_symbol_lookup(h.f, "meta_versioned", &s), -ENOENT); /* undefined */
	tb_close(&h);
}

/* A symbol in section 65,403: SHN_XINDEX through SHT_SYMTAB_SHNDX. */
static void test_xindex(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	struct tb_handle h;
	pfelf_sym s;
	tb_open_ok(tb_meta_fixture("xindex.o"), b, &h);
	assert_ret(pfelf_symbol_find(h.f, PFELF_SYMTAB, "meta_high", &s), 0);
	assert_int_equal(s.raw_shndx, 0xffff);
	assert_true(s.shndx > 0xff00 && !(s.status & PFELF_SYM_BAD_SHNDX));
	const char *sname;
	assert_ret(pfelf_section_name(h.f, s.shndx, &sname), 0);
	assert_string_equal(sname, ".s65399");
	tb_close(&h);
}

/* ------------------------------------------------------- hostile */

struct patched {
	uint8_t *buf;
	size_t len;
	bool msb, is64;
};

static void open_patched(const struct patched *p, enum tb_backend b, struct tb_handle *h)
{
	assert_ret(tb_open_bytes(p->buf, p->len, b, h), 0);
}

static void patch_copy(const char *path, struct patched *p)
{
	p->buf = tb_slurp(path, &p->len);
	p->is64 = p->buf[4] == 2;
	p->msb = p->buf[5] == 2;
}

/* A DT_HASH chain that loops, and one that runs past the symbols. */
static void test_hostile_sysv(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_meta_fixture("libmeta-sysv.so");
	uint64_t off, size;
	tb_section_range(path, ".hash", &off, &size);
	struct patched p;
	patch_copy(path, &p);
	uint32_t nbucket = (uint32_t)tb_get(p.buf + off, 4, p.msb);
	uint32_t nchain = (uint32_t)tb_get(p.buf + off + 4, 4, p.msb);
	assert_true(nbucket > 0 && nchain > 2);
	/* every bucket starts at symbol 1, whose chain points to itself */
	for (uint32_t i = 0; i < nbucket; i++)
		tb_put(p.buf + off + 8 + i * 4, 4, p.msb, 1);
	uint8_t *chain = p.buf + off + 8 + (size_t)nbucket * 4;
	tb_put(chain + 4, 4, p.msb, 1);
	struct tb_handle h;
	pfelf_sym s;
	open_patched(&p, b, &h);
	double t0 = tb_now();
	assert_ret(pfelf_symbol_lookup(h.f, "meta_lib_func", &s), -EINVAL);
	assert_true(tb_now() - t0 < 5);
	tb_close(&h);
	/* a chain entry past nchain */
	tb_put(chain + 4, 4, p.msb, nchain + 5);
	open_patched(&p, b, &h);
	assert_ret(pfelf_symbol_lookup(h.f, "meta_lib_func", &s), -EINVAL);
	tb_close(&h);
	free(p.buf);
}

/* DT_GNU_HASH: no end bit anywhere, an empty bloom filter, a bad symoffset. */
static void test_hostile_gnu(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_meta_fixture("libmeta.so");
	uint64_t off, size;
	tb_section_range(path, ".gnu.hash", &off, &size);
	struct patched p;
	patch_copy(path, &p);
	uint32_t nb = (uint32_t)tb_get(p.buf + off, 4, p.msb);
	uint32_t bloom = (uint32_t)tb_get(p.buf + off + 8, 4, p.msb);
	size_t chain = off + 16 + (size_t)bloom * (p.is64 ? 8 : 4) + (size_t)nb * 4;
	struct tb_handle h;
	pfelf_sym s;
	/* the unpatched file finds it */
	open_patched(&p, b, &h);
	assert_ret(pfelf_symbol_lookup(h.f, "meta_lib_func", &s), 0);
	tb_close(&h);
	struct patched q = p;
	q.buf = malloc(p.len);
	memcpy(q.buf, p.buf, p.len);
	for (size_t at = chain; at + 4 <= off + size; at += 4)
		tb_put(q.buf + at, 4, q.msb, tb_get(q.buf + at, 4, q.msb) & ~1ull);
	open_patched(&q, b, &h);
	assert_ret(pfelf_symbol_lookup(h.f, "meta_lib_func", &s), -EINVAL);
	tb_close(&h);
	memcpy(q.buf, p.buf, p.len);
	memset(q.buf + off + 16, 0, (size_t)bloom * (p.is64 ? 8 : 4));
	open_patched(&q, b, &h);
	assert_ret(pfelf_symbol_lookup(h.f, "meta_lib_func", &s), -ENOENT);
	tb_close(&h);
	memcpy(q.buf, p.buf, p.len);
	tb_put(q.buf + off + 4, 4, q.msb, 0x7fffffff); /* symoffset past the symbols */
	open_patched(&q, b, &h);
	assert_ret(pfelf_symbol_lookup(h.f, "meta_lib_func", &s), -EINVAL);
	assert_true(pfelf_symbol_count(h.f, PFELF_DYNSYM) > 0); /* the table itself is fine */
	tb_close(&h);
	free(q.buf);
	free(p.buf);
}

/* A .symtab whose size runs past the file; a string table without a final NUL. */
static void test_hostile_tables(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *path = tb_fixture("exec");
	struct patched p;
	patch_copy(path, &p);
	struct tb_handle h;
	/* find .symtab's header: readelf gives its index and the table offset */
	size_t n;
	char *q = tb_shell_quote(path);
	char cmd[4096];
	snprintf(cmd, sizeof(cmd),
	         "readelf -hSW %s | sed -n -e 's/.*Start of section headers: *\\([0-9]*\\).*/\\1/p'"
	         " -e 's/^ *\\[ *\\([0-9]*\\)\\] \\.symtab .*/\\1/p'",
	         q);
	char *out = tb_run(cmd, &n);
	unsigned long long shoff, idx;
	assert_int_equal(sscanf(out, "%llu %llu", &shoff, &idx), 2);
	free(out);
	uint64_t str_off, str_size;
	tb_section_range(path, ".strtab", &str_off, &str_size);
	free(q);
	uint8_t *size_field = p.buf + shoff + idx * 64 + 32; /* Elf64_Shdr.sh_size */
	uint64_t good = tb_get(size_field, 8, p.msb);
	tb_put(size_field, 8, p.msb, (uint64_t)p.len * 2);
	open_patched(&p, b, &h);
	assert_ret(pfelf_symbol_count(h.f, PFELF_SYMTAB), -EINVAL);
	assert_true(pfelf_symbol_count(h.f, PFELF_DYNSYM) > 0);
	tb_close(&h);
	tb_put(size_field, 8, p.msb, good);
	/* the last name of .strtab loses its NUL */
	p.buf[str_off + str_size - 1] = 'X';
	open_patched(&p, b, &h);
	int count = pfelf_symbol_count(h.f, PFELF_SYMTAB);
	assert_true(count > 0);
	unsigned bad = 0;
	for (int i = 0; i < count; i++) {
		pfelf_sym s;
		char name[512];
		assert_ret(pfelf_symbol(h.f, PFELF_SYMTAB, (uint32_t)i, &s), 0);
		if (!(s.status & PFELF_SYM_BAD_NAME))
			continue;
		bad++;
		assert_string_equal(s.name, "");
		assert_true(pfelf_symbol_display_name(h.f, &s, name, sizeof(name)) > 0);
		assert_string_equal(name, "<corrupt>");
	}
	assert_true(bad >= 1);
	tb_close(&h);
	free(p.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_readelf_all, setup_run, teardown_run),
	        TB_BACKEND_TESTS(test_st_other),
	        TB_BACKEND_TESTS(test_indexes),
	        TB_BACKEND_TESTS(test_versions),
	        TB_BACKEND_TESTS(test_xindex),
	        TB_BACKEND_TESTS(test_hostile_sysv),
	        TB_BACKEND_TESTS(test_hostile_gnu),
	        TB_BACKEND_TESTS(test_hostile_tables),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
