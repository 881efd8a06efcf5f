/*
 * The file systems below SOURCE: read from /proc/self/mountinfo, each
 * marked on the fanotify group as a whole (FAN_MARK_FILESYSTEM), and the
 * table of devices whose nodes live with the long timeout. A file system
 * is left on -o timeout when changes made elsewhere raise no event here
 * (network and cluster file systems, FUSE, virtiofs: refused by type,
 * before any call into them, which could hang) or when the mark is
 * refused: no fsid or no file handles (proc, sysfs: EOPNOTSUPP or
 * ENODEV), a btrfs subvolume other than its file system's root (EXDEV),
 * no CAP_SYS_ADMIN (EPERM).
 */
#include "watch/watch_i.h"
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>

#define WATCH_MASK                                                                                 \
	(FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO | FAN_ATTRIB | FAN_MODIFY |       \
	 FAN_CLOSE_WRITE | FAN_DELETE_SELF | FAN_MOVE_SELF | FAN_ONDIR)
#define WFS_MAX  1024 /* file systems below SOURCE kept in the table */
#define LOG_ROOM 2048

struct wfs_ent {
	uint64_t dev;
	uint64_t fsid;
	uint64_t point; /* a hash of its mount point */
	bool watched;
};

static pthread_rwlock_t table_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct wfs_ent *table;
static size_t table_n;
static bool table_whole; /* every file system below SOURCE is watched (table_lock) */

/* File system types whose changes made elsewhere raise no local event. */
static const char *remote_type(const char *type)
{
	static const char *const remote[] = {"nfs",    "nfs4",      "cifs",   "smb3",    "smbfs",
	                                     "9p",     "ceph",      "afs",    "gfs2",    "ocfs2",
	                                     "lustre", "glusterfs", "vboxsf", "virtiofs"};
	if (strncmp(type, "fuse", 4) == 0)
		return "FUSE: changes its server makes raise no event";
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (strcmp(type, remote[i]) == 0)
			return "shared file system: changes made elsewhere raise no event";
	return NULL;
}

/* mountinfo's octal escapes (\040) undone in place. */
static void unescape(char *s)
{
	char *w = s;
	for (char *r = s; *r; w++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	}
	*w = '\0';
}

/* Whether path is dir or below it. */
static bool below(const char *path, const char *dir)
{
	size_t len = strcmp(dir, "/") == 0 ? 0 : strlen(dir);
	return strncmp(path, dir, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

struct mnt {
	unsigned major, minor;
	char *point, *type;
};

/* One mountinfo line into m (pointing into line); 0 or -EINVAL. */
static int parse_line(char *line, struct mnt *m)
{
	char *save, *f[5];
	for (int i = 0; i < 5; i++)
		if (!(f[i] = strtok_r(i ? NULL : line, " \n", &save)))
			return -EINVAL;
	if (sscanf(f[2], "%u:%u", &m->major, &m->minor) != 2)
		return -EINVAL;
	char *t;
	while ((t = strtok_r(NULL, " \n", &save)) && strcmp(t, "-") != 0)
		;
	if (!t || !(m->type = strtok_r(NULL, " \n", &save)))
		return -EINVAL;
	m->point = f[4];
	unescape(m->point);
	return 0;
}

/* Mark m's file system on group fd: NULL, or why it is not watched. */
static const char *mark(int fd, const struct mnt *m, const char *mountpoint)
{
	if (strcmp(m->point, mountpoint) == 0 || below(m->point, mountpoint))
		return "this mount";
	const char *why = remote_type(m->type);
	if (why)
		return why;
	if (fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, WATCH_MASK, AT_FDCWD, m->point) <
	    0)
		return errno == EXDEV   ? "EXDEV: a btrfs subvolume, not its file system's root"
		       : errno == EPERM ? "EPERM: no CAP_SYS_ADMIN"
		                        : strerror(errno);
	return NULL;
}

static void log_add(char *buf, size_t *used, const struct mnt *m, const char *why)
{
	if (*used >= LOG_ROOM - 1)
		return;
	int n = snprintf(buf + *used, LOG_ROOM - *used, "%s%s (%s)%s%s", *used ? "; " : "",
	                 m->point, m->type, why ? " not watched: " : " watched", why ? why : "");
	*used = n < 0 ? *used : *used + (size_t)n >= LOG_ROOM ? LOG_ROOM - 1 : *used + (size_t)n;
}

/* The mount points of the mounts below SOURCE, and of the one it is in. */
static bool wanted(const struct mnt *m, const char *best)
{
	return below(m->point, elffs.source) || strcmp(m->point, best) == 0;
}

/* The mount point SOURCE lies in: the longest one it is below. */
static void containing(FILE *f, char *best, size_t size)
{
	char *line = NULL;
	size_t cap = 0;
	best[0] = '\0';
	while (getline(&line, &cap, f) > 0) {
		struct mnt m;
		if (parse_line(line, &m) == 0 && below(elffs.source, m.point) &&
		    strlen(m.point) >= strlen(best) && strlen(m.point) < size)
			strcpy(best, m.point);
	}
	free(line);
	rewind(f);
}

/* FNV-1a of s. */
static uint64_t point_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* Why a file system of statfs type magic is not watched (remote_type's
 * reasons), or NULL. */
static const char *remote_magic(long magic)
{
	static const long remote[] = {0x6969 /* nfs */,       0x517b /* smb */,
	                              0xff534d42 /* cifs */,  0xfe534d42 /* smb2 */,
	                              0x01021997 /* 9p */,    0x00c36400 /* ceph */,
	                              0x5346414f /* afs */,   0x01161970 /* gfs2 */,
	                              0x7461636f /* ocfs2 */, 0x0bd00bd0 /* lustre */};
	if (magic == 0x65735546) /* FUSE, virtiofs */
		return remote_type("fuse");
	for (size_t i = 0; i < sizeof(remote) / sizeof(remote[0]); i++)
		if (magic == remote[i])
			return remote_type("nfs");
	return NULL;
}

/* SOURCE's own file system when mountinfo does not show it (a chroot:
 * mounts outside the process's root are left out): classified by its
 * statfs type and marked through SOURCE's path. 1 when t[n] is that entry
 * (none of t[0] to t[n - 1] is on SOURCE's device). */
static int source_fs(int fd, struct wfs_ent *t, size_t n, char *buf, size_t *used)
{
	struct stat st;
	struct statfs sf;
	if (stat(elffs.source, &st) < 0 || !S_ISDIR(st.st_mode) || statfs(elffs.source, &sf) < 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (t[i].dev == st.st_dev)
			return 0;
	const char *why = remote_magic((long)sf.f_type);
	if (!why && fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, WATCH_MASK, AT_FDCWD,
	                          elffs.source) < 0)
		why = errno == EPERM ? "EPERM: no CAP_SYS_ADMIN" : strerror(errno);
	struct mnt m = {.point = (char *)elffs.source, .type = "not in mountinfo"};
	t[n] = (struct wfs_ent){.dev = st.st_dev,
	                        .fsid = why ? 0 : wfs_fsid_of(&sf.f_fsid),
	                        .point = point_hash(elffs.source),
	                        .watched = !why};
	log_add(buf, used, &m, why);
	return 1;
}

/* Publish table t of n entries: whether it differs from the one before
 * (a mount table change elsewhere leaves it the same). */
static bool publish(struct wfs_ent *t, size_t n, bool whole)
{
	pthread_rwlock_wrlock(&table_lock);
	table_whole = whole && n > 0;
	bool changed = n != table_n;
	for (size_t i = 0; i < n && !changed; i++)
		changed = t[i].dev != table[i].dev || t[i].fsid != table[i].fsid ||
		          t[i].point != table[i].point || t[i].watched != table[i].watched;
	free(table);
	table = t;
	table_n = n;
	pthread_rwlock_unlock(&table_lock);
	return changed;
}

int wfs_scan(int fd, bool log, bool *changed)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	struct wfs_ent *t = calloc(WFS_MAX, sizeof(*t));
	char *buf = malloc(LOG_ROOM), best[4096], *line = NULL;
	size_t cap = 0, n = 0, used = 0;
	int watched = 0;
	bool whole = true;
	if (!f || !t || !buf) {
		int ret = f ? -ENOMEM : -errno;
		if (f)
			fclose(f);
		free(t);
		free(buf);
		return ret;
	}
	buf[0] = '\0';
	containing(f, best, sizeof(best));
	while (getline(&line, &cap, f) > 0) {
		struct mnt m;
		if (parse_line(line, &m) < 0 || !wanted(&m, best) || n == WFS_MAX)
			continue;
		const char *why = mark(fd, &m, elffs.mountpoint);
		struct statfs sf;
		if (!why && statfs(m.point, &sf) < 0)
			why = strerror(errno);
		t[n].fsid = why ? 0 : wfs_fsid_of(&sf.f_fsid);
		t[n].dev = makedev(m.major, m.minor);
		t[n].point = point_hash(m.point);
		t[n++].watched = !why;
		watched += !why;
		if (strcmp(why ? why : "", "this mount") != 0)
			log_add(buf, &used, &m, why);
		whole &= !why || strcmp(why, "this mount") == 0;
	}
	free(line);
	fclose(f);
	if (n < WFS_MAX && source_fs(fd, t, n, buf, &used)) {
		watched += t[n].watched;
		whole &= t[n++].watched;
	}
	*changed = publish(t, n, whole && n < WFS_MAX);
	if (log)
		elog(LOG_NOTICE, "watch: %s", used ? buf : "no file system below SOURCE");
	free(buf);
	return watched;
}

void wfs_destroy(void)
{
	(void)publish(NULL, 0, false);
}

uint64_t wfs_fsid_of(const void *kernel_fsid)
{
	uint32_t v[2];
	memcpy(v, kernel_fsid, sizeof(v));
	return (uint64_t)v[0] | (uint64_t)v[1] << 32;
}

bool wfs_watched(uint64_t dev, uint64_t *fsid)
{
	bool w = false;
	pthread_rwlock_rdlock(&table_lock);
	for (size_t i = 0; i < table_n && !w; i++)
		if (table[i].dev == dev && table[i].watched) {
			w = true;
			*fsid = table[i].fsid;
		}
	pthread_rwlock_unlock(&table_lock);
	return w;
}

bool wfs_whole(void)
{
	pthread_rwlock_rdlock(&table_lock);
	bool whole = table_whole;
	pthread_rwlock_unlock(&table_lock);
	return whole;
}

bool watch_dev(uint64_t dev)
{
	uint64_t fsid;
	return wfs_watched(dev, &fsid);
}
