/*
 * Kernel-mediated copies out of a file mapping.
 *
 * A page of a MAP_SHARED mapping past the end of a file that shrank raises
 * SIGBUS when user code touches it. When the kernel touches it on our
 * behalf (process_vm_readv, or write(2) to a pipe), the fault is resolved
 * by the kernel's exception tables and the call fails with EFAULT instead.
 * So pfelf never reads a mapping with a CPU load: every table it parses is
 * copied out through here first.
 */
#include "pfelf_i.h"

#include <fcntl.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static _Atomic int vm_readv_broken; /* seccomp or old kernel: use the pipe */

/* The process's id, asked once (getpid is a system call of its own): a
 * child of fork asks again, its copies then being of its own mappings. */
static _Atomic pid_t self_pid;
static pthread_once_t self_once = PTHREAD_ONCE_INIT;

static void forget_pid(void)
{
	atomic_store_explicit(&self_pid, 0, memory_order_relaxed);
}

static void watch_fork(void)
{
	(void)pthread_atfork(NULL, NULL, forget_pid);
}

static pid_t self(void)
{
	pthread_once(&self_once, watch_fork);
	pid_t pid = atomic_load_explicit(&self_pid, memory_order_relaxed);
	if (pid == 0) {
		pid = getpid();
		atomic_store_explicit(&self_pid, pid, memory_order_relaxed);
	}
	return pid;
}

static int copy_vm_readv(void *dst, const void *src, size_t len)
{
	while (len > 0) {
		struct iovec local = {dst, len};
		struct iovec remote = {(void *)src, len};
		ssize_t n = process_vm_readv(self(), &local, 1, &remote, 1, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOSYS || errno == EPERM)
				return -ENOSYS;
			return -EFAULT;
		}
		if (n == 0)
			return -EFAULT;
		dst = (uint8_t *)dst + n;
		src = (const uint8_t *)src + n;
		len -= (size_t)n;
	}
	return 0;
}

static int copy_pipe_chunk(int p[2], uint8_t *dst, const uint8_t *src, size_t n)
{
	ssize_t w = write(p[1], src, n);
	if (w < 0)
		return errno == EINTR ? 0 : -EFAULT;
	size_t got = 0;
	while (got < (size_t)w) {
		ssize_t r = read(p[0], dst + got, (size_t)w - got);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			return -EIO;
		}
		got += (size_t)r;
	}
	return (int)w;
}

static int copy_pipe(void *dst, const void *src, size_t len)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	int ret = 0;
	while (len > 0) {
		size_t n = len < 65536 ? len : 65536;
		ret = copy_pipe_chunk(p, dst, src, n);
		if (ret < 0)
			break;
		dst = (uint8_t *)dst + ret;
		src = (const uint8_t *)src + ret;
		len -= (size_t)ret;
		ret = 0;
	}
	close(p[0]);
	close(p[1]);
	return ret;
}

static int copy_one(void *dst, const void *src, size_t len)
{
	if (len == 0)
		return 0;
	if (!atomic_load_explicit(&vm_readv_broken, memory_order_relaxed)) {
		int ret = copy_vm_readv(dst, src, len);
		if (ret != -ENOSYS)
			return ret;
		atomic_store(&vm_readv_broken, 1);
	}
	return copy_pipe(dst, src, len);
}

int pfelf__safe_copy(void *dst, const void *src, size_t len)
{
	return copy_one(dst, src, len);
}

/* Bytes of the n ranges of iov. */
static size_t total(const struct iovec *iov, unsigned n)
{
	size_t t = 0;
	for (unsigned i = 0; i < n; i++)
		t += iov[i].iov_len;
	return t;
}

int pfelf__safe_copyv(const struct iovec *dst, const struct iovec *src, unsigned n)
{
	/* all at once; short (a signal, a page gone) or refused: one by one,
	 * which resumes, falls back to the pipe and says which failed */
	if (n > 1 && !atomic_load_explicit(&vm_readv_broken, memory_order_relaxed)) {
		ssize_t got = process_vm_readv(self(), dst, n, src, n, 0);
		if (got >= 0 && (size_t)got == total(src, n))
			return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		int ret = copy_one(dst[i].iov_base, src[i].iov_base, src[i].iov_len);
		if (ret < 0)
			return ret;
	}
	return 0;
}
