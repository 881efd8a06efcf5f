/*
 * A process-wide budget of descriptors held by handles. Two kinds count:
 *
 * - pread handles opened with PFELF_OPEN_REOPEN remember the directory
 *   descriptor and path they were opened from; parked (closed) when over
 *   budget, they are reopened on next use with O_NOFOLLOW, and a reopened
 *   file must have the identity of the one opened first (device, inode,
 *   size, mtime, ctime): a file replaced or changed since gives -EIO,
 *   never other bytes;
 * - lazy mmap handles, which read their tables with pread until the first
 *   zero-copy use maps the file; parking one maps it now and closes the
 *   descriptor (a file that cannot be mapped keeps it and stays on pread).
 *
 * When more descriptors are open than the budget allows, the least
 * recently used one that no read is using is parked. The budget is a
 * quarter of the soft RLIMIT_NOFILE (read again at each check, so that it
 * follows the limit), at most 256, unless pfelf_set_fd_budget() set one.
 * When the process runs out of descriptors all the same (EMFILE, ENFILE:
 * the caller holds many of its own), every idle descriptor is given back
 * and the open is tried once more.
 */
#include "pfelf_i.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#define AUTO_BUDGET_MAX 256

static pthread_mutex_t fd_lock = PTHREAD_MUTEX_INITIALIZER;
/* Handles with an open descriptor (and only they), least recently used first. */
static TAILQ_HEAD(, pfelf_file) lru = TAILQ_HEAD_INITIALIZER(lru);
static unsigned open_fds;
static unsigned fd_budget; /* 0: from RLIMIT_NOFILE */

PFELF_API void pfelf_set_fd_budget(unsigned n)
{
	pthread_mutex_lock(&fd_lock);
	fd_budget = n;
	pthread_mutex_unlock(&fd_lock);
}

/* The budget now (lock held). */
static unsigned budget(void)
{
	if (fd_budget)
		return fd_budget;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur / 4 >= AUTO_BUDGET_MAX)
		return AUTO_BUDGET_MAX;
	return rl.rlim_cur >= 8 ? (unsigned)(rl.rlim_cur / 4) : 1;
}

static void lru_unlink(pfelf_file *f)
{
	TAILQ_REMOVE(&lru, f, fd_link);
}

static void lru_push(pfelf_file *f)
{
	TAILQ_INSERT_TAIL(&lru, f, fd_link);
}

static void park(pfelf_file *f)
{
	lru_unlink(f);
	close(f->fd);
	f->fd = -1;
	open_fds--;
}

/* Map lazy handle f with its descriptor (lock held); on failure it stays
 * on pread for good. */
static int map_locked(pfelf_file *f)
{
	if (atomic_load_explicit(&f->mapped, memory_order_relaxed))
		return 0;
	if (atomic_load_explicit(&f->map_failed, memory_order_relaxed) || f->fd < 0)
		return -ENODEV;
	struct pfelf_mapping *m;
	int ret = pfelf__registry_get(f->fd, &f->id, &m);
	if (ret < 0) {
		atomic_store_explicit(&f->map_failed, true, memory_order_release);
		return ret;
	}
	f->map = m;
	f->base = m->addr;
	atomic_store_explicit(&f->mapped, true, memory_order_release);
	return 0;
}

/* Park idle descriptors until no more than keep are open (lock held). */
static void park_down_to(unsigned keep)
{
	pfelf_file *v = TAILQ_FIRST(&lru);
	while (open_fds > keep && v) {
		pfelf_file *next = TAILQ_NEXT(v, fd_link);
		if (v->fd_users == 0 && (!v->lazy || map_locked(v) == 0))
			park(v);
		v = next;
	}
}

/* Park idle descriptors until one more fits the budget (lock held). */
static void make_room(void)
{
	park_down_to(budget() - 1);
}

void pfelf__fd_shed(void)
{
	pthread_mutex_lock(&fd_lock);
	park_down_to(0);
	pthread_mutex_unlock(&fd_lock);
}

static bool out_of_fds(int err)
{
	return err == EMFILE || err == ENFILE;
}

int pfelf__open_retry(int dirfd, const char *path, int flags)
{
	int fd = openat(dirfd, path, flags);
	if (fd < 0 && out_of_fds(errno)) {
		pfelf__fd_shed();
		fd = openat(dirfd, path, flags);
	}
	return fd < 0 ? -errno : fd;
}

int pfelf__open_input(int dirfd, const char *path, unsigned pflags)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	if (pflags & PFELF_OPEN_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	return pfelf__open_retry(dirfd, path, oflags);
}

static bool same_file(const pfelf_identity *a, const struct stat *st)
{
	pfelf_identity b;
	pfelf_identity_of(st, &b);
	return pfelf_identity_equal(a, &b);
}

static int reopen(pfelf_file *f)
{
	const int flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW;
	int fd = openat(f->dirfd, f->path, flags);
	if (fd < 0 && out_of_fds(errno)) { /* give back every idle one, once */
		park_down_to(0);
		fd = openat(f->dirfd, f->path, flags);
	}
	if (fd < 0 && out_of_fds(errno))
		return -EMFILE;
	if (fd < 0)
		return -EIO; /* gone or replaced by something we may not open */
	struct stat st;
	if (fstat(fd, &st) < 0 || !same_file(&f->id, &st)) {
		close(fd);
		return -EIO;
	}
	f->fd = fd;
	open_fds++;
	lru_push(f);
	return 0;
}

int pfelf__fd_register(pfelf_file *f)
{
	pthread_mutex_lock(&fd_lock);
	open_fds++;
	lru_push(f);
	make_room();
	pthread_mutex_unlock(&fd_lock);
	return 0;
}

void pfelf__fd_unregister(pfelf_file *f)
{
	pthread_mutex_lock(&fd_lock);
	if (f->fd >= 0)
		park(f);
	pthread_mutex_unlock(&fd_lock);
}

int pfelf__fd_acquire(pfelf_file *f, int *fd)
{
	int ret = 0;
	pthread_mutex_lock(&fd_lock);
	if (f->lazy && atomic_load_explicit(&f->mapped, memory_order_relaxed)) {
		pthread_mutex_unlock(&fd_lock);
		return 1; /* read through the mapping */
	}
	if (f->fd < 0) {
		make_room();
		ret = f->lazy ? -EIO : reopen(f);
	} else {
		lru_unlink(f);
		lru_push(f);
	}
	if (ret == 0) {
		f->fd_users++;
		*fd = f->fd;
	}
	pthread_mutex_unlock(&fd_lock);
	return ret;
}

int pfelf__fd_pread(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	int fd;
	int ret = pfelf__fd_acquire(f, &fd);
	if (ret != 0)
		return ret == 1 || ret == -EMFILE ? ret : -EIO;
	ret = pfelf__pread_all(fd, off, buf, len);
	pfelf__fd_release(f);
	return ret;
}

void pfelf__fd_release(pfelf_file *f)
{
	pthread_mutex_lock(&fd_lock);
	f->fd_users--;
	/* A lazy handle mapped while this read used its descriptor. */
	if (f->lazy && f->fd_users == 0 && f->fd >= 0 &&
	    atomic_load_explicit(&f->mapped, memory_order_relaxed))
		park(f);
	pthread_mutex_unlock(&fd_lock);
}

int pfelf__fd_map(pfelf_file *f)
{
	pthread_mutex_lock(&fd_lock);
	int ret = map_locked(f);
	if (ret == 0 && f->fd >= 0 && f->fd_users == 0)
		park(f);
	pthread_mutex_unlock(&fd_lock);
	return ret;
}
