/*
 * The line writers of the daemon's text views (fs/text/textline.c): names of
 * the file as readelf's print_symbol writes them (fb_add_shown: control
 * characters as ^X), against readelf -sW, for every symbol of the odd
 * fixture ctlnames.o (names "n<c>x" of every byte c 1..255, a name of
 * 8,400 shown bytes, a section symbol of a section named with a control
 * character), read through every backend.
 */
#include "backends.h"
#include "text/textline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *odd_fixture(const char *name)
{
	const char *dir = getenv("ELFFS_ODD_FIXTURES");
	if (!dir)
		fail_msg("ELFFS_ODD_FIXTURES is not set");
	return tb_keep_path(dir, name);
}

/* The name readelf -sW prints for symbol index of .symtab of path (the
 * text after the Ndx column), malloc'd; readelf's output in *text. */
static char *readelf_name(char *text, unsigned index)
{
	char key[32];
	snprintf(key, sizeof(key), "\n%6u: ", index);
	char *p = strstr(text, key);
	if (!p)
		fail_msg("readelf -sW: no symbol %u", index);
	p += strlen(key);
	char *end = strchr(p, '\n');
	/* value size type bind vis ndx: six columns, then one blank and the name */
	for (int col = 0; col < 6; col++) {
		p += strspn(p, " ");
		p += strcspn(p, " ");
	}
	p++;
	return strndup(p, (size_t)((end ? end : p + strlen(p)) - p));
}

static void test_names_as_readelf(void **state)
{
	enum tb_backend be = TB_STATE_BACKEND(state);
	const char *path = odd_fixture("ctlnames.o");
	char *q = tb_shell_quote(path), *cmd;
	assert_true(asprintf(&cmd, "LC_ALL=C readelf -sW %s 2>/dev/null", q) > 0);
	char *text = tb_run(cmd, NULL);
	struct tb_handle h;
	tb_open_ok(path, be, &h);
	int n = pfelf_symbol_count(h.f, PFELF_SYMTAB);
	assert_true(n > 256);
	unsigned escaped = 0, cut = 0;
	for (int i = 1; i < n; i++) {
		pfelf_sym s;
		const pfelf_shdr *sh;
		assert_int_equal(pfelf_symbol(h.f, PFELF_SYMTAB, (uint32_t)i, &s), 0);
		const char *name = s.name;
		if (s.type == 3 /* STT_SECTION */ && s.name_off == 0) {
			assert_int_equal(pfelf_section(h.f, s.shndx, &sh), 0);
			name = sh->name;
		}
		static struct fieldbuf x;
		x.shown = x.full = 0;
		size_t wrote = fb_add_shown(&x, name);
		char *want = readelf_name(text, (unsigned)i);
		size_t wlen = strlen(want);
		assert_int_equal(wrote, wlen);
		assert_int_equal(x.full, wlen);
		size_t shown = wlen < TEXT_FIELD_MAX ? wlen : TEXT_FIELD_MAX;
		if (x.shown != shown || memcmp(x.buf, want, shown) != 0)
			fail_msg("symbol %d: shown '%.*s', readelf '%.60s'", i, (int)x.shown, x.buf,
			         want);
		escaped += strchr(want, '^') != NULL;
		cut += wlen > TEXT_FIELD_MAX;
		free(want);
	}
	assert_true(escaped >= 33); /* 0x01-0x1f, DEL, the long name, the section */
	assert_int_equal(cut, 1);
	tb_close(&h);
	free(text);
	free(cmd);
	free(q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_names_as_readelf),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
