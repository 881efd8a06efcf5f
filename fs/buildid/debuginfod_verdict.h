/*
 * What libdebuginfod's answer means for a lookup (docs/elffs.1, "Across
 * machines"). libdebuginfod 0.188 returns -ENOENT for a 404, for an answer
 * of its negative cache, and also for any other HTTP error (500, ...) and
 * a transfer cut short (curl's partial file), for which it also writes a
 * negative-cache entry. Its diagnostics (debuginfod_set_verbose_fd) tell
 * them apart: "url N The requested URL returned error: 404" is a server
 * that has not the file; "server response <curl's words>" with no such
 * 404 is a server that failed. So:
 *
 *   -ENOENT, some server said 404 or none was asked (negative cache) -> ENOENT
 *   -ENOENT, the servers failed otherwise                           -> EIO
 *   -ETIME (curl's timeout: DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXTIME)  -> ETIMEDOUT
 *   -ENOMEM                                                          -> ENOMEM
 *   any other (-EFBIG over DEBUGINFOD_MAXSIZE, -ECONNREFUSED, ...)   -> EIO
 *
 * The negative-cache entry written for a failure that is no 404 is to be
 * removed (a server that failed is asked again next time).
 */
#ifndef ELFFS_DEBUGINFOD_VERDICT_H
#define ELFFS_DEBUGINFOD_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

struct dbgd_verdict {
	int err;            /* the lookup's answer: 0, -ENOENT, -ETIMEDOUT, -EIO, -ENOMEM */
	bool drop_negative; /* remove libdebuginfod's negative-cache entry */
	char why[160];      /* the servers' failure, for the log ("" if none) */
	char url[256];      /* the last URL asked ("" if none) */
};

/*
 * The verdict for libdebuginfod's return ret (a descriptor or -errno)
 * given its diagnostics log[0..n) (need not be NUL-ended).
 */
void dbgd_verdict_of(int ret, const char *log, size_t n, struct dbgd_verdict *v);

/* The cache directory libdebuginfod named in log ("checking cache dir
 * <dir>") into buf; its length, or 0 when not named or too long. */
size_t dbgd_verdict_cache_dir(const char *log, size_t n, char *buf, size_t size);

#endif /* ELFFS_DEBUGINFOD_VERDICT_H */
