/*
 * A file of SOURCE by its identity: the handle (open_by_handle_at) of a
 * mapped binary's file, the identity now of the file a view was built from
 * (renamed, moved or unlinked since: the same file), what became of it
 * since, and whether the binary's path still names it.
 */
#include "source/source.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MOUNTFD_MAX 32 /* file systems below SOURCE with handles of mapped files */

/* A descriptor on a file system, for open_by_handle_at (not SOURCE's: that
 * is elffs.srcfd). Held while handles of files on it exist. */
struct mountfd {
	dev_t dev;
	int fd;
	unsigned refs;
};

struct src_handle {
	struct mountfd *mnt; /* NULL: SOURCE's descriptor */
	struct file_handle *fh;
};

static pthread_mutex_t mnt_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mountfd mounts[MOUNTFD_MAX];
static atomic_int handles_ok = -1; /* open_by_handle_at allowed: -1 not known yet */

/* A reference on a descriptor of file system dev (lock held); NULL if none. */
static struct mountfd *mount_ref_locked(dev_t dev, int fd)
{
	struct mountfd *free_slot = NULL;
	for (size_t i = 0; i < MOUNTFD_MAX; i++) {
		if (mounts[i].refs && mounts[i].dev == dev) {
			mounts[i].refs++;
			return &mounts[i];
		}
		if (!mounts[i].refs && !free_slot)
			free_slot = &mounts[i];
	}
	if (free_slot && fd >= 0)
		*free_slot = (struct mountfd){dev, fd, 1};
	return fd >= 0 ? free_slot : NULL;
}

static void mount_unref(struct mountfd *m)
{
	int fd = -1;
	pthread_mutex_lock(&mnt_lock);
	if (--m->refs == 0)
		fd = m->fd;
	pthread_mutex_unlock(&mnt_lock);
	if (fd >= 0)
		close(fd);
}

/* A descriptor for files of dev: SOURCE's, a held one, or the directory of
 * binary node root opened now. 0 and *out (NULL for SOURCE's), or -errno. */
static int mount_of(dev_t dev, const struct node *root, struct mountfd **out)
{
	struct stat st;
	*out = NULL;
	if (fstat(elffs.srcfd, &st) == 0 && st.st_dev == dev)
		return 0;
	pthread_mutex_lock(&mnt_lock);
	*out = mount_ref_locked(dev, -1);
	pthread_mutex_unlock(&mnt_lock);
	if (*out || !root->parent)
		return *out ? 0 : -EXDEV;
	int fd = src_open_dir(root->parent, O_RDONLY);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_dev != dev) { /* a file mounted on its own */
		close(fd);
		return -EXDEV;
	}
	pthread_mutex_lock(&mnt_lock);
	*out = mount_ref_locked(dev, fd);
	pthread_mutex_unlock(&mnt_lock);
	if (!*out || (*out)->fd != fd)
		close(fd);
	return *out ? 0 : -ENOSPC;
}

static int open_handle(const struct src_handle *h)
{
	unsigned tries = 0;
	int fd;
	do
		fd = open_by_handle_at(h->mnt ? h->mnt->fd : elffs.srcfd, h->fh,
		                       O_PATH | O_CLOEXEC);
	while (fd < 0 && src_fd_retry(-errno, &tries));
	return fd < 0 ? -errno : fd;
}

/* ret and st (a stat of the file of identity id), or -ESTALE when st is
 * another file's. */
static int same_file(int ret, const struct stat *st, const pfelf_identity *id)
{
	if (ret == 0 && ((uint64_t)st->st_dev != id->dev || (uint64_t)st->st_ino != id->ino))
		ret = -ESTALE;
	return ret;
}

int src_fd_stat(int fd, const pfelf_identity *id, struct stat *st)
{
	return same_file(fstat(fd, st) < 0 ? -errno : 0, st, id);
}

static int handle_stat(const struct src_handle *h, const pfelf_identity *id, struct stat *st)
{
	int fd = open_handle(h);
	if (fd < 0)
		return fd;
	int ret = src_fd_stat(fd, id, st);
	close(fd);
	return ret;
}

/* Whether open_by_handle_at works for us (it needs CAP_DAC_READ_SEARCH):
 * tried once, on the first handle. */
static bool handles_allowed(const struct src_handle *h, const struct stat *st)
{
	int ok = atomic_load(&handles_ok);
	if (ok < 0) {
		pfelf_identity id;
		struct stat now;
		src_identity(st, &id);
		ok = handle_stat(h, &id, &now) != -EPERM;
		atomic_store(&handles_ok, ok);
		if (!ok)
			elog(LOG_WARNING,
			     "open_by_handle_at: %s: the cut end of a mapped file is "
			     "looked for by path",
			     strerror(EPERM));
	}
	return ok;
}

int src_handle_of(int fd, const struct stat *st, const struct node *root, struct src_handle **out)
{
	*out = NULL;
	if (atomic_load(&handles_ok) == 0)
		return -EPERM;
	struct src_handle *h = calloc(1, sizeof(*h) + sizeof(struct file_handle) + MAX_HANDLE_SZ);
	if (!h)
		return -ENOMEM;
	h->fh = (struct file_handle *)(h + 1);
	h->fh->handle_bytes = MAX_HANDLE_SZ;
	int mount_id;
	int ret = name_to_handle_at(fd, "", h->fh, &mount_id, AT_EMPTY_PATH) < 0 ? -errno : 0;
	if (ret == 0)
		ret = mount_of(st->st_dev, root, &h->mnt);
	if (ret == 0 && !handles_allowed(h, st))
		ret = -EPERM;
	if (ret < 0) {
		src_handle_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

void src_handle_free(struct src_handle *h)
{
	if (!h)
		return;
	if (h->mnt)
		mount_unref(h->mnt);
	free(h);
}

int src_stat_now(const struct src_handle *h, const struct node *n, const pfelf_identity *id,
                 struct stat *st)
{
	if (h)
		return handle_stat(h, id, st);
	return same_file(src_lstat(n, st), st, id);
}

int src_identity_now(const struct src_handle *h, const struct node *n, const pfelf_identity *id,
                     pfelf_identity *now)
{
	struct stat st;
	int ret = src_stat_now(h, n, id, &st);
	if (ret == 0)
		pfelf_identity_of(&st, now);
	return ret;
}

bool src_written_since(const pfelf_identity *id, const pfelf_identity *now)
{
	/* The ctime too: a writer can put the mtime back (utimensat), never
	 * the ctime, which that very call sets. */
	return id->mtime_sec != now->mtime_sec || id->mtime_nsec != now->mtime_nsec ||
	       id->ctime_sec != now->ctime_sec || id->ctime_nsec != now->ctime_nsec;
}

void src_attr_of(const struct stat *st, struct src_attr *a)
{
	*a = (struct src_attr){.ctime_sec = st->st_ctim.tv_sec,
	                       .ctime_nsec = (uint32_t)st->st_ctim.tv_nsec,
	                       .mode = st->st_mode,
	                       .uid = st->st_uid,
	                       .gid = st->st_gid,
	                       .nlink = (uint64_t)st->st_nlink};
}

enum src_change src_change_since(const pfelf_identity *id, const struct src_attr *attr,
                                 const struct stat *st)
{
	pfelf_identity now;
	pfelf_identity_of(st, &now);
	if (now.size != id->size || now.mtime_sec != id->mtime_sec ||
	    now.mtime_nsec != id->mtime_nsec)
		return SRC_WRITTEN;
	if (st->st_ctim.tv_sec == attr->ctime_sec &&
	    (uint32_t)st->st_ctim.tv_nsec == attr->ctime_nsec)
		return SRC_SAME;
	bool shows = st->st_mode != attr->mode || st->st_uid != attr->uid ||
	             st->st_gid != attr->gid || (uint64_t)st->st_nlink != attr->nlink;
	return shows ? SRC_ATTR : SRC_CTIME;
}

int src_path_names(const struct node *n, const pfelf_identity *id)
{
	if (src_is_foreign(n))
		return -EIO;
	struct stat st;
	int ret = same_file(src_lstat(n, &st), &st, id);
	if (ret == -ESTALE || ret == -ENOENT || ret == -ENOTDIR || ret == -ELOOP)
		return 0;
	return ret < 0 ? ret : 1;
}

void src_identity(const struct stat *st, pfelf_identity *id)
{
	pfelf_identity_of(st, id);
}

bool src_same_identity(const struct stat *a, const struct stat *b)
{
	pfelf_identity ia, ib;
	pfelf_identity_of(a, &ia);
	pfelf_identity_of(b, &ib);
	return pfelf_identity_equal(&ia, &ib);
}
