/*
 * The errno classes the daemon decides on, in one place: an entry of
 * SOURCE that is gone (or is something else now), and a process out of
 * descriptors. Every layer maps with these, so that a reader meets one
 * answer for one cause.
 */
#ifndef ELFFS_ERRORS_H
#define ELFFS_ERRORS_H

#include <errno.h>
#include <stdbool.h>

/* Whether -errno err says the process is out of descriptors (EMFILE,
 * ENFILE): nothing is known of the entry, it is not gone. */
static inline bool err_no_fds(int err)
{
	return err == -EMFILE || err == -ENFILE;
}

/* What a reader gets for err: EIO for out of descriptors (even after the
 * idle ones were given back: never our EMFILE), else err itself. */
static inline int err_for_reader(int err)
{
	return err_no_fds(err) ? -EIO : err;
}

#endif /* ELFFS_ERRORS_H */
