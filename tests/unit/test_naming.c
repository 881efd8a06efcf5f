/*
 * The naming engine of the daemon (fs/text/naming.c): the naming rules of
 * docs/elffs.1 for section file names (odd names, duplicates, cuts, "~<index>", made
 * names stepping aside), and the same engine with a twin rule as symbol/
 * uses it. A pure module: no backend involved.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "text/naming.h"

#include <stdlib.h>
#include <string.h>

static void check_sections(const char *const *raw, uint32_t n, const char *const *want)
{
	char **out = calloc(n, sizeof(*out));
	assert_non_null(out);
	assert_int_equal(naming_sections(raw, n, out), 0);
	assert_null(out[0]);
	for (uint32_t i = 1; i < n; i++)
		assert_string_equal(out[i], want[i]);
	naming_free(out, n);
	free(out);
}

static void test_odd_names(void **state)
{
	(void)state;
	const char *raw[] = {"", "", ".", "..", "a/b", "/", NULL, ".text"};
	const char *want[] = {NULL, "~1", ".~2", "..~3", "a_b~4", "_~5", "~6", ".text"};
	check_sections(raw, 8, want);
}

static void test_duplicates(void **state)
{
	(void)state;
	const char *raw[] = {"", ".group", ".text", ".group", ".group", ".text"};
	const char *want[] = {NULL, ".group", ".text", ".group~3", ".group~4", ".text~5"};
	check_sections(raw, 6, want);
}

/* A made name never takes a name a section has as its own. */
static void test_made_names_step_aside(void **state)
{
	(void)state;
	const char *raw[] = {"", ".dup", ".dup~7", ".x", "", "", "", ".dup"};
	const char *want[] = {NULL, ".dup", ".dup~7", ".x", "~4", "~5", "~6", ".dup~7~7"};
	check_sections(raw, 8, want);
}

static void test_long_names(void **state)
{
	(void)state;
	char exact[NAMING_MAX + 1], longer[NAMING_MAX + 2], cut[NAMING_MAX + 3];
	memset(exact, 'e', NAMING_MAX);
	exact[NAMING_MAX] = '\0';
	memset(longer, 'l', NAMING_MAX + 1);
	longer[NAMING_MAX + 1] = '\0';
	memcpy(cut, longer, NAMING_MAX);
	memcpy(cut + NAMING_MAX, "~2", 3);
	const char *raw[] = {"", exact, longer};
	const char *want[] = {NULL, exact, cut};
	check_sections(raw, 3, want);
}

/* The twin rule of symbol/: item 2 is item 0's twin (dropped), item 3 is
 * not (it gets "~<index>"). */
static bool twin(void *ctx, uint32_t keeper, uint32_t dup)
{
	(void)ctx;
	return keeper == 0 && dup == 2;
}

static void test_resolve_with_twins(void **state)
{
	(void)state;
	struct naming_item it[] = {
	        {.name = strdup("main"), .index = 10},  {.name = strdup("a/b"), .index = 11},
	        {.name = strdup("main"), .index = 3},   {.name = strdup("main"), .index = 4},
	        {.name = strdup("main~4"), .index = 5},
	};
	uint32_t n = sizeof(it) / sizeof(it[0]);
	for (uint32_t i = 0; i < n; i++)
		assert_non_null(it[i].name);
	assert_int_equal(naming_resolve(it, n, twin, NULL), 0);
	assert_string_equal(it[0].name, "main");
	assert_false(it[0].dropped);
	assert_string_equal(it[1].name, "a_b~11");
	assert_true(it[1].made);
	assert_true(it[2].dropped);
	assert_string_equal(it[3].name, "main~4~4"); /* "main~4" is item 4's own */
	assert_string_equal(it[4].name, "main~4");
	for (uint32_t i = 0; i < n; i++)
		free(it[i].name);
}

static void test_is_odd(void **state)
{
	(void)state;
	char longer[NAMING_MAX + 2];
	memset(longer, 'x', NAMING_MAX + 1);
	longer[NAMING_MAX + 1] = '\0';
	assert_true(naming_is_odd(""));
	assert_true(naming_is_odd("."));
	assert_true(naming_is_odd(".."));
	assert_true(naming_is_odd("a/b"));
	assert_true(naming_is_odd(longer));
	assert_false(naming_is_odd("..."));
	assert_false(naming_is_odd(".text"));
	assert_false(naming_is_odd("x~7"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_odd_names),
	        cmocka_unit_test(test_duplicates),
	        cmocka_unit_test(test_made_names_step_aside),
	        cmocka_unit_test(test_long_names),
	        cmocka_unit_test(test_resolve_with_twins),
	        cmocka_unit_test(test_is_odd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
