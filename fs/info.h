/* The `info` text of a binary's view. */
#ifndef ELFFS_INFO_H
#define ELFFS_INFO_H

#include "view.h"

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

#endif /* ELFFS_INFO_H */
