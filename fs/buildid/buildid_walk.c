/*
 * The walk of SOURCE for the build-id index, and its refreshes: one
 * function for both (scan). A directory whose identity or mtime changed is
 * listed again; an unchanged one has its indexed files looked at again.
 * Every name is opened through source.c (never our own mount, never a
 * symlink).
 *
 * The walk runs on the index's thread with ix.mu held while it reads or
 * changes the tables, and released across the system calls that read a
 * file or a directory (wio; a few small ones, the open of SOURCE's root, a
 * directory's device and close, are made with it held): it is
 * the only writer of the tables, so they do not change meanwhile, and
 * queries answer between two calls. A call into a file system mounted
 * below SOURCE (another device than SOURCE's) is made by a helper thread
 * that the walk waits for at most STALL_NS: a device that does not answer
 * (a FUSE daemon stopped, a server gone) leaves its subtree as the index
 * had it, is counted in user.elffs.stalled and logged, and is not asked
 * again while that call is in flight (stall.h). The helper left waiting
 * frees what it holds once the call returns.
 */
#include "buildid/buildid_table.h"
#include "base/elffs.h"
#include "base/log.h"
#include "source/source.h"
#include "base/stall.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t fp_of(const struct stat *st)
{
	uint64_t h = mix(0, (uint64_t)st->st_dev);
	h = mix(h, (uint64_t)st->st_ino);
	h = mix(h, (uint64_t)st->st_size);
	h = mix(h, (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec);
	h = mix(h, (uint64_t)st->st_ctim.tv_sec * 1000000000ULL + (uint64_t)st->st_ctim.tv_nsec);
	return h ? h : 1;
}

static bool lost(int err)
{
	return err == -ENOENT || err == -ENOTDIR || err == -ELOOP || err == -EXDEV;
}

/* --------------------------------------------------- the walk's calls */

enum wop { W_OPEN, W_STAT, W_FSTAT, W_LIST, W_READ };

struct wjob {
	enum wop op;
	int fd; /* a directory (the file for W_FSTAT) */
	const char *name;
	int flags;      /* W_OPEN */
	int ret;        /* the descriptor (W_OPEN), bid_read's answer (W_READ), or -errno */
	struct stat st; /* W_STAT, W_FSTAT, W_READ */
	struct bid_file b;
	char *list; /* W_LIST: records of a d_type byte and a NUL-ended name */
	size_t nlist;
	/* a helper's copy */
	struct stall_call call;
	bool done;
	char namebuf[];
};

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

/* The helper idle now goes (at exit). */
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

/* Run j with ix.mu released: here, or by the helper when it goes into
 * device dev below SOURCE. 0 (j->ret says how it went) or -ETIMEDOUT. */
static int wio(struct wjob *j, uint64_t dev)
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

/* The device of descriptor fd, or of name in directory fd: statx of an
 * empty mask asks no file system (source.c, dev_of), and the lookup of
 * name is in fd's own file system. */
static uint64_t dev_at(int fd, const char *name)
{
	struct statx sx;
	if (statx(fd, name ? name : "",
	          (name ? 0 : AT_EMPTY_PATH) | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT |
	                  AT_STATX_DONT_SYNC,
	          0, &sx) < 0)
		return 0;
	return (uint64_t)makedev(sx.stx_dev_major, sx.stx_dev_minor);
}

/* The device a call on name in directory fd (on device dev) goes into. */
static uint64_t target(int fd, uint64_t dev, const char *name)
{
	if (stall_foreign(dev))
		return dev; /* the lookup of name goes there already */
	uint64_t t = dev_at(fd, name);
	return t ? t : dev;
}

/* Read file name of directory fd (on device dev) again and put it in the
 * index, or take its entry i (NONE: none) out. false when its device did
 * not answer: the entry stays as it was. */
static bool read_file(int fd, uint64_t dev, uint32_t dir, uint32_t i, const char *name)
{
	atomic_fetch_add(&ix.files, 1);
	struct wjob j = {.op = W_READ, .fd = fd, .name = name};
	if (wio(&j, target(fd, dev, name)) < 0)
		return false;
	int ret = j.ret;
	atomic_fetch_add(&ix.preads, j.b.preads);
	if (ret == 1 && bidx_ent_set(dir, i, name, fp_of(&j.st), &j.b) == 0)
		return true;
	if (i != NONE)
		bidx_ent_free(dir, i);
	if (ret == -EINVAL)
		atomic_fetch_add(&ix.leftout, 1);
	else if (ret < 0 && ret != -ENOEXEC && !lost(ret))
		atomic_fetch_add(&ix.errors, 1);
	return true;
}

/* A name of a directory's table, by its pool offset: the pool may move
 * while the directory is listed again (names are added). */
struct named {
	uint32_t name;
	uint32_t i;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(ix.pool + ((const struct named *)a)->name,
	              ix.pool + ((const struct named *)b)->name);
}

/* What directory dir holds now, by name: its subdirectories (sub) and
 * entries, sorted (a temporary table for listing it again). */
static struct named *known(uint32_t dir, bool sub, size_t *n)
{
	size_t c = 0;
	for (uint32_t i = sub ? ix.d[dir].child : ix.d[dir].ents; i != NONE;
	     i = sub ? ix.d[i].sibling : ix.e[i].next)
		c++;
	struct named *t = malloc((c ? c : 1) * sizeof(*t));
	if (!t)
		return NULL;
	c = 0;
	for (uint32_t i = sub ? ix.d[dir].child : ix.d[dir].ents; i != NONE;
	     i = sub ? ix.d[i].sibling : ix.e[i].next)
		t[c++] = (struct named){sub ? ix.d[i].name : ix.e[i].name, i};
	qsort(t, c, sizeof(*t), by_name);
	*n = c;
	return t;
}

static uint32_t find(const struct named *t, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix.pool + t[mid].name, name);
		if (c == 0)
			return t[mid].i;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

static void scan(int fd, uint64_t dev, uint32_t dir, unsigned depth);

/* Subdirectory name of fd (on device dev): known as sub (NONE: new). */
static void enter(int fd, uint64_t dev, uint32_t dir, uint32_t sub, const char *name,
                  unsigned depth)
{
	if (atomic_load(&ix.stop))
		return;
	struct wjob j = {
	        .op = W_OPEN, .fd = fd, .name = name, .flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK};
	if (depth + 1 >= MAX_DEPTH)
		j.ret = -ELOOP;
	else if (wio(&j, target(fd, dev, name)) < 0)
		return; /* its device did not answer: left as it was */
	int cfd = j.ret;
	if (cfd < 0) {
		if (sub != NONE)
			bidx_dir_free(sub);
		if (!lost(cfd) || depth + 1 >= MAX_DEPTH)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	uint64_t cdev = dev_at(cfd, NULL);
	if (sub == NONE)
		sub = bidx_dir_new(dir, name);
	if (sub != NONE)
		scan(cfd, cdev ? cdev : dev, sub, depth + 1);
	else
		atomic_fetch_add(&ix.errors, 1);
	close(cfd);
}

/* One entry (d_type type) of a directory listed again. */
static void relist_one(int fd, uint64_t dev, uint32_t dir, unsigned char type, const char *name,
                       const struct named *subs, size_t nsubs, const struct named *ents,
                       size_t nents, unsigned depth)
{
	if (type != DT_DIR && type != DT_REG && type != DT_UNKNOWN)
		return;
	struct wjob j = {.op = W_STAT, .fd = fd, .name = name};
	if (wio(&j, dev) < 0) { /* its device did not answer: keep what is known */
		uint32_t sub = find(subs, nsubs, name), i = find(ents, nents, name);
		if (sub != NONE)
			ix.d[sub].flags |= F_SEEN;
		if (i != NONE)
			ix.e[i].flags |= F_SEEN;
		return;
	}
	int ret = j.ret;
	if (ret < 0) {
		if (!lost(ret) && ret != -EACCES)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (S_ISDIR(j.st.st_mode)) {
		uint32_t sub = find(subs, nsubs, name);
		if (sub != NONE)
			ix.d[sub].flags |= F_SEEN;
		enter(fd, dev, dir, sub, name, depth);
	} else if (S_ISREG(j.st.st_mode)) {
		uint32_t i = find(ents, nents, name);
		if (i != NONE &&
		    (ix.e[i].fp == fp_of(&j.st) || !read_file(fd, dev, dir, i, name))) {
			ix.e[i].flags |= F_SEEN;
			return;
		}
		if (i == NONE)
			read_file(fd, dev, dir, i, name); /* a new entry is seen */
	}
}

/* List directory dir (open as fd, on device dev) again: new entries are
 * read, entries gone are forgotten. */
static void relist(int fd, uint64_t dev, uint32_t dir, unsigned depth)
{
	struct wjob j = {.op = W_LIST, .fd = fd};
	int ret = wio(&j, dev);
	size_t nsubs = 0, nents = 0;
	struct named *subs = ret == 0 && j.ret == 0 ? known(dir, true, &nsubs) : NULL;
	struct named *ents = subs ? known(dir, false, &nents) : NULL;
	if (!ents) {
		free(j.list);
		free(subs);
		if (ret == 0)
			atomic_fetch_add(&ix.errors, 1);
		ix.d[dir].fp = 0; /* try again next time */
		return;
	}
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		ix.d[i].flags &= ~F_SEEN;
	for (uint32_t i = ix.d[dir].ents; i != NONE; i = ix.e[i].next)
		ix.e[i].flags &= ~F_SEEN;
	for (size_t at = 0; at < j.nlist && !atomic_load(&ix.stop);) {
		const char *name = j.list + at + 1;
		relist_one(fd, dev, dir, (unsigned char)j.list[at], name, subs, nsubs, ents, nents,
		           depth);
		at += strlen(name) + 2;
	}
	free(j.list);
	free(subs);
	free(ents);
	if (atomic_load(&ix.stop))
		return; /* not all seen: nothing is gone */
	/* what was not seen is gone (subdirectories freed above are not
	 * in the lists any more) */
	for (uint32_t i = ix.d[dir].child, next; i != NONE; i = next) {
		next = ix.d[i].sibling;
		if (!(ix.d[i].flags & F_SEEN))
			bidx_dir_free(i);
	}
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		if (!(ix.e[i].flags & F_SEEN))
			bidx_ent_free(dir, i);
	}
}

/* Look again at the files of an unchanged directory: their identities. */
static void restat(int fd, uint64_t dev, uint32_t dir)
{
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		char *name = strdup(ent_name(&ix.e[i]));
		if (!name) {
			atomic_fetch_add(&ix.errors, 1);
			continue;
		}
		struct wjob j = {.op = W_STAT, .fd = fd, .name = name};
		if (wio(&j, dev) == 0) {
			if (j.ret < 0 || !S_ISREG(j.st.st_mode))
				bidx_ent_free(dir, i);
			else if (ix.e[i].fp != fp_of(&j.st))
				read_file(fd, dev, dir, i, name);
		}
		free(name);
	}
}

/* Directory dir, open as fd (on device dev): listed again when it changed,
 * else its subdirectories looked at and its indexed files checked. */
static void scan(int fd, uint64_t dev, uint32_t dir, unsigned depth)
{
	struct wjob j = {.op = W_FSTAT, .fd = fd};
	if (wio(&j, dev) < 0)
		return;
	if (j.ret < 0) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	uint64_t fp = fp_of(&j.st);
	if (fp != ix.d[dir].fp) {
		ix.d[dir].fp = fp;
		relist(fd, dev, dir, depth);
		return;
	}
	restat(fd, dev, dir);
	/* a subdirectory freed on the way takes its sibling link with it */
	uint32_t n = 0;
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		n++;
	uint32_t *subs = malloc((n ? n : 1) * sizeof(*subs));
	if (!subs) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	n = 0;
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		subs[n++] = i;
	for (uint32_t k = 0; k < n; k++) {
		char *name = strdup(dir_name(&ix.d[subs[k]]));
		if (name)
			enter(fd, dev, dir, subs[k], name, depth);
		free(name);
	}
	free(subs);
}

/* Look at SOURCE: the whole walk the first time, what changed after
 * (ix.mu held, released across each system call). */
void bidx_look(void)
{
	int fd = openat(elffs.srcfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (ix.nd == 0 && bidx_dir_new(NONE, "") == NONE) {
		close(fd);
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	scan(fd, dev_at(fd, NULL), 0, 0);
	close(fd);
	bidx_pool_compact();
	ix.checked_ns = elffs_now_ns();
	bidx_account();
}
