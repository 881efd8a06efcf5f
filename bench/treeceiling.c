/*
 * treeceiling: the FUSE ceiling of a metadata walk. A bare libfuse3
 * low-level server showing a synthetic read-only tree held in no memory at
 * all: the root holds DIRS directories "d<i>", each holding FILES empty
 * files "f<j>". Nothing is computed per request but the reply, so a `find`
 * walk of it costs what FUSE itself costs for that many entries.
 *
 * treeceiling --dirs=D --files=F [--links=L] [--plus] [--timeout=SECS]
 *             [--threads=N] [FUSE options] MOUNTPOINT
 *
 *   --links=L    the first L "files" of each directory are symlinks (to
 *                "f<j>.target"), so that `ls -l` reads as many links as in
 *                a real directory of libraries (a READLINK each)
 *   --plus       implement readdirplus (entries come with their attributes,
 *                so a walk needs no LOOKUP per entry)
 *   --timeout    entry and attribute cache timeout (default 1, as elffs)
 *   --threads=N  multithreaded loop with at most N workers (default 1)
 * Always foreground; ends on SIGINT/SIGTERM or fusermount3 -u.
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct {
	uint64_t dirs;
	uint64_t files;
	uint64_t links;
	bool plus;
	double timeout;
	unsigned threads;
} g = {.timeout = 1.0, .threads = 1};

/* Inodes: root 1, directory i is 2 + i, file j of directory i is
 * 2 + dirs + i * files + j. */
static bool is_dir(fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID || (ino >= 2 && ino < 2 + g.dirs);
}

static bool valid(fuse_ino_t ino)
{
	return ino >= 1 && ino < 2 + g.dirs + g.dirs * g.files;
}

/* Whether file ino is one of the first L of its directory (a symlink). */
static bool is_link(fuse_ino_t ino)
{
	return !is_dir(ino) && g.files && (ino - 2 - g.dirs) % g.files < g.links;
}

/* The target of symlink ino. */
static int link_target(fuse_ino_t ino, char *buf, size_t len)
{
	return snprintf(buf, len, "f%llu.target",
	                (unsigned long long)((ino - 2 - g.dirs) % g.files));
}

static void fill_attr(struct stat *st, fuse_ino_t ino)
{
	char target[64];
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mode = is_dir(ino) ? S_IFDIR | 0555 : is_link(ino) ? S_IFLNK | 0777 : S_IFREG | 0444;
	st->st_nlink = is_dir(ino) ? 2 : 1;
	st->st_size = is_dir(ino)    ? 0
	              : is_link(ino) ? link_target(ino, target, sizeof(target))
	                             : (off_t)(ino % 4096);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	char target[64];

	if (!valid(ino) || !is_link(ino)) {
		fuse_reply_err(req, EINVAL);
		return;
	}
	link_target(ino, target, sizeof(target));
	fuse_reply_readlink(req, target);
}

static void fill_entry(struct fuse_entry_param *e, fuse_ino_t ino)
{
	memset(e, 0, sizeof(*e));
	e->ino = ino;
	e->attr_timeout = g.timeout;
	e->entry_timeout = g.timeout;
	fill_attr(&e->attr, ino);
}

/* The child of parent named name, or 0. */
static fuse_ino_t child(fuse_ino_t parent, const char *name)
{
	char *end;
	unsigned long long i;

	if (!is_dir(parent) || (name[0] != 'd' && name[0] != 'f') || !name[1])
		return 0;
	i = strtoull(name + 1, &end, 10);
	if (*end)
		return 0;
	if (parent == FUSE_ROOT_ID)
		return name[0] == 'd' && i < g.dirs ? 2 + i : 0;
	if (name[0] != 'f' || i >= g.files)
		return 0;
	return 2 + g.dirs + (parent - 2) * g.files + i;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;
	fuse_ino_t ino = child(parent, name);

	if (!ino) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_entry(&e, ino);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	if (!valid(ino)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(&st, ino);
	fuse_reply_attr(req, &st, g.timeout);
}

/* Entry number k of directory ino (0 and 1 are "." and ".."). */
static fuse_ino_t nth(fuse_ino_t ino, uint64_t k, char *name, size_t len)
{
	if (k < 2) {
		snprintf(name, len, "%s", k ? ".." : ".");
		return ino;
	}
	k -= 2;
	if (ino == FUSE_ROOT_ID) {
		snprintf(name, len, "d%llu", (unsigned long long)k);
		return k < g.dirs ? 2 + k : 0;
	}
	snprintf(name, len, "f%llu", (unsigned long long)k);
	return k < g.files ? 2 + g.dirs + (ino - 2) * g.files + k : 0;
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	char *buf, name[32];
	size_t len = 0;
	uint64_t k;

	if (!is_dir(ino)) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	buf = malloc(size);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	for (k = (uint64_t)off;; k++) {
		fuse_ino_t c = nth(ino, k, name, sizeof(name));
		size_t n;
		if (!c)
			break;
		if (plus && k >= 2) {
			struct fuse_entry_param e;
			fill_entry(&e, c);
			n = fuse_add_direntry_plus(req, buf + len, size - len, name, &e,
			                           (off_t)k + 1);
		} else {
			struct stat st = {.st_ino = c,
			                  .st_mode = is_dir(c)    ? S_IFDIR
			                             : is_link(c) ? S_IFLNK
			                                          : S_IFREG};
			if (plus) {
				struct fuse_entry_param e = {.attr = st};
				n = fuse_add_direntry_plus(req, buf + len, size - len, name, &e,
				                           (off_t)k + 1);
			} else {
				n = fuse_add_direntry(req, buf + len, size - len, name, &st,
				                      (off_t)k + 1);
			}
		}
		if (n > size - len)
			break;
		len += n;
	}
	fuse_reply_buf(req, buf, len);
	free(buf);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi)
{
	readdir_common(req, ino, size, off, true);
}

static struct fuse_lowlevel_ops ops = {
        .lookup = op_lookup,
        .getattr = op_getattr,
        .readlink = op_readlink,
        .readdir = op_readdir,
};

static int parse_own(int *argc, char **argv)
{
	int i, out = 1;

	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--dirs=", 7) == 0)
			g.dirs = strtoull(a + 7, NULL, 0);
		else if (strncmp(a, "--files=", 8) == 0)
			g.files = strtoull(a + 8, NULL, 0);
		else if (strncmp(a, "--links=", 8) == 0)
			g.links = strtoull(a + 8, NULL, 0);
		else if (strcmp(a, "--plus") == 0)
			g.plus = true;
		else if (strncmp(a, "--timeout=", 10) == 0)
			g.timeout = strtod(a + 10, NULL);
		else if (strncmp(a, "--threads=", 10) == 0)
			g.threads = (unsigned)strtoul(a + 10, NULL, 0);
		else
			argv[out++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
	return g.dirs > 0 && g.threads > 0 ? 0 : -1;
}

static int serve(struct fuse_session *se)
{
	struct fuse_loop_config *cfg;
	int ret;

	if (g.threads == 1)
		return fuse_session_loop(se);
	cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_max_threads(cfg, g.threads);
	fuse_loop_cfg_set_idle_threads(cfg, g.threads);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args;
	struct fuse_cmdline_opts opts;
	struct fuse_session *se;
	int ret = 1;

	if (parse_own(&argc, argv) != 0) {
		fprintf(stderr, "usage: treeceiling --dirs=D --files=F [--links=L] [--plus] "
		                "[--timeout=S] [--threads=N] MOUNTPOINT\n");
		return 2;
	}
	if (g.plus)
		ops.readdirplus = op_readdirplus;
	args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	if (fuse_parse_cmdline(&args, &opts) != 0 || !opts.mountpoint)
		return 2;
	se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
	if (se && fuse_set_signal_handlers(se) == 0) {
		if (fuse_session_mount(se, opts.mountpoint) == 0) {
			ret = serve(se) ? 1 : 0;
			fuse_session_unmount(se);
		}
		fuse_remove_signal_handlers(se);
	}
	if (se)
		fuse_session_destroy(se);
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	return ret;
}
