/* Access of other users to a shared mount, checked against SOURCE (access.h). */
#include "source/access.h"
#include "base/elffs.h"
#include "base/errors.h"
#include "base/log.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CALLER_GROUPS 64 /* supplementary groups kept on the stack; more are allocated */

static bool shared;     /* allow_other or allow_root, and credentials can be taken */
static bool refuse_all; /* shared, but the daemon's own groups are unknown */
static uid_t self_uid;  /* the daemon's own */
static gid_t self_gid;
static gid_t *self_groups;
static size_t self_ngroups;

/* The caller of a request: its ids and supplementary groups. */
struct caller {
	uid_t uid;
	gid_t gid;
	size_t ngroups;
	gid_t *groups; /* buf, or allocated */
	gid_t buf[CALLER_GROUPS];
};

/* setgroups for this thread only: glibc's wrapper changes every thread. */
static int thread_setgroups(size_t n, const gid_t *groups)
{
	return syscall(SYS_setgroups, n, groups) < 0 ? -errno : 0;
}

/* This thread takes the daemon's credentials back. Nothing the daemon
 * does after may run with a caller's: a thread that cannot get them back
 * (setgroups out of memory, a few times running) ends the daemon. */
static void become_self(void)
{
	for (int tries = 0; tries < 8; tries++) {
		setfsuid(self_uid);
		setfsgid(self_gid);
		if (thread_setgroups(self_ngroups, self_groups) == 0 &&
		    (uid_t)setfsuid((uid_t)-1) == self_uid &&
		    (gid_t)setfsgid((gid_t)-1) == self_gid)
			return;
		usleep(1000);
	}
	elog(LOG_ERR, "cannot take the daemon's own credentials back: exiting");
	abort();
}

/* This thread takes c's credentials for file access (the fs capabilities
 * go with a non-zero fsuid); 0, or -EACCES when they did not all take. */
static int become(const struct caller *c)
{
	if (thread_setgroups(c->ngroups, c->groups) < 0)
		return -EACCES; /* nothing changed (no CAP_SETGID, or no memory) */
	setfsgid(c->gid);
	setfsuid(c->uid);
	/* an invalid id changes nothing and tells the current one */
	if ((uid_t)setfsuid((uid_t)-1) != c->uid || (gid_t)setfsgid((gid_t)-1) != c->gid) {
		become_self();
		return -EACCES;
	}
	return 0;
}

static bool can_switch(void)
{
	struct caller nobody = {.uid = 65534, .gid = 65534, .ngroups = 0, .groups = NULL};
	nobody.groups = nobody.buf;
	if (become(&nobody) < 0)
		return false;
	become_self();
	return (uid_t)setfsuid((uid_t)-1) == self_uid;
}

void access_init(bool sh)
{
	self_uid = geteuid();
	self_gid = getegid();
	if (!sh)
		return;
	int n = getgroups(0, NULL);
	if (n > 0 && (self_groups = calloc((size_t)n, sizeof(gid_t))))
		n = getgroups(n, self_groups);
	if (n < 0 || (n > 0 && !self_groups)) {
		/* without its own groups it could not take them back: other
		 * users are refused (fail closed) */
		elog(LOG_ERR,
		     "shared mount: cannot read the daemon's groups: other users are refused");
		refuse_all = true;
		shared = true;
		return;
	}
	self_ngroups = (size_t)n;
	shared = can_switch();
	if (!shared)
		elog(LOG_WARNING, "shared mount without CAP_SETUID and CAP_SETGID: other users' "
		                  "access is checked by the mode bits the mount shows only, not "
		                  "by SOURCE's POSIX ACLs and directory permissions");
}

static void caller_free(struct caller *c)
{
	if (c->groups != c->buf)
		free(c->groups);
}

/* The caller of req (its groups from /proc: fuse_req_getgroups); 0, or
 * -EACCES when its groups cannot be read (a group of an ACL may deny). */
static int caller_of(fuse_req_t req, struct caller *c)
{
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	c->uid = ctx->uid;
	c->gid = ctx->gid;
	c->groups = c->buf;
	int n = fuse_req_getgroups(req, CALLER_GROUPS, c->buf);
	if (n > CALLER_GROUPS) {
		c->groups = calloc((size_t)n, sizeof(gid_t));
		int m = c->groups ? fuse_req_getgroups(req, n, c->groups) : -ENOMEM;
		n = m > n ? -EAGAIN : m; /* it grew meanwhile: refuse */
	}
	if (n < 0) {
		caller_free(c);
		return -EACCES;
	}
	c->ngroups = (size_t)n;
	return 0;
}

static int faccess(int dirfd, const char *name, int mode, int flags)
{
	return syscall(SYS_faccessat2, dirfd, name, mode, AT_EACCESS | flags) < 0 ? -errno : 0;
}

/* Errors of a check as the caller sees them. */
static int verdict(int ret)
{
	if (ret == 0 || ret == -ENOMEM || ret == -EIO)
		return ret;
	return ret == -ENOENT || ret == -ENOTDIR || ret == -ELOOP || ret == -ESTALE ? -ENOENT
	                                                                            : -EACCES;
}

/* mode on source node s with the caller's credentials (taken); same: s
 * must still be the file it was at its last lstat (a binary's view). */
static int check_source(const struct node *s, int mode, bool same)
{
	if (!s->parent && !elffs.single_name)
		return faccess(elffs.srcfd, ".", mode, 0);
	struct srcloc loc;
	int ret = src_locate(s, &loc);
	if (ret < 0)
		return ret;
	ret = faccess(loc.dirfd, loc.name, mode, AT_SYMLINK_NOFOLLOW);
	struct stat st;
	if (ret == 0 && same)
		ret = fstatat(loc.dirfd, loc.name, &st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	if (ret == 0 && same) {
		nodes_lock();
		bool was = st.st_dev == s->src->st.dev && st.st_ino == s->src->st.ino;
		nodes_unlock();
		ret = was ? 0 : -ENOENT;
	}
	src_release(&loc);
	return ret;
}

/* Whether the caller of req is exempt: not shared, root, or ourselves. */
static bool exempt(fuse_req_t req)
{
	if (!shared)
		return true;
	const struct fuse_ctx *ctx = fuse_req_ctx(req);
	return ctx->uid == 0 || ctx->uid == self_uid;
}

/* Run check_source(s, mode, same) as the caller of req. */
static int as_caller(fuse_req_t req, const struct node *s, int mode, bool same)
{
	if (refuse_all)
		return -EACCES;
	struct caller c;
	int ret = caller_of(req, &c);
	if (ret == 0 && (ret = become(&c)) == 0) {
		ret = check_source(s, mode, same);
		become_self();
	}
	caller_free(&c);
	return verdict(ret);
}

int access_check(fuse_req_t req, const struct node *n, enum access_op op)
{
	if (exempt(req) || n->kind == NK_BIDROOT || n->kind == NK_BIDDIR || n->kind == NK_BIDLINK)
		return 0;
	if (!node_is_source(n)) { /* a part of a binary's view: its bytes */
		const struct node *b = node_broot((struct node *)n);
		return b ? as_caller(req, b, op == ACCESS_EXEC ? R_OK | X_OK : R_OK, true) : 0;
	}
	int mode = F_OK; /* ACCESS_SEE: the search permission of its directories */
	if (op == ACCESS_INTO)
		mode = n->kind == NK_BIN ? R_OK : X_OK;
	else if (op == ACCESS_LIST)
		mode = n->kind == NK_BIN ? R_OK : R_OK | X_OK;
	else if (op == ACCESS_OPEN)
		mode = R_OK;
	return as_caller(req, n, mode, n->kind == NK_BIN && mode != F_OK);
}

int access_filter_begin(fuse_req_t req, const struct node *dir, struct access_filter *f)
{
	*f = (struct access_filter){.on = false, .dirfd = -1, .caller = NULL};
	if (exempt(req))
		return 0;
	if (refuse_all)
		return -EACCES;
	struct caller *c = malloc(sizeof(*c));
	if (!c)
		return -ENOMEM;
	int ret = caller_of(req, c);
	if (ret < 0) {
		free(c);
		return ret;
	}
	/* the caller may list dir (opendir checked it): opened as the daemon */
	int fd = dir->parent ? src_open_dir(dir, O_PATH) : dup(elffs.srcfd);
	if (!dir->parent && fd < 0)
		fd = -errno;
	if (fd < 0) {
		caller_free(c);
		free(c);
		/* gone or something else since opendir: ENOENT (SPEC 7) */
		return fd == -ENOMEM ? fd : err_no_fds(fd) ? err_for_reader(fd) : -ENOENT;
	}
	*f = (struct access_filter){.on = true, .dirfd = fd, .caller = c};
	return 0;
}

bool access_filter_shows(struct access_filter *f, const char *name)
{
	if (!f->on)
		return true;
	struct caller *c = f->caller;
	if (become(c) < 0)
		return false;
	bool shown = faccess(f->dirfd, name, R_OK, AT_SYMLINK_NOFOLLOW) == 0;
	become_self();
	return shown;
}

void access_filter_end(struct access_filter *f)
{
	if (!f->on)
		return;
	close(f->dirfd);
	caller_free(f->caller);
	free(f->caller);
	f->on = false;
}

int access_target(fuse_req_t req, const char *rel)
{
	if (exempt(req))
		return 0;
	if (refuse_all)
		return -EACCES;
	const char *slash = strrchr(rel, '/');
	char dir[PATH_MAX];
	size_t dlen = slash ? (size_t)(slash - rel) : 0;
	if (dlen >= sizeof(dir))
		return -EACCES;
	memcpy(dir, slash ? rel : ".", slash ? dlen : 1);
	dir[slash ? dlen : 1] = '\0';
	struct caller c;
	int ret = caller_of(req, &c);
	if (ret == 0 && (ret = become(&c)) == 0) {
		struct open_how how = {.flags = O_PATH | O_DIRECTORY | O_CLOEXEC,
		                       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		                                  RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV};
		int fd = (int)syscall(SYS_openat2, elffs.srcfd, dir, &how, sizeof(how));
		ret = fd < 0 ? -errno
		             : faccess(fd, slash ? slash + 1 : rel, R_OK, AT_SYMLINK_NOFOLLOW);
		if (fd >= 0)
			close(fd);
		become_self();
	}
	caller_free(&c);
	return ret == 0 ? 0 : -EACCES;
}
