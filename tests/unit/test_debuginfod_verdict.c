/*
 * What libdebuginfod's answers mean for a lookup (fs/buildid/
 * debuginfod_verdict.c): its return and its diagnostics as libdebuginfod
 * 0.188 writes them to the verbose descriptor (taken from debuginfod-find
 * -vv against a 404, a 500, a transfer cut short and a cache hit).
 */
#include "buildid/debuginfod_verdict.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static const char head[] = "debuginfod_find_debuginfo 1111\n"
                           "server urls \"http://127.0.0.1:8621\"\n"
                           "checking build-id\n"
                           "checking cache dir /tmp/c8621\n"
                           "using timeout 90\n"
                           "init server 0 http://127.0.0.1:8621/buildid\n"
                           "url 0 http://127.0.0.1:8621/buildid/1111/debuginfo\n"
                           "query 1 urls in parallel\n";

static void verdict(int ret, const char *tail, struct dbgd_verdict *v)
{
	char log[2048];
	snprintf(log, sizeof(log), "%s%s", head, tail);
	dbgd_verdict_of(ret, log, strlen(log), v);
}

static void test_404_is_enoent(void **state)
{
	struct dbgd_verdict v;
	verdict(-ENOENT,
	        "header HTTP/1.1 404 Not Found\n"
	        "server response HTTP response code said error\n"
	        "url 0 The requested URL returned error: 404\n"
	        "not found No such file or directory (err=-2)\n",
	        &v);
	assert_int_equal(v.err, -ENOENT);
	assert_false(v.drop_negative);
	assert_string_equal(v.url, "http://127.0.0.1:8621/buildid/1111/debuginfo");
}

static void test_500_is_eio(void **state)
{
	struct dbgd_verdict v;
	verdict(-ENOENT,
	        "header HTTP/1.1 500 Internal Server Error\n"
	        "server response HTTP response code said error\n"
	        "url 0 The requested URL returned error: 500\n"
	        "not found No such file or directory (err=-2)\n",
	        &v);
	assert_int_equal(v.err, -EIO);
	assert_true(v.drop_negative);
	assert_string_equal(v.why, "The requested URL returned error: 500");
}

static void test_cut_is_eio(void **state)
{
	struct dbgd_verdict v;
	verdict(-ENOENT,
	        "committed to url 0\n"
	        "server response Transferred a partial file\n"
	        "url 0 transfer closed with 5000 bytes remaining to read\n"
	        "not found No such file or directory (err=-2)\n",
	        &v);
	assert_int_equal(v.err, -EIO);
	assert_true(v.drop_negative);
	assert_string_equal(v.why, "transfer closed with 5000 bytes remaining to read");
}

static void test_negative_cache_is_enoent(void **state)
{
	struct dbgd_verdict v;
	static const char log[] = "debuginfod_find_debuginfo 1111\n"
	                          "checking cache dir /tmp/c8621\n";
	dbgd_verdict_of(-ENOENT, log, sizeof(log) - 1, &v);
	assert_int_equal(v.err, -ENOENT);
	assert_false(v.drop_negative);
}

static void test_other_errors(void **state)
{
	struct dbgd_verdict v;
	dbgd_verdict_of(-ETIME, "", 0, &v);
	assert_int_equal(v.err, -ETIMEDOUT);
	dbgd_verdict_of(-EFBIG, "", 0, &v);
	assert_int_equal(v.err, -EIO);
	dbgd_verdict_of(-ECONNREFUSED, NULL, 0, &v);
	assert_int_equal(v.err, -EIO);
	dbgd_verdict_of(-ENOMEM, "", 0, &v);
	assert_int_equal(v.err, -ENOMEM);
	dbgd_verdict_of(7, "", 0, &v);
	assert_int_equal(v.err, 0);
}

static void test_cache_dir(void **state)
{
	char buf[64];
	assert_int_equal(dbgd_verdict_cache_dir(head, strlen(head), buf, sizeof(buf)), 10);
	assert_string_equal(buf, "/tmp/c8621");
	assert_int_equal(dbgd_verdict_cache_dir(head, strlen(head), buf, 5), 0);
	assert_int_equal(dbgd_verdict_cache_dir("x\n", 2, buf, sizeof(buf)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_404_is_enoent),
	        cmocka_unit_test(test_500_is_eio),
	        cmocka_unit_test(test_cut_is_eio),
	        cmocka_unit_test(test_negative_cache_is_enoent),
	        cmocka_unit_test(test_other_errors),
	        cmocka_unit_test(test_cache_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
