/* The dynamic section as a whole, parsed once: its entries, its string
 * table, the names it gives (needed, soname, rpath, runpath), DT_FLAGS_1
 * and what it says of the file (PIE, readelf's type line), and the
 * PT_INTERP interpreter; and the bound of what these tables cost, read
 * without loading them (pfelf_cost_dynamic). */
#include "tables/tables_i.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DYN_ENTS   65536u
#define MAX_INTERP_LEN 65536u

/* Where the dynamic entries are: PT_DYNAMIC, else a SHT_DYNAMIC section. */
static int dyn_range(pfelf_file *f, uint64_t *off, uint64_t *len, const pfelf_shdr **sec)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	int sn = pfelf_section_count(f);
	*sec = sn > 0 ? pfelf__section_of_type(f, SHT_DYNAMIC, UINT32_MAX) : NULL;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		if (f->ph[i].type != PT_DYNAMIC)
			continue;
		if (f->ph[i].status & PFELF_ST_OUT_OF_FILE)
			return -ERANGE;
		*off = f->ph[i].offset;
		*len = f->ph[i].filesz;
		return 0;
	}
	if (*sec && !((*sec)->status & PFELF_ST_OUT_OF_FILE)) {
		*off = (*sec)->offset;
		*len = (*sec)->size;
		return 0;
	}
	*len = 0;
	return 0;
}

static int decode_entries(pfelf_file *f, struct pfelf__dyn *d, uint64_t off, uint64_t len)
{
	size_t esz = f->is64 ? 16 : 8;
	uint64_t max = (uint64_t)MAX_DYN_ENTS * esz;
	if (len > max)
		len = max;
	len -= len % esz;
	if (len == 0)
		return 0;
	uint8_t *raw;
	int ret = pfelf__copy_table(f, off, len, &raw);
	if (ret < 0)
		return ret;
	size_t n = (size_t)len / esz;
	d->ents = calloc(n, sizeof(*d->ents));
	if (!d->ents) {
		free(raw);
		return -ENOMEM;
	}
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, raw, (size_t)len, f->msb);
	for (size_t i = 0; i < n; i++) {
		uint64_t tag = pfelf__getw(&c, f->is64);
		uint64_t val = pfelf__getw(&c, f->is64);
		if (tag == DT_NULL)
			break;
		d->ents[d->count++] = (struct pfelf__dynent){tag, val};
		d->needed_count += tag == DT_NEEDED;
	}
	free(raw);
	return 0;
}

/* The dynamic string table: DT_STRTAB/DT_STRSZ, else the section's link. */
static int load_strings(pfelf_file *f, struct pfelf__dyn *d, const pfelf_shdr *sec)
{
	uint64_t addr, size, off;
	if (pfelf__dyn_find(d, DT_STRTAB, &addr) && pfelf__dyn_find(d, DT_STRSZ, &size) &&
	    pfelf_vaddr_to_offset(f, addr, size, &off) == 0) {
		int ret = pfelf__copy_table(f, off, size, (uint8_t **)&d->str);
		if (ret != -EINVAL) {
			d->str_len = ret == 0 ? (size_t)size : 0;
			return ret;
		}
	}
	if (!sec || sec->link == 0 || sec->link >= f->eh.shnum)
		return 0;
	const pfelf_shdr *s = &f->sh[sec->link];
	if (s->type != SHT_STRTAB || (s->status & PFELF_ST_OUT_OF_FILE))
		return 0;
	int ret = pfelf__copy_table(f, s->offset, s->size, (uint8_t **)&d->str);
	if (ret == 0)
		d->str_len = (size_t)s->size;
	return ret == -EINVAL ? 0 : ret;
}

static void load_interp(pfelf_file *f, struct pfelf__dyn *d)
{
	for (uint32_t i = 0; i < f->eh.phnum; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_INTERP)
			continue;
		if ((p->status & PFELF_ST_OUT_OF_FILE) || p->filesz == 0 ||
		    p->filesz > MAX_INTERP_LEN)
			return;
		uint8_t *s;
		if (pfelf__copy_table(f, p->offset, p->filesz, &s) < 0)
			return;
		if (!memchr(s, 0, (size_t)p->filesz)) {
			free(s);
			return;
		}
		d->interp = (char *)s;
		return;
	}
}

static int load_dyn(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf__dyn *d = &f->tables->dyn;
	uint64_t off = 0, len = 0;
	const pfelf_shdr *sec = NULL;
	int ret = dyn_range(f, &off, &len, &sec);
	if (ret == -ERANGE) {
		d->bad = true;
		ret = 0;
		len = 0;
	}
	if (ret == 0)
		ret = decode_entries(f, d, off, len);
	if (ret == 0)
		ret = load_strings(f, d, sec);
	if (ret == 0)
		load_interp(f, d);
	if (ret < 0) {
		free(d->ents);
		free(d->str);
		memset(d, 0, sizeof(*d));
	}
	return ret;
}

/* The loaded dynamic info, bad PT_DYNAMIC or not. */
static int dyn_any(pfelf_file *f, const struct pfelf__dyn **out)
{
	int ret = pfelf__tables(f);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->dyn_state, load_dyn, NULL);
	if (ret == 0)
		*out = &f->tables->dyn;
	return ret;
}

int pfelf__dyn_get(pfelf_file *f, const struct pfelf__dyn **out)
{
	int ret = dyn_any(f, out);
	return ret == 0 && (*out)->bad ? -EINVAL : ret;
}

bool pfelf__dyn_find(const struct pfelf__dyn *d, uint64_t tag, uint64_t *val)
{
	for (uint32_t i = 0; i < d->count; i++) {
		if (d->ents[i].tag == tag) {
			*val = d->ents[i].val;
			return true;
		}
	}
	return false;
}

static const char *dyn_str(const struct pfelf__dyn *d, uint64_t off)
{
	if (!d->str || off >= d->str_len || !memchr(d->str + off, 0, d->str_len - off))
		return NULL;
	return d->str + off;
}

PFELF_API int pfelf_dynamic_count(pfelf_file *f)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	return ret < 0 ? ret : (int)d->count;
}

PFELF_API int pfelf_dynamic_entry(pfelf_file *f, uint32_t index, uint64_t *tag, uint64_t *val)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret;
	if (index >= d->count)
		return -ENOENT;
	*tag = d->ents[index].tag;
	*val = d->ents[index].val;
	return 0;
}

PFELF_API int pfelf_dynamic_string(pfelf_file *f, uint64_t off, const char **s)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret;
	if (!d->str)
		return -ENOENT;
	const char *p = dyn_str(d, off);
	if (!p)
		return -EINVAL;
	*s = p;
	return 0;
}

PFELF_API int pfelf_needed_count(pfelf_file *f)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	return ret < 0 ? ret : (int)d->needed_count;
}

PFELF_API int pfelf_needed(pfelf_file *f, uint32_t index, const char **name)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < d->count; i++) {
		if (d->ents[i].tag != DT_NEEDED)
			continue;
		if (index-- == 0)
			return pfelf_dynamic_string(f, d->ents[i].val, name);
	}
	return -ENOENT;
}

/* The string of the first entry tagged tag. */
static int tag_string(pfelf_file *f, uint64_t tag, const char **s)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret;
	uint64_t val;
	if (!pfelf__dyn_find(d, tag, &val))
		return -ENOENT;
	return pfelf_dynamic_string(f, val, s);
}

PFELF_API int pfelf_soname(pfelf_file *f, const char **name)
{
	return tag_string(f, DT_SONAME, name);
}

PFELF_API int pfelf_rpath(pfelf_file *f, const char **path)
{
	return tag_string(f, DT_RPATH, path);
}

PFELF_API int pfelf_runpath(pfelf_file *f, const char **path)
{
	return tag_string(f, DT_RUNPATH, path);
}

PFELF_API int pfelf_dynamic_flags_1(pfelf_file *f, uint64_t *flags)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret;
	return pfelf__dyn_find(d, DT_FLAGS_1, flags) ? 0 : -ENOENT;
}

PFELF_API int pfelf_interpreter(pfelf_file *f, const char **path)
{
	const struct pfelf__dyn *d = NULL;
	int ret = dyn_any(f, &d);
	if (ret < 0)
		return ret;
	if (d->interp) {
		*path = d->interp;
		return 0;
	}
	for (uint32_t i = 0; i < f->eh.phnum; i++)
		if (f->ph[i].type == PT_INTERP)
			return -EINVAL;
	return -ENOENT;
}

PFELF_API int pfelf_is_pie(pfelf_file *f)
{
	if (f->eh.type != ET_DYN)
		return 0;
	int ret = pfelf_segment_count(f);
	if (ret < 0)
		return ret;
	uint64_t flags;
	ret = pfelf_dynamic_flags_1(f, &flags);
	if (ret == -ENOENT || ret == -EINVAL) /* no DT_FLAGS_1, or PT_DYNAMIC out of the file */
		return 0;
	return ret < 0 ? ret : (flags & DF_1_PIE) != 0;
}

PFELF_API int pfelf_file_type_name(pfelf_file *f, char *buf, size_t buflen)
{
	if (pfelf_is_pie(f) == 1) {
		int n = snprintf(buf, buflen, "DYN (Position-Independent Executable file)");
		return (size_t)n >= buflen ? -ENOSPC : n;
	}
	return pfelf_type_name(f->eh.type, buf, buflen);
}

/* ------------------------------------------------------------ the cost */

/* A dynamic symbol table found through DT_SYMTAB (no .dynsym section):
 * its entries and their index, hash and version tables lie in PT_LOADs;
 * 5 times the largest bounds them. */
#define LOAD_FACTOR 5

/* What the cost reads of the dynamic entries. */
struct dyncost {
	uint64_t off, len; /* the entries' range (len 0: none) */
	uint64_t load;     /* the largest PT_LOAD's bytes in the file */
	uint64_t count;    /* entries before DT_NULL, at most MAX_DYN_ENTS */
	uint64_t strsz;    /* DT_STRSZ, when there is a DT_STRTAB; else 0 */
	bool symtab;       /* DT_SYMTAB */
	bool strtab;
};

/* The range of the entries (a PT_DYNAMIC in the file, else a SHT_DYNAMIC
 * section in the file) and the largest PT_LOAD. */
static void cost_range(pfelf_file *f, struct dyncost *t)
{
	int np = pfelf_segment_count(f), ns = pfelf_section_count(f);
	for (int i = 0; i < np; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(f, (uint32_t)i, &ph) < 0 || (ph->status & PFELF_ST_OUT_OF_FILE))
			continue;
		if (ph->type == PT_DYNAMIC && !t->len) {
			t->off = ph->offset;
			t->len = ph->filesz;
		} else if (ph->type == PT_LOAD && ph->filesz > t->load) {
			t->load = ph->filesz < f->size ? ph->filesz : f->size;
		}
	}
	for (int i = 1; !t->len && i < ns; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(f, (uint32_t)i, &sh) == 0 && sh->type == SHT_DYNAMIC &&
		    !(sh->status & PFELF_ST_OUT_OF_FILE)) {
			t->off = sh->offset;
			t->len = sh->size;
		}
	}
}

/* Note one entry; false at DT_NULL. */
static bool cost_note(struct dyncost *t, uint64_t tag, uint64_t val)
{
	if (tag == DT_NULL)
		return false;
	t->count++;
	t->symtab |= tag == DT_SYMTAB;
	t->strtab |= tag == DT_STRTAB;
	if (tag == DT_STRSZ)
		t->strsz = val;
	return true;
}

/* Read the entries 4 KiB at a time, as many as decode_entries takes. */
static void cost_scan(pfelf_file *f, struct dyncost *t)
{
	size_t esz = f->is64 ? 16 : 8;
	uint8_t buf[4096];
	uint64_t len = t->len < MAX_DYN_ENTS * esz ? t->len : MAX_DYN_ENTS * esz;
	for (uint64_t at = 0; at + esz <= len;) {
		size_t n = len - at < sizeof(buf) ? (size_t)(len - at) : sizeof(buf);
		n -= n % esz;
		if (pfelf__read_range(f, t->off + at, buf, n) < 0)
			return;
		struct pfelf_cursor c;
		pfelf__cursor_init(&c, buf, n, f->msb);
		for (size_t i = 0; i < n; i += esz) {
			uint64_t tag = pfelf__getw(&c, f->is64);
			if (!cost_note(t, tag, pfelf__getw(&c, f->is64)))
				return;
		}
		at += n;
	}
	if (!t->strtab)
		t->strsz = 0;
}

/* A .dynsym section in the file: the dynamic symbols come from it. */
static bool has_dynsym(pfelf_file *f)
{
	int ns = pfelf_section_count(f);
	for (int i = 1; i < ns; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(f, (uint32_t)i, &sh) == 0 && sh->type == SHT_DYNSYM &&
		    !(sh->status & PFELF_ST_OUT_OF_FILE))
			return true;
	}
	return false;
}

PFELF_API int pfelf_cost_dynamic(pfelf_file *f, pfelf_dynamic_cost *out)
{
	if (!f || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	struct dyncost t = {0};
	cost_range(f, &t);
	if (!t.len)
		return 0;
	cost_scan(f, &t);
	uint64_t str = t.strsz < t.load ? t.strsz : t.load;
	/* decode_entries allocates a slot for every entry of the range, the
	 * DT_NULL padding after the last included */
	uint64_t esz = f->is64 ? 16 : 8;
	uint64_t slots = (t.len < MAX_DYN_ENTS * esz ? t.len : MAX_DYN_ENTS * esz) / esz;
	out->entries = (slots > t.count ? slots : t.count + 1) * sizeof(struct pfelf__dynent);
	out->strings = str + 1;
	if (!has_dynsym(f) && t.symtab) {
		out->symbols = t.load * LOAD_FACTOR;
		out->symbol_strings = str + 1;
	}
	return 0;
}
