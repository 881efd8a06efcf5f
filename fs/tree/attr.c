/* The attributes the mount shows for a node (docs/elffs.1, "What is shown"). */
#include "tree/attr.h"
#include "content/entries.h"
#include "tree/iopolicy.h"
#include "tree/bidfs_kind.h"

#include <string.h>

/* Mode of a view directory for a source mode: read bits plus matching x bits. */
static mode_t view_dir_mode(mode_t src)
{
	mode_t r = src & 0444;
	return S_IFDIR | r | (r >> 2);
}

/* Mode, link count and size for n whose source has mode m and size size. */
static void shape(const struct node *n, mode_t m, off_t size, struct stat *out)
{
	out->st_nlink = 1;
	out->st_size = node_is_source(n) ? 0 : (off_t)n->size;
	switch (n->kind) {
	case NK_DIR:
		/* nlink 1: "subdirectories not counted" (ELF files become directories) */
		out->st_mode = S_IFDIR | (m & 07555);
		out->st_size = size;
		break;
	case NK_LINK:
		out->st_mode = S_IFLNK | (m & 0555);
		out->st_size = size;
		break;
	case NK_BIN:
		out->st_mode = view_dir_mode(m);
		/* nlink 1: subdirectories not counted (decompressed/ depends on
		 * the parse); size: the most entries there can be */
		out->st_size = (off_t)entries_n;
		break;
	case NK_ARLINK: /* a thin archive's member */
	case NK_DEBUG:  /* a binary's debug link */
		out->st_mode = S_IFLNK | 0777;
		break;
	default: /* inside a binary (entries.h) */
		out->st_mode = node_is_dir(n) ? view_dir_mode(m) : S_IFREG | (m & 0444);
		out->st_nlink = node_is_dir(n) ? 2 : 1;
		break;
	}
}

/* out zeroed, then n's inode number and the owner and times of source node
 * src (n itself, its binary, or the mount's root); src's stat returned. */
static struct srcstat from_source(const struct node *n, struct node *src, struct stat *out)
{
	nodes_lock();
	struct srcstat s = src->src->st;
	nodes_unlock();
	memset(out, 0, sizeof(*out));
	out->st_ino = n->ino;
	out->st_uid = (uid_t)s.uid;
	out->st_gid = (gid_t)s.gid;
	out->st_atim = (struct timespec){(time_t)s.atime, (long)s.atime_ns};
	out->st_mtim = (struct timespec){(time_t)s.mtime, (long)s.mtime_ns};
	out->st_ctim = (struct timespec){(time_t)s.ctime, (long)s.ctime_ns};
	return s;
}

/* An index node (buildid_fs.h): the owner and times of SOURCE's root. */
static void index_attr(struct node *n, struct stat *out)
{
	struct node *root = n;
	while (root->parent)
		root = root->parent;
	struct srcstat s = from_source(n, root, out);
	out->st_blksize = 4096;
	if (n->kind == NK_BIDLINK) {
		out->st_mode = S_IFLNK | 0555; /* as the mount's other symlinks */
		out->st_nlink = 1;
		out->st_size = (off_t)n->size;
	} else {
		out->st_mode = view_dir_mode((mode_t)s.mode);
		out->st_nlink = 2;
	}
	out->st_blocks = (out->st_size + 511) / 512;
}

void attr_of(struct node *n, struct stat *out)
{
	if (bidfs_kind(n->kind)) {
		index_attr(n, out);
		return;
	}
	struct srcstat s = from_source(n, node_is_source(n) ? n : node_broot(n), out);
	out->st_blksize = iopolicy_blksize(n);
	shape(n, (mode_t)s.mode, (off_t)s.size, out);
	out->st_blocks = (out->st_size + 511) / 512;
}
