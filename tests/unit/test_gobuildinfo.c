/*
 * The build info of Go binaries: pfelf_go_buildinfo against `go version -m`
 * (Go 1.19) byte for byte, for every Go fixture (programs of the go tool:
 * the 1.18+ inline encoding; files of gotab.py: the pointer encoding
 * before 1.18 and the inline one, with module text the go command must
 * parse and write back: a replaced module, re-quoted settings, non-ASCII
 * and invalid UTF-8, a line it ignores; module text it refuses, for which
 * it prints nothing), files without build info; strconv's quoting against
 * Go's own: every rune's printability and literals unquoted and quoted
 * again. On every backend.
 */
#include "go_helpers.h"

#include "tables/go_i.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void check_text(const struct tg_fixture *fx, enum tb_backend b)
{
	char gov[300];
	snprintf(gov, sizeof(gov), "%s.gov", fx->name);
	bool hostile = strcmp(fx->kind, "hostile") == 0;
	char *want = hostile ? strdup("") : tg_slurp(gov, NULL);
	struct tb_handle h;
	const char *text;
	size_t len;
	char ver[64];
	tb_open_ok(tg_path(fx->name), b, &h);
	int ret = pfelf_go_buildinfo(h.f, &text, &len);
	if (!*want) { /* go version -m printed nothing */
		assert_ret(ret, strcmp(fx->name, "synth-badinfo") == 0 ? -EINVAL : -ENOENT);
		assert_ret(pfelf_go_buildinfo(h.f, &text, &len), ret); /* remembered */
	} else {
		size_t skip = strlen(fx->name) + 2; /* "NAME: " */
		assert_ret(ret, 0);
		assert_int_equal(strlen(text), len);
		assert_true(strncmp(want, fx->name, skip - 2) == 0);
		assert_int_equal(len, strlen(want + skip));
		assert_memory_equal(text, want + skip, len);
		size_t vlen = strcspn(text, "\n");
		assert_ret(pfelf_go_version(h.f, ver, sizeof(ver)), vlen);
		assert_memory_equal(ver, text, vlen);
		pfelf_go_cost cost;
		assert_ret(pfelf_cost_go(h.f, &cost), 0);
		assert_int_equal(cost.buildinfo, len + 1);
	}
	free(want);
	tb_close(&h);
}

static void test_text(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const struct tg_fixture *fx;
	size_t n = tg_fixtures(&fx);
	for (size_t i = 0; i < n; i++)
		check_text(&fx[i], b);
	/* the synthetic text has what go version -m rewrites: checked above */
	char *gov = tg_slurp("synth-1.2-le64.gov", NULL);
	assert_non_null(strstr(gov, "\n\t=>\t../old\t(devel)\t\n\t\n"));
	assert_non_null(strstr(gov, "\tbuild\t\"raw key\"=\"x\\ty\"\n"));
	assert_non_null(strstr(gov, "\\u00a0"));
	free(gov);
}

static void test_no_buildinfo(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);
	const char *files[] = {"exec", "libshared.so", "many.o", "noshdr"};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct tb_handle h;
		const char *text;
		size_t len;
		pfelf_go_table t;
		tb_open_ok(tb_fixture(files[i]), b, &h);
		assert_ret(pfelf_go_buildinfo(h.f, &text, &len), -ENOENT);
		assert_ret(pfelf_go_table_get(h.f, &t), -ENOENT);
		assert_ret(pfelf_go_table_get(h.f, &t), -ENOENT);
		tb_close(&h);
	}
}

/* Every rune's printability as strconv.IsPrint says (the table of
 * goprint.c, generated from Go 1.19 by the oracle). */
static void test_isprint(void **state)
{
	(void)state;
	const struct tg_fixture *fx;
	tg_fixtures(&fx);
	char *runs = tg_oracle("isprint", NULL, 0, NULL);
	uint32_t r = 0, printable = 0;
	for (char *line = strtok(runs, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long lo, hi;
		assert_int_equal(sscanf(line, "%lx %lx", &lo, &hi), 2);
		for (; r < lo; r++)
			if (pfelf__go_isprint(r))
				fail_msg("U+%04X is not printable to Go", r);
		for (; r <= hi; r++, printable++)
			if (!pfelf__go_isprint(r))
				fail_msg("U+%04X is printable to Go", r);
	}
	for (; r <= 0x10ffff; r++)
		assert_false(pfelf__go_isprint(r));
	print_message("%u printable runes\n", printable);
	free(runs);
}

/* Literals unquoted and quoted again, as strconv does. */
static void test_requote(void **state)
{
	(void)state;
	static const char *const lits[] = {
	        "\"plain\"",
	        "\"a\\tb\\n\\\\\\\"\"",
	        "`raw\r with CR`",
	        "`a\"b\\c`",
	        "\"\\x00\\x1f\\x7f\\x80\\xff\"",
	        "\"\\a\\b\\f\\v\\r\"",
	        "\"\\101\\377\"",
	        "\"\\400\"",
	        "\"\\u00e9\\u00a0\\u00ad\\u2028\\ufeff\\U0001F600\\U000e0001\"",
	        "\"\\ud800\"",
	        "\"\\U00110000\"",
	        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"",
	        "\"\xff\xfe\"",
	        "\"\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80\"",
	        "\"\\'\"",
	        "\"unterminated",
	        "\"a\"b",
	        "`x`y",
	        "`x",
	        "x",
	        "\"\"",
	        "\"\\q\"",
	        "\"\\x4\"",
	        "\"\\u12\"",
	        "'a'",
	};
	struct tg_text in = {0}, want = {0};
	for (size_t i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		tg_put(&in, lits[i], strlen(lits[i]));
		tg_put(&in, "\n", 1);
		struct pfelf__go_text un = {0}, q = {0};
		const char *s = lits[i];
		size_t n = strlen(s);
		if (n && s[0] == '\'') { /* not a form the build info uses */
			tg_put(&want, "\"a\"\n", 4);
			continue;
		}
		if (pfelf__go_unquote(&un, s, n) < 0) {
			tg_put(&want, "error\n", 6);
		} else {
			pfelf__go_quote(&q, un.p ? un.p : "", un.len);
			tg_put(&want, q.p, q.len);
			tg_put(&want, "\n", 1);
		}
		free(un.p);
		free(q.p);
	}
	const struct tg_fixture *fx;
	tg_fixtures(&fx);
	char *go = tg_oracle("requote", in.p, in.len, NULL);
	tg_same_lines("requote", want.p, go);
	free(go);
	free(in.p);
	free(want.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_text),
	        TB_BACKEND_TESTS(test_no_buildinfo),
	        cmocka_unit_test(test_isprint),
	        cmocka_unit_test(test_requote),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
