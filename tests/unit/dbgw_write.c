/*
 * dbgw_write SPEC OUT: write a debug file with pfelf's debug-file writer
 * from a text description (the tool test_dbgw_tools.py drives). One
 * directive a line, fields separated by one tab, a name last (it may hold
 * blanks); numbers as strtoull reads them (0x for hex):
 *   layout PATH                   the target and the layout of that binary
 *   target CLASS DATA MACHINE TYPE  a target without a binary
 *   max BYTES                     the writer's bound (before any unit)
 *   unit LANG NAME
 *   file UNIT NAME
 *   func UNIT LO HI FLAGS NAME
 *   line PC FILE LINE
 * Prints "size N peak P" and exits 0, or names the failed directive and
 * the error and exits 1.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pfelf.h>

struct state {
	pfelf_dbgw *w;
	pfelf_file *bin;
	pfelf_ehdr target;
	uint64_t max;
};

/* Split line into at most n fields at tabs, the last taking the rest. */
static int split(char *line, char **f, int n)
{
	int k = 0;
	while (k < n - 1) {
		f[k++] = line;
		char *t = strchr(line, '\t');
		if (!t)
			return k;
		*t = 0;
		line = t + 1;
	}
	f[k++] = line;
	return k;
}

static uint64_t num(const char *s)
{
	return strtoull(s, NULL, 0);
}

static int start(struct state *st)
{
	if (st->w)
		return 0;
	int ret = pfelf_dbgw_new(&st->target, st->max, &st->w);
	if (ret == 0 && st->bin)
		ret = pfelf_dbgw_copy_layout(st->w, st->bin);
	return ret;
}

/* Fields a directive takes after its word (its name last). */
static int fields(const char *word)
{
	static const struct {
		const char *word;
		int n;
	} t[] = {{"layout", 1}, {"target", 4}, {"max", 1}, {"unit", 2},
	         {"file", 2},   {"func", 5},   {"line", 3}};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(word, t[i].word))
			return t[i].n;
	return -1;
}

static int directive(struct state *st, char *line)
{
	char *f[6];
	char *tab = strchr(line, '\t');
	if (!tab)
		return -EBADMSG;
	*tab = 0;
	int want = fields(line);
	if (want < 0 || split(tab + 1, f, want) != want)
		return -EBADMSG;
	if (!strcmp(line, "layout")) {
		int ret = pfelf_open(f[0], 0, &st->bin);
		if (ret == 0)
			st->target = *pfelf_header(st->bin);
		return ret;
	}
	if (!strcmp(line, "target")) {
		st->target.elfclass = (uint8_t)num(f[0]);
		st->target.data = (uint8_t)num(f[1]);
		st->target.machine = (uint16_t)num(f[2]);
		st->target.type = (uint16_t)num(f[3]);
		return 0;
	}
	if (!strcmp(line, "max")) {
		st->max = num(f[0]);
		return 0;
	}
	int ret = start(st);
	if (ret < 0)
		return ret;
	uint32_t id;
	if (!strcmp(line, "unit"))
		return pfelf_dbgw_unit(st->w, f[1], strlen(f[1]), (uint16_t)num(f[0]), &id);
	if (!strcmp(line, "file"))
		return pfelf_dbgw_file(st->w, (uint32_t)num(f[0]), f[1], strlen(f[1]), &id);
	if (!strcmp(line, "func"))
		return pfelf_dbgw_func(st->w, (uint32_t)num(f[0]), num(f[1]), num(f[2]), f[4],
		                       strlen(f[4]), (unsigned)num(f[3]));
	return pfelf_dbgw_line(st->w, num(f[0]), (uint32_t)num(f[1]), (uint32_t)num(f[2]));
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: dbgw_write SPEC OUT\n");
		return 2;
	}
	FILE *in = fopen(argv[1], "r");
	if (!in) {
		perror(argv[1]);
		return 1;
	}
	struct state st = {.max = UINT64_MAX};
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	unsigned lineno = 0;
	int ret = 0;
	while (ret == 0 && (len = getline(&line, &cap, in)) >= 0) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[len - 1] = 0;
		if (line[0] && line[0] != '#')
			ret = directive(&st, line);
	}
	fclose(in);
	void *bytes = NULL;
	uint64_t size = 0;
	if (ret == 0 && (ret = start(&st)) == 0)
		ret = pfelf_dbgw_finish(st.w, &bytes, &size);
	if (ret < 0) {
		fprintf(stderr, "dbgw_write: line %u: %s\n", lineno, strerror(-ret));
		free(line);
		return 1;
	}
	FILE *out = fopen(argv[2], "wb");
	if (!out || fwrite(bytes, 1, size, out) != size || fclose(out) != 0) {
		perror(argv[2]);
		return 1;
	}
	printf("size %llu peak %llu\n", (unsigned long long)size,
	       (unsigned long long)pfelf_dbgw_peak(st.w));
	pfelf_dbgw_free(st.w);
	pfelf_close(st.bin);
	free(bytes);
	free(line);
	return 0;
}
