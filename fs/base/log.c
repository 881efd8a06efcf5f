/* Error reporting: stderr in the foreground, syslog once daemonized. */
#include "base/log.h"
#include "base/elffs.h"

#include <fuse_log.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

static bool to_syslog;

__attribute__((format(printf, 2, 0))) static void vlog(int prio, const char *fmt, va_list ap)
{
	if (to_syslog) {
		vsyslog(prio, fmt, ap);
		return;
	}
	fputs("elffs: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

bool elog_due(struct elog_limit *l, uint64_t every_ns, unsigned *skipped)
{
	uint64_t now = elffs_now_ns(), last = atomic_load(&l->last);
	if ((last && now - last < every_ns) ||
	    !atomic_compare_exchange_strong(&l->last, &last, now)) {
		atomic_fetch_add(&l->skipped, 1);
		return false;
	}
	*skipped = atomic_exchange(&l->skipped, 0);
	return true;
}

void elog(int prio, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog(prio, fmt, ap);
	va_end(ap);
}

/* libfuse's own messages follow ours to syslog once daemonized. */
__attribute__((format(printf, 2, 0))) static void fuse_to_syslog(enum fuse_log_level level,
                                                                 const char *fmt, va_list ap)
{
	vsyslog((int)level, fmt, ap);
}

void elog_use_syslog(void)
{
	openlog("elffs", LOG_PID, LOG_DAEMON);
	to_syslog = true;
	fuse_set_log_func(fuse_to_syslog);
}
