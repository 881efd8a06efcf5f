/*
 * minidebuginfo.debug: a binary's MiniDebugInfo as a debug file that
 * every tool reads (llvm-symbolizer takes only a debug file's DWARF,
 * addr2line and gdb its .symtab too): written by pfelf's debug-file
 * writer (pfelf_dbgw_*) with the binary's layout and build-id note, one
 * compile unit, and one function (symbol and DWARF subprogram) for each
 * defined function of the MiniDebugInfo's .symtab and of the binary's
 * .dynsym with a size, the first name of an address kept.
 *
 * A file the daemon makes whole (EB_MADE, entries.h): made at its first
 * lookup (its size is the file's) into the cache of made bytes
 * (dcache.h), within the cache's reservation: the inner file, its tables,
 * the list of functions and everything the writer holds (the writer's own
 * bound, pfelf_dbgw_new's max_bytes, is what is left of it); only the
 * file's bytes stay charged, evicted with idle entries and made again the
 * same. A stream that fails is remembered as EIO for the core.
 */
#ifndef ELFFS_MINIDBG_H
#define ELFFS_MINIDBG_H

#include "view/view.h"

#include <stdint.h>

/* Inner files decompressed here at most (larger ones: EIO). */
#define MINIDBG_INNER_MAX ((uint64_t)64 << 20)

/*
 * The row's make (entries.h): the bytes of minidebuginfo.debug of view v
 * (pinned, a binary with MiniDebugInfo) into *bytes (malloc'ed, the
 * caller's) of *size, holding never more than max bytes at once. 0;
 * -EFBIG (more than max); -EIO (the stream or its inner file refused,
 * over MINIDBG_INNER_MAX, the source changed under the decoding: kept for
 * the core); -ENOMEM.
 */
int minidbg_make(struct bview *v, uint64_t max, void **bytes, uint64_t *size);

/* The row's make_guess: a room that most likely suffices. */
uint64_t minidbg_guess(struct bview *v);

/* The error kept for v's core by an earlier make or check (-EIO), or 0
 * (made, checked, not tried, or failed for want of memory). */
int minidbg_error(struct bview *v);

/*
 * Whether minidebuginfo.debug of view v (pinned) can be made, for debug's
 * choice (debugview.c), without making it: the stream decoded and the
 * inner file opened once per core (charged to the core meanwhile), the
 * answer kept. 0; -ENOENT (not a binary's own view); -EIO (as
 * minidbg_make's, kept); -EFBIG, -ENOMEM.
 */
int minidbg_check(struct bview *v);

#endif /* ELFFS_MINIDBG_H */
