/*
 * Build ids SOURCE does not have, asked of debuginfod servers (-o
 * debuginfod; docs/elffs.1, "Across machines"). The client is elfutils'
 * libdebuginfod: its cache (DEBUGINFOD_CACHE_PATH), limits
 * (DEBUGINFOD_TIMEOUT, DEBUGINFOD_MAXSIZE, DEBUGINFOD_MAXTIME) and
 * negative cache; no HTTP code here.
 *
 * A fetched file is *verified* before it is shown (debuginfod_verify.h).
 * A file that fails is unlinked from the cache, one log line names the
 * server (debuginfod_get_url), and the lookup answers EIO; it is not
 * asked again for DBGD_BAD_RETRY_S.
 *
 * Verified files are *entries* of a table that lives until exit: an entry
 * keeps the file's path in the cache and its identity (dev, ino, size,
 * mtime, ctime) taken before its verification. The view of an entry is a
 * binary node whose parent is not a directory of SOURCE: source.c locates
 * it through locate_entry, which opens the file's directory in the cache.
 * Every look at an entry's file (a lookup, a fetch answered from the
 * table, a locate) compares its identity: a file of another identity (a
 * rewrite in place with its times put back moves the ctime) is verified
 * again before it is used; one that fails is unlinked with a log line,
 * and one that fails or is gone is no entry any more: the lookup that
 * meets it fetches again (as a first fetch), and the node whose file it
 * was is -ENOENT.
 *
 * Concurrent fetches of one id make one request (single flight: the
 * first caller fetches, the others wait for its answer). The bound on
 * waiting workers is the stall queue's (stall.h): lookups that may fetch
 * run under the pseudo-device DBGD_STALL_DEV, lookups of a verified entry
 * under the device of its file (dbgd_entry_dev), which they look at again.
 */
#ifndef ELFFS_DEBUGINFOD_H
#define ELFFS_DEBUGINFOD_H

#include "base/stall.h"
#include "buildid/buildid_read.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The stall queue's device for lookups that may wait on a server. */
#define DBGD_STALL_DEV STALL_DEV_NETWORK

/* A file that failed verification is answered EIO without asking again
 * for this long (libdebuginfod's default negative-cache time). */
#define DBGD_BAD_RETRY_S 600

/* Downloads larger than this log a progress line, at most one every
 * DBGD_PROGRESS_EVERY_S seconds. */
#define DBGD_PROGRESS_MIN     (4u << 20)
#define DBGD_PROGRESS_EVERY_S 2

/* Whether this build has libdebuginfod. */
bool dbgd_built(void);

/*
 * -o debuginfod (urls NULL: DEBUGINFOD_URLS as it is) or -o
 * debuginfod=URLS (sets DEBUGINFOD_URLS). 0; -ENOTSUP when the build has
 * no libdebuginfod; -EINVAL when no URL is set; -ENOMEM.
 */
int dbgd_configure(const char *urls);

/* Whether -o debuginfod is on. */
bool dbgd_enabled(void);

/* Start: hand locate_entry to source.c (before the session runs). */
void dbgd_start(void);

/*
 * The verified entry of id[0..len) (debug: a debug file, else an
 * executable): from the table when its file is still the one verified (or
 * passes the verification again), or fetched now (single flight). Its number;
 * -ENOENT (no server has it), -ETIMEDOUT, -EIO (bad content, or any other
 * failure of the servers), -ENOMEM, -EINTR (the daemon stops: dbgd_stop).
 * Blocks up to the client's limits.
 */
int dbgd_fetch(const uint8_t *id, unsigned len, bool debug);

/*
 * The daemon stops: every download under way is abandoned (its progress
 * callback answers nonzero: libdebuginfod removes the partial file, and
 * the negative-cache entry it writes then is removed), its lookup answers
 * -EINTR, and no new one starts. sig (0: none) is sent to each thread that
 * fetches, to end its wait for the servers at once (libdebuginfod calls
 * the callback when curl's wait returns, at least once a second). Called
 * again, it sends sig again.
 */
void dbgd_stop(int sig);

/* The entry of id[0..len) if it is in the table already, else -ENOENT;
 * never asks a server. */
int dbgd_known(const uint8_t *id, unsigned len, bool debug);

/* The device of entry e's file as verified (the table's word: nothing is
 * looked at), or 0 when e is not a verified entry. */
uint64_t dbgd_entry_dev(uint32_t e);

/* The name of entry e inside the remote directory: "<hex>" or
 * "<hex>.debug", into buf (size bytes); its length or -ENAMETOOLONG. */
int dbgd_entry_name(uint32_t e, char *buf, size_t size);

/* The entry a remote view's name ("<hex>[.debug]") stands for, or -ENOENT. */
int dbgd_entry_of_name(const char *name);

/* The identity of entry e's file now: fills st (dev, ino, mode, size,
 * mtime, ctime, owner) from a fresh lstat, the file verified again when
 * its identity changed; -ENOENT when it is gone, fails the verification
 * (then no entry any more) or cannot be looked at. */
struct stat;
int dbgd_entry_stat(uint32_t e, struct stat *st);

struct dbgd_stats {
	uint64_t requests; /* calls into libdebuginfod */
	uint64_t hits;     /* of which gave a verified file */
	uint64_t misses;   /* of which no server had (ENOENT) */
	uint64_t errors;   /* of which failed otherwise (bad file, timeout, server) */
	uint64_t bytes;    /* size of the files verified */
	uint64_t inflight; /* fetches under way now */
};

void dbgd_stats_get(struct dbgd_stats *s);

/* Free the table (at exit). */
void dbgd_destroy(void);

#endif /* ELFFS_DEBUGINFOD_H */
