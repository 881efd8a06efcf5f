/* Listings looked at ahead of the walk (ahead.h). */
#include "source/ahead.h"
#include "source/probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define CLOSING 64 /* directories read, open until their batch has run */

static struct {
	pthread_mutex_t mu;
	pthread_cond_t more;
	bool ready, off, running;
	bool walking;    /* the thread is below a start */
	size_t credit;   /* entries it may still classify */
	unsigned misses; /* listings in a row of directories not looked at */
	int start_fd;    /* where to start (opened again), or -1 */
	dev_t start_dev;
	uint64_t seen[AHEAD_SEEN]; /* keys of directories and their flags; 0: free */
} ah = {.mu = PTHREAD_MUTEX_INITIALIZER, .start_fd = -1};

#define VISITED 1u /* flags of a seen key: the look ahead classified it */
#define LISTED  2u /* ... the walk listed it */
#define FLAGS   3u

/* A directory's key: device, inode and change time, mixed; its two low
 * bits 0 (the flags), not 0. */
static uint64_t key_of(uint64_t dev, uint64_t ino, int64_t sec, uint32_t nsec)
{
	uint64_t x = dev * 0x9e3779b97f4a7c15ULL ^ ino;
	x ^= (uint64_t)sec * 0xbf58476d1ce4e5b9ULL ^ nsec;
	x ^= x >> 31;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 29;
	x &= ~(uint64_t)FLAGS;
	return x ? x : 4;
}

static uint64_t *slot_of(uint64_t key)
{
	return &ah.seen[(key >> 2) % AHEAD_SEEN];
}

/* The flags of key (ah.mu held); 0 when it is not in the table. */
static unsigned flags_of(uint64_t key)
{
	uint64_t v = *slot_of(key);
	return (v & ~(uint64_t)FLAGS) == key ? (unsigned)(v & FLAGS) : 0;
}

/* Add flag f to key (ah.mu held); the flags it had, 0 when another key
 * held its slot. */
static unsigned mark(uint64_t key, unsigned f)
{
	unsigned had = flags_of(key);
	*slot_of(key) = key | had | f;
	return had;
}

static bool everyone_lists(mode_t mode)
{
	return (mode & (S_IROTH | S_IXOTH)) == (S_IROTH | S_IXOTH);
}

/* First use (ah.mu held). */
static void start(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ah.more, &ca);
	pthread_condattr_destroy(&ca);
	const char *env = getenv("ELFFS_PROBE_AHEAD");
	ah.off = env && strcmp(env, "0") == 0;
	struct rlimit rl; /* AHEAD_DEPTH + CLOSING descriptors, a small part */
	rlim_t fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	if (fds != RLIM_INFINITY && fds < 16 * (AHEAD_DEPTH + CLOSING))
		ah.off = true;
	ah.ready = true;
}

/* ------------------------------------------------------------ the walk */

struct level {
	DIR *dp;
	bool pass; /* the walk listed it already: only gone through */
};

struct walk {
	struct level lv[AHEAD_DEPTH];
	unsigned depth;
	dev_t dev;
	struct probe_batch *b;
	DIR *closing[CLOSING];
	unsigned nclosing;
	size_t credit; /* taken from ah.credit, not spent yet */
};

/* Classify the entries gathered (answers to the cache only) and close the
 * directories left. */
static void run_batch(struct walk *w)
{
	if (w->b && probe_batch_count(w->b) > 0) {
		probe_batch_alone(w->b);
		probe_batch_run(w->b, -1, w->dev);
	}
	probe_batch_put(w->b);
	w->b = NULL;
	while (w->nclosing > 0)
		closedir(w->closing[--w->nclosing]);
}

static void pop(struct walk *w)
{
	struct level *l = &w->lv[--w->depth];
	if (w->nclosing == CLOSING)
		run_batch(w);
	w->closing[w->nclosing++] = l->dp;
	l->dp = NULL;
}

/* Everything dropped (the walk went elsewhere, or no credit came). */
static void drop(struct walk *w)
{
	while (w->depth > 0)
		pop(w);
	run_batch(w);
}

static bool push(struct walk *w, int fd, bool pass)
{
	DIR *dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return false;
	}
	w->lv[w->depth++] = (struct level){.dp = dp, .pass = pass};
	return true;
}

/* Enter subdirectory name of the deepest level, when the rules allow
 * (ahead.h); whether it did. */
static bool enter(struct walk *w, const char *name)
{
	DIR *dp = w->lv[w->depth - 1].dp;
	struct statx sx; /* asks no file system; a mount point is not entered */
	if (statx(dirfd(dp), name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
	          STATX_TYPE | STATX_MODE | STATX_INO | STATX_CTIME, &sx) < 0 ||
	    !S_ISDIR(sx.stx_mode) || !everyone_lists(sx.stx_mode) ||
	    makedev(sx.stx_dev_major, sx.stx_dev_minor) != w->dev ||
	    (sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) == 0 ||
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))
		return false;
	uint64_t key = key_of(w->dev, sx.stx_ino, sx.stx_ctime.tv_sec, sx.stx_ctime.tv_nsec);
	pthread_mutex_lock(&ah.mu);
	unsigned had = mark(key, VISITED);
	pthread_mutex_unlock(&ah.mu);
	if (had & VISITED) /* been there (a second walk): nothing to learn */
		return false;
	int fd = openat(dirfd(dp), name,
	                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	struct stat st;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_ino != sx.stx_ino || st.st_dev != w->dev)) {
		close(fd);
		return false;
	}
	return fd >= 0 && push(w, fd, had & LISTED);
}

/* Go on in find's order while there is credit: the entries of the deepest
 * level into the batch, entering a subdirectory where it stands (files
 * written in that order lie in that order on the disk: their reads merge),
 * leaving a directory at its end. */
static void advance(struct walk *w)
{
	while (w->credit > 0 && w->depth > 0) {
		if (!w->b && !(w->b = probe_batch_new(AHEAD_BATCH))) {
			pop(w);
			continue;
		}
		struct level *l = &w->lv[w->depth - 1];
		struct dirent *de = readdir(l->dp);
		if (!de) {
			pop(w);
			continue;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!l->pass) { /* classified, one entry of credit */
			w->credit--;
			if (probe_batch_add_at(w->b, dirfd(l->dp), de->d_name, de->d_type) == 0 &&
			    probe_batch_count(w->b) == AHEAD_BATCH)
				run_batch(w); /* the levels are not closing: they stay open */
		}
		if ((de->d_type == DT_DIR || de->d_type == DT_UNKNOWN) && w->depth < AHEAD_DEPTH)
			enter(w, de->d_name);
	}
}

/* Wait up to PROBE_IDLE_S for a start or credit (ah.mu held); whether
 * something came. */
static bool wait_more(bool for_start)
{
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += PROBE_IDLE_S;
	while (ah.start_fd < 0 && (for_start || ah.credit == 0))
		if (pthread_cond_timedwait(&ah.more, &ah.mu, &until) == ETIMEDOUT)
			return ah.start_fd >= 0 || (!for_start && ah.credit > 0);
	return true;
}

static void *ahead_main(void *arg)
{
	(void)arg;
	struct walk w = {0};
	pthread_mutex_lock(&ah.mu);
	for (;;) {
		ah.walking = w.depth > 0;
		if (ah.start_fd >= 0) { /* a new start: what was under way is dropped */
			int fd = ah.start_fd;
			dev_t dev = ah.start_dev;
			ah.start_fd = -1;
			pthread_mutex_unlock(&ah.mu);
			drop(&w);
			w.dev = dev;
			push(&w, fd, false);
			pthread_mutex_lock(&ah.mu);
			continue;
		}
		if (w.credit == 0 && ah.credit > 0) {
			w.credit = ah.credit < 64 ? ah.credit : 64;
			ah.credit -= w.credit;
		}
		if (w.depth == 0 || w.credit == 0) {
			pthread_mutex_unlock(&ah.mu);
			run_batch(&w); /* what it has, for the walk now */
			pthread_mutex_lock(&ah.mu);
			if (!wait_more(w.depth == 0)) {
				if (w.depth == 0)
					break;
				pthread_mutex_unlock(&ah.mu);
				drop(&w);
				pthread_mutex_lock(&ah.mu);
			}
			continue;
		}
		pthread_mutex_unlock(&ah.mu);
		advance(&w);
		pthread_mutex_lock(&ah.mu);
	}
	ah.running = ah.walking = false;
	pthread_mutex_unlock(&ah.mu);
	return NULL;
}

/* Start the thread unless it runs (ah.mu held). */
static void run(void)
{
	if (ah.running)
		return;
	pthread_attr_t ta;
	pthread_t t;
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&ta, 256 * 1024);
	ah.running = pthread_create(&t, &ta, ahead_main, NULL) == 0;
	pthread_attr_destroy(&ta);
}

void ahead_listed(int fd, const struct stat *st)
{
	uint64_t key =
	        key_of(st->st_dev, st->st_ino, st->st_ctim.tv_sec, (uint32_t)st->st_ctim.tv_nsec);
	pthread_mutex_lock(&ah.mu);
	if (!ah.ready)
		start();
	if (ah.off) {
		pthread_mutex_unlock(&ah.mu);
		return;
	}
	size_t had = ah.credit;
	ah.credit = had + AHEAD_WINDOW > AHEAD_CREDIT ? AHEAD_CREDIT : had + AHEAD_WINDOW;
	bool hit = mark(key, LISTED) & VISITED; /* the look ahead was there */
	ah.misses = hit ? 0 : ah.misses + 1;
	bool idle = !ah.running || !ah.walking || ah.misses >= AHEAD_MISSES;
	int dup = -1;
	if (idle && !hit && ah.start_fd < 0 && everyone_lists(st->st_mode))
		dup = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NONBLOCK);
	/* not a dup: that would share the listing's position in the directory */
	if (dup >= 0) {
		ah.start_fd = dup;
		ah.start_dev = st->st_dev;
		ah.misses = 0;
		mark(key, VISITED);
	}
	/* the thread is woken only when it has something to do: a start, or
	 * credit while it waits below one (a second walk wakes nothing) */
	if (dup >= 0 || (!ah.running && ah.start_fd >= 0)) /* or a start not taken yet */
		run();
	if (dup >= 0 || (ah.walking && had == 0))
		pthread_cond_signal(&ah.more);
	pthread_mutex_unlock(&ah.mu);
}
