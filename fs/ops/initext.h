/*
 * What libfuse 3.14 cannot say on /dev/fuse (fs/ops/initext.c): INIT flags
 * past its 32 bits (FUSE_DIRECT_IO_ALLOW_MMAP, FUSE_PASSTHROUGH), the INIT
 * reply's max_stack_depth and max_pages, and the passthrough fields of an
 * OPEN reply.
 */
#ifndef ELFFS_INITEXT_H
#define ELFFS_INITEXT_H

#include "base/elffs.h"

#include <stdbool.h>
#include <stdint.h>

/* INIT flags of the kernel's include/uapi/linux/fuse.h */
#define INITEXT_DIO_ALLOW_MMAP ((uint64_t)1 << 36) /* FUSE_DIRECT_IO_ALLOW_MMAP, Linux 6.6 */
#define INITEXT_PASSTHROUGH    ((uint64_t)1 << 37) /* FUSE_PASSTHROUGH, Linux 6.9 */

/*
 * Route the session's reads and writes of /dev/fuse through initext. Call
 * after the mount, before the loop. Returns 0 or -errno (-ENOSYS before
 * libfuse 3.14); the session goes on without it then, and
 * initext_offered() says false.
 */
int initext_attach(struct fuse_session *se);

/* Whether the kernel offered INIT flag(s) flag in its INIT request (known
 * once INIT was read: in the init handler and after). */
bool initext_offered(uint64_t flag);

/*
 * In the init handler: the reply to INIT also carries flags (those the
 * kernel offered), max_stack_depth (if not 0) and max_pages (if not 0 and
 * the kernel offered FUSE_MAX_PAGES; libfuse says 256 otherwise).
 */
void initext_init_add(uint64_t flags, uint32_t max_stack_depth, uint16_t max_pages);

/* The next reply this thread writes, a successful OPEN reply, goes out in
 * passthrough mode on backing id backing_id (0: no change any more). Call
 * just before fuse_reply_open, and with 0 after it. */
void initext_open_passthrough(int32_t backing_id);

/* Whether the kernel offered FUSE_DIRECT_IO_ALLOW_MMAP. */
static inline bool initext_dio_mmap(void)
{
	return initext_offered(INITEXT_DIO_ALLOW_MMAP);
}

#endif /* ELFFS_INITEXT_H */
