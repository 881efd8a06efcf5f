/* A parsed view of one binary: its pfelf handle, file names and text views. */
#include "view/view.h"
#include "base/membudget.h"
#include "text/naming.h"
#include "nameset.h"
#include "source/source.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

void view_section_range(const pfelf_shdr *sh, uint64_t *off, uint64_t *len)
{
	bool empty = sh->type == SHT_NOBITS || (sh->status & PFELF_ST_OUT_OF_FILE);
	*off = empty ? 0 : sh->offset;
	*len = empty ? 0 : sh->size;
}

bool view_changed(const struct bview *v, uint64_t end)
{
	pfelf_identity now;
	if (v->inner)
		return false;
	return src_identity_now(v->fh, v->root, &v->id, &now) == 0 &&
	       (v->base + end > now.size || src_written_since(&v->id, &now));
}

void view_segment_range(const pfelf_phdr *ph, uint64_t *off, uint64_t *len)
{
	bool empty = ph->status & PFELF_ST_OUT_OF_FILE;
	*off = empty ? 0 : ph->offset;
	*len = empty ? 0 : ph->filesz;
}

void view_header_range(const struct bview *v, uint64_t *off, uint64_t *len)
{
	*off = 0;
	*len = v->eh.ehsize <= v->fsize ? v->eh.ehsize : 0;
}

/* The file name of section id: the key of the section index. */
static const char *section_key(const void *ctx, uint32_t id)
{
	const struct vparse *p = ctx;
	return p->secname[id];
}

static int index_sections(struct vcore *v)
{
	if (nameset_init(&v->secindex, v->nsec) < 0)
		return -ENOMEM;
	for (uint32_t i = 1; i < v->nsec; i++)
		nameset_add(&v->secindex, i, section_key, &v->parse); /* the names are distinct */
	return 0;
}

int view_find_section(const struct bview *v, const char *name)
{
	uint32_t i = nameset_find(&v->secindex, name, section_key, &v->parse);
	return i ? (int)i : -ENOENT;
}

int view_find_segment(const struct bview *v, const char *name)
{
	char *end;
	if (name[0] < '0' || name[0] > '9')
		return -ENOENT;
	unsigned long i = strtoul(name, &end, 10);
	if (*end != '-' || i >= v->nseg || strcmp(v->segname[i], name) != 0)
		return -ENOENT;
	return (int)i;
}

static int name_sections(struct vcore *v)
{
	int ret = pfelf_section_count(v->f);
	if (ret < 0) {
		v->sec_err = ret;
		return 0;
	}
	v->nsec = (uint32_t)ret;
	if (v->nsec == 0)
		return 0;
	const char **raw = calloc(v->nsec, sizeof(*raw));
	v->secname = calloc(v->nsec, sizeof(*v->secname));
	if (!raw || !v->secname) {
		free(raw);
		return -ENOMEM;
	}
	for (uint32_t i = 1; i < v->nsec; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(v->f, i, &sh) == 0 && !(sh->status & PFELF_ST_BAD_NAME))
			raw[i] = sh->name;
	}
	ret = naming_sections(raw, v->nsec, v->secname);
	free(raw);
	return ret < 0 ? ret : index_sections(v);
}

static int name_segments(struct vcore *v)
{
	int ret = pfelf_segment_count(v->f);
	if (ret < 0) {
		v->seg_err = ret;
		return 0;
	}
	v->nseg = (uint32_t)ret;
	if (v->nseg == 0)
		return 0;
	v->segname = calloc(v->nseg, sizeof(*v->segname));
	if (!v->segname)
		return -ENOMEM;
	for (uint32_t i = 0; i < v->nseg; i++) {
		const pfelf_phdr *ph;
		char type[64] = "";
		if (pfelf_segment(v->f, i, &ph) == 0)
			pfelf_segment_type_name(ph->type, v->eh.machine, type, sizeof(type));
		if (asprintf(&v->segname[i], "%02u-%s", i, type) < 0) {
			v->segname[i] = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* A lower bound of what a core of f will take: refused before anything
 * is built when it alone is over the budget. */
static uint64_t lower_cost(pfelf_file *f)
{
	const pfelf_ehdr *eh = pfelf_header(f);
	return (uint64_t)eh->shnum * (sizeof(pfelf_shdr) + sizeof(char *) + 32) +
	       (uint64_t)eh->phnum * sizeof(pfelf_phdr);
}

struct vcore *view_new_core(const char *what)
{
	static _Atomic uint64_t serials;
	struct vcore *v = calloc(1, sizeof(*v));
	if (!v)
		return NULL;
	v->serial = atomic_fetch_add(&serials, 1) + 1;
	snprintf(v->label, sizeof(v->label), "%s", what ? what : "");
	pthread_mutex_init(&v->lazy_lock, NULL);
	return v;
}

int view_parse(pfelf_file *f, const char *what, struct vcore **out)
{
	struct vcore *v = view_new_core(what);
	if (!v)
		return -ENOMEM;
	v->f = f;
	v->eh = *pfelf_header(f);
	v->fsize = pfelf_size(f);
	int ret = view_charge(v, lower_cost(f));
	if (ret == 0)
		ret = name_sections(v);
	if (ret == 0)
		ret = name_segments(v);
	if (ret < 0) {
		v->f = NULL; /* the caller keeps f on failure */
		vcore_free(v);
		return ret;
	}
	*out = v;
	return 0;
}

struct bview *view_alias(struct vcore *c, uint64_t gen, struct node *root)
{
	struct bview *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->core = c;
	a->gen = gen;
	a->parse = c->parse;
	a->root = root;
	return a;
}

void view_free(struct bview *a)
{
	free(a); /* the rest is its core's */
}

void vcore_free(struct vcore *v)
{
	if (!v)
		return;
	if (v->secname)
		naming_free(v->secname, v->nsec);
	free(v->secname);
	nameset_free(&v->secindex);
	for (uint32_t i = 0; v->segname && i < v->nseg; i++)
		free(v->segname[i]);
	free(v->segname);
	pthread_mutex_destroy(&v->lazy_lock);
	pfelf_close(v->f);
	pfelf_archive_close(v->arch);
	membudget_release(MB_VIEWS, v->cost);
	free(v);
}

void view_drop_pages(struct vcore *c)
{
	if (c->f && pfelf_backend(c->f) == PFELF_BACKEND_MMAP)
		pfelf_drop_pages(c->f);
}

int view_charge(struct vcore *c, uint64_t bytes)
{
	int ret = membudget_reserve(MB_VIEWS, bytes, c->cost, c->label);
	if (ret == 0)
		c->cost += bytes;
	return ret;
}

void view_uncharge(struct vcore *c, uint64_t bytes)
{
	if (bytes > c->cost)
		bytes = c->cost;
	membudget_release(MB_VIEWS, bytes);
	c->cost -= bytes;
}

int view_charge_meta(struct vcore *c)
{
	if (c->meta_charged)
		return 0;
	int ret = view_charge(c, view_meta_cost(c));
	c->meta_charged = ret == 0;
	return ret;
}
