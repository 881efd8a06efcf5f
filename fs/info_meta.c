/*
 * The metadata lines of `info`: soname, needed, rpath, runpath,
 * debuglink, build id, Go version, compressed sections. Strings from the
 * file are cut at INFO_STR_MAX bytes, newlines shown as '?'.
 */
#include "info.h"

#include <inttypes.h>
#include <stdio.h>

#define INFO_STR_MAX 4096

static void put_str(FILE *m, const char *key, const char *s)
{
	fprintf(m, "%s: ", key);
	for (unsigned i = 0; s[i] && i < INFO_STR_MAX; i++)
		fputc(s[i] == '\n' || s[i] == '\r' ? '?' : s[i], m);
	fputc('\n', m);
}

static void put_dynamic(FILE *m, pfelf_file *f)
{
	const char *s;
	if (pfelf_soname(f, &s) == 0)
		put_str(m, "soname", s);
	int n = pfelf_needed_count(f);
	for (int i = 0; i < n; i++)
		if (pfelf_needed(f, (uint32_t)i, &s) == 0)
			put_str(m, "needed", s);
	if (pfelf_rpath(f, &s) == 0)
		put_str(m, "rpath", s);
	if (pfelf_runpath(f, &s) == 0)
		put_str(m, "runpath", s);
}

static void put_debug(FILE *m, struct bview *v)
{
	const char *name;
	uint32_t crc;
	if (pfelf_debuglink(v->f, &name, &crc) == 0) {
		fprintf(m, "debuglink crc: 0x%08" PRIx32 "\n", crc);
		put_str(m, "debuglink", name);
	}
	if (v->buildid)
		fprintf(m, "build id: %s", v->buildid); /* ends with its newline */
	char go[256];
	if (pfelf_go_version(v->f, go, sizeof(go)) > 0)
		put_str(m, "go version", go);
}

static void put_compressed(FILE *m, struct bview *v)
{
	for (uint32_t i = 0; i < v->ncomp; i++) {
		pfelf_chdr ch;
		char type[32] = "";
		if (pfelf_section_chdr(v->f, v->comp[i], &ch) < 0)
			continue;
		pfelf_compress_type_name(ch.type, type, sizeof(type));
		fprintf(m, "compressed: %s %s %" PRIu64 "\n", v->secname[v->comp[i]], type,
		        ch.size);
	}
}

void info_meta(FILE *m, struct bview *v)
{
	put_dynamic(m, v->f);
	put_debug(m, v);
	put_compressed(m, v);
}
