/* The handler table and the connection setup. */
#include "ops.h"
#include "initext.h"
#include "iopolicy.h"
#include "log.h"
#include "readahead.h"
#include "source.h"

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	/* Before the kernel sends anything else: what our own mount is. */
	if (elffs.se)
		src_learn_own_mount(fuse_session_fd(elffs.se));
	/* Memory buffers point into shared file mappings: never splice them. */
	conn->want &= ~(FUSE_CAP_SPLICE_WRITE | FUSE_CAP_SPLICE_MOVE);
	conn->want &= ~FUSE_CAP_WRITEBACK_CACHE;
	/* A changed mtime or size in a getattr reply drops cached pages. */
	if (conn->capable & FUSE_CAP_AUTO_INVAL_DATA)
		conn->want |= FUSE_CAP_AUTO_INVAL_DATA;
	conn->time_gran = 1;
	/* libfuse refuses an INIT whose max_read differs from the mount's. */
	if (elffs.max_read)
		conn->max_read = elffs.max_read;
	/* initext answers FUSE_DIRECT_IO_ALLOW_MMAP in the reply to this INIT */
	if (iopolicy_any_direct() && !initext_dio_mmap())
		elog(LOG_WARNING, "direct I/O files cannot be mapped MAP_SHARED here "
		                  "(FUSE_DIRECT_IO_ALLOW_MMAP needs Linux 6.6 and libfuse 3.14)");
}

/* The first lookup or getattr after INIT sets the readahead window. */
static void first_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	readahead_kick();
	op_lookup(req, parent, name);
}

static void first_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	readahead_kick();
	op_getattr(req, ino, fi);
}

const struct fuse_lowlevel_ops elffs_ops = {
        .init = op_init,
        .lookup = first_lookup,
        .forget = op_forget,
        .forget_multi = op_forget_multi,
        .getattr = first_getattr,
        .readlink = op_readlink,
        .statfs = op_statfs,
        .opendir = op_opendir,
        .readdir = op_readdir,
        .readdirplus = op_readdirplus,
        .releasedir = op_releasedir,
        .open = op_open,
        .read = op_read,
        .release = op_release,
        .getxattr = op_getxattr,
        .listxattr = op_listxattr,
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
