/*
 * Classifying the entries of a SOURCE directory listing (probe_entry) on a
 * few threads: the first `ls -l` of a directory of a thousand files waits
 * for a thousand lstats and some hundred reads of four bytes, one after
 * the other on one thread otherwise (docs/benchmarks.md, issue 14).
 */
#ifndef ELFFS_LISTPROBE_H
#define ELFFS_LISTPROBE_H

#include "dirlist.h"

#include <stddef.h>
#include <sys/stat.h>

/*
 * For each i < n: kind[i] = probe_entry(dirfd, e[i].name, e[i].type,
 * &st[i]). Large listings are shared with up to LISTPROBE_THREADS helper
 * threads (fewer when they cannot be started); the caller takes part and
 * returns when every entry is done.
 */
void listprobe_run(int dirfd, const struct dent *e, struct stat *st, int *kind, size_t n);

#endif /* ELFFS_LISTPROBE_H */
