/*
 * Files of SOURCE a binary's debug information may be in, looked at by
 * path (the debug link's search, debugsel.h): a directory of SOURCE opened
 * by its relative path, one component at a time, no symlink followed and
 * never into our own mount (source.h); and the CRC-32 of a candidate,
 * computed by reading it whole (pfelf_file_crc32, the pread backend) at
 * most once per file identity: kept while the file keeps its identity
 * (dev, ino, size, mtime, ctime), DBGF_CRC_KEPT of them at most, the
 * least recently used given up first. Two callers that want the CRC of
 * one file read it once (the second waits for the first). A file that
 * changed while it was read has no CRC.
 */
#ifndef ELFFS_DBGFILE_H
#define ELFFS_DBGFILE_H

#include <stdbool.h>
#include <stdint.h>

/* CRCs kept (about 64 bytes each). */
#define DBGF_CRC_KEPT 1024

/* Directory rel of SOURCE ("dir/sub", "" for SOURCE's root) opened O_PATH:
 * a descriptor or -errno (-ENOENT, -ENOTDIR, -ELOOP for a symlink or our
 * own mount on the way, -ENAMETOOLONG). */
int dbgf_open_dir(const char *rel);

/*
 * The CRC-32 of regular file name of directory dirfd (a descriptor of
 * dbgf_open_dir) into *crc: the one kept for the file's identity now, or
 * when compute, read now (and kept). 0; -EAGAIN (not kept, !compute);
 * -ENOENT (no regular file of that name); -ENOEXEC (not an ELF file pfelf
 * opens); -ESTALE (the file changed while it was read); -EIO, -ENOMEM.
 */
int dbgf_crc(int dirfd, const char *name, bool compute, uint32_t *crc);

#endif /* ELFFS_DBGFILE_H */
