/*
 * Go's pclntab through pfelf against Go's own reader. For every fixture of
 * tests/fixtures/go (programs of seven architectures built by the go tool,
 * stripped and not, PIE, cgo linked by gcc, patched copies, and tables of
 * Go 1.2, 1.16, 1.18 and 1.20 written by gotab.py): every function's
 * entry, end, name and the file:line of its entry equal, line for line,
 * what debug/gosym (Go 1.19) gives (NAME.funcs, made by the oracle with the
 * unstripped twin's runtime.text); pc lookups and the line rows of
 * functions equal its PCToLine; where the table and the text start were
 * found; compile units; readers on several threads. Go 1.19's debug/gosym
 * reads the tables of Go 1.20 and later only when their magic reads as
 * 1.18's (the layout they share): the oracle rewrites the magic of its copy.
 */
#include "go_helpers.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A name is the bytes of the file it says it is. */
static void check_range(pfelf_file *f, const pfelf_go_name *n)
{
	char buf[4096];
	if (n->len == 0 || n->len >= sizeof(buf))
		return;
	assert_ret(pfelf_read(f, n->offset, buf, (size_t)n->len + 1), n->len + 1);
	assert_memory_equal(buf, n->str, n->len);
	assert_int_equal(buf[n->len], 0);
}

/* Every function of f as the oracle's funcs prints them. */
static char *functions_text(pfelf_file *f)
{
	pfelf_go_table t;
	pfelf_go_reader *r;
	assert_ret(pfelf_go_table_get(f, &t), 0);
	assert_ret(pfelf_go_reader_open(f, &r), 0);
	struct tg_text out = {0};
	tg_put(&out, "", 0);
	for (uint32_t i = 0; i < t.nfunc; i++) {
		pfelf_go_func fn;
		pfelf_go_pos pos;
		assert_ret(pfelf_go_func_get(r, i, &fn, &pos), 0);
		assert_int_equal(fn.index, i);
		tg_func_line(&out, tg_width(f), &fn, &pos);
		if (i % 13 == 0) {
			check_range(f, &fn.name);
			check_range(f, &pos.file);
		}
	}
	pfelf_go_func fn;
	assert_ret(pfelf_go_func_get(r, t.nfunc, &fn, NULL), -ENOENT);
	pfelf_go_reader_close(r);
	return out.p;
}

static void test_functions(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	size_t n = tg_fixtures(&fx);
	for (size_t i = 0; i < n; i++) {
		if (strcmp(fx[i].kind, "hostile") == 0)
			continue;
		struct tb_handle h;
		char want_name[300];
		tb_open_ok(tg_path(fx[i].name), b, &h);
		char *got = functions_text(h.f);
		snprintf(want_name, sizeof(want_name), "%s.funcs", fx[i].name);
		char *want = tg_slurp(want_name, NULL);
		tg_same_lines(fx[i].name, got, want);
		free(got);
		free(want);
		tb_close(&h);
	}
}

/* ------------------------------------------------------------ lookups */

/* pcs to ask about, with pfelf's answers, for one fixture. */
struct probe {
	struct tg_text pcs;  /* hex pcs, one a line: the oracle's input */
	struct tg_text want; /* pfelf's lines for them */
};

static void ask(struct probe *p, pfelf_go_reader *r, int width, uint64_t pc)
{
	char b[32];
	int n = snprintf(b, sizeof(b), "%llx\n", (unsigned long long)pc);
	tg_put(&p->pcs, b, (size_t)n);
	pfelf_go_func fn;
	pfelf_go_pos pos;
	int ret = pfelf_go_pc_lookup(r, pc, &fn, &pos);
	if (ret == -ENOENT) {
		tg_pc_line(&p->want, width, pc, NULL, NULL, 0);
		return;
	}
	assert_ret(ret, 0);
	assert_true(fn.entry <= pc && pc < fn.end);
	tg_pc_line(&p->want, width, pc, &fn, pos.file.str, pos.line);
}

/* The rows of function i: they tile [entry, end); each row's first and
 * last pc are asked about, with the row's file and line as the answer
 * pfelf_go_pc_lookup must give (checked here) and Go too (by the caller). */
static void rows(struct probe *p, pfelf_go_reader *r, int width, uint32_t i)
{
	pfelf_go_func fn;
	pfelf_go_line row;
	assert_ret(pfelf_go_lines_begin(r, i, &fn), 0);
	uint64_t entry = fn.entry, at = fn.entry, end = fn.end;
	uint32_t cu = fn.cu_offset;
	int ret, prev_file = -2, prev_line = -2;
	while ((ret = pfelf_go_lines_next(r, &row)) == 1) {
		assert_int_equal(row.start, at);
		assert_true(row.end > row.start && row.end <= end);
		assert_false(row.fileno == prev_file && row.line == prev_line);
		prev_file = row.fileno;
		prev_line = row.line;
		at = row.end;
		uint64_t pcs[2] = {row.start, row.end - 1};
		for (int k = 0; k < 2; k++) {
			pfelf_go_name file;
			pfelf_go_func got;
			pfelf_go_pos pos;
			assert_ret(pfelf_go_file(r, cu, row.fileno, &file), 0);
			char *name = strdup(file.str);
			assert_ret(pfelf_go_pc_lookup(r, pcs[k], &got, &pos), 0);
			assert_int_equal(got.index, i);
			assert_int_equal(pos.line, row.line);
			assert_int_equal(pos.fileno, row.fileno);
			assert_string_equal(pos.file.str, name);
			char b[32];
			int n = snprintf(b, sizeof(b), "%llx\n", (unsigned long long)pcs[k]);
			tg_put(&p->pcs, b, (size_t)n);
			tg_pc_line(&p->want, width, pcs[k], &got, name, row.line);
			free(name);
		}
	}
	assert_ret(ret, 0);
	assert_int_equal(at, end > entry ? end : entry);
	assert_ret(pfelf_go_lines_next(r, &row), 0);
}

/* Ask about the entry, middle and last pc of every function, the pcs
 * around the table, and the rows of every step-th function. */
static void probe(struct probe *p, pfelf_file *f, uint32_t step)
{
	pfelf_go_table t;
	pfelf_go_reader *r;
	int w = tg_width(f);
	assert_ret(pfelf_go_table_get(f, &t), 0);
	assert_ret(pfelf_go_reader_open(f, &r), 0);
	ask(p, r, w, t.min_pc - 1);
	ask(p, r, w, t.max_pc);
	for (uint32_t i = 0; i < t.nfunc; i++) {
		pfelf_go_func fn;
		assert_ret(pfelf_go_func_get(r, i, &fn, NULL), 0);
		if (fn.end == fn.entry)
			continue;
		ask(p, r, w, fn.entry);
		ask(p, r, w, fn.entry + (fn.end - fn.entry) / 2);
		ask(p, r, w, fn.end - 1);
		if (i % step == 0)
			rows(p, r, w, i);
	}
	pfelf_go_reader_close(r);
}

/* The oracle's answers, asked once per fixture (the same for every backend). */
static char *oracle_answers[128];

static void test_lookups(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	size_t n = tg_fixtures(&fx);
	assert_true(n <= sizeof(oracle_answers) / sizeof(oracle_answers[0]));
	size_t asked = 0;
	for (size_t i = 0; i < n; i++) {
		if (strcmp(fx[i].kind, "hostile") == 0)
			continue;
		struct tb_handle h;
		struct probe p = {0};
		tb_open_ok(tg_path(fx[i].name), b, &h);
		probe(&p, h.f, strcmp(fx[i].kind, "synth") == 0 ? 1 : 7);
		if (!oracle_answers[i]) {
			char args[1024];
			snprintf(args, sizeof(args), "lookup %s %s", fx[i].name, fx[i].twin);
			oracle_answers[i] = tg_oracle(args, p.pcs.p, p.pcs.len, NULL);
		}
		tg_same_lines(fx[i].name, p.want.p, oracle_answers[i]);
		asked += p.pcs.len;
		free(p.pcs.p);
		free(p.want.p);
		tb_close(&h);
	}
	print_message("%zu bytes of pcs asked of debug/gosym\n", asked);
}

/* -------------------------------------------------- where, text start */

struct where {
	const char *name;
	uint8_t where, text_from;
	uint16_t version;
};

static const struct where expect[] = {
        {"prog-amd64", PFELF_GO_SECTION, PFELF_GO_TEXT_HEADER, PFELF_GO_V118},
        {"prog-amd64-pie", PFELF_GO_RELRO_SECTION, PFELF_GO_TEXT_HEADER, PFELF_GO_V118},
        {"prog-amd64-cgopie", PFELF_GO_SYMBOLS, PFELF_GO_TEXT_HEADER, PFELF_GO_V118},
        {"prog-amd64-cgopie-stripped", PFELF_GO_SCAN_RELRO, PFELF_GO_TEXT_HEADER, PFELF_GO_V118},
        {"prog-amd64-noshdr", PFELF_GO_SCAN, PFELF_GO_TEXT_HEADER, PFELF_GO_V118},
        {"prog-amd64-go120", PFELF_GO_SECTION, PFELF_GO_TEXT_HEADER, PFELF_GO_V120},
        {"prog-amd64-pie-textreloc", PFELF_GO_RELRO_SECTION, PFELF_GO_TEXT_HEADER_RELOC,
         PFELF_GO_V118},
        {"prog-amd64-pie-modreloc", PFELF_GO_RELRO_SECTION, PFELF_GO_TEXT_MODULE_RELOC,
         PFELF_GO_V118},
        {"prog-amd64-go126", PFELF_GO_SECTION, PFELF_GO_TEXT_MODULE, PFELF_GO_V118},
        {"prog-amd64-textsym", PFELF_GO_SECTION, PFELF_GO_TEXT_SYMBOL, PFELF_GO_V118},
        {"synth-1.2-le64", PFELF_GO_SECTION, PFELF_GO_TEXT_ABSOLUTE, PFELF_GO_V12},
        {"synth-1.2-be32", PFELF_GO_SECTION, PFELF_GO_TEXT_ABSOLUTE, PFELF_GO_V12},
        {"synth-1.16-le64", PFELF_GO_SECTION, PFELF_GO_TEXT_ABSOLUTE, PFELF_GO_V116},
        {"synth-1.16-be32", PFELF_GO_SECTION, PFELF_GO_TEXT_ABSOLUTE, PFELF_GO_V116},
        {"synth-1.16-le64-noshdr", PFELF_GO_SCAN, PFELF_GO_TEXT_ABSOLUTE, PFELF_GO_V116},
        {"synth-1.18-be64", PFELF_GO_SECTION, PFELF_GO_TEXT_HEADER, PFELF_GO_V118},
        {"synth-1.20-le32", PFELF_GO_SECTION, PFELF_GO_TEXT_HEADER, PFELF_GO_V120},
};

/* The text start Go's tools take: the twin's runtime.text. */
static uint64_t runtime_text(const char *twins)
{
	char args[600];
	const char *comma = strrchr(twins, ',');
	snprintf(args, sizeof(args), "text %s", comma ? comma + 1 : twins);
	char *out = tg_oracle(args, NULL, 0, NULL);
	uint64_t v = strtoull(out, NULL, 16);
	free(out);
	assert_true(v != 0);
	return v;
}

static void check_where(const struct tg_fixture *fx, enum tb_backend b)
{
	struct tb_handle h;
	pfelf_go_table t;
	tb_open_ok(tg_path(fx->name), b, &h);
	assert_ret(pfelf_go_table_get(h.f, &t), 0);
	const struct where *w = NULL;
	for (size_t k = 0; k < sizeof(expect) / sizeof(expect[0]); k++)
		if (strcmp(expect[k].name, fx->name) == 0)
			w = &expect[k];
	assert_ret(pfelf_go_func_count(h.f), t.nfunc);
	assert_string_not_equal(pfelf_go_where_name(t.where), "?");
	assert_string_not_equal(pfelf_go_text_name(t.text_from), "?");
	if (w) {
		assert_int_equal(t.where, w->where);
		assert_int_equal(t.text_from, w->text_from);
		assert_int_equal(t.version, w->version);
	} else { /* the other programs: a section, the header's text start */
		assert_int_equal(t.where, strstr(fx->name, "pie") ? PFELF_GO_RELRO_SECTION
		                                                  : PFELF_GO_SECTION);
		assert_int_equal(t.text_from, PFELF_GO_TEXT_HEADER);
	}
	bool synth = strcmp(fx->kind, "synth") == 0;
	assert_int_equal(t.ptrsize, synth ? t.ptrsize : pfelf_header(h.f)->elfclass * 4);
	assert_int_equal(t.big_endian, synth ? t.big_endian : pfelf_header(h.f)->data == 2);
	if (!synth)
		assert_int_equal(t.text, runtime_text(fx->twin));
	uint64_t off, size;
	assert_ret(pfelf_go_pclntab(h.f, &off, &size), 0);
	assert_int_equal(off, t.offset);
	assert_int_equal(size, t.size);
	tb_close(&h);
}

static void test_where(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	size_t n = tg_fixtures(&fx);
	for (size_t i = 0; i < n; i++)
		if (strcmp(fx[i].kind, "hostile") != 0)
			check_where(&fx[i], b);
	/* linked by gcc: runtime.text is after the C start-up code in .text */
	struct tb_handle h;
	pfelf_go_table t;
	const pfelf_shdr *text;
	tb_open_ok(tg_path("prog-amd64-cgo"), b, &h);
	assert_ret(pfelf_go_table_get(h.f, &t), 0);
	assert_ret(pfelf_section_by_name(h.f, ".text", &text), 0);
	assert_true(t.text > text->addr);
	const uint8_t *id;
	assert_true(pfelf_build_id(h.f, &id) >= 2); /* gcc gave it a GNU build id */
	assert_string_equal(pfelf_go_where_name(0), "?");
	assert_string_equal(pfelf_go_text_name(6), "?");
	print_message("prog-amd64-cgo: .text at %#llx, runtime.text at %#llx\n",
	              (unsigned long long)text->addr, (unsigned long long)t.text);
	tb_close(&h);
}

/* ------------------------------------------------------ compile units */

static void check_units(const struct tg_fixture *fx, enum tb_backend b)
{
	struct tb_handle h;
	pfelf_go_table t;
	pfelf_go_reader *r;
	tb_open_ok(tg_path(fx->name), b, &h);
	assert_ret(pfelf_go_table_get(h.f, &t), 0);
	int ncu = pfelf_go_cu_count(h.f);
	assert_true(ncu >= 1);
	assert_true(t.version != PFELF_GO_V12 || ncu == 1);
	assert_ret(pfelf_go_reader_open(h.f, &r), 0);
	uint32_t next = 0;
	for (int k = 0; k < ncu; k++) {
		pfelf_go_cu cu;
		assert_ret(pfelf_go_cu_get(h.f, (uint32_t)k, &cu), 0);
		assert_int_equal(cu.index, k);
		assert_true(k == 0 || cu.offset == next);
		assert_ret(pfelf_go_cu_find(h.f, cu.offset), k);
		next = cu.offset + cu.nfiles;
		for (uint32_t i = 0; i < cu.nfiles; i++) {
			pfelf_go_name file;
			assert_ret(pfelf_go_file(r, cu.offset, (int32_t)i, &file), 0);
			assert_int_equal(strlen(file.str), file.len);
		}
	}
	pfelf_go_cu cu;
	assert_ret(pfelf_go_cu_get(h.f, (uint32_t)ncu, &cu), -ENOENT);
	assert_ret(pfelf_go_cu_find(h.f, UINT32_MAX), -ENOENT);
	for (uint32_t i = 0; i < t.nfunc; i++) {
		pfelf_go_func fn;
		pfelf_go_pos pos;
		assert_ret(pfelf_go_func_get(r, i, &fn, &pos), 0);
		if (fn.cu_offset == UINT32_MAX)
			continue;
		int k = pfelf_go_cu_find(h.f, fn.cu_offset);
		assert_true(k >= 0);
		assert_ret(pfelf_go_cu_get(h.f, (uint32_t)k, &cu), 0);
		assert_true(pos.fileno < 0 || (uint32_t)pos.fileno < cu.nfiles);
	}
	pfelf_go_cost cost;
	assert_ret(pfelf_cost_go(h.f, &cost), 0);
	assert_true(cost.functions >= 24 * ((uint64_t)t.nfunc + 1) &&
	            cost.functions <= 28 * ((uint64_t)t.nfunc + 1));
	assert_true(cost.files > 0 && cost.files < 64 * ((uint64_t)t.nfunc + 64));
	assert_int_equal(cost.units, 4 * (uint64_t)ncu);
	assert_true(cost.reader > 0 && cost.reader < 96 << 10);
	pfelf_go_reader_close(r);
	tb_close(&h);
}

static void test_units(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	size_t n = tg_fixtures(&fx);
	for (size_t i = 0; i < n; i++)
		if (strcmp(fx[i].kind, "hostile") != 0)
			check_units(&fx[i], b);
}

/* ---------------------------------------------------------- threads */

struct worker {
	pfelf_file *f;
	char *text;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	pfelf_go_reader *r;
	pfelf_go_table t;
	if (pfelf_go_cu_count(w->f) < 1 || pfelf_go_table_get(w->f, &t) < 0 ||
	    pfelf_go_reader_open(w->f, &r) < 0)
		return NULL;
	struct tg_text out = {0};
	tg_put(&out, "", 0);
	for (uint32_t i = 0; i < t.nfunc; i++) {
		pfelf_go_func fn;
		pfelf_go_pos pos;
		if (pfelf_go_func_get(r, i, &fn, &pos) < 0)
			break;
		tg_func_line(&out, tg_width(w->f), &fn, &pos);
	}
	pfelf_go_reader_close(r);
	w->text = out.p;
	return NULL;
}

/* Four threads load one handle's tables at once and read them each through
 * a reader of its own. */
static void test_threads(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	tg_fixtures(&fx);
	struct tb_handle h;
	tb_open_ok(tg_path("prog-arm64"), b, &h);
	pthread_t th[4];
	struct worker w[4];
	for (int i = 0; i < 4; i++) {
		w[i] = (struct worker){h.f, NULL};
		assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
	}
	char *want = tg_slurp("prog-arm64.funcs", NULL);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(pthread_join(th[i], NULL), 0);
		assert_non_null(w[i].text);
		tg_same_lines("prog-arm64 (thread)", w[i].text, want);
		free(w[i].text);
	}
	free(want);
	tb_close(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_functions), TB_BACKEND_TESTS(test_lookups),
	        TB_BACKEND_TESTS(test_where),     TB_BACKEND_TESTS(test_units),
	        TB_BACKEND_TESTS(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
