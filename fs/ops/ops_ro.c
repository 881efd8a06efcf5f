/* Everything that would change something fails with EROFS. */
#include "ops/ops.h"

#include <errno.h>

void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
                struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
	fuse_reply_err(req, EROFS);
}

void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
	fuse_reply_err(req, EROFS);
}

void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EROFS);
}

void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EROFS);
}

void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
	fuse_reply_err(req, EROFS);
}

void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
               const char *newname, unsigned int flags)
{
	fuse_reply_err(req, EROFS);
}

void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
	fuse_reply_err(req, EROFS);
}

void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
              struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size,
                 int flags)
{
	fuse_reply_err(req, EROFS);
}

void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
	fuse_reply_err(req, EROFS);
}

void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
               struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                  struct fuse_file_info *fi)
{
	fuse_reply_err(req, EROFS);
}

void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                        struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                        struct fuse_file_info *fi_out, size_t len, int flags)
{
	fuse_reply_err(req, EROFS);
}
