/* The views of an archive's ELF members (members.c; arview.h says what they are). */
#ifndef ELFFS_CACHE_MEMBERS_H
#define ELFFS_CACHE_MEMBERS_H

#include "view/view.h"

#include <stdint.h>

/*
 * The view of ELF member index of the archive whose alias a is pinned: a
 * new alias that takes over the caller's reference and pin on a (release
 * the alias, not a). 0, -ENOENT (no such ELF member), -EIO (pfelf refuses
 * the member's header), -ENOMEM, -EFBIG; on error the caller still holds a.
 */
int arview_member(struct bview *a, uint32_t index, struct bview **out);

/* The last reference of member alias ma is gone (bincache.c, before it
 * drops ma's last one on the archive's alias): one user less, ma freed. */
void arview_member_put(struct bview *ma);

#endif /* ELFFS_CACHE_MEMBERS_H */
