/*
 * The read of one file's magic and what it gives, shared by the probe's
 * files (private to probe_magic.c, probe_helpers.c, probe_uring.c; probe.h
 * is the probe's interface).
 */
#ifndef ELFFS_PROBE_MAGIC_H
#define ELFFS_PROBE_MAGIC_H

#include "pfelf.h"

#include <stdbool.h>
#include <sys/stat.h>

/* Read the magic of entry name of directory dirfd: 1 when it starts with
 * the ELF or the ar magic, 0 when not (or not a regular file any more),
 * -errno; *id: the identity of what was read (when not -errno). */
int probe_read_magic(int dirfd, const char *name, pfelf_identity *id);

/* What a read of the magic (ret: probe_read_magic's, id: what was read)
 * gives: 1 or 0, kept; 0 without keeping it for a transient error;
 * -EMFILE or -ENFILE. */
int probe_settle(const pfelf_identity *id, int ret);

/* Whether regular file name (lstat st) starts with the ELF or the ar
 * magic, read when not known: 1 or 0; -EMFILE or -ENFILE when out of
 * descriptors (nothing is known). */
int probe_is_elf(int dirfd, const char *name, const struct stat *st);

/* probe_classify (probe.h), the file read by the calling thread whatever
 * its device. */
int probe_classify_here(int dirfd, const char *name, const struct stat *st);

/* The kind an answer of probe_is_elf gives: NK_BIN, -ENOENT, or -errno. */
int probe_kind_of(int elf);

/* Whether an entry of type d_type may be shown (not a special file). */
bool probe_listed_type(unsigned char d_type);

#endif /* ELFFS_PROBE_MAGIC_H */
