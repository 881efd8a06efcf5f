/* The block of lazily loaded tables of a handle (tables_i.h), the
 * helpers their modules share (section search), and the bound of what the
 * tables of one section cost. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

static int alloc_tables(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf_tables *m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
	int ret = pthread_mutex_init(&m->lock, &a);
	pthread_mutexattr_destroy(&a);
	if (ret != 0) {
		free(m);
		return -ENOMEM;
	}
	f->tables = m;
	f->tables_free = pfelf__tables_free;
	return 0;
}

int pfelf__tables(pfelf_file *f)
{
	return pfelf__load_once(f, &f->tables_state, alloc_tables);
}

static void free_symtab(struct pfelf__symtab *t)
{
	free(t->raw);
	free(t->str);
	free(t->xndx);
	free(t->byname);
	free(t->addr);
}

void pfelf__tables_free(pfelf_file *f)
{
	struct pfelf_tables *m = f->tables;
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
	if (m->go)
		m->go_free(m->go);
	free(m->gobi);
	pthread_mutex_destroy(&m->lock);
	free(m);
	f->tables = NULL;
	atomic_store(&f->tables_state, 0);
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

/* A symbol table is copied, and each entry, 16 bytes at the least (ELF32;
 * 24 for ELF64), gets one word in the by-name index (symindex.c): 5/4 of
 * the table's size. */
#define SYM32_SIZE 16
_Static_assert(sizeof(*((struct pfelf__symtab *)0)->byname) * 4 == SYM32_SIZE,
               "the by-name index adds a quarter of an ELF32 symbol table");
/* Hash tables (bloom words widened to 64 bits) and version tables (the
 * copy and its decoded entries): twice their size. */
#define WIDE_FACTOR 2
_Static_assert(sizeof(*((struct pfelf__hash *)0)->gnu_bloom) == 8,
               "bloom words of ELF32 widen to twice their size");

PFELF_API uint64_t pfelf_cost_section_tables(const pfelf_shdr *sh, uint32_t shstrndx)
{
	switch (sh->type) {
	case SHT_SYMTAB:
	case SHT_DYNSYM:
		return sh->size / 4 * 5 + 5;
	case SHT_STRTAB: /* a copy and its guard NUL */
		return sh->index == shstrndx ? 0 : sh->size + 1;
	case SHT_SYMTAB_SHNDX:
		return sh->size;
	case SHT_HASH:
	case SHT_GNU_HASH:
	case SHT_GNU_verdef:
	case SHT_GNU_verneed:
	case SHT_GNU_versym:
		return sh->size * WIDE_FACTOR;
	}
	return 0;
}
