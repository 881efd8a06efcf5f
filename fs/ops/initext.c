/*
 * FUSE_DIRECT_IO_ALLOW_MMAP for a libfuse that does not know it.
 *
 * A file opened for direct I/O (FOPEN_DIRECT_IO) can be mapped MAP_SHARED
 * only when the daemon answered FUSE_DIRECT_IO_ALLOW_MMAP at INIT (flag bit
 * 36, in the flags2 word of the extended INIT, Linux 6.6 and later);
 * otherwise the kernel refuses the mapping with ENODEV. libfuse 3.14
 * (Debian 12) reads the INIT request as the 7.31 protocol did and never
 * sets the flag: its fuse_conn_info has 32 bits of flags.
 *
 * So the session's reads and writes of /dev/fuse go through two small
 * functions (libfuse's fuse_session_custom_io, on the descriptor
 * fuse_session_mount opened): the read one looks at each request until it
 * has seen INIT and notes its unique id and whether the kernel offered the
 * flag; the write one finds libfuse's reply to that id and, when the kernel
 * offered it, sets FUSE_INIT_EXT and the flag in a copy of the reply before
 * it goes out. Every other request and reply passes untouched. The reply
 * is built by libfuse after our init handler ran, so the policy can ask
 * initext_dio_mmap() there. Decoding is by byte offsets of the kernel's
 * include/uapi/linux/fuse.h (the structures are host-endian).
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
	IN_HEADER = 40,       /* struct fuse_in_header */
	OUT_HEADER = 16,      /* struct fuse_out_header */
	OPCODE_INIT = 26,     /* FUSE_INIT */
	INIT_IN_FLAGS = 12,   /* fuse_init_in.flags */
	INIT_IN_FLAGS2 = 16,  /* fuse_init_in.flags2 */
	INIT_OUT_FLAGS = 12,  /* fuse_init_out.flags */
	INIT_OUT_FLAGS2 = 32, /* fuse_init_out.flags2 */
	INIT_OUT_MAX = 256,   /* the largest reply we copy (the kernel's is 64 bytes) */
	IOV_MAX_COPY = 8,
};
#define FLAG_INIT_EXT        ((uint32_t)1 << 30)
#define FLAG2_DIO_ALLOW_MMAP ((uint32_t)1 << (36 - 32))

static atomic_bool init_read;        /* INIT was read: stop looking */
static atomic_uint_fast64_t init_id; /* its unique id until the reply went out; 0: none */
static atomic_bool dio_mmap;         /* the kernel offered FUSE_DIRECT_IO_ALLOW_MMAP */

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

/* A request as read: note INIT's id and what its extended flags offer. */
static void look_at_request(const unsigned char *b, size_t n)
{
	if (n < IN_HEADER + INIT_IN_FLAGS + 4 || get32(b + 4) != OPCODE_INIT)
		return;
	const unsigned char *in = b + IN_HEADER;
	uint32_t flags = get32(in + INIT_IN_FLAGS);
	bool ext = (flags & FLAG_INIT_EXT) && n >= IN_HEADER + INIT_IN_FLAGS2 + 4;
	bool offered = ext && (get32(in + INIT_IN_FLAGS2) & FLAG2_DIO_ALLOW_MMAP);
	atomic_store(&dio_mmap, offered);
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

/* Whether iov is the successful reply to INIT, with room for flags2. */
static bool is_init_reply(const struct iovec *iov, int count)
{
	uint64_t id = atomic_load(&init_id);
	if (id == 0 || count < 2 || count > IOV_MAX_COPY || iov[0].iov_len != OUT_HEADER)
		return false;
	const unsigned char *h = iov[0].iov_base;
	if (get64(h + 8) != id)
		return false;
	atomic_store(&init_id, 0);
	return get32(h + 4) == 0 && iov[1].iov_len >= INIT_OUT_FLAGS2 + 4 &&
	       iov[1].iov_len <= INIT_OUT_MAX;
}

static ssize_t ext_writev(int fd, struct iovec *iov, int count, void *userdata)
{
	(void)userdata;
	if (!atomic_load(&dio_mmap) || !is_init_reply(iov, count))
		return writev(fd, iov, count);
	unsigned char out[INIT_OUT_MAX];
	struct iovec copy[IOV_MAX_COPY];
	memcpy(copy, iov, (size_t)count * sizeof(*iov));
	memcpy(out, iov[1].iov_base, iov[1].iov_len);
	put32(out + INIT_OUT_FLAGS, get32(out + INIT_OUT_FLAGS) | FLAG_INIT_EXT);
	put32(out + INIT_OUT_FLAGS2, get32(out + INIT_OUT_FLAGS2) | FLAG2_DIO_ALLOW_MMAP);
	copy[1].iov_base = out;
	return writev(fd, copy, count);
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

bool initext_dio_mmap(void)
{
	return atomic_load(&dio_mmap);
}
