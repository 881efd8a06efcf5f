/*
 * treemirror: the FUSE floor of a walk of a given tree. A bare libfuse3
 * low-level server showing, from memory, a tree read at start: the
 * records "TYPE PATH\0" of `find MOUNT -mindepth 1 -printf '%y %P\0'`
 * (d a directory, l a symlink, anything else a regular file), in find's
 * order (a directory before its entries). Every request is answered from
 * a table, so a `find` walk of it costs what FUSE itself costs for that
 * tree's shape: the same directories with the same entries, in the same
 * order, as the mount that printed it.
 *
 * treemirror --tree=FILE [--auto] [--timeout=SECS] [--threads=N]
 *            [FUSE options] MOUNTPOINT
 *
 *   --tree       the records (required)
 *   --auto       leave FUSE_READDIRPLUS_AUTO on (the kernel asks for
 *                attributes with a listing only at its start or after
 *                lookups in it, as elffs has it); default off: every
 *                listing comes with its attributes, no LOOKUP follows
 *   --timeout    entry and attribute cache timeout (default 1, as elffs)
 *   --threads=N  multithreaded loop with at most N workers (default 1)
 * Always foreground; ends on SIGINT/SIGTERM or fusermount3 -u. Prints
 * "entries=N dirs=D" on stderr once the tree is read.
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
	bool automatic;
	double timeout;
	unsigned threads;
	const char *tree;
} g = {.timeout = 1.0, .threads = 1};

static void *grow(void *p, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return p;
	size_t c = *cap ? *cap : 1024;
	while (c < need)
		c *= 2;
	void *q = realloc(p, c * size);
	if (!q) {
		fprintf(stderr, "treemirror: out of memory\n");
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
	size_t mask = g.hash_cap - 1;
	for (size_t i = key(parent, name, len) & mask; g.hash[i]; i = (i + 1) & mask) {
		const struct tnode *t = &g.node[g.hash[i] - 1];
		const char *tn = g.names + t->name;
		if (t->parent == parent && strlen(tn) == len && memcmp(tn, name, len) == 0)
			return (long)g.hash[i] - 1;
	}
	return -1;
}

static void hash_put(uint32_t idx)
{
	size_t mask = g.hash_cap - 1;
	const struct tnode *t = &g.node[idx];
	const char *name = g.names + t->name;
	size_t i = key(t->parent, name, strlen(name)) & mask;
	while (g.hash[i])
		i = (i + 1) & mask;
	g.hash[i] = idx + 1;
}

static uint32_t add_node(uint32_t parent, const char *name, size_t len, char type)
{
	g.node = grow(g.node, &g.cap, g.n + 1, sizeof(*g.node));
	g.names = grow(g.names, &g.names_cap, g.names_len + len + 1, 1);
	memcpy(g.names + g.names_len, name, len);
	g.names[g.names_len + len] = '\0';
	g.node[g.n] = (struct tnode){.parent = parent, .name = (uint32_t)g.names_len, .type = type};
	g.names_len += len + 1;
	return (uint32_t)g.n++;
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
	g.hash_cap = 1 << 16;
	g.hash = calloc(g.hash_cap, sizeof(*g.hash));
	while (g.hash && (len = getdelim(&rec, &cap, '\0', f)) > 0) {
		if (len < 3 || rec[1] != ' ')
			continue;
		char *p = rec + 2;
		size_t plen = strlen(p);
		uint32_t dir = 0;
		char *slash;
		while ((slash = memchr(p, '/', plen)) != NULL) {
			long k = find_kid(dir, p, (size_t)(slash - p));
			if (k < 0 || g.node[k].type != 'd') {
				fprintf(stderr, "treemirror: %s: no directory before it\n",
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
		if (2 * g.n > g.hash_cap) { /* rehash at half full */
			free(g.hash);
			g.hash_cap *= 2;
			g.hash = calloc(g.hash_cap, sizeof(*g.hash));
			for (uint32_t i = 1; g.hash && i <= idx; i++)
				hash_put(i);
		} else {
			hash_put(idx);
		}
	}
	free(rec);
	fclose(f);
	if (!g.hash)
		return -1;
	/* pass 2: each directory's entries, in the records' order */
	for (size_t i = 1; i < g.n; i++)
		g.node[g.node[i].parent].nkids++;
	uint32_t at = 0;
	for (size_t i = 0; i < g.n; i++) {
		g.node[i].kids = at;
		at += g.node[i].nkids;
		g.node[i].nkids = 0;
	}
	g.kids = malloc((at ? at : 1) * sizeof(*g.kids));
	if (!g.kids)
		return -1;
	for (size_t i = 1; i < g.n; i++) {
		struct tnode *d = &g.node[g.node[i].parent];
		g.kids[d->kids + d->nkids++] = (uint32_t)i;
	}
	size_t dirs = 0;
	for (size_t i = 0; i < g.n; i++)
		dirs += g.node[i].type == 'd';
	fprintf(stderr, "entries=%zu dirs=%zu\n", g.n, dirs);
	return 0;
}

static const struct tnode *tnode_of(fuse_ino_t ino)
{
	return ino >= 1 && ino <= g.n ? &g.node[ino - 1] : NULL;
}

static void fill_attr(struct stat *st, fuse_ino_t ino)
{
	const struct tnode *t = tnode_of(ino);
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	st->st_mode = t->type == 'd'   ? S_IFDIR | 0555
	              : t->type == 'l' ? S_IFLNK | 0777
	                               : S_IFREG | 0444;
	st->st_nlink = t->type == 'd' ? 2 : 1;
	st->st_size = t->type == 'l' ? 1 : 0;
}

static void fill_entry(struct fuse_entry_param *e, fuse_ino_t ino)
{
	memset(e, 0, sizeof(*e));
	e->ino = ino;
	e->attr_timeout = g.timeout;
	e->entry_timeout = g.timeout;
	fill_attr(&e->attr, ino);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	(void)userdata;
	if (!g.automatic)
		conn->want &= ~FUSE_CAP_READDIRPLUS_AUTO;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	const struct tnode *d = tnode_of(parent);
	long k = d && d->type == 'd' ? find_kid((uint32_t)(parent - 1), name, strlen(name)) : -1;
	if (k < 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	struct fuse_entry_param e;
	fill_entry(&e, (fuse_ino_t)k + 1);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	(void)fi;
	struct stat st;
	if (!tnode_of(ino)) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(&st, ino);
	fuse_reply_attr(req, &st, g.timeout);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
	const struct tnode *t = tnode_of(ino);
	if (!t || t->type != 'l')
		fuse_reply_err(req, EINVAL);
	else
		fuse_reply_readlink(req, "x");
}

static void readdir_common(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, bool plus)
{
	const struct tnode *d = tnode_of(ino);
	if (!d || d->type != 'd') {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	char *buf = malloc(size ? size : 1);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	size_t len = 0;
	for (uint64_t k = off < 0 ? 0 : (uint64_t)off; k < 2 + (uint64_t)d->nkids; k++) {
		fuse_ino_t c = k == 0   ? ino
		               : k == 1 ? (fuse_ino_t)d->parent + 1
		                        : g.kids[d->kids + k - 2] + 1;
		const char *name = k == 0 ? "." : k == 1 ? ".." : g.names + g.node[c - 1].name;
		struct fuse_entry_param e;
		size_t n;
		if (plus && k >= 2) {
			fill_entry(&e, c);
			n = fuse_add_direntry_plus(req, buf + len, size - len, name, &e,
			                           (off_t)k + 1);
		} else {
			memset(&e, 0, sizeof(e));
			e.attr.st_ino = c;
			e.attr.st_mode = g.node[c - 1].type == 'd'   ? S_IFDIR
			                 : g.node[c - 1].type == 'l' ? S_IFLNK
			                                             : S_IFREG;
			n = plus ? fuse_add_direntry_plus(req, buf + len, size - len, name, &e,
			                                  (off_t)k + 1)
			         : fuse_add_direntry(req, buf + len, size - len, name, &e.attr,
			                             (off_t)k + 1);
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
	(void)fi;
	readdir_common(req, ino, size, off, false);
}

static void op_readdirplus(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                           struct fuse_file_info *fi)
{
	(void)fi;
	readdir_common(req, ino, size, off, true);
}

static const struct fuse_lowlevel_ops ops = {
        .init = op_init,
        .lookup = op_lookup,
        .getattr = op_getattr,
        .readlink = op_readlink,
        .readdir = op_readdir,
        .readdirplus = op_readdirplus,
};

static int parse_own(int *argc, char **argv)
{
	int out = 1;
	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];
		if (strncmp(a, "--tree=", 7) == 0)
			g.tree = a + 7;
		else if (strcmp(a, "--auto") == 0)
			g.automatic = true;
		else if (strncmp(a, "--timeout=", 10) == 0)
			g.timeout = strtod(a + 10, NULL);
		else if (strncmp(a, "--threads=", 10) == 0)
			g.threads = (unsigned)strtoul(a + 10, NULL, 0);
		else
			argv[out++] = argv[i];
	}
	*argc = out;
	argv[out] = NULL;
	return g.tree && g.threads > 0 ? 0 : -1;
}

static int serve(struct fuse_session *se)
{
	if (g.threads == 1)
		return fuse_session_loop(se);
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_max_threads(cfg, g.threads);
	fuse_loop_cfg_set_idle_threads(cfg, g.threads);
	int ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_cmdline_opts opts;
	int ret = 1;
	if (parse_own(&argc, argv) != 0) {
		fprintf(stderr, "usage: treemirror --tree=FILE [--auto] [--timeout=S] "
		                "[--threads=N] MOUNTPOINT\n");
		return 2;
	}
	if (load(g.tree) != 0)
		return 1;
	struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
	if (fuse_parse_cmdline(&args, &opts) != 0 || !opts.mountpoint)
		return 2;
	struct fuse_session *se = fuse_session_new(&args, &ops, sizeof(ops), NULL);
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
