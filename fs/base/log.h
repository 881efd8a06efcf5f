/* Error reporting: stderr in the foreground, syslog once daemonized. */
#ifndef ELFFS_LOG_H
#define ELFFS_LOG_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <syslog.h>

/* Route messages (ours and libfuse's) to syslog from now on. */
void elog_use_syslog(void);

/* Log one message at a syslog priority (LOG_ERR, LOG_WARNING, ...). */
void elog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A rate limit: one message per interval, the others counted. Zero is a
 * limit that has not let a message through yet. */
struct elog_limit {
	_Atomic uint64_t last;    /* elffs_now_ns() of the last message let through */
	_Atomic unsigned skipped; /* messages held back since */
};

/* Whether a message limited by l is due now (at most one per every_ns,
 * across threads): true with *skipped the count held back since the last
 * one (then reset); false counts this one as held back. */
bool elog_due(struct elog_limit *l, uint64_t every_ns, unsigned *skipped);

#endif /* ELFFS_LOG_H */
