/*
 * Whether a file of libdebuginfod's cache is the one asked for (docs/elffs.1,
 * "Across machines"): a regular file that pfelf opens, every section with
 * bytes and every segment inside the file, its own GNU build id the one
 * asked for, and for a debug file a .debug_info section with bytes. Files
 * are checked once fetched, and again whenever their identity (device,
 * inode, size, mtime, ctime) is not the one verified: a file changed in
 * the cache is never shown by the id it was verified as.
 */
#ifndef ELFFS_DEBUGINFOD_VERIFY_H
#define ELFFS_DEBUGINFOD_VERIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

/* id[0..len) in lowercase hex into out (2 * len + 1 bytes). */
void dbgd_hex_of(const uint8_t *id, unsigned len, char *out);

/*
 * Whether the file open as fd is id[0..len) (debug: a debug file, else an
 * executable). 0; -EIO with what is wrong in why (n bytes) when it is not.
 */
int dbgd_verify(int fd, const uint8_t *id, unsigned len, bool debug, char *why, size_t n);

/*
 * The file name of directory dirfd, verified again as id[0..len): opened
 * (no symlink followed) and checked. 0 and *st, its identity taken before
 * the check (a change while it is read shows as another identity next
 * time); -EIO with why (n bytes) when it fails, after removing it from the
 * cache (name unlinked while it still names that file); or the -errno of
 * open and fstat (-ENOENT: gone).
 */
int dbgd_verify_again(int dirfd, const char *name, const uint8_t *id, unsigned len, bool debug,
                      struct stat *st, char *why, size_t n);

#endif /* ELFFS_DEBUGINFOD_VERIFY_H */
