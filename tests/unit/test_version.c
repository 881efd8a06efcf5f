/*
 * The version, written once in meson.build: pfelf_version() of the shared
 * library, the header macros (generated pfelf_version.h) and the project
 * version meson passes in ELFFS_PROJECT_VERSION all say the same, and the
 * macros are the parts of the string.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "pfelf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *project_version(void)
{
	const char *v = getenv("ELFFS_PROJECT_VERSION");
	if (!v || !*v)
		fail_msg("ELFFS_PROJECT_VERSION is not set (meson test passes it)");
	return v;
}

static void test_library_is_project_version(void **state)
{
	assert_non_null(pfelf_version());
	assert_string_equal(pfelf_version(), project_version());
}

static void test_header_is_project_version(void **state)
{
	assert_string_equal(PFELF_VERSION_STRING, project_version());
}

static void test_macros_are_the_string(void **state)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%d.%d.%d", PFELF_VERSION_MAJOR, PFELF_VERSION_MINOR,
	                 PFELF_VERSION_PATCH);
	assert_true(n > 0 && (size_t)n < sizeof(buf));
	assert_string_equal(buf, PFELF_VERSION_STRING);
	assert_string_equal(buf, pfelf_version());
}

/* The macros are integer constants a program can compare in #if. */
#if !(PFELF_VERSION_MAJOR >= 0 && PFELF_VERSION_MINOR >= 0 && PFELF_VERSION_PATCH >= 0)
#error "PFELF_VERSION_* are not usable in #if"
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_library_is_project_version),
	        cmocka_unit_test(test_header_is_project_version),
	        cmocka_unit_test(test_macros_are_the_string),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
