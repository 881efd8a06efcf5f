/*
 * Access to SOURCE without following symlinks and without ever entering
 * the daemon's own mount (docs/architecture.md, "Access to SOURCE").
 *
 * The own mount is known by its device, learned at INIT (before any other
 * request can arrive). A system call that resolves a path into our mount
 * would be answered by ourselves: under -s, or once every worker waits on
 * such a call, never. So nothing here resolves a name that may be a mount
 * point with a call that can reach its file system: a name is opened with
 * openat2(RESOLVE_NO_XDEV), which fails with EXDEV instead of entering
 * another mount; only then is it opened O_PATH (which sends nothing to
 * FUSE), its device read with statx of an empty mask (which never asks a
 * FUSE daemon either), and, when it is not ours, opened again through that
 * descriptor. Other file systems mounted below SOURCE thus stay visible.
 */
#include "source/source.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#define RESOLVE_SAFE (RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH)
#define OWN_MAX      8 /* devices taken for our own mount */

static atomic_int no_openat2;
static dev_t own_devs[OWN_MAX];
static atomic_uint own_count;
static atomic_bool own_logged;

/* ------------------------------------------------------------ own mount */

static void own_add(dev_t dev)
{
	unsigned n = atomic_load(&own_count);
	for (unsigned i = 0; i < n; i++)
		if (own_devs[i] == dev)
			return;
	if (n < OWN_MAX) {
		own_devs[n] = dev;
		atomic_store(&own_count, n + 1);
	}
}

bool src_is_own_dev(dev_t dev)
{
	unsigned n = atomic_load(&own_count);
	for (unsigned i = 0; i < n; i++)
		if (own_devs[i] == dev)
			return true;
	return false;
}

/* The connection of /dev/fuse descriptor fd, from its fdinfo (recent
 * kernels): it is the mount's device number. */
static int own_from_fdinfo(int fd)
{
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0)
		return -errno;
	ssize_t n = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (n <= 0)
		return -EIO;
	buf[n] = '\0';
	const char *p = strstr(buf, "fuse_connection:");
	if (!p)
		return -ENOENT;
	unsigned long kdev = strtoul(p + strlen("fuse_connection:"), NULL, 10);
	own_add(makedev((unsigned)(kdev >> 20), (unsigned)(kdev & 0xfffff))); /* kernel dev_t */
	return 0;
}

/* mountinfo escapes space, tab, newline and backslash as \ooo. */
static void unescape(char *s)
{
	char *o = s;
	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*o++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 | (s[3] - '0'));
			s += 3;
		} else {
			*o++ = *s;
		}
	}
	*o = '\0';
}

/* One line of /proc/self/mountinfo: a FUSE mount whose source is SOURCE
 * (the daemon's default fsname) is taken for ours. */
static void own_from_line(char *line)
{
	unsigned ma, mi;
	char *sep = strstr(line, " - ");
	if (!sep || sscanf(line, "%*s %*s %u:%u", &ma, &mi) != 2)
		return;
	char *save = NULL;
	char *type = strtok_r(sep + 3, " \n", &save);
	char *source = type ? strtok_r(NULL, " \n", &save) : NULL;
	if (!source || strncmp(type, "fuse", 4) != 0)
		return;
	unescape(source);
	if (elffs.source && strcmp(source, elffs.source) == 0)
		own_add(makedev(ma, mi));
}

static void own_from_mountinfo(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return;
	char *line = NULL;
	size_t cap = 0;
	while (getline(&line, &cap, f) > 0)
		own_from_line(line);
	free(line);
	fclose(f);
}

/* The device of name in dirfd (or of dirfd with AT_EMPTY_PATH in flags).
 * An empty mask: no file system is asked, not even a FUSE one. */
static int dev_of(int dirfd, const char *name, int flags, dev_t *dev)
{
	struct statx sx;
	if (statx(dirfd, name, flags | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
	          0, &sx) < 0)
		return -errno;
	*dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	return 0;
}

void src_learn_own_mount(int fusefd)
{
	dev_t dev;
	if (own_from_fdinfo(fusefd) == 0)
		return;
	/* Older kernels: the mount point when it lies inside SOURCE, and the
	 * FUSE mounts of SOURCE by name. */
	if (elffs.mnt_rel && dev_of(elffs.srcfd, elffs.mnt_rel, 0, &dev) == 0 && major(dev) == 0)
		own_add(dev);
	own_from_mountinfo();
	if (atomic_load(&own_count) == 0)
		elog(LOG_WARNING, "cannot tell the mount's device: a bind mount of the mount point "
		                  "inside SOURCE could hang it");
}

/* -ELOOP when the object of descriptor fd is on our own mount, else 0. */
static int not_own(int fd, const char *name)
{
	dev_t dev = 0; /* set when dev_of succeeds; 0 quiets -Wmaybe-uninitialized */
	int ret = dev_of(fd, "", AT_EMPTY_PATH, &dev);
	if (ret < 0 || !src_is_own_dev(dev))
		return ret;
	if (!atomic_exchange(&own_logged, true))
		elog(LOG_WARNING,
		     "SOURCE entry '%s' is the mount itself (a bind mount of it?): left "
		     "out, as every other such entry from now on",
		     name);
	return -ELOOP;
}

int src_check_entry(int dirfd, const char *name)
{
	dev_t dev = 0; /* set when dev_of succeeds; 0 quiets -Wmaybe-uninitialized */
	int ret = dev_of(dirfd, name, 0, &dev);
	if (ret < 0 || !src_is_own_dev(dev))
		return ret;
	int fd = src_openat(dirfd, name, O_PATH); /* -ELOOP, and logs it */
	if (fd < 0)
		return fd;
	close(fd); /* not ours any more */
	return 0;
}

/* ------------------------------------------------------------- opening */

/* openat2 of path in dirfd, never through a symlink nor out of dirfd, and
 * with RESOLVE_NO_XDEV in resolve never into another mount (-EXDEV);
 * -ENOSYS on a kernel without it. */
static int open2(int dirfd, const char *path, int flags, uint64_t resolve)
{
	if (atomic_load(&no_openat2))
		return -ENOSYS;
	struct open_how how = {
	        .flags = (uint64_t)(flags | O_NOFOLLOW | O_CLOEXEC),
	        .resolve = RESOLVE_SAFE | resolve,
	};
	long fd = syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (fd >= 0)
		return (int)fd;
	if (errno != ENOSYS && errno != EPERM)
		return -errno;
	atomic_store(&no_openat2, 1); /* old kernel or a seccomp filter */
	return -ENOSYS;
}

/* The object of O_PATH descriptor pfd opened again with flags. */
static int reopen_path(int pfd, int flags)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", pfd);
	int fd = open(path, (flags & ~O_NOFOLLOW) | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * Open entry name of directory dirfd (never our own mount) with flags,
 * not following a symlink, never entering our own mount (-ELOOP).
 */
static int open_entry(int dirfd, const char *name, int flags)
{
	int fd = open2(dirfd, name, flags, RESOLVE_NO_XDEV);
	if (fd != -EXDEV && fd != -ENOSYS)
		return fd;
	/* A mount point (or no openat2): its device first, through O_PATH. */
	int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC | (flags & O_DIRECTORY));
	if (pfd < 0)
		return -errno;
	int ret = not_own(pfd, name);
	if (ret == 0 && (flags & O_PATH))
		return pfd;
	if (ret == 0 && fd == -EXDEV)
		ret = reopen_path(pfd, flags);
	else if (ret == 0) /* without openat2: a mount made in between is not seen */
		ret = (fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC)) < 0 ? -errno : fd;
	close(pfd);
	return ret;
}

/* st from what statx gave (the fields of a struct stat that elffs uses). */
static void stat_of_statx(const struct statx *sx, struct stat *st)
{
	memset(st, 0, sizeof(*st));
	st->st_dev = makedev(sx->stx_dev_major, sx->stx_dev_minor);
	st->st_ino = sx->stx_ino;
	st->st_mode = sx->stx_mode;
	st->st_nlink = sx->stx_nlink;
	st->st_uid = sx->stx_uid;
	st->st_gid = sx->stx_gid;
	st->st_rdev = makedev(sx->stx_rdev_major, sx->stx_rdev_minor);
	st->st_size = (off_t)sx->stx_size;
	st->st_blksize = (blksize_t)sx->stx_blksize;
	st->st_blocks = (blkcnt_t)sx->stx_blocks;
	st->st_atim = (struct timespec){sx->stx_atime.tv_sec, sx->stx_atime.tv_nsec};
	st->st_mtim = (struct timespec){sx->stx_mtime.tv_sec, sx->stx_mtime.tv_nsec};
	st->st_ctim = (struct timespec){sx->stx_ctime.tv_sec, sx->stx_ctime.tv_nsec};
}

/*
 * lstat of a mount point below SOURCE (O_PATH descriptor pfd, not ours):
 * the attributes the kernel has of the mounted root (AT_STATX_DONT_SYNC),
 * never asking its file system, so that a mount whose daemon stopped
 * answering cannot hold a listing, a lookup or a re-check of its parent
 * (docs/security.md, section 5). mount_point: openat2 said so (EXDEV);
 * without openat2, statx says it (STATX_ATTR_MOUNT_ROOT), else a plain
 * fstat as before.
 */
static int stat_mount_point(int pfd, bool mount_point, struct stat *st)
{
	struct statx sx;
	if (statx(pfd, "",
	          AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
	          STATX_BASIC_STATS, &sx) == 0 &&
	    (sx.stx_mask & STATX_BASIC_STATS) == STATX_BASIC_STATS &&
	    (mount_point || (sx.stx_attributes_mask & sx.stx_attributes & STATX_ATTR_MOUNT_ROOT))) {
		stat_of_statx(&sx, st);
		return 0;
	}
	return fstat(pfd, st) < 0 ? -errno : 0;
}

static int stat_entry(int dirfd, const char *name, struct stat *st)
{
	int fd = open2(dirfd, name, O_PATH, RESOLVE_NO_XDEV);
	if (fd >= 0) { /* no mount on the way */
		int ret = fstat(fd, st) < 0 ? -errno : 0;
		close(fd);
		return ret;
	}
	if (fd != -EXDEV && fd != -ENOSYS)
		return fd;
	int pfd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (pfd < 0)
		return -errno;
	int ret = not_own(pfd, name);
	if (ret == 0)
		ret = stat_mount_point(pfd, fd == -EXDEV, st);
	close(pfd);
	return ret;
}

int src_statat(int dirfd, const char *name, struct stat *st)
{
	unsigned tries = 0;
	int ret;
	do
		ret = stat_entry(dirfd, name, st);
	while (src_fd_retry(ret, &tries));
	return ret;
}

int src_statat_listed(int dirfd, const char *name, struct stat *st)
{
	struct statx sx;
	if (statx(dirfd, name, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC,
	          STATX_BASIC_STATS, &sx) < 0)
		return -errno;
	if (!(sx.stx_attributes_mask & STATX_ATTR_MOUNT_ROOT) ||
	    (sx.stx_attributes & STATX_ATTR_MOUNT_ROOT) ||
	    (sx.stx_mask & STATX_BASIC_STATS) != STATX_BASIC_STATS)
		return src_statat(dirfd, name, st); /* a mount point: its device checked */
	stat_of_statx(&sx, st);
	return 0;
}

int src_openat(int dirfd, const char *name, int flags)
{
	unsigned tries = 0;
	int ret;
	do
		ret = open_entry(dirfd, name, flags);
	while (src_fd_retry(ret, &tries));
	return ret;
}

/* ----------------------------------------------------------- directories */

/* Path of source directory node dir relative to SOURCE ("." for the root). */
static int rel_path(const struct node *dir, char *buf, size_t size)
{
	int ret = node_source_path(dir, buf, size);
	if (ret == 0 && size > 1)
		strcpy(buf, ".");
	return ret < 0 ? ret : 0;
}

/*
 * Open directory node dir one component at a time from SOURCE: below a
 * mount point, or deeper than PATH_MAX. Each step is an open_entry, so
 * our own mount is never entered.
 */
static int walk(const struct node *dir, int flags)
{
	size_t depth = 0;
	for (const struct node *n = dir; n->parent; n = n->parent)
		depth++;
	const struct node **chain = malloc(depth * sizeof(*chain));
	if (!chain)
		return -ENOMEM;
	size_t i = depth;
	for (const struct node *n = dir; n->parent; n = n->parent)
		chain[--i] = n;
	int cur = elffs.srcfd;
	for (i = 0; i < depth && cur >= 0; i++) {
		int fd = open_entry(cur, chain[i]->name,
		                    i + 1 < depth ? O_PATH | O_DIRECTORY : flags);
		if (cur != elffs.srcfd)
			close(cur);
		cur = fd;
	}
	free(chain);
	return cur;
}

static int open_dir(const struct node *dir, int flags)
{
	if (!dir->parent) {
		int fd = openat(elffs.srcfd, ".", flags | O_CLOEXEC);
		return fd < 0 ? -errno : fd;
	}
	char path[PATH_MAX];
	int ret = rel_path(dir, path, sizeof(path));
	if (ret == 0) { /* one call when no mount lies on the way */
		ret = open2(elffs.srcfd, path, flags, RESOLVE_NO_XDEV);
		if (ret != -EXDEV && ret != -ENOSYS)
			return ret;
	}
	return walk(dir, flags);
}

int src_open_dir(const struct node *dir, int flags)
{
	unsigned tries = 0;
	int ret;
	do
		ret = open_dir(dir, flags | O_DIRECTORY);
	while (src_fd_retry(ret, &tries));
	return ret;
}

/* --------------------------------------------------------------- nodes */

static src_foreign_locate_fn foreign_locate;

void src_set_foreign_locate(src_foreign_locate_fn fn)
{
	foreign_locate = fn;
}

bool src_is_foreign(const struct node *n)
{
	return n->parent && !node_is_source(n->parent);
}

/* src_locate without looking at the entry itself. */
static int locate(const struct node *n, struct srcloc *loc)
{
	loc->owned = false;
	if (!n->parent) { /* file mode: the root is SOURCE itself */
		loc->dirfd = elffs.srcfd;
		loc->name = elffs.single_name;
		return elffs.single_name ? 0 : -EINVAL;
	}
	if (src_is_foreign(n))
		return foreign_locate ? foreign_locate(n, loc) : -ENOENT;
	loc->name = n->name;
	if (!n->parent->parent) {
		loc->dirfd = elffs.srcfd;
		return 0;
	}
	int fd = src_open_dir(n->parent, O_PATH);
	if (fd < 0) /* a directory on the way is a file now: n is gone from there */
		return fd == -ENOTDIR ? -ENOENT : fd;
	loc->dirfd = fd;
	loc->owned = true;
	return 0;
}

int src_locate(const struct node *n, struct srcloc *loc)
{
	int ret = locate(n, loc);
	if (ret == 0 && (ret = src_check_entry(loc->dirfd, loc->name)) < 0)
		src_release(loc);
	return ret;
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
	int ret = locate(n, &loc);
	if (ret < 0)
		return ret;
	ret = src_statat(loc.dirfd, loc.name, st);
	src_release(&loc);
	return ret;
}

int src_open_file(const struct node *n)
{
	struct srcloc loc;
	int ret = locate(n, &loc);
	if (ret < 0)
		return ret;
	ret = src_openat(loc.dirfd, loc.name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	src_release(&loc);
	return ret;
}

ssize_t src_readlink(const struct node *n, char *buf, size_t size)
{
	struct srcloc loc;
	int ret = locate(n, &loc);
	if (ret < 0)
		return ret;
	int fd = src_openat(loc.dirfd, loc.name, O_PATH);
	src_release(&loc);
	if (fd < 0)
		return fd;
	ssize_t len = readlinkat(fd, "", buf, size);
	ret = len < 0 ? -errno : 0;
	close(fd);
	if (ret < 0)
		return ret == -ENOENT ? -EINVAL : ret; /* "": not a symlink any more */
	if ((size_t)len >= size)
		return -ENAMETOOLONG;
	buf[len] = '\0';
	return len;
}
