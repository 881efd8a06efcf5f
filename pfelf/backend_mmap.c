/* The mmap backend: a counted reference on the shared mapping. Copies go
 * through the kernel (safecopy.c) so a shrunken file is -EIO, not SIGBUS. */
#include "pfelf_i.h"

#include <sys/mman.h>
#include <unistd.h>

static int mmap_read(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	return pfelf__safe_copy(buf, f->base + off, len) < 0 ? -EIO : 0;
}

static int mmap_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref)
{
	ref->ptr = f->base + off;
	ref->fd = -1;
	ref->pos = off;
	ref->len = len;
	return 0;
}

static const int madvice[] = {
        [PFELF_ADVICE_NORMAL] = MADV_NORMAL,     [PFELF_ADVICE_SEQUENTIAL] = MADV_SEQUENTIAL,
        [PFELF_ADVICE_RANDOM] = MADV_RANDOM,     [PFELF_ADVICE_WILLNEED] = MADV_WILLNEED,
        [PFELF_ADVICE_DONTNEED] = MADV_DONTNEED,
};

static int mmap_advise(pfelf_file *f, uint64_t off, uint64_t len, enum pfelf_advice a)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t start = off & ~(page - 1);
	uint64_t end = off + len;
	if (len == 0)
		return 0;
	if (madvise((void *)(f->base + start), (size_t)(end - start), madvice[a]) < 0)
		return -errno;
	return 0;
}

static void mmap_release(pfelf_file *f)
{
	pfelf__registry_put(f->map);
	pfelf__registry_handles(-1);
	f->map = NULL;
	f->base = NULL;
}

const struct pfelf_ops pfelf__mmap_ops = {
        .kind = PFELF_BACKEND_MMAP,
        .read = mmap_read,
        .ref = mmap_ref,
        .advise = mmap_advise,
        .release = mmap_release,
};
