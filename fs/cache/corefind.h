/* The binary cache's table of cores by file identity (corefind.c), for bincache.c. */
#ifndef ELFFS_CACHE_COREFIND_H
#define ELFFS_CACHE_COREFIND_H

#include "view/view.h"

/* The core of identity id (the cache's lock held), or NULL. */
struct vcore *core_find(const pfelf_identity *id);

/* Put core c in the table, under c->id (lock held). */
void core_insert(struct vcore *c);

/* Take core c out of the table (lock held). */
void core_remove(struct vcore *c);

#endif /* ELFFS_CACHE_COREFIND_H */
