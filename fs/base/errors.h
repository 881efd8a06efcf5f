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

/* Whether -errno err says the entry is gone from SOURCE: removed, a
 * component now a file (ENOTDIR), the name a symlink or our own mount
 * (ELOOP: opens follow neither), or on another mount (EXDEV: opens never
 * cross into one). Something else may stand there now. */
static inline bool err_gone(int err)
{
	return err == -ENOENT || err == -ENOTDIR || err == -ELOOP || err == -EXDEV;
}

/*
 * Whether err says the entry is gone or out of the daemon's reach: a
 * permission taken away (EACCES) or a handle the server dropped (ESTALE).
 * Two answers, for two uses: a node of the tree that the daemon cannot
 * reach shows nothing any more and goes (tree/check.c); the build-id index
 * counts a file it cannot read in user.elffs.errors, which tells why an id
 * is missing, while one that is gone is no error, SOURCE changed under the
 * walk (err_gone, buildid/buildid_walk.c).
 */
static inline bool err_unreachable(int err)
{
	return err_gone(err) || err == -EACCES || err == -ESTALE;
}

#endif /* ELFFS_ERRORS_H */
