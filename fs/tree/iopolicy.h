/*
 * The I/O policy of section and segment files (see
 * docs/benchmarks.md "Direct I/O and st_blksize"): whether an open goes
 * through the kernel's page cache or straight to the daemon
 * (FOPEN_DIRECT_IO), and the st_blksize the mount shows (what cat, cp and
 * dd-less tools read at once).
 */
#ifndef ELFFS_IOPOLICY_H
#define ELFFS_IOPOLICY_H

#include "node/nodes.h"

#include <fuse_lowlevel.h>
#include <sys/stat.h>

/* -o direct_io=MODE */
enum iopolicy_dio {
	IOPOLICY_DIO_OFF,  /* page cache for every open (the default) */
	IOPOLICY_DIO_AUTO, /* direct I/O for section and segment files of IOPOLICY_AUTO_MIN bytes
	                      or more */
	IOPOLICY_DIO_ON    /* direct I/O for every section and segment file */
};

/* The size from which -o direct_io=auto opens a file for direct I/O. */
#define IOPOLICY_AUTO_MIN ((uint64_t)16 << 20)

/* st_blksize of section and segment files by default: 1 MiB (the largest
 * FUSE request); other nodes show 4096. */
#define IOPOLICY_BLKSIZE ((blksize_t)1 << 20)

/*
 * Set the policy from the options' text (NULL: the default): direct_io
 * "off", "auto" or "on"; iosize (the largest st_blksize; not named blksize,
 * a FUSE mount option of fuseblk mounts) a power of two from 4096 to 16 MiB.
 * Returns 0, or -1 after printing what is wrong on stderr. Called once,
 * before the session starts.
 */
int iopolicy_parse(const char *direct_io, const char *iosize);

/* Whether any file can open for direct I/O (-o direct_io=auto or on). */
bool iopolicy_any_direct(void);

/* The open of node n (a file, opened read-only): sets fi->direct_io and
 * fi->keep_cache. */
void iopolicy_open(const struct node *n, struct fuse_file_info *fi);

/* st_blksize of node n. */
blksize_t iopolicy_blksize(const struct node *n);

#endif /* ELFFS_IOPOLICY_H */
