/*
 * What libfuse 3.14 cannot say on /dev/fuse: INIT flags past its 32 bits
 * and fields past its fuse_init_out, and the passthrough fields of an OPEN
 * reply (FOPEN_PASSTHROUGH, backing_id).
 *
 * libfuse 3.14 (Debian 12) reads the INIT request as the 7.31 protocol did:
 * its fuse_conn_info has 32 bits of flags, and it knows neither the
 * extended flags (flags2, FUSE_INIT_EXT) nor max_stack_depth, nor the
 * backing_id of fuse_open_out (its "padding"). So the session's reads and
 * writes of /dev/fuse go through two small functions (libfuse's
 * fuse_session_custom_io, on the descriptor fuse_session_mount opened):
 *
 * - the read one looks at each request until it has seen INIT, and notes
 *   its unique id and the flags the kernel offered (initext_offered);
 * - the write one finds libfuse's reply to that id and, in a copy of it,
 *   adds what the init handler asked for (initext_init_add): flags (with
 *   FUSE_INIT_EXT when any is in flags2), max_stack_depth, max_pages. The
 *   reply is built by libfuse after the init handler ran, in the same call;
 * - an open that is to be a passthrough open says so just before it
 *   replies (initext_open_passthrough): the next reply that same thread
 *   writes is that OPEN reply (libfuse writes a reply in the thread that
 *   calls fuse_reply_open, at once), and it goes out with FOPEN_PASSTHROUGH
 *   and the backing id. The request's unique id is not what finds it:
 *   libfuse 3.14 does not tell it, and an open may run in another worker
 *   than the one that read it (base/stall.h).
 *
 * Every other request and reply passes untouched. Decoding is by byte
 * offsets of the kernel's include/uapi/linux/fuse.h (host-endian).
 */
#include "ops/initext.h"
#include "base/log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
	IN_HEADER = 40,        /* struct fuse_in_header */
	OUT_HEADER = 16,       /* struct fuse_out_header */
	OPCODE_INIT = 26,      /* FUSE_INIT */
	INIT_IN_FLAGS = 12,    /* fuse_init_in.flags */
	INIT_IN_FLAGS2 = 16,   /* fuse_init_in.flags2 */
	INIT_OUT_FLAGS = 12,   /* fuse_init_out.flags */
	INIT_OUT_PAGES = 28,   /* fuse_init_out.max_pages (16 bits) */
	INIT_OUT_FLAGS2 = 32,  /* fuse_init_out.flags2 */
	INIT_OUT_DEPTH = 36,   /* fuse_init_out.max_stack_depth */
	INIT_OUT_MAX = 256,    /* the largest reply we copy (the kernel's is 64 bytes) */
	OPEN_OUT = 16,         /* struct fuse_open_out: fh, open_flags, backing_id */
	OPEN_OUT_FLAGS = 8,    /* fuse_open_out.open_flags */
	OPEN_OUT_BACKING = 12, /* fuse_open_out.backing_id */
	IOV_MAX_COPY = 8,
};
#define FLAG_INIT_EXT     ((uint64_t)1 << 30)
#define FLAG_MAX_PAGES    ((uint64_t)1 << 22)
#define FOPEN_PASSTHROUGH ((uint32_t)1 << 7)

static atomic_bool init_read;        /* INIT was read: stop looking */
static atomic_uint_fast64_t init_id; /* its unique id until the reply went out; 0: none */
static atomic_uint_fast64_t offered; /* the flags the kernel offered (flags2 above bit 31) */
/* What the init handler adds to the reply (set before libfuse writes it). */
static uint64_t add_flags;
static uint32_t add_depth;
static uint16_t add_pages;
/* The backing id the next reply of this thread carries (an OPEN reply); 0: none. */
static _Thread_local int32_t open_backing;

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const unsigned char *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/* A request as read: note INIT's id and what its flags offer. */
static void look_at_request(const unsigned char *b, size_t n)
{
	if (n < IN_HEADER + INIT_IN_FLAGS + 4 || get32(b + 4) != OPCODE_INIT)
		return;
	const unsigned char *in = b + IN_HEADER;
	uint64_t flags = get32(in + INIT_IN_FLAGS);
	if ((flags & FLAG_INIT_EXT) && n >= IN_HEADER + INIT_IN_FLAGS2 + 4)
		flags |= (uint64_t)get32(in + INIT_IN_FLAGS2) << 32;
	atomic_store(&offered, flags);
	atomic_store(&init_id, get64(b + 8));
	atomic_store(&init_read, true);
}

static ssize_t ext_read(int fd, void *buf, size_t len, void *userdata)
{
	(void)userdata;
	ssize_t n = read(fd, buf, len);
	if (n > 0 && !atomic_load_explicit(&init_read, memory_order_relaxed))
		look_at_request(buf, (size_t)n);
	return n;
}

/* Whether iov is a successful reply whose first argument is 16 to max bytes. */
static bool is_reply(const struct iovec *iov, int count, size_t min, size_t max)
{
	return count >= 2 && count <= IOV_MAX_COPY && iov[0].iov_len == OUT_HEADER &&
	       get32((const unsigned char *)iov[0].iov_base + 4) == 0 && iov[1].iov_len >= min &&
	       iov[1].iov_len <= max;
}

/* Whether iov is the reply to INIT. */
static bool is_init_reply(const struct iovec *iov, int count)
{
	uint64_t id = atomic_load(&init_id);
	if (id == 0 || count < 1 || iov[0].iov_len != OUT_HEADER ||
	    get64((const unsigned char *)iov[0].iov_base + 8) != id)
		return false;
	atomic_store(&init_id, 0);
	return true;
}

/* writev of iov with its first argument replaced by out. */
static ssize_t writev_with(int fd, const struct iovec *iov, int count, unsigned char *out)
{
	struct iovec copy[IOV_MAX_COPY];
	memcpy(copy, iov, (size_t)count * sizeof(*iov));
	copy[1].iov_base = out;
	return writev(fd, copy, count);
}

static ssize_t init_reply(int fd, struct iovec *iov, int count)
{
	size_t len = iov[1].iov_len;
	unsigned char out[INIT_OUT_MAX];
	memcpy(out, iov[1].iov_base, len);
	uint64_t flags = add_flags;
	if (flags >> 32) {
		flags |= FLAG_INIT_EXT;
		put32(out + INIT_OUT_FLAGS2,
		      get32(out + INIT_OUT_FLAGS2) | (uint32_t)(flags >> 32));
	}
	put32(out + INIT_OUT_FLAGS, get32(out + INIT_OUT_FLAGS) | (uint32_t)flags);
	if (add_depth && len >= INIT_OUT_DEPTH + 4)
		put32(out + INIT_OUT_DEPTH, add_depth);
	if (add_pages)
		memcpy(out + INIT_OUT_PAGES, &add_pages, sizeof(add_pages));
	return writev_with(fd, iov, count, out);
}

static ssize_t open_reply(int fd, struct iovec *iov, int count, int32_t backing)
{
	unsigned char out[OPEN_OUT];
	memcpy(out, iov[1].iov_base, OPEN_OUT);
	put32(out + OPEN_OUT_FLAGS, get32(out + OPEN_OUT_FLAGS) | FOPEN_PASSTHROUGH);
	memcpy(out + OPEN_OUT_BACKING, &backing, sizeof(backing));
	return writev_with(fd, iov, count, out);
}

static ssize_t ext_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	(void)userdata;
	int32_t backing = open_backing;
	if (backing) {
		open_backing = 0;
		if (is_reply(iov, count, OPEN_OUT, OPEN_OUT)) /* else an error reply */
			return open_reply(fd, iov, count, backing);
	}
	if (is_init_reply(iov, count) && (add_flags || add_pages) &&
	    is_reply(iov, count, INIT_OUT_FLAGS2 + 4, INIT_OUT_MAX))
		return init_reply(fd, iov, count);
	return writev(fd, iov, count);
}

#if FUSE_VERSION >= FUSE_MAKE_VERSION(3, 14)
int initext_attach(struct fuse_session *se)
{
	static const struct fuse_custom_io io = {.read = ext_read, .writev = ext_writev};
	int fd = fuse_session_fd(se);
	return fd < 0 ? -EBADF : fuse_session_custom_io(se, &io, fd);
}
#else
/* fuse_session_custom_io came with libfuse 3.14 */
int initext_attach(struct fuse_session *se)
{
	(void)se;
	(void)ext_read;
	(void)ext_writev;
	return -ENOSYS;
}
#endif

bool initext_offered(uint64_t flag)
{
	return (atomic_load(&offered) & flag) == flag;
}

void initext_init_add(uint64_t flags, uint32_t max_stack_depth, uint16_t max_pages)
{
	add_flags |= flags & atomic_load(&offered);
	if (max_stack_depth)
		add_depth = max_stack_depth;
	if (max_pages && initext_offered(FLAG_MAX_PAGES)) {
		add_flags |= FLAG_MAX_PAGES;
		add_pages = max_pages;
	}
}

void initext_open_passthrough(int32_t backing_id)
{
	open_backing = backing_id;
}
