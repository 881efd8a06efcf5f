/* The metadata block of a handle and the helpers its modules share:
 * bounded table copies, virtual address translation, section search. */
#include "meta_i.h"

#include <stdlib.h>
#include <string.h>

static int alloc_meta(pfelf_file *f)
{
	f->meta = calloc(1, sizeof(*f->meta));
	return f->meta ? 0 : -ENOMEM;
}

int pfelf__meta(pfelf_file *f)
{
	return pfelf__load_once(f, &f->meta_state, alloc_meta);
}

static void free_symtab(struct pfelf__symtab *t)
{
	free(t->raw);
	free(t->str);
	free(t->xndx);
	free(t->byname);
	free(t->addr);
}

void pfelf__meta_free(pfelf_file *f)
{
	struct pfelf_meta *m = f->meta;
	if (!m)
		return;
	for (int i = 0; i < 2; i++)
		free_symtab(&m->sym[i]);
	free(m->dyn.ents);
	free(m->dyn.str);
	free(m->dyn.interp);
	free(m->ver.versym);
	free(m->ver.defs);
	free(m->ver.needs);
	free(m->hash.gnu_bloom);
	free(m->hash.gnu_buckets);
	free(m->hash.gnu_chain);
	free(m->hash.sysv_bucket);
	free(m->hash.sysv_chain);
	free(m->notes.notes);
	free(m->notes.data);
	free(m->debuglink);
	free(m->altlink);
	free(m);
	f->meta = NULL;
	atomic_store(&f->meta_state, 0);
}

int pfelf__copy_table(pfelf_file *f, uint64_t off, uint64_t len, uint8_t **out)
{
	*out = NULL;
	if (len > PFELF__MAX_TABLE || !pfelf__range_ok(f->size, off, len))
		return -EINVAL;
	uint8_t *buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	int ret = pfelf__read_range(f, off, buf, (size_t)len);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	buf[len] = 0;
	*out = buf;
	return 0;
}

int pfelf__vaddr_to_off(pfelf_file *f, uint64_t vaddr, uint64_t len, uint64_t *off)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PFELF__PT_LOAD || (p->status & PFELF_ST_OUT_OF_FILE))
			continue;
		if (vaddr < p->vaddr || vaddr - p->vaddr > p->filesz)
			continue;
		uint64_t in = vaddr - p->vaddr;
		if (len > p->filesz - in)
			continue;
		*off = p->offset + in;
		return 0;
	}
	return -EFAULT;
}

const pfelf_shdr *pfelf__section_of_type(pfelf_file *f, uint32_t type, uint32_t link_to)
{
	int n = pfelf_section_count(f);
	for (uint32_t i = 1; n > 0 && i < (uint32_t)n; i++) {
		const pfelf_shdr *s = &f->sh[i];
		if (s->type == type && (link_to == UINT32_MAX || s->link == link_to))
			return s;
	}
	return NULL;
}
