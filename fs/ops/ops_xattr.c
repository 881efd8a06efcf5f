/*
 * getxattr and listxattr: user.elf.* of section and segment files. Nodes
 * keep only the index of their header: a value is made from the header
 * read again from the view of the node's generation (a node of an older
 * generation answers ENOENT, like its source). Names that are not ours
 * are answered without the view: a user.* name with ENODATA, a name of
 * another namespace (security.*, system.*, trusted.*) with EOPNOTSUPP,
 * since elffs has no attribute there. That is what tools take as "this
 * file system has none": `ls -l` asks for security.selinux and the POSIX
 * ACLs of every entry until one answer says so, then stops asking for
 * the device (ENODATA made it ask again for each entry: two or three
 * round trips an entry, most of a first `ls -l`, docs/benchmarks.md).
 */
#include "ops/ops.h"
#include "watch/watch.h"
#include "source/access.h"
#include "content/arview.h"
#include "cache/bincache.h"
#include "tree/buildid_fs.h"
#include "tree/check.h"
#include "content/entries.h"
#include "content/xattr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The header of section or segment node n, from its view; 0 or -errno. */
static int header_of(struct node *n, struct xattr_hdr *h)
{
	struct bview *v;
	int ret = check_view(n, &v);
	if (ret < 0)
		return ret == -ESTALE ? -ENOENT : ret;
	const pfelf_shdr *sh;
	const pfelf_phdr *ph;
	h->machine = v->eh.machine;
	h->osabi = v->eh.osabi;
	if (n->kind == NK_SECTION && (ret = pfelf_section(v->f, (uint32_t)n->aux, &sh)) == 0)
		h->sh = *sh;
	else if (n->kind == NK_SEGMENT && (ret = pfelf_segment(v->f, (uint32_t)n->aux, &ph)) == 0)
		h->ph = *ph;
	pfelf_chdr ch;
	if (ret == 0 && n->kind == NK_SECTION && entry_compressed(v, (uint32_t)n->aux, &ch)) {
		h->compressed = true;
		h->ch_type = ch.type;
		h->ch_size = ch.size;
	}
	bincache_release(v);
	return ret < 0 ? -EIO : 0;
}

/* Whether nodes of kind k have user.ar.* (members but symlinks: the
 * kernel answers user.* of a symlink itself). */
static bool is_member(enum node_kind k)
{
	return k == NK_MEMBER || k == NK_ARFILE;
}

/* user.ar.* of member node n, from its archive's view. */
static int member_value(struct node *n, const char *name, char *buf)
{
	struct bview *v;
	int ret = check_binary_view(n, &v);
	if (ret < 0)
		return ret == -ESTALE ? -ENOENT : ret;
	ret = arview_xattr(v, (uint32_t)n->aux, name, buf);
	bincache_release(v);
	return ret;
}

#define REFUSED_NAME "user.elffs.refused"

static int value_of(struct node *n, const char *name, char *buf)
{
	if (strncmp(name, "user.", 5) != 0)
		return -EOPNOTSUPP;
	if (n->kind == NK_BIN)
		return strcmp(name, REFUSED_NAME) == 0 ? check_refused(n, buf, XATTR_VALUE_MAX)
		                                       : -ENODATA;
	if (bidfs_kind(n->kind)) {
		int ret = bidfs_getxattr(n, name, buf);
		return ret == -ENODATA && n->kind == NK_BIDROOT ? watch_getxattr(name, buf) : ret;
	}
	if (is_member((enum node_kind)n->kind))
		return member_value(n, name, buf);
	if (!xattr_is_ours((enum node_kind)n->kind, name))
		return -ENODATA;
	struct xattr_hdr h = {0};
	int ret = header_of(n, &h);
	return ret < 0 ? ret : xattr_value((enum node_kind)n->kind, &h, name, buf);
}

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct node *n = node_get(ino);
	char buf[XATTR_VALUE_MAX];
	/* outside user.* nothing is shown (ls -l asks for ACLs and security
	 * labels of every entry): no need to ask SOURCE */
	int len = !n                               ? -ESTALE
	          : strncmp(name, "user.", 5) != 0 ? -EOPNOTSUPP
	                                           : access_check(req, n, ACCESS_SEE);
	if (len == 0)
		len = value_of(n, name, buf);
	node_put(n);
	if (len < 0)
		fuse_reply_err(req, -len);
	else if (size == 0)
		fuse_reply_xattr(req, (size_t)len);
	else if (size < (size_t)len)
		fuse_reply_err(req, ERANGE);
	else
		fuse_reply_buf(req, buf, (size_t)len);
}

/* The names of the index's nodes: the index's, the watch's (its directory). */
static size_t bidx_names(enum node_kind kind, char *buf, size_t size)
{
	size_t len = bidfs_listxattr(kind, buf, size);
	return kind == NK_BIDROOT ? watch_listxattr(buf, size, len) : len;
}

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
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
	enum node_kind kind = (enum node_kind)n->kind;
	nodes_lock();
	bool compressed = n->compressed;
	nodes_unlock();
	/* a binary's directory: user.elffs.refused when its header is (parsed
	 * here, as a lookup inside would) */
	char why[XATTR_VALUE_MAX];
	int refused = kind == NK_BIN ? check_refused(n, why, sizeof(why)) : -ENODATA;
	node_put(n);
	/* any other failure of that parse (over the budget, no memory, the
	 * binary gone) leaves the list empty, as it always was: getfattr -d
	 * and cp -a of the directory go on */
	size_t len = kind == NK_BIN     ? (refused >= 0 ? sizeof(REFUSED_NAME) : 0)
	             : bidfs_kind(kind) ? bidx_names(kind, NULL, 0)
	             : is_member(kind)  ? arview_xattr_list(NULL, 0)
	                                : xattr_list(kind, compressed, NULL, 0);
	if (size == 0) {
		fuse_reply_xattr(req, len);
		return;
	}
	if (size < len) {
		fuse_reply_err(req, ERANGE);
		return;
	}
	char *buf = malloc(len ? len : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (kind == NK_BIN)
		memcpy(buf, REFUSED_NAME, len);
	else if (bidfs_kind(kind))
		bidx_names(kind, buf, len);
	else if (is_member(kind))
		arview_xattr_list(buf, len);
	else
		xattr_list(kind, compressed, buf, len);
	fuse_reply_buf(req, buf, len);
	free(buf);
}
