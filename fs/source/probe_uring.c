/* The magic reads of a batch submitted together (probe_uring.h). */
#include "source/probe_uring.h"
#include "source/probe_helpers.h"
#include "source/probe_magic.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <unistd.h>
#ifdef ELFFS_URING
#include <liburing.h>
#endif

#ifdef ELFFS_URING
#define URING_DEPTH_MAX PROBE_READS_MAX

void probe_read_together(struct probe_batch *b, size_t depth)
{
	struct io_uring ring;
	bool ok = io_uring_queue_init((unsigned)depth, &ring, 0) == 0;
	size_t idx[URING_DEPTH_MAX];
	int fds[URING_DEPTH_MAX];
	unsigned char buf[URING_DEPTH_MAX][8];
	pfelf_identity ids[URING_DEPTH_MAX];
	size_t i = 0;
	while (i < b->n) {
		size_t m = 0;
		for (; i < b->n && m < depth; i++) {
			struct pitem *it = &b->it[i];
			if (atomic_load(&it->state) != IT_MAGIC)
				continue;
			const char *name = b->names + it->name;
			if (!ok) {
				probe_finish(
				        b, i,
				        probe_classify_here(probe_dir_of(b, it), name, &it->st));
				continue;
			}
			src_identity(&it->st, &ids[m]);
			int fd = src_openat(probe_dir_of(b, it), name,
			                    O_RDONLY | O_NONBLOCK | O_NOCTTY);
			struct stat st;
			int ret = fd < 0 ? fd : fstat(fd, &st) < 0 ? -errno : 0;
			if (ret == 0)
				src_identity(&st, &ids[m]);
			if (ret == 0 && S_ISREG(st.st_mode)) {
				posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
				io_uring_prep_read(sqe, fd, buf[m], sizeof(buf[m]), 0);
				sqe->user_data = m;
				idx[m] = i;
				fds[m++] = fd;
				continue;
			}
			if (fd >= 0)
				close(fd);
			probe_finish(b, i, probe_kind_of(probe_settle(&ids[m], ret)));
		}
		if (m == 0)
			continue;
		int got = io_uring_submit(&ring);
		if (got < (int)m)
			ok = false; /* what was not submitted is read the slow way, and the rest too
			             */
		int res[URING_DEPTH_MAX];
		for (size_t k = 0; k < m; k++)
			res[k] = INT_MIN; /* no answer */
		for (int k = 0; k < got; k++) {
			struct io_uring_cqe *cqe;
			if (io_uring_wait_cqe(&ring, &cqe) < 0)
				break;
			if (cqe->user_data < m)
				res[cqe->user_data] = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
		for (size_t k = 0; k < m; k++) {
			int ret = res[k] < 0 ? res[k]
			          : pfelf_is_elf_magic(buf[k], (size_t)res[k]) ||
			                          pfelf_is_archive_magic(buf[k], (size_t)res[k])
			                  ? 1
			                  : 0;
			if (res[k] == INT_MIN) /* not submitted, or no answer: the slow way */
				ret = probe_read_magic(probe_dir_of(b, &b->it[idx[k]]),
				                       b->names + b->it[idx[k]].name, &ids[k]);
			close(fds[k]);
			probe_finish(b, idx[k], probe_kind_of(probe_settle(&ids[k], ret)));
		}
	}
	if (ok)
		io_uring_queue_exit(&ring);
}
#else
void probe_read_together(struct probe_batch *b, size_t depth)
{
	(void)b;
	(void)depth;
}
#endif
