/*
 * The end of the session on SIGHUP, SIGINT or SIGTERM (docs/elffs.1,
 * SIGNALS; docs/architecture.md, "main.c, options.c and stop.c: start and stop").
 *
 * A thread of its own takes those signals once the session serves: a
 * worker may wait in the kernel for as long as a file system below SOURCE
 * does not answer, and a thread in such a wait runs no handler, so none of
 * the loop's threads takes them. On a signal that thread unmounts first
 * (lazily, as libfuse does: the mount is gone from the mount table at
 * once, whatever still has files open on it), then ends the session loop,
 * has the debuginfod downloads under way abandoned (dbgd_stop), and waits
 * for main() to end the session and free everything: workers still in
 * their calls STOP_LOOP_NS after the signal, or a clean-up that has not
 * ended STOP_GRACE_NS after it, keep the process no longer: it exits
 * without them, with the status main() would give.
 */
#ifndef ELFFS_STOP_H
#define ELFFS_STOP_H

#include "base/elffs.h"

#include <stdbool.h>

/* From the signal to the exit without the workers still in their calls,
 * and, once the loop is over, without the clean-up (which frees what the
 * kernel takes back anyway, and may wait for the index walk's call into a
 * file system below SOURCE). */
#define STOP_LOOP_NS  (500ULL * 1000000ULL)
#define STOP_GRACE_NS (1500ULL * 1000000ULL)

/* The handlers of the exit signals (whatever disposition was inherited)
 * and of the wake-up signal: before the mount. 0 or -errno. */
int stop_signals_set(struct fuse_session *se);

/* After the session: the handlers stay, doing nothing. */
void stop_signals_unset(void);

/* In the daemon (after fuse_daemonize), before any other thread starts:
 * the exit signals blocked in this thread and every thread it starts, and
 * the thread that takes them started. mountpoint as libfuse mounted it.
 * 0, or -errno (the loop's thread then takes the signals itself). */
int stop_start(struct fuse_session *se, const char *mountpoint);

/* The loop has returned; status: the exit status if the daemon exits
 * before main() returns. */
void stop_loop_over(int status);

/* fuse_session_unmount, but never by path once the stop thread unmounted:
 * another mount may be there by then. */
void stop_unmount(struct fuse_session *se);

/* All is freed, main() returns: the stop thread exits no more. */
void stop_done(void);

#endif /* ELFFS_STOP_H */
