/* The build-id walk's calls into SOURCE (buildid_calls.h). */
#include "buildid/buildid_calls.h"
#include "buildid/buildid_table.h"
#include "base/log.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static int list_dir(int fd, char **out, size_t *n)
{
	int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = lfd < 0 ? NULL : fdopendir(lfd);
	if (!dp) {
		int err = errno;
		if (lfd >= 0)
			close(lfd);
		return -err;
	}
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);
	int ret = buf ? 0 : -ENOMEM;
	struct dirent *de;
	while (ret == 0 && (errno = 0, de = readdir(dp))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		size_t l = strlen(de->d_name) + 2;
		if (len + l > cap) {
			while (len + l > cap)
				cap *= 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				ret = -ENOMEM;
				break;
			}
			buf = nb;
		}
		buf[len] = (char)de->d_type;
		memcpy(buf + len + 1, de->d_name, l - 1);
		len += l;
	}
	if (ret == 0 && errno)
		ret = -errno;
	closedir(dp);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	*out = buf;
	*n = len;
	return 0;
}

static void read_one(struct wjob *j)
{
	int ffd = src_openat(j->fd, j->name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	j->ret = ffd;
	memset(&j->b, 0, sizeof(j->b));
	if (ffd >= 0 && (fstat(ffd, &j->st) < 0 || !S_ISREG(j->st.st_mode)))
		j->ret = -ENOENT;
	if (j->ret >= 0)
		j->ret = bid_read(ffd, (uint64_t)j->st.st_size, &j->b);
	if (ffd >= 0)
		close(ffd);
}

static void do_job(struct wjob *j)
{
	switch (j->op) {
	case W_OPEN:
		j->ret = src_openat(j->fd, j->name, j->flags);
		break;
	case W_STAT:
		j->ret = src_statat(j->fd, j->name, &j->st);
		break;
	case W_FSTAT:
		j->ret = fstat(j->fd, &j->st) < 0 ? -errno : 0;
		break;
	case W_LIST:
		j->ret = list_dir(j->fd, &j->list, &j->nlist);
		break;
	case W_READ:
		read_one(j);
		break;
	}
}

/* What a helper's copy holds: its descriptor, and what the call gave. */
static void job_free(struct wjob *j, bool results)
{
	close(j->fd);
	if (results && j->op == W_OPEN && j->ret >= 0)
		close(j->ret);
	if (results)
		free(j->list);
	free(j);
}

struct helper {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct wjob *job;
	bool abandoned; /* the walk stopped waiting: free the job and go */
};

static struct helper *helper; /* the walk's, idle or at work */

static void *helper_main(void *arg)
{
	struct helper *h = arg;
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->job && !h->abandoned)
			pthread_cond_wait(&h->cv, &h->mu);
		struct wjob *j = h->job;
		if (!j)
			break;
		pthread_mutex_unlock(&h->mu);
		do_job(j);
		stall_leave(&j->call);
		pthread_mutex_lock(&h->mu);
		h->job = NULL;
		j->done = true;
		pthread_cond_broadcast(&h->cv);
		if (h->abandoned) {
			job_free(j, true);
			break;
		}
	}
	pthread_mutex_unlock(&h->mu);
	pthread_cond_destroy(&h->cv);
	pthread_mutex_destroy(&h->mu);
	free(h);
	return NULL;
}

static struct helper *helper_get(void)
{
	if (helper)
		return helper;
	struct helper *h = calloc(1, sizeof(*h));
	pthread_condattr_t ca;
	pthread_attr_t ta;
	if (!h)
		return NULL;
	pthread_mutex_init(&h->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	pthread_t t;
	int ret = pthread_create(&t, &ta, helper_main, h);
	pthread_attr_destroy(&ta);
	if (ret != 0) {
		pthread_cond_destroy(&h->cv);
		pthread_mutex_destroy(&h->mu);
		free(h);
		return NULL;
	}
	return helper = h;
}

void bidx_walk_helper_stop(void)
{
	struct helper *h = helper;
	helper = NULL;
	if (!h)
		return;
	pthread_mutex_lock(&h->mu);
	h->abandoned = true;
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
}

static void say_stalled(uint64_t dev)
{
	atomic_fetch_add(&ix.stalled, 1);
	elog(LOG_WARNING,
	     "build-id index: device %u:%u below SOURCE has not answered for %llu s: its "
	     "subtree is left as the index had it",
	     major((dev_t)dev), minor((dev_t)dev), (unsigned long long)(STALL_NS / 1000000000ULL));
}

/* j made by the helper, waited for at most STALL_NS; -ETIMEDOUT when dev
 * did not answer (or is known not to). */
static int foreign(struct wjob *in, uint64_t dev)
{
	if (stall_stalled(dev)) {
		atomic_fetch_add(&ix.stalled, 1);
		return -ETIMEDOUT;
	}
	size_t nl = in->name ? strlen(in->name) + 1 : 0;
	struct wjob *j = malloc(sizeof(*j) + nl);
	struct helper *h = j ? helper_get() : NULL;
	int fd = h ? fcntl(in->fd, F_DUPFD_CLOEXEC, 0) : -1;
	if (fd < 0) {
		free(j);
		return -EIO;
	}
	*j = *in;
	j->fd = fd;
	j->list = NULL;
	j->done = false;
	if (nl) {
		memcpy(j->namebuf, in->name, nl);
		j->name = j->namebuf;
	}
	stall_enter(&j->call, dev);
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(STALL_NS / 1000000000ULL);
	pthread_mutex_lock(&h->mu);
	h->job = j;
	pthread_cond_broadcast(&h->cv);
	while (!j->done && pthread_cond_timedwait(&h->cv, &h->mu, &until) == 0)
		;
	bool done = j->done;
	if (!done) {
		h->abandoned = true; /* it frees j once the call returns */
		helper = NULL;
	}
	pthread_mutex_unlock(&h->mu);
	if (!done) {
		say_stalled(dev);
		return -ETIMEDOUT;
	}
	in->ret = j->ret;
	in->st = j->st;
	in->b = j->b;
	in->list = j->list;
	in->nlist = j->nlist;
	job_free(j, false);
	return 0;
}

int walk_io(struct wjob *j, uint64_t dev)
{
	pthread_mutex_unlock(&ix.mu);
	int ret = 0;
	if (stall_foreign(dev))
		ret = foreign(j, dev);
	else
		do_job(j);
	pthread_mutex_lock(&ix.mu);
	return ret;
}

/* statx of an empty mask asks no file system (source.c, dev_of), and the
 * lookup of name is in fd's own file system. */
uint64_t walk_dev_at(int fd, const char *name)
{
	struct statx sx;
	if (statx(fd, name ? name : "",
	          (name ? 0 : AT_EMPTY_PATH) | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
	                  AT_STATX_DONT_SYNC,
	          0, &sx) < 0)
		return 0;
	return (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor);
}

uint64_t walk_target(int fd, uint64_t dev, const char *name)
{
	if (stall_foreign(dev))
		return dev; /* the lookup of name goes there already */
	uint64_t t = walk_dev_at(fd, name);
	return t ? t : dev;
}
