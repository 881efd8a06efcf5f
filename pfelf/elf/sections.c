/* The section table: loaded on first use, names resolved, looked up by
 * index or by name (through an index sorted on first use). */
#include "pfelf_i.h"

#include <stdlib.h>
#include <string.h>

#define MAX_NAME_TABLE ((size_t)64 << 20) /* larger name tables are refused */
/* Bytes read ahead of the section header table with it: linkers put the
 * name table right before it, so one read usually brings both. */
#define NAMES_AHEAD 2048
/* Section tables up to this size (with the bytes ahead) are read into a
 * buffer on the stack. */
#define RAW_ON_STACK 16384

PFELF_API uint64_t pfelf_cost_name_table(uint64_t size)
{
	return size == 0 || size > MAX_NAME_TABLE ? 0 : size; /* load_names' copy */
}

/* Copy the section name table (from the ahead bytes read just before
 * shoff when it lies there); on any problem names stay unresolved. */
static void load_names(pfelf_file *f, const uint8_t *ahead, uint64_t ahead_len)
{
	uint32_t i = f->eh.shstrndx;
	if (i == 0 || i >= f->eh.shnum)
		return;
	const pfelf_shdr *s = &f->sh[i];
	if (s->type == SHT_NOBITS || s->size == 0 || s->size > MAX_NAME_TABLE ||
	    !pfelf__range_ok(f->size, s->offset, s->size))
		return;
	char *tab = malloc((size_t)s->size);
	if (!tab)
		return;
	uint64_t from = f->eh.shoff - ahead_len;
	if (s->offset >= from && pfelf__range_ok(ahead_len, s->offset - from, s->size))
		memcpy(tab, ahead + (s->offset - from), (size_t)s->size);
	else if (pfelf__read_range(f, s->offset, tab, (size_t)s->size) < 0) {
		free(tab);
		return;
	}
	f->shstr = tab;
	/* A name is terminated when a NUL follows it in the table: the
	 * names that start after the last NUL are the bad ones. */
	const char *last = memrchr(tab, 0, (size_t)s->size);
	f->shstr_len = last ? (size_t)(last - tab) + 1 : 0;
}

static const char *name_at(const pfelf_file *f, uint32_t off)
{
	if (!f->shstr || off >= f->shstr_len)
		return NULL;
	return f->shstr + off;
}

static void set_status(pfelf_file *f, pfelf_shdr *s)
{
	const char *n = name_at(f, s->name_off);
	s->name = n ? n : "";
	if (!n)
		s->status |= PFELF_ST_BAD_NAME;
	if (s->type != SHT_NOBITS && !pfelf__range_ok(f->size, s->offset, s->size))
		s->status |= PFELF_ST_OUT_OF_FILE;
}

/* Decode n section headers, with one loop for each class and byte order
 * so that each is compiled for its own. */
static void decode_table(const pfelf_file *f, const uint8_t *raw, uint32_t n, pfelf_shdr *sh)
{
	size_t step = f->eh.shentsize;
	if (f->is64 && !f->msb)
		for (uint32_t i = 0; i < n; i++)
			pfelf__decode_shdr(raw + i * step, i, true, false, &sh[i]);
	else if (f->is64)
		for (uint32_t i = 0; i < n; i++)
			pfelf__decode_shdr(raw + i * step, i, true, true, &sh[i]);
	else if (!f->msb)
		for (uint32_t i = 0; i < n; i++)
			pfelf__decode_shdr(raw + i * step, i, false, false, &sh[i]);
	else
		for (uint32_t i = 0; i < n; i++)
			pfelf__decode_shdr(raw + i * step, i, false, true, &sh[i]);
}

static int load_sections(pfelf_file *f, void *ctx)
{
	(void)ctx;
	uint32_t n = f->eh.shnum;
	if (n == 0)
		return 0;
	size_t esz = f->is64 ? 64 : 40;
	if (f->eh.shentsize < esz || n > SIZE_MAX / f->eh.shentsize)
		return -EINVAL;
	if (!pfelf__range_ok(f->size, f->eh.shoff, (uint64_t)n * f->eh.shentsize))
		return -EINVAL;
	size_t tlen = (size_t)n * f->eh.shentsize;
	size_t ahead = f->eh.shoff < NAMES_AHEAD ? (size_t)f->eh.shoff : NAMES_AHEAD;
	if (tlen > SIZE_MAX - ahead)
		return -EINVAL;
	/* The usual table (a few hundred sections) goes through the stack:
	 * no allocation, no fresh pages to fault in. */
	uint8_t local[RAW_ON_STACK];
	uint8_t *raw = ahead + tlen <= sizeof(local) ? local : malloc(ahead + tlen);
	pfelf_shdr *sh = reallocarray(NULL, n, sizeof(*sh)); /* the decode sets every field */
	int ret =
	        raw && sh ? pfelf__read_range(f, f->eh.shoff - ahead, raw, ahead + tlen) : -ENOMEM;
	if (ret == 0) {
		decode_table(f, raw + ahead, n, sh);
		f->sh = sh;
		load_names(f, raw, ahead);
	} else {
		free(sh);
	}
	if (raw != local)
		free(raw);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < n; i++)
		set_status(f, &sh[i]);
	return 0;
}

PFELF_API int pfelf_section_count(pfelf_file *f)
{
	int ret = pfelf__load_once(f, &f->sh_state, load_sections);
	return ret < 0 ? ret : (int)f->eh.shnum;
}

PFELF_API int pfelf_section(pfelf_file *f, uint32_t index, const pfelf_shdr **out)
{
	int n = pfelf_section_count(f);
	if (n < 0)
		return n;
	if (index >= (uint32_t)n)
		return -ENOENT;
	*out = &f->sh[index];
	return 0;
}

PFELF_API int pfelf_section_name(pfelf_file *f, uint32_t index, const char **name)
{
	const pfelf_shdr *s;
	int ret = pfelf_section(f, index, &s);
	if (ret < 0)
		return ret;
	if (s->status & PFELF_ST_BAD_NAME)
		return -EINVAL;
	*name = s->name;
	return 0;
}

/* The name of section id - 1: the key of the by-name index. */
static const char *byname_key(const void *ctx, uint32_t id)
{
	const pfelf_file *f = ctx;
	return f->sh[id - 1].name;
}

/*
 * The by-name index: a nameset (common/nameset.h) of section indexes + 1,
 * at most half full. Sections are inserted in index
 * order and a name already present is not inserted again, so a lookup
 * finds the lowest index of a name. Bad names are left out. Built in one
 * pass, O(n): a file of 70,000 sections needs no sort.
 */
static int load_byname(pfelf_file *f, void *ctx)
{
	(void)ctx;
	uint32_t n = f->eh.shnum;
	struct nameset set;
	if (nameset_init(&set, n) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (!(f->sh[i].status & PFELF_ST_BAD_NAME))
			nameset_add(&set, i + 1, byname_key, f); /* a name already there stays */
	f->byname = set;
	return 0;
}

static int scan_by_name(pfelf_file *f, uint32_t n, const char *name, const pfelf_shdr **out)
{
	for (uint32_t i = 0; i < n; i++) {
		const pfelf_shdr *s = &f->sh[i];
		if (!(s->status & PFELF_ST_BAD_NAME) && strcmp(s->name, name) == 0) {
			*out = s;
			return 0;
		}
	}
	return -ENOENT;
}

PFELF_API int pfelf_section_by_name(pfelf_file *f, const char *name, const pfelf_shdr **out)
{
	int n = pfelf_section_count(f);
	if (n < 0)
		return n;
	if (!name)
		return -EINVAL;
	/* The first lookup scans (cheaper than indexing for one question);
	 * the second builds the index that every later one uses. */
	if (atomic_fetch_add_explicit(&f->byname_calls, 1, memory_order_relaxed) == 0)
		return scan_by_name(f, (uint32_t)n, name, out);
	int ret = pfelf__load_once(f, &f->byname_state, load_byname);
	if (ret < 0)
		return ret;
	uint32_t i = nameset_find(&f->byname, name, byname_key, f);
	if (i) {
		*out = &f->sh[i - 1];
		return 0;
	}
	return -ENOENT;
}
