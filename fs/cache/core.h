/*
 * The lifecycle of a core of the binary cache (view.h): built from an open
 * handle with everything its content needs (the entries' parse products,
 * the state of its texts and symbol views, an archive's member names),
 * reserved in the memory budget; freed with all it holds: its content, an
 * archive's member views, its decompressed sections (dcache.h) and the
 * handle of its file. Aliases are made with view_alias and freed with
 * view_free (view.h).
 */
#ifndef ELFFS_CACHE_CORE_H
#define ELFFS_CACHE_CORE_H

#include "view/view.h"

#include <pfelf.h>

/*
 * Build the core of ELF handle f (what: its name for the log) and reserve
 * what it holds in the memory budget; on success it owns f, on failure
 * the caller keeps it. 0, -ENOMEM, -EFBIG (more than the whole budget).
 */
int core_build(pfelf_file *f, const char *what, struct vcore **out);

/* The same for archive handle a (arview.h). */
int core_build_archive(pfelf_archive *a, const char *what, struct vcore **out);

/* Free core c with all it holds (NULL is allowed). */
void core_free(struct vcore *c);

#endif /* ELFFS_CACHE_CORE_H */
