/* opendir, readdir, releasedir: served from a snapshot taken at opendir. */
#include "ops.h"
#include "dirlist.h"

#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/* d_ino of an entry without a node yet (as libfuse's high-level API uses). */
#define UNKNOWN_INO 0xffffffffULL

static void dirlist_free_link(struct hlink *h)
{
	dirlist_free((struct dirlist *)((char *)h - offsetof(struct dirlist, link)));
}

void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct node *n = node_get(ino);
	struct dirlist *d = NULL;
	int ret = n ? dirlist_open(n, &d) : -ESTALE;
	node_put(n);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
		return;
	}
	handles_add(&d->link, dirlist_free_link);
	fi->fh = (uintptr_t)d;
	if (fuse_reply_open(req, fi) != 0)
		dirlist_free(d);
}

/* Entry number i of d: ".", "..", then the snapshot. */
static void entry(const struct dirlist *d, size_t i, const char **name, struct stat *st)
{
	st->st_mode = S_IFDIR;
	if (i < 2) {
		*name = i == 0 ? "." : "..";
		st->st_ino = i == 0 ? d->self : d->parent;
		return;
	}
	const struct dent *e = &d->e[i - 2];
	uint64_t ino = node_child_ino(d->self, e->name);
	*name = e->name;
	st->st_ino = ino ? ino : UNKNOWN_INO;
	st->st_mode = DTTOIF(e->type);
}

void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	const struct dirlist *d = (const struct dirlist *)(uintptr_t)fi->fh;
	char *buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	size_t used = 0;
	for (size_t i = off < 0 ? 0 : (size_t)off; i < d->n + 2; i++) {
		const char *name;
		struct stat st = {0};
		entry(d, i, &name, &st);
		size_t len =
		        fuse_add_direntry(req, buf + used, size - used, name, &st, (off_t)(i + 1));
		if (len > size - used)
			break;
		used += len;
	}
	fuse_reply_buf(req, buf, used);
	free(buf);
}

void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	dirlist_free((struct dirlist *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}
