/*
 * The line tables of the debug-file writer, read back by addr2line at
 * every pc of every function, for the four classes and byte orders: the
 * function's name, and the file and line of the last row given at or
 * before the pc. Rows take every path of the encoder: address steps that
 * fit a special opcode, need DW_LNS_const_add_pc or DW_LNS_advance_pc, the
 * same pc again (the last row wins), lines up and down by small and large
 * steps, line 0, a row that repeats the one before, file changes, functions
 * without rows, of size 0, in a unit without files.
 *
 * Then a Go-sized file: 60,000 functions of 1,000 units, 2 million rows;
 * its time and peak memory are printed (the peak checked against a
 * generous bound), its symbols counted by pfelf, its lines read back by
 * addr2line at 2,000 pcs.
 */
#include "backends.h"
#include "dbgw_helpers.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct row {
	uint64_t pc;
	uint32_t file; /* writer's file id */
	uint32_t line;
};

struct func {
	uint32_t unit;
	uint64_t lo, hi;
	char name[48];
	struct row *rows;
	size_t nrows;
};

struct model {
	struct func *f;
	size_t nf;
	char **files; /* by writer's file id */
	uint32_t *file_unit;
	size_t nfiles;
};

/* The file:line addr2line should print at pc of f, or NULL for none. */
static const struct row *row_at(const struct func *f, uint64_t pc)
{
	const struct row *r = NULL;
	for (size_t i = 0; i < f->nrows && f->rows[i].pc <= pc; i++)
		r = &f->rows[i];
	return r;
}

static pfelf_dbgw *new_writer(const struct dbgw_target *t, uint64_t max)
{
	pfelf_ehdr e = dbgw_target_ehdr(t, ET_EXEC);
	pfelf_dbgw *w;
	assert_ret(pfelf_dbgw_new(&e, max, &w), 0);
	return w;
}

static void give(pfelf_dbgw *w, const struct model *m)
{
	for (size_t i = 0; i < m->nf; i++) {
		const struct func *f = &m->f[i];
		assert_ret(pfelf_dbgw_func(w, f->unit, f->lo, f->hi, f->name, strlen(f->name),
		                           PFELF_DBGW_GLOBAL),
		           0);
		for (size_t r = 0; r < f->nrows; r++)
			assert_ret(
			        pfelf_dbgw_line(w, f->rows[r].pc, f->rows[r].file, f->rows[r].line),
			        0);
	}
}

/* addr2line -f at pcs[0..n) of the file at dbg: its output (malloc'd). */
static char *addr2line(const char *dbg, const uint64_t *pcs, size_t n)
{
	char *list = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&list, &len);
	assert_non_null(fp);
	for (size_t i = 0; i < n; i++)
		fprintf(fp, "%#llx\n", (unsigned long long)pcs[i]);
	fclose(fp);
	char *pcfile = tb_write_tmp("pcs", list, len);
	char *cmd;
	assert_true(asprintf(&cmd, "addr2line -f -e %s < %s", dbg, pcfile) > 0);
	char *out = tb_run(cmd, NULL);
	unlink(pcfile);
	free(cmd);
	free(list);
	free(pcfile);
	return out;
}

/* The token before end (blanks skipped), into tok; where it starts. */
static char *token_before(char *start, char *end, char *tok, size_t len)
{
	while (end > start && end[-1] == ' ')
		end--;
	char *b = end;
	while (b > start && b[-1] != ' ')
		b--;
	snprintf(tok, len, "%.*s", (int)(end - b), b);
	return b;
}

/* readelf's decoded rows of the file at dbg: in a sequence, no two rows
 * at one address (the last given replaced the others) and none that says
 * what the row before says (dropped). */
static void check_rows(const char *dbg, const char *label)
{
	char *cmd;
	assert_true(asprintf(&cmd, "readelf --debug-dump=decodedline %s", dbg) > 0);
	char *out = tb_run(cmd, NULL);
	char name[512], line[32], prev_name[512] = "", prev_line[32] = "";
	unsigned long long prev = 0;
	bool in_seq = false;
	size_t rows = 0;
	char *save = NULL;
	for (char *l = strtok_r(out, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *a = strstr(l, " 0x");
		if (!a)
			continue;
		unsigned long long addr = strtoull(a + 1, NULL, 16);
		char *b = token_before(l, a, line, sizeof(line));
		snprintf(name, sizeof(name), "%.*s", (int)(b - l), l);
		if (!strcmp(line, "-")) {
			in_seq = false;
			continue;
		}
		if (in_seq && addr == prev)
			fail_msg("%s: two rows at %#llx", label, addr);
		if (in_seq && !strcmp(name, prev_name) && !strcmp(line, prev_line))
			fail_msg("%s: the row at %#llx repeats the one before", label, addr);
		in_seq = true;
		prev = addr;
		snprintf(prev_name, sizeof(prev_name), "%s", name);
		snprintf(prev_line, sizeof(prev_line), "%s", line);
		rows++;
	}
	assert_true(rows > 0);
	free(out);
	free(cmd);
}

/* Every answer: f's name, and the file:line of the row, or ?? for none. */
static void check_answers(const struct model *m, const struct func *const *fs, const uint64_t *pcs,
                          size_t n, char *out, const char *label)
{
	char *save = NULL, *line = strtok_r(out, "\n", &save);
	for (size_t i = 0; i < n; i++) {
		char *where = line ? strtok_r(NULL, "\n", &save) : NULL;
		if (!where)
			fail_msg("%s: addr2line stopped at %#llx", label,
			         (unsigned long long)pcs[i]);
		if (strcmp(line, fs[i]->name))
			fail_msg("%s: %#llx: addr2line says %s, want %s", label,
			         (unsigned long long)pcs[i], line, fs[i]->name);
		const struct row *r = row_at(fs[i], pcs[i]);
		char want[600];
		if (r && r->line) /* line 0 is "no line": addr2line prints "?" */
			snprintf(want, sizeof(want), "%s:%u", m->files[r->file], r->line);
		else if (r)
			snprintf(want, sizeof(want), "%s:?", m->files[r->file]);
		bool ok = r ? !strncmp(where, want, strlen(want)) &&
		                          (where[strlen(want)] == 0 || where[strlen(want)] == ' ')
		            : !strcmp(where, "??:0") || !strcmp(where, "??:?");
		if (!ok)
			fail_msg("%s: %#llx in %s: addr2line says %s, want %s", label,
			         (unsigned long long)pcs[i], fs[i]->name, where, r ? want : "??");
		line = strtok_r(NULL, "\n", &save);
	}
}

/* ------------------------------------------------ every path of the encoder */

static const char *const file_names[] = {"/src/one.c", "/src/dir with blanks/two.h",
                                         "relative/three.go", "/four.s"};

/* Rows of f in [lo, hi): steps of every size, the same pc again, lines by
 * small and large steps. */
static void random_rows(struct func *f, uint64_t *rnd, const uint32_t *files, size_t nfiles)
{
	static const uint64_t steps[] = {0, 1, 2, 16, 17, 18, 33, 34, 35, 36, 100, 250, 5000};
	static const int64_t deltas[] = {0, 1, 2, 8, 9, -5, -6, -1, 1000, -1000, 70000};
	size_t cap = 48, n = 0;
	f->rows = calloc(cap, sizeof(*f->rows));
	assert_non_null(f->rows);
	uint64_t pc = f->lo + tb_rand(rnd) % 3;
	int64_t line = 1 + (int64_t)(tb_rand(rnd) % 50);
	uint32_t file = files[0];
	while (pc < f->hi && n < cap) {
		uint64_t k = tb_rand(rnd);
		if (k % 7 == 0)
			file = files[(k >> 8) % nfiles];
		line += deltas[(k >> 16) % (sizeof(deltas) / sizeof(deltas[0]))];
		if (line < 0 || (k >> 24) % 23 == 0)
			line = 0;
		f->rows[n++] = (struct row){pc, file, (uint32_t)line};
		pc += steps[(k >> 32) % (sizeof(steps) / sizeof(steps[0]))];
	}
	f->nrows = n;
}

static void make_model(struct model *m, pfelf_dbgw *w, uint64_t seed)
{
	uint64_t rnd = seed;
	uint32_t u[3], files[2][4];
	assert_ret(pfelf_dbgw_unit(w, "one", 3, PFELF_DW_LANG_C99, &u[0]), 0);
	assert_ret(pfelf_dbgw_unit(w, "two", 3, PFELF_DW_LANG_GO, &u[1]), 0);
	assert_ret(pfelf_dbgw_unit(w, "no files", 8, 0, &u[2]), 0);
	m->nfiles = 8;
	m->files = calloc(m->nfiles, sizeof(*m->files));
	assert_non_null(m->files);
	for (uint32_t k = 0; k < 8; k++) { /* the two units' files, interleaved */
		uint32_t id;
		const char *name = file_names[k / 2];
		assert_ret(pfelf_dbgw_file(w, u[k % 2], name, strlen(name), &id), 0);
		assert_ret(id, k);
		files[k % 2][k / 2] = id;
		m->files[id] = strdup(name);
	}
	m->nf = 60;
	m->f = calloc(m->nf, sizeof(*m->f));
	assert_non_null(m->f);
	uint64_t at = 0x10000;
	for (size_t i = 0; i < m->nf; i++) {
		struct func *f = &m->f[i];
		f->unit = u[i % 3];
		f->lo = at + tb_rand(&rnd) % 64;
		f->hi = f->lo + (i % 11 == 5 ? 0 : 1 + tb_rand(&rnd) % 2500);
		at = f->hi;
		snprintf(f->name, sizeof(f->name), "fn_%zu", i);
		if (f->unit != u[2] && i % 13 != 4)
			random_rows(f, &rnd, files[f->unit], 4);
	}
}

static void free_model(struct model *m)
{
	for (size_t i = 0; i < m->nf; i++)
		free(m->f[i].rows);
	for (size_t i = 0; i < m->nfiles; i++)
		free(m->files[i]);
	free(m->f);
	free(m->files);
}

static void every_pc(void **state)
{
	(void)state;
	uint64_t seed = tb_seed();
	for (size_t t = 0; t < DBGW_NTARGETS; t++) {
		struct model m;
		pfelf_dbgw *w = new_writer(&dbgw_targets[t], 256 << 20);
		make_model(&m, w, seed + t);
		/* In reverse order: the file holds them by address all the same. */
		for (size_t i = 0; i < m.nf / 2; i++) {
			struct func tmp = m.f[i];
			m.f[i] = m.f[m.nf - 1 - i];
			m.f[m.nf - 1 - i] = tmp;
		}
		give(w, &m);
		void *bytes;
		uint64_t size;
		assert_ret(pfelf_dbgw_finish(w, &bytes, &size), 0);
		pfelf_dbgw_free(w);
		size_t n = 0;
		for (size_t i = 0; i < m.nf; i++)
			n += m.f[i].hi - m.f[i].lo;
		uint64_t *pcs = calloc(n, sizeof(*pcs));
		const struct func **fs = calloc(n, sizeof(*fs));
		assert_true(pcs && fs);
		n = 0;
		for (size_t i = 0; i < m.nf; i++)
			for (uint64_t pc = m.f[i].lo; pc < m.f[i].hi; pc++) {
				pcs[n] = pc;
				fs[n++] = &m.f[i];
			}
		char *dbg = tb_write_tmp("dbgw", bytes, (size_t)size);
		char *out = addr2line(dbg, pcs, n);
		check_answers(&m, fs, pcs, n, out, dbgw_targets[t].label);
		check_rows(dbg, dbgw_targets[t].label);
		unlink(dbg);
		free(dbg);
		print_message("%s: %zu pcs of %zu functions, %llu bytes\n", dbgw_targets[t].label,
		              n, m.nf, (unsigned long long)size);
		free(out);
		free(pcs);
		free(fs);
		free(bytes);
		free_model(&m);
	}
}

/* ------------------------------------------------------------- Go-sized */

#define BIG_FUNCS 60000u
#define BIG_UNITS 1000u
#define BIG_FILES 8u
#define BIG_ROWS  33u
#define BIG_BOUND ((uint64_t)64 << 20)

/* Function i of the big file: its place, and its rows (from i alone). */
static void big_func(uint32_t i, struct func *f, struct row *rows)
{
	uint64_t size = 200 + (i * 7919u) % 1800;
	f->unit = i / (BIG_FUNCS / BIG_UNITS);
	f->lo = 0x400000 + (uint64_t)i * 2000;
	f->hi = f->lo + size;
	snprintf(f->name, sizeof(f->name), "package%u.function%u", f->unit, i);
	f->rows = rows;
	f->nrows = BIG_ROWS;
	for (uint32_t r = 0; r < BIG_ROWS; r++)
		rows[r] = (struct row){f->lo + r * (size / BIG_ROWS),
		                       f->unit * BIG_FILES + (i + r * r) % BIG_FILES,
		                       100 + (i % 1000) + (r * 37) % 200};
}

static void go_sized(void **state)
{
	(void)state;
	double t0 = tb_now();
	pfelf_dbgw *w = new_writer(&dbgw_targets[0], BIG_BOUND);
	char name[64];
	for (uint32_t u = 0; u < BIG_UNITS; u++) {
		uint32_t id;
		int n = snprintf(name, sizeof(name), "example.com/module/package%u", u);
		assert_ret(pfelf_dbgw_unit(w, name, (size_t)n, PFELF_DW_LANG_GO, &id), 0);
		for (uint32_t k = 0; k < BIG_FILES; k++) {
			n = snprintf(name, sizeof(name), "/build/src/package%u/file%u.go", u, k);
			assert_ret(pfelf_dbgw_file(w, u, name, (size_t)n, &id), 0);
		}
	}
	struct row rows[BIG_ROWS];
	struct func f;
	for (uint32_t i = 0; i < BIG_FUNCS; i++) {
		big_func(i, &f, rows);
		struct model one = {&f, 1, NULL, NULL, 0};
		give(w, &one);
	}
	void *bytes;
	uint64_t size;
	assert_ret(pfelf_dbgw_finish(w, &bytes, &size), 0);
	double t1 = tb_now();
	uint64_t peak = pfelf_dbgw_peak(w);
	pfelf_dbgw_free(w);
	print_message("%u functions, %u rows: %.2f s, %llu bytes, peak %llu bytes held\n",
	              BIG_FUNCS, BIG_FUNCS * BIG_ROWS, t1 - t0, (unsigned long long)size,
	              (unsigned long long)peak);
	assert_true(peak <= BIG_BOUND);

	struct tb_handle h;
	assert_ret(tb_open_bytes(bytes, size, TB_MEMORY, &h), 0);
	assert_ret(pfelf_symbol_count(h.f, PFELF_SYMTAB), BIG_FUNCS + 1);
	tb_close(&h);

	/* addr2line at 2,000 pcs spread over the functions. */
	enum { N = 2000 };
	static struct func fs[N];
	static struct row rs[N][BIG_ROWS];
	const struct func *fp[N];
	uint64_t pcs[N];
	uint64_t rnd = tb_seed();
	struct model m = {NULL, 0, calloc(BIG_UNITS * BIG_FILES, sizeof(char *)), NULL,
	                  BIG_UNITS * BIG_FILES};
	assert_non_null(m.files);
	for (uint32_t k = 0; k < BIG_UNITS * BIG_FILES; k++)
		assert_true(asprintf(&m.files[k], "/build/src/package%u/file%u.go", k / BIG_FILES,
		                     k % BIG_FILES) > 0);
	for (size_t k = 0; k < N; k++) {
		big_func((uint32_t)(tb_rand(&rnd) % BIG_FUNCS), &fs[k], rs[k]);
		pcs[k] = fs[k].lo + tb_rand(&rnd) % (fs[k].hi - fs[k].lo);
		fp[k] = &fs[k];
	}
	char *dbg = tb_write_tmp("dbgw", bytes, (size_t)size);
	char *out = addr2line(dbg, pcs, N);
	check_answers(&m, fp, pcs, N, out, "Go-sized");
	unlink(dbg);
	free(dbg);
	free(out);
	for (size_t k = 0; k < m.nfiles; k++)
		free(m.files[k]);
	free(m.files);
	free(bytes);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(every_pc),
	        cmocka_unit_test(go_sized),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
