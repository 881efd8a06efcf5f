/* Access to SOURCE without following symlinks. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static atomic_int no_openat2;

/* Open path (relative to SOURCE) with no symlink anywhere in it. */
static int open_beneath(const char *path, int flags)
{
	flags |= O_CLOEXEC | O_NOFOLLOW;
	if (!atomic_load(&no_openat2)) {
		struct open_how how = {
		        .flags = (uint64_t)flags,
		        .resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH,
		};
		long fd = syscall(SYS_openat2, elffs.srcfd, path, &how, sizeof(how));
		if (fd >= 0)
			return (int)fd;
		if (errno != ENOSYS && errno != EPERM)
			return -errno;
		atomic_store(&no_openat2, 1); /* old kernel or a seccomp filter */
	}
	int fd = openat(elffs.srcfd, path, flags);
	return fd < 0 ? -errno : fd;
}

/* Path of source directory node dir relative to SOURCE ("." for the root). */
static int rel_path(const struct node *dir, char *buf, size_t size)
{
	size_t len = 0;
	for (const struct node *n = dir; n->parent; n = n->parent)
		len += strlen(n->name) + 1;
	if (len == 0) {
		strcpy(buf, ".");
		return 0;
	}
	if (len > size)
		return -ENAMETOOLONG;
	buf[--len] = '\0';
	for (const struct node *n = dir; n->parent; n = n->parent) {
		size_t l = strlen(n->name);
		len -= l;
		memcpy(buf + len, n->name, l);
		if (len > 0)
			buf[--len] = '/';
	}
	return 0;
}

bool src_is_mountpoint(const struct node *dir, const char *name)
{
	if (!elffs.mnt_rel)
		return false;
	char path[PATH_MAX];
	if (rel_path(dir, path, sizeof(path)) < 0)
		return false;
	size_t len = strcmp(path, ".") == 0 ? 0 : strlen(path);
	return strncmp(elffs.mnt_rel, path, len) == 0 && (len == 0 || elffs.mnt_rel[len] == '/') &&
	       strcmp(elffs.mnt_rel + len + (len > 0), name) == 0;
}

int src_open_dir(const struct node *dir, int flags)
{
	char path[PATH_MAX];
	int ret = rel_path(dir, path, sizeof(path));
	if (ret < 0)
		return ret;
	return open_beneath(path, flags | O_DIRECTORY);
}

int src_locate(const struct node *n, struct srcloc *loc)
{
	loc->owned = false;
	if (!n->parent) { /* file mode: the root is SOURCE itself */
		loc->dirfd = elffs.srcfd;
		loc->name = elffs.single_name;
		return elffs.single_name ? 0 : -EINVAL;
	}
	loc->name = n->name;
	if (!n->parent->parent) {
		loc->dirfd = elffs.srcfd;
		return 0;
	}
	int fd = src_open_dir(n->parent, O_PATH);
	if (fd < 0)
		return fd;
	loc->dirfd = fd;
	loc->owned = true;
	return 0;
}

void src_release(struct srcloc *loc)
{
	if (loc->owned)
		close(loc->dirfd);
	loc->owned = false;
}

int src_lstat(const struct node *n, struct stat *st)
{
	if (!n->parent && !elffs.single_name)
		return fstat(elffs.srcfd, st) < 0 ? -errno : 0;
	struct srcloc loc;
	int ret = src_locate(n, &loc);
	if (ret < 0)
		return ret;
	ret = fstatat(loc.dirfd, loc.name, st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	src_release(&loc);
	return ret;
}

int src_open_file(const struct node *n)
{
	struct srcloc loc;
	int ret = src_locate(n, &loc);
	if (ret < 0)
		return ret;
	int fd = openat(loc.dirfd, loc.name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ret = fd < 0 ? -errno : fd;
	src_release(&loc);
	return ret;
}

ssize_t src_readlink(const struct node *n, char *buf, size_t size)
{
	struct srcloc loc;
	int ret = src_locate(n, &loc);
	if (ret < 0)
		return ret;
	ssize_t len = readlinkat(loc.dirfd, loc.name, buf, size);
	src_release(&loc);
	if (len < 0)
		return -errno;
	if ((size_t)len >= size)
		return -ENAMETOOLONG;
	buf[len] = '\0';
	return len;
}

bool src_current_size(const struct node *n, const pfelf_identity *id, uint64_t *size)
{
	char buf[PATH_MAX];
	const char *path = elffs.single_name;
	if (n->parent) {
		if (rel_path(n, buf, sizeof(buf)) < 0)
			return false;
		path = buf;
	}
	struct stat st;
	if (!path || fstatat(elffs.srcfd, path, &st, AT_SYMLINK_NOFOLLOW) < 0 ||
	    (uint64_t)st.st_dev != id->dev || (uint64_t)st.st_ino != id->ino)
		return false;
	*size = (uint64_t)st.st_size;
	return true;
}

void src_identity(const struct stat *st, pfelf_identity *id)
{
	memset(id, 0, sizeof(*id));
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_sec = st->st_mtim.tv_sec;
	id->mtime_nsec = st->st_mtim.tv_nsec;
	id->ctime_sec = st->st_ctim.tv_sec;
	id->ctime_nsec = st->st_ctim.tv_nsec;
}

bool src_same_identity(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}
