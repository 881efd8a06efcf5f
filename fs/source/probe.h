/*
 * What an entry of SOURCE shows as, without parsing anything: directories
 * and symlinks as themselves, regular files as binaries when their first
 * four bytes are the ELF magic or that start with the ar archive magic
 * (an archive is shown as a directory too), everything else left out. Magic answers
 * are cached by file identity (dev, ino, size, mtime, ctime).
 */
#ifndef ELFFS_PROBE_H
#define ELFFS_PROBE_H

#include "node/nodes.h"

#include <sys/stat.h>

/*
 * Kind of entry name of directory dirfd whose lstat is st: NK_DIR,
 * NK_LINK, NK_BIN, or -ENOENT when it is left out (not ELF, special file,
 * cannot be opened); -EMFILE or -ENFILE when the daemon is out of
 * descriptors (nothing is known then).
 */
int probe_classify(int dirfd, const char *name, const struct stat *st);

/*
 * Kind of a directory entry and its lstat (into st, valid whenever the
 * result is a kind): special files by their d_type are left out without
 * a look, everything else is lstat'ed without entering another mount
 * (-ELOOP: our own mount, src_statat_listed) and classified as
 * probe_classify.
 * The lstat is what readdirplus gives the kernel (ops_dir.c).
 */
int probe_entry(int dirfd, const char *name, unsigned char d_type, struct stat *st);

#endif /* ELFFS_PROBE_H */
