/* getxattr and listxattr: user.elf.* of section and segment files. */
#include "ops.h"
#include "xattr.h"

#include <errno.h>
#include <stdlib.h>

void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	struct node *n = node_get(ino);
	char buf[XATTR_VALUE_MAX];
	int len = n ? xattr_value(n->kind, n->file, name, buf) : -ESTALE;
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

void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	struct node *n = node_get(ino);
	if (!n) {
		fuse_reply_err(req, ESTALE);
		return;
	}
	enum node_kind kind = n->kind;
	struct nfile f = {0};
	if (n->file)
		f = *n->file; /* immutable; n may go at node_put */
	node_put(n);
	f.text = NULL;
	size_t len = xattr_list(kind, &f, NULL, 0);
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
	xattr_list(kind, &f, buf, len);
	fuse_reply_buf(req, buf, len);
	free(buf);
}
