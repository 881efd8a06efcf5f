/*
 * treeceiling: the FUSE ceiling of a metadata walk. A bare libfuse3
 * low-level server showing a read-only tree; nothing is computed per
 * request but the reply, so a `find` walk of it costs what FUSE itself
 * costs for that tree. The tree is either
 *
 * - synthetic, held in no memory at all (--dirs, --files): the root holds
 *   DIRS directories "d<i>", each holding FILES empty files "f<j>"; or
 * - a given one (--tree=FILE), held in a table: the records "TYPE PATH\0"
 *   of `find DIR -mindepth 1 -printf '%y %P\0'` (d a directory, l a
 *   symlink, anything else a regular file) in find's order (a directory
 *   before its entries): the same directories with the same entries in
 *   the same order as DIR, an elffs mount's for the floor of its walk.
 *
 * treeceiling (--dirs=D --files=F [--links=L] | --tree=FILE)
 *             [--plus | --plus-always] [--timeout=SECS] [--threads=N]
 *             [FUSE options] MOUNTPOINT
 *
 *   --links=L      the first L "files" of each directory are symlinks (to
 *                  "f<j>.target"), so that `ls -l` reads as many links as
 *                  in a real directory of libraries (a READLINK each)
 *   --plus         implement readdirplus (entries come with their
 *                  attributes); the kernel asks for it at a listing's start
 *                  or after lookups in it (FUSE_READDIRPLUS_AUTO)
 *   --plus-always  the same with FUSE_READDIRPLUS_AUTO off: every listing
 *                  comes with its attributes and no LOOKUP follows it, the
 *                  fewest requests a walk can cost
 *   --timeout      entry and attribute cache timeout (default 1, as elffs)
 *   --threads=N    multithreaded loop with at most N workers (default 1)
 * Always foreground; ends on SIGINT/SIGTERM or fusermount3 -u. With
 * --tree it prints "entries=N dirs=D" on stderr once the tree is read.
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
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
	bool plus_always;
	double timeout;
	unsigned threads;
	const char *tree;
} g = {.timeout = 1.0, .threads = 1};

/* ------------------------------------------------------ the given tree */

/* Node i has inode i + 1 (the root is node 0, FUSE_ROOT_ID). */
struct tnode {
	uint32_t parent;
	uint32_t name; /* offset in names */
	uint32_t kids; /* a directory: first index in kids[] */
	uint32_t nkids;
	char type; /* 'd', 'l' or 'f' */
};

static struct {
	struct tnode *node;
	size_t n, cap;
	char *names;
	size_t names_len, names_cap;
	uint32_t *kids;
	uint32_t *hash; /* (parent, name) -> node + 1, open addressing */
	size_t hash_cap;
} tab;

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 1024;
	while (c < need)
		c *= 2;
	void *q = realloc(p, c * size);
	if (!q) {
		fprintf(stderr, "treeceiling: out of memory\n");
		exit(1);
	}
	*cap = c;
	return q;
}

static uint64_t key(uint32_t parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ULL ^ parent;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ULL;
	return h;
}

/* The node named name (len bytes) in directory parent, or -1. */
static long find_kid(uint32_t parent, const char *name, size_t len)
{
	size_t mask = tab.hash_cap - 1;
	for (size_t i = key(parent, name, len) & mask; tab.hash[i]; i = (i + 1) & mask) {
		const struct tnode *t = &tab.node[tab.hash[i] - 1];
		const char *tn = tab.names + t->name;
		if (t->parent == parent && strlen(tn) == len && memcmp(tn, name, len) == 0)
			return (long)tab.hash[i] - 1;
	}
	return -1;
}

static void hash_put(uint32_t idx)
{
	size_t mask = tab.hash_cap - 1;
	const struct tnode *t = &tab.node[idx];
	const char *name = tab.names + t->name;
	size_t i = key(t->parent, name, strlen(name)) & mask;
	while (tab.hash[i])
		i = (i + 1) & mask;
	tab.hash[i] = idx + 1;
}

static uint32_t add_node(uint32_t parent, const char *name, size_t len, char type)
{
	tab.node = grow(tab.node, &tab.cap, tab.n + 1, sizeof(*tab.node));
	tab.names = grow(tab.names, &tab.names_cap, tab.names_len + len + 1, 1);
	memcpy(tab.names + tab.names_len, name, len);
	tab.names[tab.names_len + len] = '\0';
	tab.node[tab.n] =
	        (struct tnode){.parent = parent, .name = (uint32_t)tab.names_len, .type = type};
	tab.names_len += len + 1;
	return (uint32_t)tab.n++;
}

/* Read the records; a record whose directory was not listed before it is
 * an error (find prints a directory before its entries). */
static int load(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	char *rec = NULL;
	size_t cap = 0;
	ssize_t len;
	/* pass 1: the nodes, each parent found by walking its path */
	add_node(0, "", 0, 'd');
	tab.hash_cap = 1 << 16;
	tab.hash = calloc(tab.hash_cap, sizeof(*tab.hash));
	while (tab.hash && (len = getdelim(&rec, &cap, '\0', f)) > 0) {
		if (len < 3 || rec[1] != ' ')
			continue;
		char *p = rec + 2;
		size_t plen = strlen(p);
		uint32_t dir = 0;
		char *slash;
		while ((slash = memchr(p, '/', plen)) != NULL) {
			long k = find_kid(dir, p, (size_t)(slash - p));
			if (k < 0 || tab.node[k].type != 'd') {
				fprintf(stderr, "treeceiling: %s: no directory before it\n",
				        rec + 2);
				free(rec);
				fclose(f);
				return -1;
			}
			dir = (uint32_t)k;
			plen -= (size_t)(slash - p) + 1;
			p = slash + 1;
		}
		char type = rec[0] == 'd' || rec[0] == 'l' ? rec[0] : 'f';
		uint32_t idx = add_node(dir, p, plen, type);
		if (2 * tab.n > tab.hash_cap) { /* rehash at half full */
			free(tab.hash);
			tab.hash_cap *= 2;
			tab.hash = calloc(tab.hash_cap, sizeof(*tab.hash));
			for (uint32_t i = 1; tab.hash && i <= idx; i++)
				hash_put(i);
		} else {
			hash_put(idx);
		}
	}
	free(rec);
	fclose(f);
	if (!tab.hash)
		return -1;
	/* pass 2: each directory's entries, in the records' order */
	for (size_t i = 1; i < tab.n; i++)
		tab.node[tab.node[i].parent].nkids++;
	uint32_t at = 0;
	for (size_t i = 0; i < tab.n; i++) {
		tab.node[i].kids = at;
		at += tab.node[i].nkids;
		tab.node[i].nkids = 0;
	}
	tab.kids = malloc((at ? at : 1) * sizeof(*tab.kids));
	if (!tab.kids)
		return -1;
	for (size_t i = 1; i < tab.n; i++) {
		struct tnode *d = &tab.node[tab.node[i].parent];
		tab.kids[d->kids + d->nkids++] = (uint32_t)i;
	}
	size_t dirs = 0;
	for (size_t i = 0; i < tab.n; i++)
		dirs += tab.node[i].type == 'd';
	fprintf(stderr, "entries=%zu dirs=%zu\n", tab.n, dirs);
	return 0;
}

static bool t_valid(fuse_ino_t ino)
{
	return ino >= 1 && ino <= tab.n;
}

static bool t_is_dir(fuse_ino_t ino)
{
	return t_valid(ino) && tab.node[ino - 1].type == 'd';
}

static bool t_is_link(fuse_ino_t ino)
{
	return t_valid(ino) && tab.node[ino - 1].type == 'l';
}

static fuse_ino_t t_child(fuse_ino_t parent, const char *name)
{
	long k = t_is_dir(parent) ? find_kid((uint32_t)(parent - 1), name, strlen(name)) : -1;
	return k < 0 ? 0 : (fuse_ino_t)k + 1;
}

static fuse_ino_t t_nth(fuse_ino_t ino, uint64_t k, char *name, size_t len)
{
	const struct tnode *d = &tab.node[ino - 1];
	if (k < 2) {
		snprintf(name, len, "%s", k ? ".." : ".");
		return ino;
	}
	if (k - 2 >= d->nkids)
		return 0;
	uint32_t c = tab.kids[d->kids + k - 2];
	snprintf(name, len, "%s", tab.names + tab.node[c].name);
	return (fuse_ino_t)c + 1;
}

/* ------------------------------------------------- the synthetic tree */

/* Inodes: root 1, directory i is 2 + i, file j of directory i is
 * 2 + dirs + i * files + j. */
static bool s_is_dir(fuse_ino_t ino)
{
	return ino == FUSE_ROOT_ID || (ino >= 2 && ino < 2 + g.dirs);
}

static bool s_valid(fuse_ino_t ino)
{
	return ino >= 1 && ino < 2 + g.dirs + g.dirs * g.files;
}

/* Whether file ino is one of the first L of its directory (a symlink). */
static bool s_is_link(fuse_ino_t ino)
{
	return !s_is_dir(ino) && g.files && (ino - 2 - g.dirs) % g.files < g.links;
}

/* The target of symlink ino. */
static int s_link_target(fuse_ino_t ino, char *buf, size_t len)
{
	return snprintf(buf, len, "f%llu.target",
	                (unsigned long long)((ino - 2 - g.dirs) % g.files));
}

/* The child of parent named name, or 0. */
static fuse_ino_t s_child(fuse_ino_t parent, const char *name)
{
	char *end;
	unsigned long long i;

	if (!s_is_dir(parent) || (name[0] != 'd' && name[0] != 'f') || !name[1])
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

/* Entry number k of directory ino (0 and 1 are "." and ".."). */
static fuse_ino_t s_nth(fuse_ino_t ino, uint64_t k, char *name, size_t len)
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

/* ------------------------------------------------------ either of them */

static bool is_dir(fuse_ino_t ino)
{
	return g.tree ? t_is_dir(ino) : s_is_dir(ino);
}

static bool valid(fuse_ino_t ino)
{
	return g.tree ? t_valid(ino) : s_valid(ino);
}

static bool is_link(fuse_ino_t ino)
{
	return g.tree ? t_is_link(ino) : s_is_link(ino);
}

static int link_target(fuse_ino_t ino, char *buf, size_t len)
{
	return g.tree ? snprintf(buf, len, "x") : s_link_target(ino, buf, len);
}

/* The child of parent named name, or 0. */
static fuse_ino_t child(fuse_ino_t parent, const char *name)
{
	return g.tree ? t_child(parent, name) : s_child(parent, name);
}

/* Entry number k of directory ino (0 and 1 are "." and ".."), its name in
 * name; 0 past the last. */
static fuse_ino_t nth(fuse_ino_t ino, uint64_t k, char *name, size_t len)
{
	return g.tree ? t_nth(ino, k, name, len) : s_nth(ino, k, name, len);
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

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	char *buf, name[NAME_MAX + 1];
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

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	if (g.plus_always)
		conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
}

static struct fuse_lowlevel_ops ops = {
        .init = op_init,
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
		else if (strcmp(a, "--plus-always") == 0)
			g.plus = g.plus_always = true;
		else if (strncmp(a, "--tree=", 7) == 0)
			g.tree = a + 7;
		else if (strncmp(a, "--timeout=", 10) == 0)
			g.timeout = strtod(a + 10, NULL);
		else if (strncmp(a, "--threads=", 10) == 0)
			g.threads = (unsigned)strtoul(a + 10, NULL, 0);
		else
			argv[out++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
	return (g.dirs > 0 || g.tree) && g.threads > 0 ? 0 : -1;
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
		fprintf(stderr,
		        "usage: treeceiling (--dirs=D --files=F [--links=L] | --tree=FILE) "
		        "[--plus | --plus-always] [--timeout=S] [--threads=N] MOUNTPOINT\n");
		return 2;
	}
	if (g.tree && load(g.tree) != 0)
		return 1;
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
