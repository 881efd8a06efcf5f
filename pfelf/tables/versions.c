/* Dynamic symbol versions: .gnu.version (one word per .dynsym entry),
 * .gnu.version_d (definitions) and .gnu.version_r (requirements), found by
 * section type or through DT_VERSYM/DT_VERDEF/DT_VERNEED. A symbol's
 * version is resolved as binutils' readelf does it, so that names read
 * "name@@VER", "name@VER" and "name@VER (N)" exactly as readelf -s prints
 * them. Malformed version tables are treated as absent (never fatal). */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

#define VERDEF_SIZE  20
#define VERDAUX_SIZE 8
#define VERNEED_SIZE 16
#define VERNAUX_SIZE 16
#define MAX_REGION   ((uint64_t)1 << 24) /* bytes of a version table looked at */

/* A byte range of the file holding a version table. */
struct region {
	uint8_t *p;
	size_t len;
};

/* The file bytes from vaddr to the end of its PT_LOAD's file part. */
static int span_at(pfelf_file *f, uint64_t vaddr, uint64_t *off, uint64_t *len)
{
	for (uint32_t i = 0; i < f->eh.phnum; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_LOAD || (p->status & PFELF_ST_OUT_OF_FILE) || vaddr < p->vaddr ||
		    vaddr - p->vaddr >= p->filesz)
			continue;
		*off = p->offset + (vaddr - p->vaddr);
		*len = p->filesz - (vaddr - p->vaddr);
		return 0;
	}
	return -EFAULT;
}

/* Copy the table of section type (linked from nothing in particular), or
 * the one at DT tag; r->p stays NULL when there is none or it is bad. */
static int load_region(pfelf_file *f, const struct pfelf__symtab *t, uint32_t type, uint64_t tag,
                       struct region *r)
{
	uint64_t off, len, addr;
	const pfelf_shdr *s = t->section ? pfelf__section_of_type(f, type, UINT32_MAX) : NULL;
	if (s) {
		if (s->status & PFELF_ST_OUT_OF_FILE)
			return 0;
		off = s->offset;
		len = s->size;
	} else {
		const struct pfelf__dyn *d;
		if (t->section || pfelf__dyn_get(f, &d) < 0 || !pfelf__dyn_find(d, tag, &addr) ||
		    span_at(f, addr, &off, &len) < 0)
			return 0;
	}
	if (len > MAX_REGION)
		len = MAX_REGION;
	int ret = pfelf__copy_table(f, off, len, &r->p);
	if (ret == 0)
		r->len = (size_t)len;
	return ret == -EINVAL ? 0 : ret;
}

/* Read size bytes at off of r into a cursor; false when not all there. */
static bool at(const struct region *r, uint64_t off, size_t size, bool msb, struct pfelf_cursor *c)
{
	if (!pfelf__range_ok(r->len, off, size))
		return false;
	pfelf__cursor_init(c, r->p + off, size, msb);
	return true;
}

static int parse_defs(pfelf_file *f, struct pfelf__versions *v, const struct region *r)
{
	size_t max = r->len / VERDEF_SIZE + 1;
	v->defs = calloc(max, sizeof(*v->defs));
	if (!v->defs)
		return -ENOMEM;
	v->has_defs = true;
	uint64_t off = 0;
	struct pfelf_cursor c;
	while (v->ndefs < max && at(r, off, VERDEF_SIZE, f->msb, &c)) {
		struct pfelf__verdef *d = &v->defs[v->ndefs++];
		pfelf__get16(&c); /* vd_version */
		d->flags = pfelf__get16(&c);
		d->ndx = pfelf__get16(&c);
		pfelf__get16(&c); /* vd_cnt */
		pfelf__get32(&c); /* vd_hash */
		uint32_t aux = pfelf__get32(&c);
		uint32_t next = pfelf__get32(&c);
		struct pfelf_cursor a;
		d->name =
		        at(r, off + aux, VERDAUX_SIZE, f->msb, &a) ? pfelf__get32(&a) : UINT32_MAX;
		if (next == 0)
			break;
		off += next;
	}
	return 0;
}

/* Every vernaux of every verneed, in readelf's walk order. */
static int parse_needs(pfelf_file *f, struct pfelf__versions *v, const struct region *r)
{
	size_t max = r->len / VERNAUX_SIZE + 1;
	v->needs = calloc(max, sizeof(*v->needs));
	if (!v->needs)
		return -ENOMEM;
	v->has_needs = true;
	uint64_t off = 0;
	struct pfelf_cursor c;
	while (at(r, off, VERNEED_SIZE, f->msb, &c)) {
		pfelf__skip(&c, 8); /* vn_version, vn_cnt, vn_file */
		uint32_t aux = pfelf__get32(&c);
		uint32_t next = pfelf__get32(&c);
		uint64_t aoff = off + aux;
		struct pfelf_cursor a;
		while (v->nneeds < max && at(r, aoff, VERNAUX_SIZE, f->msb, &a)) {
			struct pfelf__vernaux *n = &v->needs[v->nneeds++];
			pfelf__skip(&a, 6); /* vna_hash, vna_flags */
			n->other = pfelf__get16(&a);
			n->name = pfelf__get32(&a);
			uint32_t anext = pfelf__get32(&a);
			if (anext == 0)
				break;
			aoff += anext;
		}
		if (next == 0 || v->nneeds >= max)
			break;
		off += next;
	}
	return 0;
}

static int load_versym(pfelf_file *f, struct pfelf__versions *v, const struct pfelf__symtab *t)
{
	struct region r = {0};
	int ret = load_region(f, t, SHT_GNU_versym, DT_VERSYM, &r);
	if (ret < 0 || !r.p)
		return ret;
	v->versym = r.p;
	v->msb = f->msb;
	v->versym_count = (uint32_t)(r.len / 2 < t->count ? r.len / 2 : t->count);
	return 0;
}

static int load_versions(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf__versions *v = &f->tables->ver;
	struct pfelf__symtab *t = NULL;
	int ret = pfelf__symtab_get(f, PFELF_DYNSYM, &t);
	if (ret < 0)
		return ret;
	struct region d = {0}, n = {0};
	ret = load_versym(f, v, t);
	if (ret == 0 && v->versym)
		ret = load_region(f, t, SHT_GNU_verdef, DT_VERDEF, &d);
	if (ret == 0 && v->versym)
		ret = load_region(f, t, SHT_GNU_verneed, DT_VERNEED, &n);
	if (ret == 0 && d.p)
		ret = parse_defs(f, v, &d);
	if (ret == 0 && n.p)
		ret = parse_needs(f, v, &n);
	free(d.p);
	free(n.p);
	if (ret < 0) {
		free(v->versym);
		free(v->defs);
		free(v->needs);
		memset(v, 0, sizeof(*v));
	}
	return ret;
}

int pfelf__versions_get(pfelf_file *f, const struct pfelf__versions **out)
{
	int ret = pfelf__tables(f);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->ver_state, load_versions, NULL);
	if (ret == 0)
		*out = &f->tables->ver;
	return ret;
}

static void set_version(const struct pfelf__symtab *t, pfelf_sym *s, uint8_t kind, uint32_t name)
{
	s->version = pfelf__sym_str(t, name);
	s->ver_kind = s->version ? kind : PFELF_VER_BAD;
}

/* readelf's search of the definitions; true when it settled the version. */
static bool from_defs(const struct pfelf__versions *v, const struct pfelf__symtab *t, pfelf_sym *s,
                      uint16_t *max_ndx)
{
	uint16_t want = s->versym & VERSYM_INDEX;
	for (uint32_t i = 0; i < v->ndefs; i++) {
		const struct pfelf__verdef *d = &v->defs[i];
		if ((d->ndx & VERSYM_INDEX) > *max_ndx)
			*max_ndx = d->ndx & VERSYM_INDEX;
		if (d->ndx != want)
			continue;
		if (d->ndx == 1 && d->flags == VER_FLG_BASE)
			return true; /* the file's own base version: no suffix */
		if (d->name == UINT32_MAX || d->name == s->name_off)
			return false;
		set_version(t, s,
		            (s->versym & VERSYM_HIDDEN) ? PFELF_VER_HIDDEN : PFELF_VER_DEFAULT,
		            d->name);
		return true;
	}
	return false;
}

void pfelf__sym_version(const struct pfelf__versions *v, const struct pfelf__symtab *t,
                        pfelf_sym *s)
{
	if (!v->versym || s->index >= v->versym_count)
		return;
	s->versym = pfelf__u16(v->versym + (size_t)s->index * 2, v->msb);
	if (s->versym == 0)
		return;
	uint16_t max_ndx = 0;
	if (s->shndx != SHN_UNDEF && s->versym != 0x8001 && v->has_defs &&
	    from_defs(v, t, s, &max_ndx))
		return;
	if (!v->has_needs)
		return;
	for (uint32_t i = 0; i < v->nneeds; i++) {
		if (v->needs[i].other == s->versym) {
			set_version(t, s, PFELF_VER_NEEDED, v->needs[i].name);
			return;
		}
	}
	uint16_t ndx = s->versym & VERSYM_INDEX;
	if ((max_ndx || ndx != 1) && ndx > max_ndx)
		s->ver_kind = PFELF_VER_BAD;
}
