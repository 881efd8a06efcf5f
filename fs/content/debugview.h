/*
 * A binary's `debug`: the symlink to the elf of its best debug
 * information (the order of buildid/debugsel.h), and the lines of its
 * info that say which one it serves and why the others were not taken.
 * A listing and info only peek (nothing asked of a server, no file read
 * whole, the build-id index not walked for them); the lookup of `debug`
 * and its readlink look. Only a binary's own view has one: not an
 * archive's member, not gnu_debugdata/.
 */
#ifndef ELFFS_DEBUGVIEW_H
#define ELFFS_DEBUGVIEW_H

#include "content/info.h"
#include "view/view.h"

#include <stdbool.h>
#include <stddef.h>

struct node;

/* Whether a listing of the directory of view v (pinned) shows `debug`:
 * peeked at, something serves, or a debug link's file was found whose CRC
 * is not checked yet. A source not known yet otherwise (the build-id
 * index before its walk, the servers not asked) is not counted: a lookup
 * may find what a listing did not show, never the other way round but
 * for a CRC that turns out wrong. */
bool debug_listed(const struct bview *v);

/* Whether what debug_listed says of v can change only with v itself: no
 * build id, no debug link, no MiniDebugInfo, no Go tables (nothing another
 * file, a server or a later look could give), or a view whose debug is
 * never listed (an archive's member, gnu_debugdata/). */
bool debug_fixed(const struct bview *v);

/* The target of `debug` of binary node bin in its view v (pinned), looked
 * up (the row's link); its length, -ENOENT when nothing serves, -ENOMEM,
 * -ENAMETOOLONG. */
int debug_link(struct node *bin, struct bview *v, char *buf, size_t size);

/*
 * readlink of `debug` node n (its view v, pinned): the target again, when
 * it is still the one n showed (its hash), else -ENOENT; and in src
 * (PATH_MAX bytes) the path in SOURCE of the file it leads to, "" when it
 * is a file of the mount's own (the access check of another user). Its
 * length or -errno.
 */
int debug_readlink(struct node *n, struct bview *v, char *buf, size_t size, char *src);

/*
 * info's tail for binary node bin in view v (the row's tail): the debug
 * lines, "debug: <what it serves>" and "debug not taken: <why>" for each
 * source before it that was looked at (docs/elffs.1, INFO; none when no
 * source applies to the binary), then the "same build id" lines
 * (info_tail), which stay the last ones. 0 or -ENOMEM.
 */
int info_node_tail(struct node *bin, struct bview *v, struct infotail *t);

#endif /* ELFFS_DEBUGVIEW_H */
