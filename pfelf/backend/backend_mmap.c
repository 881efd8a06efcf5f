/*
 * The mmap backend: a counted reference on the shared mapping. Copies go
 * through the kernel (safecopy.c) so a shrunken file is -EIO, not SIGBUS.
 *
 * A handle opened from a descriptor is lazy: it keeps a descriptor (in the
 * budget of fdbudget.c) and reads its tables with pread until the first
 * zero-copy use (a reference, a view, advice) maps the file; from then on
 * the mapping serves everything and the descriptor is closed. Opening a
 * file to read its headers thus costs no mmap/munmap, and a handle that is
 * only parsed never holds a mapping.
 */
#include "pfelf_i.h"

#include <sys/mman.h>
#include <unistd.h>

static bool is_mapped(pfelf_file *f)
{
	return !f->lazy || atomic_load_explicit(&f->mapped, memory_order_acquire);
}

int pfelf__mmap_ensure(pfelf_file *f)
{
	return is_mapped(f) ? 0 : pfelf__fd_map(f);
}

static int mmap_read(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	if (!is_mapped(f)) {
		int ret = pfelf__fd_pread(f, off, buf, len);
		if (ret != 1)
			return ret;
		/* mapped meanwhile (the budget's lock ordered f->base before) */
	}
	return pfelf__safe_copy(buf, f->base + off, len) < 0 ? -EIO : 0;
}

/* Spans of a mapped handle in one process_vm_readv; of one that is not
 * mapped yet, read one by one (pread). */
static int mmap_read_spans(pfelf_file *f, const struct pfelf__span *s, unsigned n)
{
	struct iovec dst[PFELF__SPANS_MAX], src[PFELF__SPANS_MAX];
	if (!is_mapped(f)) {
		for (unsigned i = 0; i < n; i++) {
			int ret = mmap_read(f, s[i].off, s[i].buf, s[i].len);
			if (ret < 0)
				return ret;
		}
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		dst[i] = (struct iovec){s[i].buf, s[i].len};
		src[i] = (struct iovec){(void *)(f->base + s[i].off), s[i].len};
	}
	return pfelf__safe_copyv(dst, src, n) < 0 ? -EIO : 0;
}

static int mmap_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref)
{
	int fd = -1;
	if (pfelf__mmap_ensure(f) < 0) {
		int ret = pfelf__fd_acquire(f, &fd); /* released by pfelf_put_ref */
		if (ret < 0)
			return ret;
		/* 1: mapped meanwhile, fd left at -1 */
	}
	ref->ptr = fd < 0 ? f->base + off : NULL;
	ref->fd = fd;
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
	if (len == 0)
		return 0;
	/* Nothing mapped yet: no pages of ours to drop, and other advice
	 * is about the mapping to come, so make it. */
	if (!is_mapped(f) && (a == PFELF_ADVICE_DONTNEED || pfelf__fd_map(f) < 0))
		return 0;
	/* Page-align the address, not the offset: an archive member's base is
	 * inside the archive's mapping. */
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t end = (uintptr_t)(f->base + off) + (uintptr_t)len;
	uintptr_t start = (uintptr_t)(f->base + off) & ~(page - 1);
	if (madvise((void *)start, (size_t)(end - start), madvice[a]) < 0)
		return -errno;
	return 0;
}

static void mmap_release(pfelf_file *f)
{
	if (f->lazy) /* only a lazy handle holds a descriptor */
		pfelf__fd_unregister(f);
	f->fd = -1;
	pfelf__registry_put(f->map); /* NULL (never mapped) is fine */
	pfelf__registry_handles(-1);
	f->map = NULL;
	f->base = NULL;
}

const struct pfelf_ops pfelf__mmap_ops = {
        .kind = PFELF_BACKEND_MMAP,
        .read = mmap_read,
        .read_spans = mmap_read_spans,
        .ref = mmap_ref,
        .advise = mmap_advise,
        .release = mmap_release,
};
