/* Error reporting: stderr in the foreground, syslog once daemonized. */
#ifndef ELFFS_LOG_H
#define ELFFS_LOG_H

#include <syslog.h>

/* Route messages (ours and libfuse's) to syslog from now on. */
void elog_use_syslog(void);

/* Log one message at a syslog priority (LOG_ERR, LOG_WARNING, ...). */
void elog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif /* ELFFS_LOG_H */
