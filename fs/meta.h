/*
 * Metadata of a binary's view found when it is parsed: the build id text
 * (`build-id`), the compressed sections (`decompressed/`, `info`).
 */
#ifndef ELFFS_META_H
#define ELFFS_META_H

#include "view.h"

#include <stdbool.h>
#include <stdint.h>

/* Fill v->buildid and v->comp; 0 or -ENOMEM (a missing or bad note is no error). */
int meta_build(struct bview *v);

/* Free what meta_build made. */
void meta_free(struct bview *v);

/* Whether section index of v is compressed (its header then in *ch). */
bool meta_compressed(const struct bview *v, uint32_t index, pfelf_chdr *ch);

/* Index of the compressed section whose file name is name, or -ENOENT. */
int meta_find_compressed(const struct bview *v, const char *name);

#endif /* ELFFS_META_H */
