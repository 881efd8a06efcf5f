/*
 * The view of the ELF file inside a binary's .gnu_debugdata section
 * (MiniDebugInfo): gnu_debugdata/ in the binary's directory, a view nested
 * in the binary's view as an archive member's is in its archive's
 * (members.h). Its file is the section decompressed: the entry of the
 * decompressed cache (dcache.h) that decompressed/.gnu_debugdata shows,
 * opened with pfelf_open_memory; the memory budget counts those bytes
 * once, there. Its core is built on first use and owned by the binary's
 * core (one a core, kept idle until the binary's core goes); a caller gets
 * an alias whose outer is the binary's alias it pinned, so references,
 * pins, the LRU and the budget count only the binary's view. A
 * .gnu_debugdata inside it is not followed again (the row's present rule:
 * a view with an outer has none).
 */
#ifndef ELFFS_CACHE_DEBUGDATA_H
#define ELFFS_CACHE_DEBUGDATA_H

#include "view/view.h"

/*
 * The view of the MiniDebugInfo of the binary whose alias a is pinned: a
 * new alias that takes over the caller's reference and pin on a (release
 * the alias, not a). 0; -ENOENT (a has none); -EIO (a stream pfelf
 * refuses, a corrupt or lying one, over DCACHE_MAX_SECTION, an inner file
 * whose header pfelf refuses); -EFBIG (over the whole memory budget);
 * -ENOMEM. On error the caller still holds a.
 */
int ddview_get(struct bview *a, struct bview **out);

/* The last reference of alias ma is gone (bincache.c, before it drops
 * ma's last one on the binary's alias): one user less, ma freed. */
void ddview_put(struct bview *ma);

#endif /* ELFFS_CACHE_DEBUGDATA_H */
