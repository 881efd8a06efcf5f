/* The end of the session on a signal (stop.h). */
#include "stop.h"
#include "base/log.h"
#include "buildid/debuginfod.h"
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* While the loop runs, the wake-up signal goes again this often: one sent
 * between the loop's check and its wait is lost in that wait. */
#define KICK_NS (20ULL * 1000000ULL)

/* The stop thread's stack: elog, posix_spawn and umount2 (ASan included). */
#define STOP_STACK (128u << 10)

/* Interrupts the loop's wait (sem_wait, or the read of /dev/fuse under -s)
 * and a download's poll; nothing else sends it. */
#define WAKE_SIGNAL SIGRTMIN

static const int exit_signals[] = {SIGHUP, SIGINT, SIGTERM};

/* Until the stop thread runs, the loop's thread takes the exit signals. */
static struct fuse_session *volatile signal_session;

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* CLOCK_MONOTONIC; loop_over and done */
	struct fuse_session *se;
	char *mnt;      /* the path to unmount; NULL: none (/dev/fd/N) */
	pthread_t loop; /* the loop's thread */
	bool started;   /* stop_start ran: mu and cv are set */
	bool unmounted; /* by the stop thread */
	bool loop_over;
	bool done;
	int status; /* the exit status if the stop thread exits */
} st = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void exit_set(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < sizeof(exit_signals) / sizeof(exit_signals[0]); i++)
		sigaddset(set, exit_signals[i]);
}

static void on_exit_signal(int sig)
{
	struct fuse_session *se = signal_session;
	(void)sig;
	if (se)
		fuse_session_exit(se);
}

/* Its work is done by interrupting the wait it comes in. */
static void on_wake(int sig)
{
	(void)sig;
}

int stop_signals_set(struct fuse_session *se)
{
	struct sigaction sa = {.sa_handler = on_exit_signal};
	sigemptyset(&sa.sa_mask); /* no SA_RESTART: the loop's wait returns */
	signal_session = se;
	for (size_t i = 0; i < sizeof(exit_signals) / sizeof(exit_signals[0]); i++)
		if (sigaction(exit_signals[i], &sa, NULL) < 0)
			return -errno;
	sa.sa_handler = on_wake;
	return sigaction(WAKE_SIGNAL, &sa, NULL) < 0 ? -errno : 0;
}

void stop_signals_unset(void)
{
	signal_session = NULL;
}

/* fusermount3 -u -q -z -- mnt, with no signal blocked. 0 or -errno. */
static int fusermount_z(const char *mnt)
{
	char *argv[] = {"fusermount3", "-u", "-q", "-z", "--", (char *)mnt, NULL};
	posix_spawnattr_t attr;
	sigset_t none;
	pid_t pid;
	int ws, ret = posix_spawnattr_init(&attr);
	if (ret != 0)
		return -ret;
	sigemptyset(&none);
	posix_spawnattr_setsigmask(&attr, &none);
	posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
	ret = posix_spawnp(&pid, "fusermount3", NULL, &attr, argv, environ);
	posix_spawnattr_destroy(&attr);
	if (ret != 0)
		return -ret;
	while (waitpid(pid, &ws, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : -EPERM;
}

/* Detach the mount, as libfuse's unmount does (umount2 as root, else
 * fusermount3), but with the session's descriptor left open: the workers
 * still read and answer through it. 0 or -errno. */
static int unmount_lazily(const char *mnt)
{
	if (umount2(mnt, MNT_DETACH | UMOUNT_NOFOLLOW) == 0)
		return 0;
	return errno == EPERM ? fusermount_z(mnt) : -errno;
}

/*
 * Exit now, without the threads still in their calls (mu held). _exit, not
 * exit: atexit handlers and destructors would run under those threads, and
 * a sanitizer's leak check waits for every thread to stop, which one that
 * the kernel holds never does. elog has written every line already (stderr
 * is unbuffered, syslog sends each): nothing to flush.
 */
static _Noreturn void leave(void)
{
	if (st.loop_over) {
		elog(LOG_WARNING,
		     "stopping: the clean-up still runs %llu ms after the signal: exiting",
		     STOP_GRACE_NS / 1000000ULL);
		_exit(st.status);
	}
	elog(LOG_WARNING,
	     "stopping: workers still in calls %llu ms after the signal (a file system below "
	     "SOURCE or a server that does not answer): exiting without them",
	     STOP_LOOP_NS / 1000000ULL);
	/* A thread the kernel holds (a request that a file system below SOURCE
	 * has read and never answers) keeps the process, and its descriptors,
	 * until that request ends. With /dev/null in the place of the
	 * session's descriptor, the connection ends with the other threads,
	 * and so do the calls that still wait on the detached mount. */
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (nul >= 0)
		dup3(nul, fuse_session_fd(st.se), O_CLOEXEC);
	_exit(st.status);
}

/* Wait for main() (mu held): its loop until t0 + STOP_LOOP_NS, waking the
 * loop's thread and the downloads under way every KICK_NS meanwhile, and
 * all of it until t0 + STOP_GRACE_NS. Whether main() is done. */
static bool wait_main(uint64_t t0)
{
	while (!st.done) {
		uint64_t now = elffs_now_ns();
		uint64_t deadline = t0 + (st.loop_over ? STOP_GRACE_NS : STOP_LOOP_NS),
		         until = deadline;
		if (now >= deadline)
			return false;
		if (!st.loop_over) {
			pthread_mutex_unlock(&st.mu);
			pthread_kill(st.loop, WAKE_SIGNAL);
			dbgd_stop(WAKE_SIGNAL);
			pthread_mutex_lock(&st.mu);
			until = now + KICK_NS < deadline ? now + KICK_NS : deadline;
		}
		struct timespec ts = {(time_t)(until / 1000000000ULL),
		                      (long)(until % 1000000000ULL)};
		pthread_cond_timedwait(&st.cv, &st.mu, &ts);
	}
	return true;
}

static void *stopper(void *arg)
{
	sigset_t set;
	int sig;
	(void)arg;
	exit_set(&set);
	while (sigwait(&set, &sig) != 0)
		;
	uint64_t t0 = elffs_now_ns();
	pthread_mutex_lock(&st.mu);
	if (!st.loop_over) { /* else the session is over: se may be gone */
		int ret = st.mnt ? unmount_lazily(st.mnt) : -ENOENT;
		st.unmounted = ret == 0;
		if (ret < 0 && ret != -EINVAL && st.mnt) /* EINVAL: unmounted already */
			elog(LOG_WARNING, "stopping: unmounting %s: %s", st.mnt, strerror(-ret));
		fuse_session_exit(st.se);
	}
	if (!wait_main(t0))
		leave();
	pthread_mutex_unlock(&st.mu);
	return NULL;
}

int stop_start(struct fuse_session *se, const char *mountpoint)
{
	sigset_t set;
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t t;
	st.se = se;
	st.loop = pthread_self();
	if (!options_is_fuse_fd(mountpoint) && !(st.mnt = strdup(mountpoint)))
		return -ENOMEM;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&st.cv, &ca);
	pthread_condattr_destroy(&ca);
	st.started = true;
	exit_set(&set);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* here and in every thread started from here */
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&ta, STOP_STACK); /* under a tight ulimit -v too */
	int ret = pthread_create(&t, &ta, stopper, NULL);
	pthread_attr_destroy(&ta);
	return -ret;
}

void stop_loop_over(int status)
{
	pthread_mutex_lock(&st.mu);
	st.loop_over = true;
	st.status = status;
	pthread_cond_broadcast(&st.cv);
	pthread_mutex_unlock(&st.mu);
}

/*
 * libfuse's unmount unmounts by path unless poll() reports POLLERR on the
 * session's descriptor (its connection gone already); then it only closes
 * the descriptor and frees the path. A pipe with no reader reports POLLERR:
 * put in the descriptor's place, it makes libfuse leave the path alone. The
 * connection ends with the descriptor, as it would at the close. Whether
 * it could.
 */
static bool forget_mount(struct fuse_session *se)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return false;
	close(p[0]);
	bool ok = dup3(p[1], fuse_session_fd(se), O_CLOEXEC) >= 0;
	close(p[1]);
	return ok;
}

void stop_unmount(struct fuse_session *se)
{
	pthread_mutex_lock(&st.mu);
	bool gone = st.unmounted;
	pthread_mutex_unlock(&st.mu);
	/* Not forgotten (no descriptor left): libfuse keeps its copy of the
	 * path, and fuse_session_destroy closes the descriptor. */
	if (!gone || forget_mount(se))
		fuse_session_unmount(se);
}

void stop_done(void)
{
	if (!st.started)
		return;
	pthread_mutex_lock(&st.mu);
	st.done = true;
	pthread_cond_broadcast(&st.cv);
	free(st.mnt);
	st.mnt = NULL;
	pthread_mutex_unlock(&st.mu);
}
