/*
 * ceiling: the FUSE ceiling of this machine. A bare libfuse3 low-level server
 * with one read-only file, "data", holding the bytes [offset, offset+size) of
 * a source file, served with no per-request work at all. Whatever elffs does
 * on top of FUSE, it cannot read faster than this.
 *
 * ceiling [--mode=M] [--keep-cache] [--direct-io] [--dontneed] [--populate] [--advise=A]
 * [--threads=N]
 *         [--clone-fd] [--max-read=N] --source=FILE [--offset=N] [--size=N] [FUSE options]
 * MOUNTPOINT
 *
 *   --mode=mem    bytes copied once into anonymous memory at start (default)
 *   --mode=mmap   bytes answered from a MAP_SHARED mapping of FILE (like elffs)
 *   --mode=fd     bytes answered as a descriptor buffer: spliced to /dev/fuse
 *                 when -o splice_write is given, pread into a buffer otherwise
 *   --keep-cache  keep the page cache of "data" across opens (FOPEN_KEEP_CACHE)
 *   --direct-io   bypass the page cache of "data" (FOPEN_DIRECT_IO)
 *   --dontneed    mmap mode: madvise(MADV_DONTNEED) the served range after reply
 *   --populate    mmap mode: madvise(MADV_POPULATE_READ) the range before reply
 *   --advise=A    mmap mode: madvise the whole mapping: seq, willneed, random
 *   --threads=N   multithreaded loop with at most N workers (default 1: -s)
 *   --clone-fd    one /dev/fuse descriptor per worker thread
 *   --max-read=N  what init() answers for max_read (give -o max_read=N too)
 *   --uring       FUSE over io_uring driven through libfuse 3.14 (which knows
 *                 nothing of it): INIT goes through libfuse over /dev/fuse, a
 *                 hook on its writes adds FUSE_OVER_IO_URING to the reply and
 *                 then registers 4 entries per CPU (one pinned thread and ring
 *                 each, bench/fuse_ring.h). A request taken from a ring is laid
 *                 out as /dev/fuse would give it and handed to
 *                 fuse_session_process_buf(); the reply libfuse writes is
 *                 caught by the hook and copied into the entry (READ data: one
 *                 more copy than writev), then committed with the next fetch.
 *                 FORGET and INTERRUPT still come over /dev/fuse, to the loop
 *                 of --threads. Needs enable_uring = Y at mount time. Replies
 *                 given later by another thread are not supported (the bare
 *                 server never defers one).
 * FUSE options (-o max_write=, max_readahead=, splice_write, max_read=, ...)
 * go to fuse_parse_conn_info_opts / the mount. Always foreground; prints
 * "ready" on stdout once mounted. Ends on SIGINT/SIGTERM or fusermount3 -u.
 */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>
#include <linux/fuse.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuse_ring.h"

#define DATA_INO  2
#define DATA_NAME "data"

enum mode { MODE_MEM, MODE_MMAP, MODE_FD };

struct ceiling {
	enum mode mode;
	bool keep_cache;
	bool direct_io;
	bool dontneed;
	bool populate;
	const char *advise;
	unsigned threads;
	bool clone_fd;
	bool uring;
	unsigned max_read; /* --max-read: what init() answers (with -o max_read=) */
	const char *source;
	uint64_t offset;
	uint64_t size;
	int fd;
	const char *base; /* mem: the copy; mmap: the mapping + offset slack */
	size_t map_len;
	size_t map_skew; /* offset - page-aligned mapping start */
	struct fuse_conn_info_opts *conn_opts;
};

static struct ceiling g;

/* Request statistics, printed on exit: how big the kernel's reads were. */
static _Atomic uint64_t n_reads, n_bytes, max_read;

static void fill_attr(struct stat *st, fuse_ino_t ino)
{
	memset(st, 0, sizeof(*st));
	st->st_ino = ino;
	st->st_uid = getuid();
	st->st_gid = getgid();
	if (ino == FUSE_ROOT_ID) {
		st->st_mode = S_IFDIR | 0555;
		st->st_nlink = 2;
	} else {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = (off_t)g.size;
		st->st_blocks = (blkcnt_t)((g.size + 511) / 512);
	}
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
	fuse_apply_conn_info_opts(g.conn_opts, conn);
	if (g.max_read) /* libfuse refuses an init() that differs from -o max_read= */
		conn->max_read = g.max_read;
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct fuse_entry_param e;

	if (parent != FUSE_ROOT_ID || strcmp(name, DATA_NAME) != 0) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.ino = DATA_INO;
	e.attr_timeout = 3600;
	e.entry_timeout = 3600;
	fill_attr(&e.attr, DATA_INO);
	fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	struct stat st;

	if (ino != FUSE_ROOT_ID && ino != DATA_INO) {
		fuse_reply_err(req, ENOENT);
		return;
	}
	fill_attr(&st, ino);
	fuse_reply_attr(req, &st, 3600);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if (ino != DATA_INO) {
		fuse_reply_err(req, EISDIR);
		return;
	}
	if ((fi->flags & O_ACCMODE) != O_RDONLY) {
		fuse_reply_err(req, EROFS);
		return;
	}
	fi->keep_cache = g.keep_cache;
	fi->direct_io = g.direct_io;
	fuse_reply_open(req, fi);
}

static void count_read(size_t size)
{
	uint64_t m = atomic_load_explicit(&max_read, memory_order_relaxed);

	atomic_fetch_add_explicit(&n_reads, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&n_bytes, size, memory_order_relaxed);
	while (size > m && !atomic_compare_exchange_weak(&max_read, &m, size))
		;
}

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif

/* Map the pages of a range in one call instead of one fault per 64 KiB. */
static void populate(uint64_t off, size_t len)
{
	uintptr_t start = (uintptr_t)(g.base + off);
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t a = start & ~(uintptr_t)(page - 1);

	madvise((void *)a, start + len - a, MADV_POPULATE_READ);
}

static void release_served(uint64_t off, size_t len)
{
	uintptr_t start = (uintptr_t)(g.base + off);
	uintptr_t end = start + len;
	long page = sysconf(_SC_PAGESIZE);

	start &= ~(uintptr_t)(page - 1);
	madvise((void *)start, end - start, MADV_DONTNEED);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                    struct fuse_file_info *fi)
{
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(0);
	uint64_t pos = (uint64_t)off;

	if (pos >= g.size) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	if (size > g.size - pos)
		size = g.size - pos;
	count_read(size);
	bv.buf[0].size = size;
	if (g.mode == MODE_MMAP && g.populate)
		populate(pos, size);
	if (g.mode == MODE_FD) {
		bv.buf[0].flags = FUSE_BUF_IS_FD | FUSE_BUF_FD_SEEK;
		bv.buf[0].fd = g.fd;
		bv.buf[0].pos = (off_t)(g.offset + pos);
	} else {
		bv.buf[0].mem = (void *)(g.base + pos);
	}
	fuse_reply_data(req, &bv, FUSE_BUF_SPLICE_MOVE);
	if (g.mode == MODE_MMAP && g.dontneed)
		release_served(pos, size);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off,
                       struct fuse_file_info *fi)
{
	char buf[256];
	size_t len = 0;
	struct stat st;

	if (ino != FUSE_ROOT_ID) {
		fuse_reply_err(req, ENOTDIR);
		return;
	}
	memset(&st, 0, sizeof(st));
	if (off < 1) {
		st.st_ino = FUSE_ROOT_ID;
		st.st_mode = S_IFDIR;
		len += fuse_add_direntry(req, buf + len, sizeof(buf) - len, ".", &st, 1);
	}
	if (off < 2) {
		st.st_ino = DATA_INO;
		st.st_mode = S_IFREG;
		len += fuse_add_direntry(req, buf + len, sizeof(buf) - len, DATA_NAME, &st, 2);
	}
	fuse_reply_buf(req, buf, len < size ? len : size);
}

static const struct fuse_lowlevel_ops ops = {
        .init = op_init,
        .lookup = op_lookup,
        .getattr = op_getattr,
        .open = op_open,
        .read = op_read,
        .readdir = op_readdir,
};

static int advise_flag(const char *name)
{
	if (strcmp(name, "seq") == 0)
		return MADV_SEQUENTIAL;
	if (strcmp(name, "willneed") == 0)
		return MADV_WILLNEED;
	if (strcmp(name, "random") == 0)
		return MADV_RANDOM;
	return -1;
}

static int load_mem(void)
{
	char *p = malloc(g.size ? g.size : 1);
	uint64_t done = 0;

	if (!p)
		return -ENOMEM;
	while (done < g.size) {
		ssize_t n = pread(g.fd, p + done, g.size - done, (off_t)(g.offset + done));
		if (n <= 0) {
			free(p);
			return n < 0 ? -errno : -EIO;
		}
		done += (uint64_t)n;
	}
	g.base = p;
	return 0;
}

static int load_mmap(void)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start = g.offset & ~(uint64_t)(page - 1);
	void *m;

	g.map_skew = g.offset - start;
	g.map_len = g.map_skew + g.size;
	m = mmap(NULL, g.map_len ? g.map_len : 1, PROT_READ, MAP_SHARED, g.fd, (off_t)start);
	if (m == MAP_FAILED)
		return -errno;
	g.base = (const char *)m + g.map_skew;
	if (g.advise && madvise(m, g.map_len, advise_flag(g.advise)) != 0)
		return -errno;
	return 0;
}

static int load_source(void)
{
	struct stat st;

	g.fd = open(g.source, O_RDONLY | O_CLOEXEC);
	if (g.fd < 0 || fstat(g.fd, &st) != 0)
		return -errno;
	if (g.size == 0 && (uint64_t)st.st_size > g.offset)
		g.size = (uint64_t)st.st_size - g.offset;
	if (g.offset > (uint64_t)st.st_size || g.size > (uint64_t)st.st_size - g.offset)
		return -EINVAL;
	if (g.mode == MODE_MEM)
		return load_mem();
	if (g.mode == MODE_MMAP)
		return load_mmap();
	return 0;
}

static int parse_mode(const char *v)
{
	if (strcmp(v, "mem") == 0)
		g.mode = MODE_MEM;
	else if (strcmp(v, "mmap") == 0)
		g.mode = MODE_MMAP;
	else if (strcmp(v, "fd") == 0)
		g.mode = MODE_FD;
	else
		return -1;
	return 0;
}

/* Take our own --options out of argv; the rest goes to libfuse. */
static int parse_own(int *argc, char **argv)
{
	int i, out = 1;

	g.threads = 1;
	for (i = 1; i < *argc; i++) {
		const char *a = argv[i];
		const char *v = strchr(a, '=');
		int bad = 0;

		if (strncmp(a, "--", 2) != 0 || strcmp(a, "--help") == 0) {
			argv[out++] = argv[i];
			continue;
		}
		v = v ? v + 1 : "";
		if (strncmp(a, "--mode=", 7) == 0)
			bad = parse_mode(v);
		else if (strcmp(a, "--keep-cache") == 0)
			g.keep_cache = true;
		else if (strcmp(a, "--direct-io") == 0)
			g.direct_io = true;
		else if (strcmp(a, "--dontneed") == 0)
			g.dontneed = true;
		else if (strcmp(a, "--populate") == 0)
			g.populate = true;
		else if (strcmp(a, "--clone-fd") == 0)
			g.clone_fd = true;
		else if (strcmp(a, "--uring") == 0)
			g.uring = true;
		else if (strncmp(a, "--advise=", 9) == 0)
			bad = advise_flag(v) < 0 ? -1 : (g.advise = v, 0);
		else if (strncmp(a, "--max-read=", 11) == 0)
			g.max_read = (unsigned)strtoul(v, NULL, 0);
		else if (strncmp(a, "--threads=", 10) == 0)
			g.threads = (unsigned)strtoul(v, NULL, 0);
		else if (strncmp(a, "--source=", 9) == 0)
			g.source = v;
		else if (strncmp(a, "--offset=", 9) == 0)
			g.offset = strtoull(v, NULL, 0);
		else if (strncmp(a, "--size=", 7) == 0)
			g.size = strtoull(v, NULL, 0);
		else
			bad = -1;
		if (bad) {
			fprintf(stderr, "ceiling: bad option %s\n", a);
			return -1;
		}
	}
	*argc = out;
	argv[out] = NULL;
	return g.source && g.threads > 0 ? 0 : -1;
}

/* ---- --uring: libfuse 3.14 driven from io_uring ---- */

#define UR_ENTRIES 4

struct ur_ent {
	struct uring_req_header *hdr;
	char *payload;
	char *stage; /* the request as /dev/fuse would give it */
	struct iovec iov[2];
	uint64_t unique;
	bool replied;
};

struct ur_queue {
	unsigned qid;
	pthread_t th;
	struct ring ring;
	struct ur_ent ents[UR_ENTRIES];
	int err;
};

static struct {
	struct fuse_session *se;
	int dev;
	size_t payload;
	unsigned nq;
	struct ur_queue *qs;
	_Atomic uint64_t init_unique;
	_Atomic bool offered;
	_Atomic bool started;
	_Atomic uint64_t served;
} ur;

static __thread struct ur_ent *ur_cur; /* the entry this thread is answering */

static ssize_t ur_read(int fd, void *buf, size_t len, void *userdata)
{
	ssize_t n = read(fd, buf, len);
	const struct fuse_in_header *ih = buf;
	const struct fuse_init_in *in = (const void *)(ih + 1);

	(void)userdata;
	if (n >= (ssize_t)(sizeof(*ih) + sizeof(*in)) && ih->opcode == FUSE_INIT) {
		atomic_store(&ur.offered,
		             (in->flags & FUSE_INIT_EXT) && (in->flags2 & OVER_IO_URING_FLAG2));
		atomic_store(&ur.init_unique, ih->unique);
	}
	return n;
}

/* Copy libfuse's reply into the entry being answered. */
static ssize_t ur_capture(struct ur_ent *e, const struct iovec *iov, int count)
{
	struct fuse_out_header oh;
	size_t len = 0;
	int i;

	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	for (i = 1; i < count; i++) {
		if (iov[i].iov_len > ur.payload - len) {
			errno = EINVAL;
			return -1;
		}
		memcpy(e->payload + len, iov[i].iov_base, iov[i].iov_len);
		len += iov[i].iov_len;
	}
	memcpy(e->hdr->in_out, &oh, sizeof(oh));
	e->hdr->ent.payload_sz = oh.error ? 0 : (uint32_t)len;
	e->replied = true;
	return (ssize_t)(sizeof(oh) + len);
}

static void *ur_thread(void *arg);

static int ur_start(void)
{
	unsigned i, j;

	ur.nq = (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	ur.qs = calloc(ur.nq, sizeof(*ur.qs));
	if (!ur.qs)
		return -ENOMEM;
	for (i = 0; i < ur.nq; i++) {
		ur.qs[i].qid = i;
		for (j = 0; j < UR_ENTRIES; j++) {
			struct ur_ent *e = &ur.qs[i].ents[j];

			e->stage = aligned_alloc(4096, ur.payload + 4096);
			if (!e->stage ||
			    ring_ent_init(&e->hdr, &e->payload, e->iov, ur.payload) != 0)
				return -ENOMEM;
		}
		if (pthread_create(&ur.qs[i].th, NULL, ur_thread, &ur.qs[i]) != 0)
			return -EAGAIN;
	}
	return 0;
}

/* libfuse's writes: INIT gains FUSE_OVER_IO_URING, ring replies go to the ring. */
static ssize_t ur_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	struct fuse_out_header oh;
	struct fuse_init_out out;
	struct iovec copy[2];
	ssize_t n;

	(void)userdata;
	if (count < 1 || iov[0].iov_len < sizeof(oh))
		return writev(fd, iov, count);
	memcpy(&oh, iov[0].iov_base, sizeof(oh));
	if (ur_cur && oh.unique == ur_cur->unique)
		return ur_capture(ur_cur, iov, count);
	if (oh.unique == 0 || oh.unique != atomic_load(&ur.init_unique) || oh.error || count != 2 ||
	    iov[1].iov_len != sizeof(out))
		return writev(fd, iov, count);
	if (!atomic_load(&ur.offered)) {
		fprintf(stderr, "ceiling: the kernel offers no FUSE over io_uring "
		                "(enable_uring is N?): serving over /dev/fuse\n");
		return writev(fd, iov, count);
	}
	memcpy(&out, iov[1].iov_base, sizeof(out));
	out.flags |= FUSE_INIT_EXT;
	out.flags2 |= OVER_IO_URING_FLAG2;
	ur.payload = out.max_write > 8192 ? out.max_write : 8192;
	if ((out.flags & FUSE_MAX_PAGES) && (size_t)out.max_pages * 4096 > ur.payload)
		ur.payload = (size_t)out.max_pages * 4096;
	copy[0] = iov[0];
	copy[1] = (struct iovec){&out, sizeof(out)};
	n = writev(fd, copy, 2);
	if (n >= 0 && ur_start() != 0) /* the kernel holds every request until all are in */
		fprintf(stderr, "ceiling: cannot start the rings\n");
	return n;
}

/* Hand the request in entry idx of queue arg to libfuse and queue the
 * commit of its reply. */
static void ur_serve(void *arg, unsigned idx)
{
	struct ur_queue *q = arg;
	struct ur_ent *e = &q->ents[idx];
	struct fuse_in_header ih;
	uint32_t insz = e->hdr->ent.payload_sz;
	struct fuse_buf fbuf = {0};
	size_t op;

	memcpy(&ih, e->hdr->in_out, sizeof(ih));
	/* the first argument sits in op_in, the rest in the payload */
	op = ih.len - sizeof(ih) - insz;
	if (ih.len < sizeof(ih) + insz || op > URING_OP_SZ || insz > ur.payload) {
		fprintf(stderr, "ceiling: malformed ring request (opcode %u)\n", ih.opcode);
		abort();
	}
	memcpy(e->stage, &ih, sizeof(ih));
	memcpy(e->stage + sizeof(ih), e->hdr->op_in, op);
	memcpy(e->stage + sizeof(ih) + op, e->payload, insz);
	fbuf.mem = e->stage;
	fbuf.size = ih.len;
	e->unique = ih.unique;
	e->replied = false;
	ur_cur = e;
	fuse_session_process_buf(ur.se, &fbuf);
	ur_cur = NULL;
	if (!e->replied) {
		fprintf(stderr, "ceiling: no reply to ring request (opcode %u)\n", ih.opcode);
		abort();
	}
	atomic_fetch_add_explicit(&ur.served, 1, memory_order_relaxed);
	ring_cmd(&q->ring, ur.dev, URING_CMD_COMMIT, e->iov, idx, (uint16_t)q->qid,
	         e->hdr->ent.commit_id);
}

static void *ur_thread(void *arg)
{
	struct ur_queue *q = arg;
	struct ring *rg = &q->ring;
	unsigned i;

	ring_pin(q->qid);
	q->err = ring_setup(rg, 2 * UR_ENTRIES);
	for (i = 0; !q->err && i < UR_ENTRIES; i++)
		ring_cmd(rg, ur.dev, URING_CMD_REGISTER, q->ents[i].iov, i, (uint16_t)q->qid, 0);
	while (!q->err) {
		q->err = ring_enter(rg, 1);
		if (!q->err)
			q->err = ring_reap(rg, UR_ENTRIES, ur_serve, q);
	}
	if (q->err != -ENOTCONN)
		fprintf(stderr, "ceiling: queue %u: %s\n", q->qid, strerror(-q->err));
	return NULL;
}

static int ur_attach(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {.read = ur_read, .writev = ur_writev};

	ur.se = se;
	ur.dev = fuse_session_fd(se);
	return ur.dev < 0 ? -EBADF : fuse_session_custom_io(se, &io, ur.dev);
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
	fuse_loop_cfg_set_clone_fd(cfg, g.clone_fd);
	ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

static int run(struct fuse_args *args, const char *mountpoint)
{
	struct fuse_session *se;
	int ret = 1;

	se = fuse_session_new(args, &ops, sizeof(ops), NULL);
	if (!se)
		return 1;
	if (fuse_set_signal_handlers(se) == 0) {
		if (fuse_session_mount(se, mountpoint) == 0) {
			if (!g.uring || ur_attach(se) == 0) {
				printf("ready\n");
				fflush(stdout);
				ret = serve(se) ? 1 : 0;
			}
			fuse_session_unmount(se);
		}
		fuse_remove_signal_handlers(se);
	}
	fuse_session_destroy(se);
	return ret;
}

int main(int argc, char **argv)
{
	struct fuse_args args;
	struct fuse_cmdline_opts opts;
	int ret;

	if (parse_own(&argc, argv) != 0) {
		fprintf(stderr, "usage: ceiling [--mode=mem|mmap|fd] --source=FILE "
		                "[--offset=N] [--size=N] [options] MOUNTPOINT\n");
		return 2;
	}
	args = (struct fuse_args)FUSE_ARGS_INIT(argc, argv);
	g.conn_opts = fuse_parse_conn_info_opts(&args);
	if (!g.conn_opts || fuse_parse_cmdline(&args, &opts) != 0 || !opts.mountpoint)
		return 2;
	ret = load_source();
	if (ret < 0) {
		fprintf(stderr, "ceiling: %s: %s\n", g.source, strerror(-ret));
		return 1;
	}
	ret = run(&args, opts.mountpoint);
	fprintf(stderr,
	        "ceiling: reads=%" PRIu64 " bytes=%" PRIu64 " max_read=%" PRIu64
	        " through rings=%" PRIu64 "\n",
	        atomic_load(&n_reads), atomic_load(&n_bytes), atomic_load(&max_read),
	        atomic_load(&ur.served));
	free(opts.mountpoint);
	fuse_opt_free_args(&args);
	free(g.conn_opts);
	return ret;
}
