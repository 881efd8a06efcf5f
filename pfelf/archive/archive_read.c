/* Reading an archive's bytes through its backend, and the count of the
 * work done by archive opens (tests). */
#include "archive/archive_i.h"

#include <string.h>

static _Atomic uint64_t ar_work;

uint64_t pfelf__ar_work(void)
{
	return atomic_load_explicit(&ar_work, memory_order_relaxed);
}

void pfelf__ar_count(uint64_t n)
{
	atomic_fetch_add_explicit(&ar_work, n, memory_order_relaxed);
}

int pfelf__ar_read(pfelf_archive *a, uint64_t off, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	pfelf__ar_count(len);
	switch (a->kind) {
	case PFELF_BACKEND_MEMORY:
		memcpy(buf, a->base + off, len);
		return 0;
	case PFELF_BACKEND_MMAP:
		return pfelf__safe_copy(buf, a->base + off, len) < 0 ? -EIO : 0;
	case PFELF_BACKEND_PREAD:
		return pfelf__pread_all(a->fd, off, buf, len);
	}
	return -EINVAL;
}
