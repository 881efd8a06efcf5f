/*
 * ceiling_uring: the FUSE ceiling without libfuse, over io_uring or over
 * /dev/fuse. A bare server speaking the kernel protocol itself, with one
 * read-only file, "data", holding the bytes [offset, offset+size) of a
 * source file (mapped MAP_SHARED, like elffs and `ceiling --mode=mmap`).
 *
 * ceiling_uring [--transport=uring|dev] [--direct-io] [--keep-cache]
 *               [--entries=N] [--pread] [--no-pin] --source=FILE [--offset=N]
 *               [--size=N] MOUNTPOINT
 *
 *   --transport=uring  (default) FUSE over io_uring (Linux 6.14+, needs
 *                      /sys/module/fuse/parameters/enable_uring = Y at mount
 *                      time): one thread per possible CPU, pinned to it, each
 *                      with its own ring and N entries (--entries, default 4)
 *                      registered on that CPU's queue. A request travels as a
 *                      completion and its reply goes back with the next fetch
 *                      in one io_uring_enter(2); READ data is copied from the
 *                      mapping into the entry's payload buffer.
 *   --transport=dev    read(2)/writev(2) on /dev/fuse, one thread per possible
 *                      CPU sharing the descriptor; READ data is written from
 *                      the mapping (what libfuse does, without libfuse).
 *   --pread            READ data pread(2) from FILE into the reply buffer (the
 *                      ring entry's payload; a per-thread buffer for dev)
 *                      instead of taken from the mapping.
 *   --no-pin           uring: leave the queue threads unpinned.
 *   --direct-io        FOPEN_DIRECT_IO on open; --keep-cache FOPEN_KEEP_CACHE.
 *
 * It mounts with mount(2) (root only), does INIT over /dev/fuse, prints
 * "ready" once the rings are registered, and serves until unmounted
 * (fusermount3 -u or umount); then prints the request counts on stderr.
 * FORGET and INTERRUPT (never sent through the rings) are read from /dev/fuse
 * by the main thread in both transports. A bench tool: no checks beyond what
 * keeps it correct for the kernel's own requests.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "fuse_ring.h"

#define DATA_INO   2
#define DATA_NAME  "data"
#define MAX_PAGES  256
#define PAYLOAD_SZ ((size_t)MAX_PAGES * 4096) /* what the kernel asks of an entry */
#define DEV_BUF_SZ (PAYLOAD_SZ + 4096)

static struct {
	bool uring;
	bool direct_io;
	bool keep_cache;
	bool no_pin;
	bool pread;
	int fd;
	unsigned entries;
	const char *source;
	uint64_t offset;
	uint64_t size;
	const char *base;
	int dev;
	unsigned nq;
} g = {.uring = true, .entries = 4};

static _Atomic uint64_t n_reqs, n_reads, n_ring;
static _Atomic unsigned n_started; /* queue threads past registration */

/* One reply: a header-sized argument in arg, or data (READ) by pointer. */
struct reply {
	char *buf; /* PAYLOAD_SZ bytes where --pread reads READ data */
	int error;
	bool none; /* FORGET and friends: no reply at all */
	const void *data;
	size_t len;
	char arg[512];
};

static void fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof(*a));
	a->ino = ino;
	a->uid = getuid();
	a->gid = getgid();
	a->blksize = 4096;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0555;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0444;
		a->nlink = 1;
		a->size = g.size;
		a->blocks = (g.size + 511) / 512;
	}
}

static void set_arg(struct reply *r, const void *p, size_t len)
{
	memcpy(r->arg, p, len);
	r->data = r->arg;
	r->len = len;
}

static size_t add_dirent(char *buf, size_t at, size_t cap, uint64_t ino, uint64_t off,
                         uint32_t type, const char *name)
{
	size_t namelen = strlen(name);
	size_t sz = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);
	struct fuse_dirent *d = (struct fuse_dirent *)(buf + at);

	if (at + sz > cap)
		return at;
	memset(d, 0, sz);
	d->ino = ino;
	d->off = off;
	d->namelen = (uint32_t)namelen;
	d->type = type;
	memcpy(d->name, name, namelen);
	return at + sz;
}

static void op_read(const struct fuse_read_in *in, struct reply *r)
{
	uint64_t size = in->size;

	atomic_fetch_add_explicit(&n_reads, 1, memory_order_relaxed);
	r->data = g.base;
	r->len = 0;
	if (in->offset >= g.size)
		return;
	if (size > g.size - in->offset)
		size = g.size - in->offset;
	if (size > PAYLOAD_SZ)
		size = PAYLOAD_SZ;
	r->data = g.base + in->offset;
	r->len = size;
	if (g.pread) {
		ssize_t n = pread(g.fd, r->buf, size, (off_t)(g.offset + in->offset));

		r->error = n < 0 ? -errno : 0;
		r->data = r->buf;
		r->len = n < 0 ? 0 : (size_t)n;
	}
}

static void op_readdir(const struct fuse_read_in *in, struct reply *r)
{
	size_t cap = in->size < sizeof(r->arg) ? in->size : sizeof(r->arg);
	size_t at = 0;

	if (in->offset < 1)
		at = add_dirent(r->arg, at, cap, FUSE_ROOT_ID, 1, S_IFDIR >> 12, ".");
	if (in->offset < 2)
		at = add_dirent(r->arg, at, cap, DATA_INO, 2, S_IFREG >> 12, DATA_NAME);
	r->data = r->arg;
	r->len = at;
}

/* Answer one request; op is its fixed argument, name LOOKUP's name. */
static void handle(const struct fuse_in_header *ih, const void *op, const char *name,
                   size_t namelen, struct reply *r)
{
	r->error = 0;
	r->none = false;
	r->data = NULL;
	r->len = 0;
	atomic_fetch_add_explicit(&n_reqs, 1, memory_order_relaxed);
	switch (ih->opcode) {
	case FUSE_LOOKUP: {
		struct fuse_entry_out e;

		if (ih->nodeid != FUSE_ROOT_ID || namelen < 4 || memcmp(name, DATA_NAME, 4) != 0 ||
		    (namelen > 4 && name[4] != '\0')) {
			r->error = -ENOENT;
			return;
		}
		memset(&e, 0, sizeof(e));
		e.nodeid = DATA_INO;
		e.entry_valid = 3600;
		e.attr_valid = 3600;
		fill_attr(&e.attr, DATA_INO);
		set_arg(r, &e, sizeof(e));
		return;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out a;

		memset(&a, 0, sizeof(a));
		a.attr_valid = 3600;
		fill_attr(&a.attr, ih->nodeid);
		set_arg(r, &a, sizeof(a));
		return;
	}
	case FUSE_OPEN:
	case FUSE_OPENDIR: {
		const struct fuse_open_in *in = op;
		struct fuse_open_out o;
		bool dir = ih->opcode == FUSE_OPENDIR;

		if ((ih->nodeid == FUSE_ROOT_ID) != dir) {
			r->error = dir ? -ENOTDIR : -EISDIR;
			return;
		}
		if ((in->flags & O_ACCMODE) != O_RDONLY) {
			r->error = -EROFS;
			return;
		}
		memset(&o, 0, sizeof(o));
		if (!dir)
			o.open_flags = (g.direct_io ? FOPEN_DIRECT_IO : 0) |
			               (g.keep_cache ? FOPEN_KEEP_CACHE : 0);
		set_arg(r, &o, sizeof(o));
		return;
	}
	case FUSE_READ:
		op_read(op, r);
		return;
	case FUSE_READDIR:
		op_readdir(op, r);
		return;
	case FUSE_STATFS: {
		struct fuse_statfs_out s;

		memset(&s, 0, sizeof(s));
		s.st.bsize = 4096;
		s.st.frsize = 4096;
		s.st.blocks = (g.size + 4095) / 4096;
		s.st.files = 2;
		s.st.namelen = 255;
		set_arg(r, &s, sizeof(s));
		return;
	}
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
	case FUSE_ACCESS:
	case FUSE_DESTROY:
		return;
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
	case FUSE_INTERRUPT:
		r->none = true;
		return;
	default:
		r->error = -ENOSYS;
		return;
	}
}

/* ---- /dev/fuse ---- */

static int dev_reply(uint64_t unique, const struct reply *r)
{
	struct fuse_out_header oh = {.unique = unique, .error = r->error};
	struct iovec iov[2] = {{&oh, sizeof(oh)}, {(void *)r->data, r->error ? 0 : r->len}};

	oh.len = (uint32_t)(sizeof(oh) + iov[1].iov_len);
	if (writev(g.dev, iov, 2) < 0 && errno != ENOENT) /* ENOENT: interrupted meanwhile */
		return -errno;
	return 0;
}

/* Read and answer requests until the connection ends. */
static void *dev_loop(void *arg)
{
	char *buf = aligned_alloc(4096, DEV_BUF_SZ);
	struct reply *r = malloc(sizeof(*r));

	(void)arg;
	if (!buf || !r)
		return NULL;
	r->buf = g.pread ? aligned_alloc(4096, PAYLOAD_SZ) : NULL;
	if (g.pread && !r->buf)
		return NULL;
	for (;;) {
		ssize_t n = read(g.dev, buf, DEV_BUF_SZ);
		const struct fuse_in_header *ih = (const void *)buf;

		if (n < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof(*ih))
			break; /* ENODEV: unmounted */
		handle(ih, buf + sizeof(*ih), buf + sizeof(*ih), (size_t)n - sizeof(*ih), r);
		if (!r->none && dev_reply(ih->unique, r) < 0)
			break;
		if (ih->opcode == FUSE_DESTROY)
			break;
	}
	free(buf);
	free(r->buf);
	free(r);
	return NULL;
}

static int dev_init(void)
{
	static char buf[DEV_BUF_SZ];
	const struct fuse_in_header *ih = (const void *)buf;
	const struct fuse_init_in *in = (const void *)(buf + sizeof(*ih));
	struct fuse_init_out out;
	struct reply r = {0};
	uint32_t want = FUSE_ASYNC_READ | FUSE_ASYNC_DIO | FUSE_PARALLEL_DIROPS | FUSE_MAX_PAGES |
	                FUSE_INIT_EXT;
	ssize_t n;

	do
		n = read(g.dev, buf, sizeof(buf));
	while (n < 0 && errno == EINTR);
	if (n < (ssize_t)(sizeof(*ih) + sizeof(*in)) || ih->opcode != FUSE_INIT)
		return -EPROTO;
	memset(&out, 0, sizeof(out));
	out.major = FUSE_KERNEL_VERSION;
	out.minor = in->minor < 42 ? in->minor : 42;
	out.max_readahead = in->max_readahead;
	out.flags = in->flags & want;
	out.max_background = 64;
	out.congestion_threshold = 48;
	out.max_write = 128 * 1024;
	out.max_pages = MAX_PAGES;
	if (g.uring) {
		if (!(in->flags & FUSE_INIT_EXT) || !(in->flags2 & OVER_IO_URING_FLAG2)) {
			fprintf(stderr, "ceiling_uring: the kernel offers no FUSE over io_uring "
			                "(enable_uring is N?)\n");
			return -EOPNOTSUPP;
		}
		out.flags2 = OVER_IO_URING_FLAG2;
	}
	r.data = &out;
	r.len = sizeof(out);
	return dev_reply(ih->unique, &r);
}

/* ---- io_uring ---- */

struct entry {
	struct uring_req_header *hdr;
	char *payload;
	struct iovec iov[2];
};

struct queue {
	unsigned qid;
	pthread_t th;
	struct ring ring;
	struct entry *ents;
	struct reply r;
	int err;
};

/* Answer the request in entry idx of queue arg and queue its commit
 * (which fetches the next). */
static void ring_serve(void *arg, unsigned idx)
{
	struct queue *q = arg;
	struct entry *e = &q->ents[idx];
	const struct fuse_in_header *ih = (const void *)e->hdr->in_out;
	struct fuse_out_header *oh = (struct fuse_out_header *)e->hdr->in_out;
	uint64_t unique = ih->unique;
	uint64_t commit_id = e->hdr->ent.commit_id;
	uint32_t insz = e->hdr->ent.payload_sz;
	struct reply *r = &q->r;

	r->buf = e->payload;
	atomic_fetch_add_explicit(&n_ring, 1, memory_order_relaxed);
	handle(ih, e->hdr->op_in, e->payload, insz < PAYLOAD_SZ ? insz : PAYLOAD_SZ, r);
	if (!r->error && r->len && r->data != e->payload)
		memcpy(e->payload, r->data, r->len);
	memset(oh, 0, sizeof(*oh));
	oh->unique = unique;
	oh->error = r->error;
	oh->len = (uint32_t)(sizeof(*oh) + (r->error ? 0 : r->len));
	e->hdr->ent.payload_sz = r->error ? 0 : (uint32_t)r->len;
	ring_cmd(&q->ring, g.dev, URING_CMD_COMMIT, e->iov, idx, (uint16_t)q->qid, commit_id);
}

static void *ring_loop(void *arg)
{
	struct queue *q = arg;
	struct ring *rg = &q->ring;

	for (;;) {
		q->err = ring_reap(rg, g.entries, ring_serve, q); /* -ENOTCONN: gone */
		if (!q->err)
			q->err = ring_enter(rg, 1);
		if (q->err)
			return NULL;
	}
}

static void *ring_thread(void *arg)
{
	struct queue *q = arg;
	unsigned i;

	if (!g.no_pin)
		ring_pin(q->qid);
	q->err = ring_setup(&q->ring, 2 * g.entries);
	if (q->err) {
		atomic_fetch_add(&n_started, 1);
		return NULL;
	}
	for (i = 0; i < g.entries; i++)
		ring_cmd(&q->ring, g.dev, URING_CMD_REGISTER, q->ents[i].iov, i, (uint16_t)q->qid,
		         0);
	q->err = ring_enter(&q->ring, 0);
	/* a refused REGISTER completes at once; an accepted one only with a request */
	if (!q->err && *q->ring.cq_head != atomic_load((_Atomic unsigned *)q->ring.cq_tail))
		q->err = q->ring.cqes[*q->ring.cq_head & *q->ring.cq_mask].res;
	atomic_fetch_add(&n_started, 1);
	if (q->err)
		return NULL;
	return ring_loop(q);
}

static int start_queues(struct queue *qs)
{
	unsigned i, j;

	for (i = 0; i < g.nq; i++) {
		qs[i].qid = i;
		qs[i].ents = calloc(g.entries, sizeof(*qs[i].ents));
		if (!qs[i].ents)
			return -ENOMEM;
		for (j = 0; j < g.entries; j++) {
			struct entry *e = &qs[i].ents[j];

			if (ring_ent_init(&e->hdr, &e->payload, e->iov, PAYLOAD_SZ) != 0)
				return -ENOMEM;
		}
		if (pthread_create(&qs[i].th, NULL, ring_thread, &qs[i]) != 0)
			return -EAGAIN;
	}
	while (atomic_load(&n_started) < g.nq)
		usleep(1000);
	for (i = 0; i < g.nq; i++)
		if (qs[i].err)
			return qs[i].err;
	return 0;
}

/* ---- setup ---- */

static int load_source(void)
{
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);
	uint64_t start;
	int fd = open(g.source, O_RDONLY | O_CLOEXEC);
	void *m;

	if (fd < 0 || fstat(fd, &st) != 0)
		return -errno;
	if (g.size == 0 && (uint64_t)st.st_size > g.offset)
		g.size = (uint64_t)st.st_size - g.offset;
	if (g.offset > (uint64_t)st.st_size || g.size > (uint64_t)st.st_size - g.offset)
		return -EINVAL;
	start = g.offset & ~(uint64_t)(page - 1);
	m = mmap(NULL, g.offset - start + g.size + 1, PROT_READ, MAP_SHARED, fd, (off_t)start);
	if (g.pread)
		g.fd = fd;
	else
		close(fd);
	if (m == MAP_FAILED)
		return -errno;
	g.base = (const char *)m + (g.offset - start);
	return 0;
}

static int do_mount(const char *mnt)
{
	char opts[128];

	g.dev = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (g.dev < 0)
		return -errno;
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=%u,group_id=%u,allow_other",
	         g.dev, getuid(), getgid());
	if (mount("ceiling_uring", mnt, "fuse.ceiling_uring", MS_RDONLY | MS_NOSUID | MS_NODEV,
	          opts) != 0)
		return -errno;
	return 0;
}

static int parse(int argc, char **argv, const char **mnt)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = strchr(a, '=');

		v = v ? v + 1 : "";
		if (strcmp(a, "--transport=uring") == 0)
			g.uring = true;
		else if (strcmp(a, "--transport=dev") == 0)
			g.uring = false;
		else if (strcmp(a, "--direct-io") == 0)
			g.direct_io = true;
		else if (strcmp(a, "--keep-cache") == 0)
			g.keep_cache = true;
		else if (strcmp(a, "--no-pin") == 0)
			g.no_pin = true;
		else if (strcmp(a, "--pread") == 0)
			g.pread = true;
		else if (strncmp(a, "--entries=", 10) == 0)
			g.entries = (unsigned)strtoul(v, NULL, 0);
		else if (strncmp(a, "--source=", 9) == 0)
			g.source = v;
		else if (strncmp(a, "--offset=", 9) == 0)
			g.offset = strtoull(v, NULL, 0);
		else if (strncmp(a, "--size=", 7) == 0)
			g.size = strtoull(v, NULL, 0);
		else if (a[0] != '-' && !*mnt)
			*mnt = a;
		else
			return -1;
	}
	return g.source && *mnt && g.entries > 0 && g.entries <= 64 ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *mnt = NULL;
	struct queue *qs = NULL;
	pthread_t *th = NULL;
	unsigned i;
	int ret;

	if (parse(argc, argv, &mnt) != 0) {
		fprintf(stderr, "usage: ceiling_uring [--transport=uring|dev] [--direct-io] "
		                "[--keep-cache] [--entries=N] --source=FILE [--offset=N] "
		                "[--size=N] MOUNTPOINT\n");
		return 2;
	}
	ret = load_source();
	if (ret == 0)
		ret = do_mount(mnt);
	if (ret == 0)
		ret = dev_init();
	if (ret < 0) {
		fprintf(stderr, "ceiling_uring: %s\n", strerror(-ret));
		umount2(mnt, MNT_DETACH);
		return 1;
	}
	/* the kernel has one queue per possible CPU, and uses none until all are registered */
	g.nq = (unsigned)sysconf(_SC_NPROCESSORS_CONF);
	if (g.uring) {
		qs = calloc(g.nq, sizeof(*qs));
		ret = qs ? start_queues(qs) : -ENOMEM;
	} else {
		th = calloc(g.nq, sizeof(*th));
		for (i = 0; th && i + 1 < g.nq; i++)
			pthread_create(&th[i], NULL, dev_loop, NULL);
		ret = th ? 0 : -ENOMEM;
	}
	if (ret < 0) {
		fprintf(stderr, "ceiling_uring: %s\n", strerror(-ret));
		umount2(mnt, MNT_DETACH);
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	dev_loop(NULL); /* FORGET/INTERRUPT (uring), everything (dev); ends on unmount */
	for (i = 0; qs && i < g.nq; i++)
		if (qs[i].err && qs[i].err != -ENOTCONN)
			fprintf(stderr, "ceiling_uring: queue %u: %s\n", i, strerror(-qs[i].err));
	fprintf(stderr,
	        "ceiling_uring: transport=%s requests=%" PRIu64 " through rings=%" PRIu64
	        " reads=%" PRIu64 "\n",
	        g.uring ? "uring" : "dev", atomic_load(&n_reqs), atomic_load(&n_ring),
	        atomic_load(&n_reads));
	fflush(stderr);
	_exit(0); /* the other threads end with the connection */
}
