/*
 * lookup: find or create the node for a name. In a SOURCE directory it
 * takes an lstat and, for a regular file, the ELF magic; inside a binary
 * it parses the binary (once per generation, through the binary cache).
 */
#include "ops/ops.h"
#include "source/access.h"
#include "base/errors.h"
#include "tree/attr.h"
#include "cache/bincache.h"
#include "cache/dcache.h"
#include "tree/buildid_fs.h"
#include "tree/check.h"
#include "content/entries.h"
#include "source/probe.h"
#include "source/source.h"
#include "watch/watch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kind and lstat of entry name of SOURCE directory dir; *dirfd: the
 * directory, open when the kind is (to be closed with close_dir). */
static int classify(struct node *dir, const char *name, struct stat *st, int *dirfd)
{
	int fd = dir->parent ? src_open_dir(dir, O_PATH) : elffs.srcfd;
	int ret = fd < 0 ? fd : src_statat(fd, name, st); /* -ELOOP: our own mount */
	if (ret == 0)
		ret = probe_classify(fd, name, st);
	*dirfd = ret >= 0 ? fd : -1;
	if (fd >= 0 && fd != elffs.srcfd && ret < 0)
		close(fd);
	if (err_no_fds(ret)) /* even after giving back idle ones */
		return err_for_reader(ret);
	if (fd < 0) /* the directory itself is gone or is something else now */
		return fd == -ENOMEM ? fd : -ENOENT;
	return ret == -EACCES || ret == -ENOTDIR || ret == -ELOOP ? -ENOENT : ret;
}

static void close_dir(int fd)
{
	if (fd >= 0 && fd != elffs.srcfd)
		close(fd);
}

static int lookup_source(struct node *dir, const char *name, struct node **out)
{
	struct stat st;
	int fd;
	uint64_t seq = watch_seq(); /* before SOURCE is looked at */
	int kind = classify(dir, name, &st, &fd);
	if (kind < 0)
		return kind;
	struct node *cand = node_new((enum node_kind)kind, name);
	if (!cand) {
		close_dir(fd);
		return -ENOMEM;
	}
	node_stat_set(cand, &st);
	cand->src->checked_ns = elffs_now_ns();
	*out = node_attach(dir, cand, check_reuse_source);
	watch_hold(*out, fd, name, seq);
	close_dir(fd);
	return 0;
}

/* A node of view v inside parent, of kind kind, showing f: the new one
 * attached, or the equal one there, with the kernel's reference. */
static int inner_node(struct node *parent, const struct bview *v, enum node_kind kind,
                      const char *name, const struct entry_file *f, struct node **out)
{
	struct node *cand = node_new(kind, name);
	if (!cand)
		return -ENOMEM;
	cand->gen = v->gen;
	cand->size = f->size;
	cand->aux = f->aux;
	cand->compressed = f->compressed;
	*out = node_attach(parent, cand, check_reuse_inner);
	return 0;
}

/* The size of a file of kind kind that the daemon makes whole (EB_MADE,
 * entries.h): that of its bytes in the cache, made now when not there. */
static int made_size(struct bview *v, enum node_kind kind, struct entry_file *f)
{
	const char *data;
	struct dentry_data *e = NULL;
	if (entry_bytes_of(kind) != EB_MADE)
		return 0;
	int ret = dcache_made(v, kind, &data, &f->size, &e);
	dcache_release(e);
	return ret;
}

/* Entry e of binary bin, as view v has it. */
static int bin_child(struct node *bin, struct bview *v, const struct bin_entry *e,
                     struct node **out)
{
	struct entry_file f = {0};
	int ret = entry_shape(e, bin, v, &f.size, &f.aux);
	if (ret == 0)
		ret = made_size(v, e->kind, &f);
	return ret < 0 ? ret : inner_node(bin, v, e->kind, e->name, &f, out);
}

/* File name of directory dir (of entry e) of view v. */
static int dir_child(struct node *dir, struct bview *v, const struct bin_entry *e, const char *name,
                     struct node **out)
{
	struct entry_file f = {0};
	int ret = e->lookup(v, name, &f);
	enum node_kind kind = f.kind != NK_DIR ? f.kind : e->file_kind;
	if (ret == 0)
		ret = made_size(v, kind, &f);
	return ret < 0 ? ret : inner_node(dir, v, kind, name, &f, out);
}

/*
 * Lookup inside a binary: in its root (or an archive member's) or one of
 * its directories (the tables of entries.h), always in the binary's
 * current view (a directory node of an older generation the kernel still
 * holds gets children of the current one).
 */
static int lookup_view(struct node *dir, const char *name, struct node **out)
{
	bool root = node_is_vroot(dir);
	const struct bin_entry *e =
	        root ? entry_named(name) : entry_of_kind((enum node_kind)dir->kind);
	if (!e || (!root && e->bytes != EB_DIR))
		return -ENOENT; /* before any parse */
	struct bview *v;
	int ret = check_dir_view(dir, &v);
	if (ret < 0)
		return ret;
	ret = view_child(dir, v, name, out);
	bincache_release(v);
	return ret;
}

int view_child(struct node *dir, struct bview *v, const char *name, struct node **out)
{
	bool root = node_is_vroot(dir);
	/* an ELF file's rows or an archive's, or the files of a directory */
	const struct bin_entry *e =
	        root ? entry_in(v, name) : entry_of_kind((enum node_kind)dir->kind);
	if (!e || (!root && e->bytes != EB_DIR))
		return -ENOENT;
	return root ? bin_child(dir, v, e, out) : dir_child(dir, v, e, name, out);
}

static int lookup_in(struct node *dir, const char *name, struct node **out)
{
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (!node_is_dir(dir))
		return -ENOTDIR;
	/* A directory of SOURCE is looked into by its path even when its node
	 * went stale (what is there now answers); inside a binary, by the
	 * binary's current view unless the binary is gone. */
	int ret = check_node(dir);
	if (ret == -ENOENT && dir->kind != NK_DIR)
		return ret;
	if (bidfs_kind(dir->kind))
		return bidfs_lookup(dir, name, out);
	if (dir->kind != NK_DIR)
		return lookup_view(dir, name, out);
	ret = lookup_source(dir, name, out);
	return ret == -ENOENT && bidfs_is_name(dir, name) ? bidfs_lookup_root(dir, out) : ret;
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *dir = node_get(parent);
	struct node *n = NULL;
	int ret = dir ? access_check(req, dir, ACCESS_INTO) : -ESTALE;
	if (ret == 0)
		ret = lookup_in(dir, name, &n);
	/* a binary the caller cannot read is absent for it, as a file it
	 * cannot read that is not ELF: no listing or lookup tells them apart */
	if (ret == 0 && dir->kind == NK_DIR && n->kind == NK_BIN &&
	    access_check(req, n, ACCESS_INTO) < 0) {
		node_forget(n->ino, 1);
		ret = -ENOENT;
	}
	node_put(dir);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
		return;
	}
	struct fuse_entry_param e = {.ino = n->ino};
	attr_of(n, &e.attr);
	e.attr_timeout = check_timeout(n);
	e.entry_timeout = check_entry_timeout(n);
	if (fuse_reply_entry(req, &e) != 0)
		node_forget(n->ino, 1); /* the kernel did not get it */
}
