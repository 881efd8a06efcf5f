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

static int copy_vm_readv(void *dst, const void *src, size_t len)
{
	while (len > 0) {
		struct iovec local = {dst, len};
		struct iovec remote = {(void *)src, len};
		ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
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

int pfelf__safe_copy(void *dst, const void *src, size_t len)
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
