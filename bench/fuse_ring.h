/*
 * fuse_ring.h: what the bench servers need of FUSE over io_uring (Linux
 * 6.14+, protocol 7.42), on raw io_uring system calls: the kernel's
 * structures absent from the installed <linux/fuse.h>, a ring of 128-byte
 * SQEs (IORING_SETUP_SQE128, which IORING_OP_URING_CMD on /dev/fuse needs),
 * and the REGISTER / COMMIT_AND_FETCH commands. Facts from
 * Documentation/filesystems/fuse-io-uring.rst, include/uapi/linux/fuse.h and
 * fs/fuse/dev_uring.c: one queue per possible CPU, none used until every one
 * has an entry; an entry is a header buffer (struct uring_req_header) and a
 * payload buffer of at least max(8 KiB, max_write, max_pages pages); the
 * request's first argument arrives in op_in, the rest in the payload; the
 * reply is the fuse_out_header in in_out and its arguments in the payload
 * (ent.payload_sz bytes); commit_id is the request's unique.
 */
#ifndef BENCH_FUSE_RING_H
#define BENCH_FUSE_RING_H

#include <errno.h>
#include <sched.h>
#include <linux/io_uring.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Protocol 7.42 (Linux 6.14), absent from the installed <linux/fuse.h>. */
#define OVER_IO_URING_FLAG2 (1u << (41 - 32)) /* FUSE_OVER_IO_URING in flags2 */
#define URING_CMD_REGISTER  1u
#define URING_CMD_COMMIT    2u /* commit the reply and fetch the next request */
#define URING_HDR_SZ        128
#define URING_OP_SZ         128

struct uring_ent_in_out {
	uint64_t flags;
	uint64_t commit_id;
	uint32_t payload_sz;
	uint32_t padding;
	uint64_t reserved;
};

struct uring_req_header {
	char in_out[URING_HDR_SZ]; /* fuse_in_header in, fuse_out_header out */
	char op_in[URING_OP_SZ];   /* the request's fixed argument */
	struct uring_ent_in_out ent;
};

struct uring_cmd_req {
	uint64_t flags;
	uint64_t commit_id;
	uint16_t qid;
	uint8_t padding[6];
};

#define SQE_SZ 128

struct ring {
	int fd;
	unsigned *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned *cq_head, *cq_tail, *cq_mask;
	char *sqes;
	struct io_uring_cqe *cqes;
	unsigned pending; /* SQEs queued since the last enter */
};

static inline int ring_setup(struct ring *rg, unsigned entries)
{
	struct io_uring_params p;
	size_t sq_len, cq_len;
	char *sq, *cq;
	unsigned flags[] = {IORING_SETUP_SQE128 | IORING_SETUP_SINGLE_ISSUER |
	                            IORING_SETUP_DEFER_TASKRUN,
	                    IORING_SETUP_SQE128};
	unsigned i;

	rg->fd = -1;
	for (i = 0; i < 2 && rg->fd < 0; i++) {
		memset(&p, 0, sizeof(p));
		p.flags = flags[i];
		rg->fd = (int)syscall(__NR_io_uring_setup, entries, &p);
	}
	if (rg->fd < 0)
		return -errno;
	if (!(p.features & IORING_FEAT_SINGLE_MMAP))
		return -ENOSYS;
	sq_len = p.sq_off.array + p.sq_entries * sizeof(unsigned);
	cq_len = p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe);
	if (cq_len > sq_len)
		sq_len = cq_len;
	sq = mmap(NULL, sq_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, rg->fd,
	          IORING_OFF_SQ_RING);
	if (sq == MAP_FAILED)
		return -errno;
	cq = sq;
	rg->sqes = mmap(NULL, (size_t)p.sq_entries * SQE_SZ, PROT_READ | PROT_WRITE,
	                MAP_SHARED | MAP_POPULATE, rg->fd, IORING_OFF_SQES);
	if (rg->sqes == MAP_FAILED)
		return -errno;
	rg->sq_head = (unsigned *)(sq + p.sq_off.head);
	rg->sq_tail = (unsigned *)(sq + p.sq_off.tail);
	rg->sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	rg->sq_array = (unsigned *)(sq + p.sq_off.array);
	rg->cq_head = (unsigned *)(cq + p.cq_off.head);
	rg->cq_tail = (unsigned *)(cq + p.cq_off.tail);
	rg->cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	rg->cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	rg->pending = 0;
	return 0;
}

/* Queue one FUSE command SQE (the ring is sized so that it never fills). */
static inline void ring_cmd(struct ring *rg, int dev, unsigned cmd, const struct iovec *iov,
                            uint64_t idx, uint16_t qid, uint64_t commit_id)
{
	unsigned tail = *rg->sq_tail;
	unsigned slot = tail & *rg->sq_mask;
	struct io_uring_sqe *sqe = (struct io_uring_sqe *)(rg->sqes + (size_t)slot * SQE_SZ);
	struct uring_cmd_req *req = (struct uring_cmd_req *)sqe->cmd;

	memset(sqe, 0, SQE_SZ);
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = dev;
	sqe->cmd_op = cmd;
	sqe->user_data = idx;
	if (cmd == URING_CMD_REGISTER) {
		sqe->addr = (uint64_t)(uintptr_t)iov;
		sqe->len = 2;
	}
	req->qid = qid;
	req->commit_id = commit_id;
	rg->sq_array[slot] = slot;
	atomic_store_explicit((_Atomic unsigned *)rg->sq_tail, tail + 1, memory_order_release);
	rg->pending++;
}

static inline int ring_enter(struct ring *rg, unsigned wait)
{
	int n;

	do
		n = (int)syscall(__NR_io_uring_enter, rg->fd, rg->pending, wait,
		                 wait ? IORING_ENTER_GETEVENTS : 0, NULL, 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	rg->pending -= (unsigned)n < rg->pending ? (unsigned)n : rg->pending;
	return 0;
}

/* An entry's buffers: a zeroed 4 KiB header page and a payload of
 * payload_sz bytes, and the two iovecs REGISTER gives the kernel; 0 or
 * -ENOMEM. */
static inline int ring_ent_init(struct uring_req_header **hdr, char **payload, struct iovec iov[2],
                                size_t payload_sz)
{
	*hdr = aligned_alloc(4096, 4096);
	*payload = aligned_alloc(4096, payload_sz);
	if (!*hdr || !*payload)
		return -ENOMEM;
	memset(*hdr, 0, 4096);
	iov[0] = (struct iovec){*hdr, sizeof(**hdr)};
	iov[1] = (struct iovec){*payload, payload_sz};
	return 0;
}

/* Pin the calling thread to CPU cpu, the queue it serves (best effort). */
static inline void ring_pin(unsigned cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

/* Every completion the CQ holds now: serve(arg, its user_data) for each
 * good one, in order. The first failed one stops it: its res, or -EIO for
 * a user_data not below limit (-ENOTCONN: the connection is gone); 0
 * otherwise. The CQ head moves past what was seen. */
static inline int ring_reap(struct ring *rg, uint64_t limit, void (*serve)(void *, unsigned),
                            void *arg)
{
	unsigned head = *rg->cq_head;
	unsigned tail = atomic_load_explicit((_Atomic unsigned *)rg->cq_tail, memory_order_acquire);
	int err = 0;

	for (; !err && head != tail; head++) {
		const struct io_uring_cqe *c = &rg->cqes[head & *rg->cq_mask];

		if (c->res < 0 || c->user_data >= limit)
			err = c->res < 0 ? c->res : -EIO;
		else
			serve(arg, (unsigned)c->user_data);
	}
	atomic_store_explicit((_Atomic unsigned *)rg->cq_head, head, memory_order_release);
	return err;
}

#endif
