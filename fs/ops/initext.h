/*
 * FUSE_INIT flags this libfuse cannot ask for (fs/ops/initext.c):
 * FUSE_DIRECT_IO_ALLOW_MMAP, which lets a file opened for direct I/O be
 * mapped MAP_SHARED (Linux 6.6 and later offer it; libfuse learned it in
 * 3.16, Debian 12 has 3.14).
 */
#ifndef ELFFS_INITEXT_H
#define ELFFS_INITEXT_H

#include "base/elffs.h"

#include <stdbool.h>

/*
 * Route the session's reads and writes of /dev/fuse through initext, which
 * reads the kernel's INIT request and adds FUSE_DIRECT_IO_ALLOW_MMAP to
 * libfuse's reply when the kernel offered it. Call after the mount, before
 * the loop. Returns 0 or -errno (-ENOSYS before libfuse 3.14); the session
 * goes on without it then, and initext_dio_mmap() says false.
 */
int initext_attach(struct fuse_session *se);

/* Whether the kernel offered FUSE_DIRECT_IO_ALLOW_MMAP in its INIT request
 * (known once INIT was read: in the init handler and after). */
bool initext_dio_mmap(void);

#endif /* ELFFS_INITEXT_H */
