/* The low-level FUSE handlers of elffs, one group per file. */
#ifndef ELFFS_OPS_H
#define ELFFS_OPS_H

#include "base/elffs.h"

/* The largest read request offered at INIT, in 4 KiB pages, where the
 * kernel's max_pages_limit allows more than 256 (docs/benchmarks.md,
 * "Request size"); -o max_read= bounds it. */
#define ELFFS_REQUEST_PAGES 1024

/* The table given to fuse_session_new(). */
extern const struct fuse_lowlevel_ops elffs_ops;

/* ops_lookup.c */
void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name);
struct node;
struct bview;
/* The node of name in directory dir of a binary (its root, an archive
 * member's, or one of its directories) as view v (pinned, current) has it,
 * with the kernel's reference: what a lookup answers; 0 or -errno. */
int view_child(struct node *dir, struct bview *v, const char *name, struct node **out);

/* ops_attr.c */
void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_readlink(fuse_req_t req, fuse_ino_t ino);
void op_forget(fuse_req_t req, fuse_ino_t ino, uint64_t nlookup);
void op_forget_multi(fuse_req_t req, size_t count, struct fuse_forget_data *forgets);
void op_statfs(fuse_req_t req, fuse_ino_t ino);

/* ops_dir.c */
void op_opendir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi);
void op_releasedir(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);

/* ops_file.c */
void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi);
void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi);
/* The device whose file open file fi reads (0: none, or memory of its own). */
uint64_t op_read_dev(const struct fuse_file_info *fi);
/* The key of the workers' read buffers, before the session starts; 0 or
 * -errno. */
int ops_file_init(void);

/* ops_xattr.c */
void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size);
void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size);

/* ops_ro.c: everything that would change something fails with EROFS. */
void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set,
                struct fuse_file_info *fi);
void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev);
void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode);
void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name);
void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name);
void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent,
               const char *newname, unsigned int flags);
void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname);
void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off,
              struct fuse_file_info *fi);
void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size,
                 int flags);
void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name);
void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode,
               struct fuse_file_info *fi);
void op_fallocate(fuse_req_t req, fuse_ino_t ino, int mode, off_t offset, off_t length,
                  struct fuse_file_info *fi);
void op_copy_file_range(fuse_req_t req, fuse_ino_t ino_in, off_t off_in,
                        struct fuse_file_info *fi_in, fuse_ino_t ino_out, off_t off_out,
                        struct fuse_file_info *fi_out, size_t len, int flags);

#endif /* ELFFS_OPS_H */
