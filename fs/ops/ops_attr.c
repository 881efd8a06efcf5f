/* getattr, readlink, forget and statfs. */
#include "ops/ops.h"
#include "source/access.h"
#include <string.h>
#include "content/arview.h"
#include "content/debugview.h"
#include "tree/attr.h"
#include "cache/bincache.h"
#include "tree/buildid_fs.h"
#include "tree/buildid_remote.h"
#include "tree/check.h"
#include "source/source.h"

#include <errno.h>
#include <limits.h>
#include <sys/statvfs.h>

/*
 * getattr re-checks the source when due, but never fails for a live node:
 * a node that went stale keeps answering with its own size and its
 * source's current times (a changed mtime makes the kernel drop the pages
 * it cached for it), so fstat on an old open file goes on working.
 */
void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_get(ino);
	if (!n) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	int ret = access_check(req, n, ACCESS_SEE);
	if (ret < 0) {
		node_put(n);
		fuse_reply_err(req, -ret);
		return;
	}
	check_node(n);
	struct stat st;
	attr_of(n, &st);
	double timeout = check_timeout(n);
	node_put(n);
	fuse_reply_attr(req, &st, timeout);
}

/* The view a symlink n of a view is read from, pinned (*v): 0, or -errno
 * (ENOENT for a link of an older view). */
static int link_view(struct node *n, struct bview **v)
{
	int ret = check_node(n);
	if (ret == 0)
		ret = check_view(n, v);
	return ret == -ESTALE ? -ENOENT : ret;
}

/* The target of thin archive member n, from its archive's view. */
static ssize_t member_target(struct node *n, char *buf, size_t size)
{
	struct bview *v;
	int ret = link_view(n, &v);
	if (ret < 0)
		return ret;
	ssize_t len = arview_link(v, (uint32_t)n->aux, buf, size);
	bincache_release(v);
	return len;
}

/* The target of a binary's debug link n, and in src the file of SOURCE it
 * leads to ("" for a file of the mount's own). */
static ssize_t debug_target(struct node *n, char *buf, size_t size, char *src)
{
	struct bview *v;
	int ret = link_view(n, &v);
	if (ret < 0)
		return ret;
	ret = debug_readlink(n, v, buf, size, src);
	bincache_release(v);
	return ret == -ENAMETOOLONG ? -ERANGE : ret;
}

/* The target of symlink node n, read by its path: a link that is gone or
 * is something else now answers ENOENT. src: see debug_target. */
static ssize_t link_target(struct node *n, char *buf, size_t size, char *src)
{
	if (n->kind == NK_BIDLINK)
		return bidfs_readlink(n, buf, size, src);
	if (n->kind == NK_ARLINK)
		return member_target(n, buf, size);
	if (n->kind == NK_DEBUG)
		return debug_target(n, buf, size, src);
	if (n->kind != NK_LINK)
		return -EINVAL;
	check_node(n);
	ssize_t ret = src_readlink(n, buf, size);
	if (ret < 0 && ret != -ENAMETOOLONG && ret != -ENOMEM) {
		check_force(n);
		ret = -ENOENT;
	}
	return ret;
}

/* A .build-id link's target (../../<path>/elf) is shown to those who may
 * read the binary at <path> only: ret, or -EACCES. */
static ssize_t bidlink_allowed(fuse_req_t req, char *target, size_t ret)
{
	static const char up[] = "../../", elf[] = "/elf";
	size_t u = sizeof(up) - 1, e = sizeof(elf) - 1;
	if (ret <= u + e || memcmp(target, up, u) != 0 || strcmp(target + ret - e, elf) != 0)
		return -EACCES;
	target[ret - e] = '\0';
	int ok = access_target(req, target + u);
	target[ret - e] = '/';
	return ok < 0 ? ok : (ssize_t)ret;
}

void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	struct node *n = node_get(ino);
	char buf[PATH_MAX], src[PATH_MAX] = "";
	ssize_t ret = n ? access_check(req, n, ACCESS_SEE) : -ESTALE;
	if (ret == 0)
		ret = link_target(n, buf, sizeof(buf), src);
	if (ret > 0 && n->kind == NK_BIDLINK && !bidrem_is_link(n) &&
	    !src[0]) /* a view's own access */
		ret = bidlink_allowed(req, buf, (size_t)ret);
	if (ret > 0 && src[0] && access_target(req, src) < 0) /* the rule of .build-id links */
		ret = -EACCES;
	node_put(n);
	if (ret < 0)
		fuse_reply_err(req, (int)-ret);
	else
		fuse_reply_readlink(req, buf);
}

void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup)
{
	node_forget(ino, nlookup);
	fuse_reply_none(req);
	nodes_trim();
}

void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets)
{
	for (size_t i = 0; i < count; i++)
		node_forget(forgets[i].ino, forgets[i].nlookup);
	fuse_reply_none(req);
	nodes_trim(); /* after the reply: the kernel need not wait for it */
}

void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
	struct statvfs sv;
	if (fstatvfs(elffs.srcfd, &sv) < 0) {
		fuse_reply_err(req, errno);
		return;
	}
	sv.f_bfree = sv.f_bavail = 0;
	sv.f_ffree = sv.f_favail = 0;
	sv.f_namemax = NAME_MAX;
	fuse_reply_statfs(req, &sv);
}
