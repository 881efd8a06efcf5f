/*
 * The parts of `info` read from pfelf's tables rather than the headers
 * (info.c has those): soname, needed, rpath, runpath (the dynamic
 * section), debuglink, build id, Go version, compressed sections. Strings
 * of the file are fields (textline.h): cut at TEXT_FIELD_MAX bytes with a
 * marker, newlines shown as '?'. The "needed" lines are found from a sparse table of the
 * dynamic entry of every INFO_NEEDED_EVERY-th one, so line j costs a short
 * walk of the dynamic entries, not a walk from the first.
 */
#include "content/gotables.h"
#include "content/info.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

typedef int (*dyn_string_fn)(pfelf_file *f, const char **s);

static const dyn_string_fn dyn_strings[] = {pfelf_soname, pfelf_rpath, pfelf_runpath};
static const char *const dyn_keys[] = {"soname", "rpath", "runpath"};

static int dyn_plan(struct vcore *v, unsigned which, uint32_t *n)
{
	const char *s;
	*n = dyn_strings[which](v->f, &s) == 0;
	return 0;
}

static int dyn_line(struct vcore *v, unsigned which, struct linebuf *b)
{
	const char *s;
	if (dyn_strings[which](v->f, &s) < 0)
		return -EIO;
	lb_printf(b, "%s: ", dyn_keys[which]);
	lb_field(b, s);
	return 0;
}

#define DYN_PART(name, which)                                                                      \
	static int name##_plan(struct vcore *v, struct infoplan *p, uint32_t *n)                   \
	{                                                                                          \
		(void)p;                                                                           \
		return dyn_plan(v, which, n);                                                      \
	}                                                                                          \
	static int name##_line(struct vcore *v, const struct infoplan *p, uint32_t j,              \
	                       struct linebuf *b)                                                  \
	{                                                                                          \
		(void)p;                                                                           \
		(void)j;                                                                           \
		return dyn_line(v, which, b);                                                      \
	}

DYN_PART(soname, 0)
DYN_PART(rpath, 1)
DYN_PART(runpath, 2)

/* Dynamic entry i as a "needed" line: its name when it is one. */
static const char *needed_at(pfelf_file *f, uint32_t i)
{
	uint64_t tag, val;
	const char *s;
	if (pfelf_dynamic_entry(f, i, &tag, &val) < 0 || tag != DT_NEEDED ||
	    pfelf_dynamic_string(f, val, &s) < 0)
		return NULL;
	return s;
}

/* Note that "needed" line n is dynamic entry i (kept for every INFO_NEEDED_EVERY-th line). */
static int note_needed(struct infoplan *p, uint32_t n, uint32_t i)
{
	uint32_t k = n / INFO_NEEDED_EVERY;
	if (n % INFO_NEEDED_EVERY != 0)
		return 0;
	if ((k & (k - 1)) == 0) { /* k is 0, 1, 2, 4, ...: the table is full, double it */
		uint32_t *m = realloc(p->needed, (k ? 2 * (size_t)k : 1) * sizeof(*m));
		if (!m)
			return -ENOMEM;
		p->needed = m;
	}
	p->needed[k] = i;
	return 0;
}

static int needed_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	int count = pfelf_dynamic_count(v->f);
	*n = 0;
	for (uint32_t i = 0; count > 0 && i < (uint32_t)count; i++) {
		if (!needed_at(v->f, i))
			continue;
		if (note_needed(p, (*n)++, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int needed_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	uint32_t skip = j % INFO_NEEDED_EVERY;
	int count = pfelf_dynamic_count(v->f);
	for (uint32_t i = p->needed[j / INFO_NEEDED_EVERY]; count > 0 && i < (uint32_t)count; i++) {
		const char *s = needed_at(v->f, i);
		if (!s || skip-- > 0)
			continue;
		lb_printf(b, "needed: ");
		lb_field(b, s);
		return 0;
	}
	return -EIO;
}

static int debuglink_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	const char *name;
	uint32_t crc;
	(void)p;
	*n = pfelf_debuglink(v->f, &name, &crc) == 0 ? 2 : 0;
	return 0;
}

static int debuglink_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	const char *name;
	uint32_t crc;
	(void)p;
	if (pfelf_debuglink(v->f, &name, &crc) < 0)
		return -EIO;
	if (j == 0) {
		lb_printf(b, "debuglink crc: 0x%08" PRIx32, crc);
		return 0;
	}
	lb_printf(b, "debuglink: ");
	lb_field(b, name);
	return 0;
}

static int buildid_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	(void)p;
	*n = v->buildid != NULL;
	return 0;
}

static int buildid_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	(void)p;
	(void)j;
	/* hex of at most BUILD_ID_MAX bytes (entries.c): less than a line */
	lb_printf(b, "build id: %.*s", (int)(v->buildid_len - 1), v->buildid);
	return 0;
}

/* The build id note read by the index's own code (buildid_read.h), so that
 * what info calls malformed is what the index leaves out. */
static int bidnote_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	p->bid_ret = bid_read_handle(v->f, &p->bid);
	if (p->bid_ret == -ENOMEM)
		return -ENOMEM;
	*n = p->bid_ret == -EINVAL && p->bid.badsize;
	return 0;
}

static int bidnote_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	(void)v;
	(void)j;
	lb_printf(b, "build id note: malformed (%" PRIu64 " byte%s)", p->bid.badlen,
	          p->bid.badlen == 1 ? "" : "s");
	return 0;
}

/* "go version:", then the lines of Go's tables (gotables.h). */
static int go_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	if (pfelf_go_version(v->f, p->go, sizeof(p->go)) <= 0)
		p->go[0] = '\0';
	int ret = goview_info_plan(v, n);
	*n += p->go[0] != '\0';
	return ret;
}

static int go_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	if (p->go[0] != '\0' && j-- == 0) {
		lb_printf(b, "go version: ");
		lb_field(b, p->go);
	} else {
		goview_info_line(v, j, b);
	}
	return 0;
}

static int comp_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	(void)p;
	*n = v->ncomp;
	return 0;
}

static int comp_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	pfelf_chdr ch;
	char type[32] = "";
	(void)p;
	if (pfelf_section_chdr(v->f, v->comp[j], &ch) < 0)
		return -EIO;
	pfelf_compress_type_name(ch.type, type, sizeof(type));
	lb_printf(b, "compressed: ");
	lb_field(b, v->secname[v->comp[j]]);
	lb_printf(b, " %s %" PRIu64, type, ch.size);
	return 0;
}

const struct infopart info_meta_parts[INFO_META_PARTS] = {
        {soname_plan, soname_line},       {needed_plan, needed_line},
        {rpath_plan, rpath_line},         {runpath_plan, runpath_line},
        {debuglink_plan, debuglink_line}, {buildid_plan, buildid_line},
        {bidnote_plan, bidnote_line},     {go_plan, go_line},
        {comp_plan, comp_line},
};
