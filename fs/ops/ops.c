/* The handler table and the connection setup. */
#include "ops/ops.h"
#include "tree/buildid_fs.h"
#include "tree/buildid_remote.h"
#include "node/nodes.h"
#include "ops/initext.h"
#include "ops/passthrough.h"
#include "tree/iopolicy.h"
#include "base/log.h"
#include "ops/readahead.h"
#include "source/source.h"
#include "base/stall.h"

#include <stdio.h>

/*
 * The largest read request, in pages, to offer at INIT: -o max_read= or
 * ELFFS_REQUEST_PAGES, within the kernel's /proc/sys/fs/fuse/max_pages_limit
 * (Linux 6.13+; 256 before, and by default). 0: libfuse's 256 stands.
 */
static uint16_t request_pages(void)
{
	unsigned limit = 0;
	FILE *f = fopen("/proc/sys/fs/fuse/max_pages_limit", "re");
	if (f) {
		if (fscanf(f, "%u", &limit) != 1)
			limit = 0;
		fclose(f);
	}
	unsigned want = elffs.max_read ? elffs.max_read / 4096 : ELFFS_REQUEST_PAGES;
	unsigned pages = want < limit ? want : limit;
	if (pages > UINT16_MAX)
		pages = UINT16_MAX;
	return pages > 256 ? (uint16_t)pages : 0;
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	/* Before the kernel sends anything else: what our own mount is. */
	if (elffs.se)
		src_learn_own_mount(fuse_session_fd(elffs.se));
	/* Memory buffers point into shared file mappings: never splice them. */
	conn->want &= ~(FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/* Every listing is asked with attributes; which entries get them is
	 * ops_dir.c's choice (the kernel's own would drop them past the first
	 * buffer of a directory, where a second walk needs them most). */
	conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
	/* A changed mtime or size in a getattr reply drops cached pages. */
	if (conn->capable & FUSE_CAP_AUTO_INVAL_DATA)
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	conn->time_gran = 1;
	/* libfuse refuses an INIT whose max_read differs from the mount's. */
	if (elffs.max_read)
		conn->max_read = elffs.max_read;
	/* initext answers these in the reply to this INIT */
	uint16_t pages = request_pages();
	initext_init_add(INITEXT_DIO_ALLOW_MMAP, 0, pages);
	if (pages)
		elog(LOG_INFO, "read requests of up to %u KiB", pages * 4u);
	passthrough_init();
	if (iopolicy_any_direct() && !initext_dio_mmap())
		elog(LOG_WARNING, "direct I/O files cannot be mapped MAP_SHARED here "
		                  "(FUSE_DIRECT_IO_ALLOW_MMAP needs Linux 6.6 and libfuse 3.14)");
}

/*
 * Requests that may go into a file system mounted below SOURCE run through
 * stall_run (stall.h): by the device of their node, they run at once or
 * wait, without a worker, while calls into that device already hold their
 * share of the workers. The device of a node is its source's (a binary's
 * for the nodes of its view); the index's nodes and SOURCE's own device
 * run at once.
 */
static uint64_t dev_of_node(fuse_ino_t ino)
{
	struct node *n = node_get(ino);
	uint64_t dev = 0;
	if (n && !bidfs_kind(n->kind)) {
		struct node *s = node_is_source(n) ? n : node_broot(n);
		nodes_lock();
		dev = s && s->src ? s->src->st.dev : 0;
		nodes_unlock();
	}
	node_put(n);
	return dev;
}

static const struct fuse_file_info *fi_of(const struct stall_job *j)
{
	return j->has_fi ? &j->fi : NULL;
}

static void run_lookup(const struct stall_job *j)
{
	op_lookup(j->req, j->ino, j->name);
}

static void run_getattr(const struct stall_job *j)
{
	op_getattr(j->req, j->ino, (struct fuse_file_info *)fi_of(j));
}

static void run_readlink(const struct stall_job *j)
{
	op_readlink(j->req, j->ino);
}

static void run_opendir(const struct stall_job *j)
{
	op_opendir(j->req, j->ino, (struct fuse_file_info *)&j->fi);
}

static void run_open(const struct stall_job *j)
{
	op_open(j->req, j->ino, (struct fuse_file_info *)&j->fi);
}

static void run_read(const struct stall_job *j)
{
	op_read(j->req, j->ino, j->size, j->off, (struct fuse_file_info *)&j->fi);
}

static void run_readdir(const struct stall_job *j)
{
	op_readdir(j->req, j->ino, j->size, j->off, (struct fuse_file_info *)&j->fi);
}

static void run_readdirplus(const struct stall_job *j)
{
	op_readdirplus(j->req, j->ino, j->size, j->off, (struct fuse_file_info *)&j->fi);
}

static void run_getxattr(const struct stall_job *j)
{
	op_getxattr(j->req, j->ino, j->name, j->size);
}

static void run_listxattr(const struct stall_job *j)
{
	op_listxattr(j->req, j->ino, j->size);
}

static void guarded(uint64_t dev, struct stall_job j, const struct fuse_file_info *fi)
{
	if (fi) {
		j.fi = *fi;
		j.has_fi = true;
	}
	stall_run(dev, &j);
}

/* The first lookup or getattr after INIT sets the readahead window. */
static void first_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	readahead_kick();
	uint64_t dev = bidrem_lookup_dev(parent, name); /* one that may wait on a server */
	guarded(dev ? dev : dev_of_node(parent),
	        (struct stall_job){.run = run_lookup, .req = req, .ino = parent, .name = name},
	        NULL);
}

static void first_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	readahead_kick();
	guarded(dev_of_node(ino), (struct stall_job){.run = run_getattr, .req = req, .ino = ino},
	        fi);
}

static void g_readlink(fuse_req_t req, fuse_ino_t ino)
{
	guarded(dev_of_node(ino), (struct stall_job){.run = run_readlink, .req = req, .ino = ino},
	        NULL);
}

static void g_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	guarded(dev_of_node(ino), (struct stall_job){.run = run_opendir, .req = req, .ino = ino},
	        fi);
}

static void g_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	guarded(dev_of_node(ino), (struct stall_job){.run = run_open, .req = req, .ino = ino}, fi);
}

/* A read goes by its open file's view: no node, no lock for SOURCE's. */
static void g_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                   struct fuse_file_info *fi)
{
	guarded(op_read_dev(fi),
	        (struct stall_job){
	                .run = run_read, .req = req, .ino = ino, .size = size, .off = off},
	        fi);
}

/* readdir of a SOURCE directory asks SOURCE for another user's access to
 * its binaries (access.h): by the directory's device too. */
static void g_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                      struct fuse_file_info *fi)
{
	guarded(dev_of_node(ino),
	        (struct stall_job){
	                .run = run_readdir, .req = req, .ino = ino, .size = size, .off = off},
	        fi);
}

static void g_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                          struct fuse_file_info *fi)
{
	guarded(dev_of_node(ino),
	        (struct stall_job){
	                .run = run_readdirplus, .req = req, .ino = ino, .size = size, .off = off},
	        fi);
}

static void g_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
	guarded(dev_of_node(ino),
	        (struct stall_job){
	                .run = run_getxattr, .req = req, .ino = ino, .name = name, .size = size},
	        NULL);
}

static void g_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
	guarded(dev_of_node(ino),
	        (struct stall_job){.run = run_listxattr, .req = req, .ino = ino, .size = size},
	        NULL);
}

const struct fuse_lowlevel_ops elffs_ops = {
        .init = op_init,
        .lookup = first_lookup,
        .forget = op_forget,
        .forget_multi = op_forget_multi,
        .getattr = first_getattr,
        .readlink = g_readlink,
        .statfs = op_statfs,
        .opendir = g_opendir,
        .readdir = g_readdir,
        .readdirplus = g_readdirplus,
        .releasedir = op_releasedir,
        .open = g_open,
        .read = g_read,
        .release = op_release,
        .getxattr = g_getxattr,
        .listxattr = g_listxattr,
        .setattr = op_setattr,
        .mknod = op_mknod,
        .mkdir = op_mkdir,
        .unlink = op_unlink,
        .rmdir = op_rmdir,
        .symlink = op_symlink,
        .rename = op_rename,
        .link = op_link,
        .write = op_write,
        .setxattr = op_setxattr,
        .removexattr = op_removexattr,
        .create = op_create,
        .fallocate = op_fallocate,
        .copy_file_range = op_copy_file_range,
};
