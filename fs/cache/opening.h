/* Opening the source of a binary for the cache (opening.c), for bincache.c. */
#ifndef ELFFS_CACHE_OPENING_H
#define ELFFS_CACHE_OPENING_H

#include "cache/refused.h"
#include "node/nodes.h"
#include "view/view.h"

#include <stddef.h>
#include <sys/stat.h>

/* Open the source of a->root again; -ENOENT when the binary is gone (no
 * file on its path, or a directory on that path became something else),
 * -EIO when it cannot be opened or is not the file of a any more. */
int bincache_reopen(struct bview *a, struct vhandle *out);

/* Close both handles of h (either may be NULL). */
void bincache_handle_close(struct vhandle h);

/* Open and parse the source of root into a new core (not in the cache
 * yet); -ESTALE when it is not expect any more, -EIO when pfelf refuses
 * an archive's header, errors of core_build. Why pfelf refuses a header in
 * why (REFUSED_MAX bytes): also for an ELF file, whose core is then of its
 * bytes only (entries_refused). */
int bincache_parse(struct node *root, const struct stat *expect, struct vcore **out, char *why);

/* One log line for a refused header, at most one every 10 s. */
void bincache_log_refusal(struct node *root, const char *why);

#endif /* ELFFS_CACHE_OPENING_H */
