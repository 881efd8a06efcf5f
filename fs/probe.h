/*
 * What an entry of SOURCE shows as, without parsing anything: directories
 * and symlinks as themselves, regular files as binaries when their first
 * four bytes are the ELF magic or that start with the ar archive magic
 * (an archive is shown as a directory too), everything else left out. Magic answers
 * are cached by file identity (dev, ino, size, mtime, ctime).
 */
#ifndef ELFFS_PROBE_H
#define ELFFS_PROBE_H

#include "nodes.h"

#include <sys/stat.h>

/*
 * Kind of entry name of directory dirfd whose lstat is st: NK_DIR,
 * NK_LINK, NK_BIN, or -ENOENT when it is left out (not ELF, special file,
 * cannot be opened); -EMFILE or -ENFILE when the daemon is out of
 * descriptors (nothing is known then).
 */
int probe_classify(int dirfd, const char *name, const struct stat *st);

/*
 * Kind of a directory entry from its d_type, with lstat (into st) only when
 * d_type does not tell or the entry is a regular file, and a look at the
 * device of a directory (-ELOOP: our own mount). As probe_classify; st is
 * valid when the result is NK_BIN.
 */
int probe_entry(int dirfd, const char *name, unsigned char d_type, struct stat *st);

#endif /* ELFFS_PROBE_H */
