/* The block of lazily loaded tables of a handle (tables_i.h) and the
 * helpers their modules share: section search. */
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
