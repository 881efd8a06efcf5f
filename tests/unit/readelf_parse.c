/* Parser of `readelf -SW -lW` output (binutils 2.40 layout). */
#include "readelf_parse.h"
#include "backends.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum re_state { RE_NONE, RE_SECTIONS, RE_SEGMENTS };

struct re_tok {
	size_t start, len;
};

/* Split line into blank-separated tokens; returns their number (at most max). */
static size_t re_tokens(const char *line, struct re_tok *tok, size_t max)
{
	size_t n = 0, i = 0;

	while (line[i] && n < max) {
		while (line[i] == ' ')
			i++;
		if (!line[i])
			break;
		tok[n].start = i;
		while (line[i] && line[i] != ' ')
			i++;
		tok[n].len = i - tok[n].start;
		n++;
	}
	return n;
}

static bool re_hex(const char *s, size_t len, uint64_t *v)
{
	char buf[40];
	char *end;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)buf[i]) && !(buf[i] >= 'a' && buf[i] <= 'f'))
			return false;
	errno = 0;
	*v = strtoull(buf, &end, 16);
	return !errno && *end == 0;
}

static bool re_dec(const char *s, size_t len, uint64_t *v)
{
	char buf[40];
	char *end;

	if (len == 0 || len >= sizeof(buf) || !isdigit((unsigned char)*s))
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	*v = strtoull(buf, &end, 10);
	return !errno && *end == 0;
}

static void re_copy(char *dst, size_t cap, const char *src, size_t len)
{
	if (len >= cap)
		len = cap - 1;
	memcpy(dst, src, len);
	dst[len] = 0;
}

/* Section type names readelf spells with blanks (beside "<...>: <unknown>"
 * and "<unknown: xx>"). */
static const char *const re_blank_types[] = {
        "SYMTAB SECTION INDICES",
        "V850 Small Common",
        "V850 Tiny Common",
        "V850 Zero Common",
        "RENESAS IOP",
        "RENESAS INFO",
        "UNIX - System V",
        "UNIX - HP-UX",
        "UNIX - NetBSD",
        "UNIX - GNU",
        "UNIX - Solaris",
        "UNIX - AIX",
        "UNIX - IRIX",
        "UNIX - FreeBSD",
        "UNIX - TRU64",
        "Novell - Modesto",
        "UNIX - OpenBSD",
        "VMS - OpenVMS",
        "HP - Non-Stop Kernel",
        "Nuxi CloudABI",
        "Stratus Technologies OpenVOS",
};

/* "  [Nr] Name Type Address Off Size ES Flg Lk Inf Al" */
static bool re_section_line(const char *line, struct re_section *s)
{
	struct re_tok t[64];
	size_t n = re_tokens(line, t, 64), k, name_start, type_start, end;
	uint64_t v[5];
	const char *close = strchr(line, ']');

	memset(s, 0, sizeof(*s));
	if (!close || n < 9)
		return false;
	k = n;
	if (!re_dec(line + t[k - 1].start, t[k - 1].len, &s->al) ||
	    !re_dec(line + t[k - 2].start, t[k - 2].len, &v[0]) ||
	    !re_dec(line + t[k - 3].start, t[k - 3].len, &v[1]))
		return false;
	s->inf = (uint32_t)v[0];
	s->lk = (uint32_t)v[1];
	k -= 3;
	if (!re_hex(line + t[k - 1].start, t[k - 1].len, &v[0])) {
		re_copy(s->flags, sizeof(s->flags), line + t[k - 1].start, t[k - 1].len);
		k--;
	}
	for (int i = 0; i < 4; i++) {
		if (k == 0 || !re_hex(line + t[k - 1].start, t[k - 1].len, &v[i]))
			return false;
		k--;
	}
	s->es = v[0];
	s->size = v[1];
	s->off = v[2];
	s->addr = v[3];
	if (k < 1)
		return false;
	end = t[k].start; /* start of the address column */
	/*
	 * The type is the last word before it, but for readelf's spellings with
	 * blanks: "SYMTAB SECTION INDICES", "<hex>: <unknown>", V850's and
	 * Renesas' names and IA-64's OS/ABI names ("UNIX - System V",
	 * "<unknown: ff>").
	 */
	type_start = t[k - 1].start;
	if (k >= 2 && t[k - 1].len == 9 && !strncmp(line + t[k - 1].start, "<unknown>", 9))
		type_start = t[k - 2].start;
	if (k >= 2 && t[k - 2].len == 9 && !strncmp(line + t[k - 2].start, "<unknown:", 9))
		type_start = t[k - 2].start;
	for (size_t i = 0; i < sizeof(re_blank_types) / sizeof(re_blank_types[0]); i++) {
		size_t len = strlen(re_blank_types[i]), stop = t[k - 1].start + t[k - 1].len;
		if (stop >= len + 1 && line[stop - len - 1] == ' ' &&
		    !strncmp(line + stop - len, re_blank_types[i], len)) {
			type_start = stop - len;
			break;
		}
	}
	re_copy(s->type, sizeof(s->type), line + type_start, end - type_start);
	for (size_t i = strlen(s->type); i > 0 && s->type[i - 1] == ' '; i--)
		s->type[i - 1] = 0;
	s->index = (uint32_t)strtoul(strchr(line, '[') + 1, NULL, 10);
	name_start = (size_t)(close - line) + 2;
	if (type_start < name_start + 1)
		return false;
	end = type_start - 1; /* the blank after the padded name */
	while (end > name_start && line[end - 1] == ' ')
		end--;
	s->name = strndup(line + name_start, end - name_start);
	return s->name != NULL;
}

/* "  Type Offset VirtAddr PhysAddr FileSiz MemSiz Flg Align" */
static bool re_segment_line(const char *line, struct re_segment *s)
{
	const char *p = line + 17;
	uint64_t *dst[5] = {&s->off, &s->vaddr, &s->paddr, &s->filesz, &s->memsz};
	char *end;
	size_t nf = 0;

	memset(s, 0, sizeof(*s));
	if (strlen(line) < 20 || line[16] != ' ')
		return false;
	re_copy(s->type, sizeof(s->type), line + 2, 14);
	for (size_t i = strlen(s->type); i > 0 && s->type[i - 1] == ' '; i--)
		s->type[i - 1] = 0;
	for (int i = 0; i < 5; i++) {
		while (*p == ' ')
			p++;
		if (strncmp(p, "0x", 2) != 0)
			return false;
		errno = 0;
		*dst[i] = strtoull(p, &end, 16);
		if (errno || end == p)
			return false;
		p = end;
	}
	if (p[0] != ' ' || strlen(p) < 6 || p[4] != ' ')
		return false;
	for (int i = 1; i <= 3; i++) {
		if (p[i] != ' ' && !strchr("RWE", p[i]))
			return false;
		if (p[i] != ' ')
			s->flags[nf++] = p[i];
	}
	p += 5;
	errno = 0;
	s->align = strtoull(p, &end, 16);
	return !errno && end != p && (*end == 0 || *end == '\n');
}

static void re_add_section(struct re_file *rf, const struct re_section *s)
{
	if (rf->nsec == rf->capsec) {
		rf->capsec = rf->capsec ? rf->capsec * 2 : 64;
		rf->sec = realloc(rf->sec, rf->capsec * sizeof(*rf->sec));
		assert_non_null(rf->sec);
	}
	rf->sec[rf->nsec++] = *s;
}

static void re_add_segment(struct re_file *rf, const struct re_segment *s)
{
	if (rf->nseg == rf->capseg) {
		rf->capseg = rf->capseg ? rf->capseg * 2 : 16;
		rf->seg = realloc(rf->seg, rf->capseg * sizeof(*rf->seg));
		assert_non_null(rf->seg);
	}
	rf->seg[rf->nseg++] = *s;
}

void re_file_free(struct re_file *rf)
{
	for (size_t i = 0; i < rf->nsec; i++)
		free(rf->sec[i].name);
	free(rf->sec);
	free(rf->seg);
	free(rf->path);
	memset(rf, 0, sizeof(*rf));
}

static enum re_state re_line(struct re_file *rf, enum re_state st, const char *line)
{
	struct re_section sec;
	struct re_segment seg;

	if (!strcmp(line, "There are no sections in this file."))
		rf->no_sections = true;
	else if (!strcmp(line, "There are no program headers in this file."))
		rf->no_segments = true;
	else if (!strcmp(line, "Section Headers:"))
		return rf->saw_sections = true, RE_SECTIONS;
	else if (!strcmp(line, "Program Headers:"))
		return rf->saw_segments = true, RE_SEGMENTS;
	if (st == RE_SECTIONS) {
		if (strncmp(line, "  [", 3) != 0)
			return RE_NONE;
		if (!strncmp(line, "  [Nr]", 6))
			return st;
		if (re_section_line(line, &sec))
			re_add_section(rf, &sec);
		else
			rf->bad_lines++, printf("# readelf line not parsed: %s\n", line);
	} else if (st == RE_SEGMENTS) {
		if (!*line || strncmp(line, "  ", 2) != 0)
			return RE_NONE;
		if (!strncmp(line, "  Type ", 7) || !strncmp(line, "      [", 7))
			return st;
		if (re_segment_line(line, &seg))
			re_add_segment(rf, &seg);
		else
			rf->bad_lines++, printf("# readelf line not parsed: %s\n", line);
	}
	return st;
}

/* One readelf run over paths[0..n); returns the number of files reported. */
static size_t re_batch(const char *const *paths, size_t n, re_file_cb cb, void *arg)
{
	char *cmd = NULL, *line = NULL, *full;
	size_t cmdlen = 0, cap = 0, next = 0, reported = 0;
	struct re_file rf = {0};
	enum re_state st = RE_NONE;
	FILE *mem = open_memstream(&cmd, &cmdlen);
	FILE *fp;
	ssize_t len;

	assert_non_null(mem);
	fputs("LC_ALL=C readelf -SW -lW", mem);
	for (size_t i = 0; i < n; i++) {
		char *q = tb_shell_quote(paths[i]);

		fprintf(mem, " %s", q);
		free(q);
	}
	fputs(" 2>/dev/null", mem);
	fclose(mem);
	fp = popen(cmd, "r");
	if (!fp)
		fail_msg("popen readelf: %s", strerror(errno));
	if (n == 1) {
		rf.path = strdup(paths[0]);
		next = 1;
	}
	while ((len = getline(&line, &cap, fp)) >= 0) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = 0;
		if (n > 1 && !strncmp(line, "File: ", 6)) {
			if (rf.path) {
				cb(&rf, arg);
				reported++;
				re_file_free(&rf);
			}
			/* readelf names the files in order; it skips none it can read */
			while (next < n && strcmp(paths[next], line + 6) != 0)
				printf("# readelf printed nothing for %s\n", paths[next++]);
			full = strdup(line + 6);
			assert_non_null(full);
			rf.path = full;
			next++;
			st = RE_NONE;
			continue;
		}
		if (rf.path)
			st = re_line(&rf, st, line);
	}
	if (rf.path) {
		cb(&rf, arg);
		reported++;
		re_file_free(&rf);
	}
	free(line);
	pclose(fp);
	free(cmd);
	return reported;
}

size_t re_walk(const char *const *paths, size_t n, re_file_cb cb, void *arg)
{
	const size_t batch = 128;
	size_t reported = 0;

	for (size_t i = 0; i < n; i += batch)
		reported += re_batch(paths + i, n - i < batch ? n - i : batch, cb, arg);
	return reported;
}

static void re_keep(const struct re_file *rf, void *arg)
{
	struct re_file *out = arg;

	*out = *rf;
	/* take ownership: the walker frees its copy, so duplicate the arrays */
	out->path = strdup(rf->path);
	out->sec = malloc((rf->nsec ? rf->nsec : 1) * sizeof(*out->sec));
	out->seg = malloc((rf->nseg ? rf->nseg : 1) * sizeof(*out->seg));
	assert_non_null(out->path);
	assert_non_null(out->sec);
	assert_non_null(out->seg);
	out->capsec = rf->nsec;
	out->capseg = rf->nseg;
	if (rf->nseg)
		memcpy(out->seg, rf->seg, rf->nseg * sizeof(*out->seg));
	for (size_t i = 0; i < rf->nsec; i++) {
		out->sec[i] = rf->sec[i];
		out->sec[i].name = strdup(rf->sec[i].name);
		assert_non_null(out->sec[i].name);
	}
}

void re_load(const char *path, struct re_file *out)
{
	memset(out, 0, sizeof(*out));
	if (re_batch(&path, 1, re_keep, out) != 1)
		fail_msg("readelf printed nothing for %s", path);
	if (out->bad_lines)
		fail_msg("%u readelf lines of %s did not parse", out->bad_lines, path);
	if (!out->saw_sections && !out->no_sections)
		fail_msg("readelf printed no section table for %s", path);
	if (!out->saw_segments && !out->no_segments)
		fail_msg("readelf printed no program headers for %s", path);
}

long re_find_section(const struct re_file *rf, const char *name)
{
	for (size_t i = 0; i < rf->nsec; i++)
		if (!strcmp(rf->sec[i].name, name))
			return (long)rf->sec[i].index;
	return -1;
}

static const struct re_file *re_sort_file;

static int re_cmp_name(const void *a, const void *b)
{
	const struct re_section *x = &re_sort_file->sec[*(const size_t *)a];
	const struct re_section *y = &re_sort_file->sec[*(const size_t *)b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

uint32_t *re_lowest_by_name(const struct re_file *rf)
{
	size_t n = rf->nsec, *order = malloc((n ? n : 1) * sizeof(*order));
	uint32_t *low = malloc((n ? n : 1) * sizeof(*low));

	assert_non_null(order);
	assert_non_null(low);
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	re_sort_file = rf; /* the tests that sort are single-threaded */
	qsort(order, n, sizeof(*order), re_cmp_name);
	for (size_t k = 0, first = 0; k < n; k++) {
		if (k > 0 && strcmp(rf->sec[order[k]].name, rf->sec[order[first]].name) != 0)
			first = k;
		low[order[k]] = rf->sec[order[first]].index;
	}
	free(order);
	return low;
}
