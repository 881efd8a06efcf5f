/*
 * minidebuginfo.debug: a binary's MiniDebugInfo as a debug file that
 * every tool reads (llvm-symbolizer takes only a debug file's DWARF,
 * addr2line and gdb its .symtab too): written by pfelf's debug-file
 * writer (pfelf_dbgw_*) with the binary's layout and build-id note, one
 * compile unit, and one function (symbol and DWARF subprogram) for each
 * defined function of the MiniDebugInfo's .symtab and of the binary's
 * .dynsym with a size, the first name of an address kept.
 *
 * Built on first use (its lookup: its size is the file's), under the
 * core's lazy lock, within the memory budget: the inner file, its tables
 * and everything the writer holds are reserved first (the writer's own
 * bound, pfelf_dbgw_new's max_bytes, is that reservation), and only the
 * file's bytes stay charged once it is made. The core keeps it until it
 * goes; a stream that fails is remembered as EIO for the core.
 */
#ifndef ELFFS_MINIDBG_H
#define ELFFS_MINIDBG_H

#include "view/view.h"

#include <stdint.h>

/* Inner files decompressed here at most (larger ones: EIO). */
#define MINIDBG_INNER_MAX ((uint64_t)64 << 20)

/*
 * The bytes of minidebuginfo.debug of view v (pinned, a binary with
 * MiniDebugInfo): *data (kept by v's core, alive while a reference on v
 * is) and *size. 0; -EIO (the stream or its inner file refused, over
 * MINIDBG_INNER_MAX, the source changed under the decoding); -EFBIG (over
 * the whole budget); -ENOMEM.
 */
int minidbg_bytes(struct bview *v, const char **data, uint64_t *size);

/* Free what minidbg_bytes kept in core c. */
void minidbg_free(struct vcore *c);

#endif /* ELFFS_MINIDBG_H */
