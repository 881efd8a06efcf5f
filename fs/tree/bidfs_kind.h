/* Which nodes are those of the .build-id directory (buildid_fs.h), for the
 * files of the tree that answer for them apart: attributes, change checks. */
#ifndef ELFFS_BIDFS_KIND_H
#define ELFFS_BIDFS_KIND_H

#include "node/nodes.h"

#include <stdbool.h>

static inline bool bidfs_kind(int kind)
{
	return kind == NK_BIDROOT || kind == NK_BIDDIR || kind == NK_BIDLINK;
}

#endif /* ELFFS_BIDFS_KIND_H */
