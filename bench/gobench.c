/*
 * gobench: pfelf's Go tables doing what the Go oracle of the tests
 * (tests/fixtures/go/oracle, Go's debug/gosym) does, line for line the
 * same output, so that m_go.py times both on one binary in one run:
 *
 *   gobench funcs FILE    every function: entry, end, name, file:line of
 *                         the entry (pfelf_go_func_get)
 *   gobench lookup FILE   for each hex pc on stdin: pc, name, file:line,
 *                         or "-" (pfelf_go_pc_lookup)
 *   gobench lookup-mem FILE   the same from the file read into memory
 *                         first (pfelf_open_memory), as debug/gosym reads
 *                         the table into memory
 *
 * Addresses as readelf prints them for the file's class.
 */
#include <pfelf.h>

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int width(pfelf_file *f)
{
	return pfelf_header(f)->elfclass == 1 ? 8 : 16;
}

static int funcs(pfelf_file *f, pfelf_go_reader *r, uint32_t nfunc)
{
	int w = width(f);
	for (uint32_t i = 0; i < nfunc; i++) {
		pfelf_go_func fn;
		pfelf_go_pos pos;
		int ret = pfelf_go_func_get(r, i, &fn, &pos);
		if (ret < 0)
			return ret;
		printf("%0*" PRIx64 "\t%0*" PRIx64 "\t%s\t%s:%" PRId32 "\n", w, fn.entry, w, fn.end,
		       fn.name.str, pos.file.str, pos.line);
	}
	return 0;
}

static int lookup(pfelf_file *f, pfelf_go_reader *r)
{
	int w = width(f);
	char line[64];
	while (fgets(line, sizeof(line), stdin)) {
		uint64_t pc = strtoull(line, NULL, 16);
		pfelf_go_func fn;
		pfelf_go_pos pos;
		int ret = pfelf_go_pc_lookup(r, pc, &fn, &pos);
		if (ret == -ENOENT)
			printf("%0*" PRIx64 "\t-\n", w, pc);
		else if (ret < 0)
			return ret;
		else
			printf("%0*" PRIx64 "\t%s\t%s:%" PRId32 "\n", w, pc, fn.name.str,
			       pos.file.str, pos.line);
	}
	return 0;
}

/* The whole file at path in a new buffer *buf of *len bytes. */
static int slurp(const char *path, void **buf, size_t *len)
{
	FILE *in = fopen(path, "rb");
	long n = -1;
	if (in && fseek(in, 0, SEEK_END) == 0)
		n = ftell(in);
	*buf = n > 0 ? malloc((size_t)n) : NULL;
	int ok = *buf && fseek(in, 0, SEEK_SET) == 0 && fread(*buf, 1, (size_t)n, in) == (size_t)n;
	if (in)
		fclose(in);
	*len = ok ? (size_t)n : 0;
	return ok ? 0 : -EIO;
}

int main(int argc, char **argv)
{
	const char *mode = argc == 3 ? argv[1] : "";
	bool mem = strcmp(mode, "lookup-mem") == 0;
	if (strcmp(mode, "funcs") != 0 && strcmp(mode, "lookup") != 0 && !mem) {
		fprintf(stderr, "usage: gobench funcs|lookup|lookup-mem FILE\n");
		return 2;
	}
	pfelf_file *f = NULL;
	pfelf_go_reader *r = NULL;
	pfelf_go_table t;
	void *buf = NULL;
	size_t len = 0;
	int ret = mem ? slurp(argv[2], &buf, &len) : pfelf_open(argv[2], 0, &f);
	if (ret == 0 && mem)
		ret = pfelf_open_memory(buf, len, 0, &f);
	if (ret == 0)
		ret = pfelf_go_table_get(f, &t);
	if (ret == 0)
		ret = pfelf_go_reader_open(f, &r);
	if (ret == 0)
		ret = mode[0] == 'f' ? funcs(f, r, t.nfunc) : lookup(f, r);
	pfelf_go_reader_close(r);
	pfelf_close(f);
	free(buf);
	if (ret < 0)
		fprintf(stderr, "gobench: %s: %s\n", argv[2], strerror(-ret));
	return ret < 0;
}
