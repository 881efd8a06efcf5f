/* The `info` text of a binary's view. */
#ifndef ELFFS_INFO_H
#define ELFFS_INFO_H

#include "view.h"

#include <stdio.h>

/* Out-of-file lines written before the rest are summed up in one line. */
#define INFO_MAX_OOF_LINES 1000

/*
 * Write v->info / v->info_len from v->f and the file names of v: one
 * "key: value" line each for class, data, type, machine, OS/ABI, ABI
 * version, entry, flags, sections, segments, interpreter (when there is a
 * PT_INTERP), an "error:" line for a table pfelf refused and an
 * "out of file:" line per section or segment outside the file.
 * Returns 0 or -ENOMEM.
 */
int info_build(struct bview *v);

/*
 * The metadata lines of v (info_meta.c), after interpreter: "soname:",
 * one "needed:" per DT_NEEDED, "rpath:", "runpath:", "debuglink crc:" and
 * "debuglink:", "build id:", "go version:", and one "compressed: <file
 * name in sections/> <ZLIB|ZSTD|0x..> <ch_size>" per compressed section;
 * each only when present.
 */
void info_meta(FILE *m, struct bview *v);

#endif /* ELFFS_INFO_H */
