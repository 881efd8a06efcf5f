/* Data access: zero-copy references, copying reads, views, reads by
 * virtual address, and paging advice. */
#include "pfelf_i.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

PFELF_API int pfelf_get_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref)
{
	if (!ref || !pfelf__range_ok(f->size, off, len))
		return -EINVAL;
	if (off > f->size)
		off = f->size; /* an empty range anywhere: point at the end */
	return f->ops->ref(f, off, len, ref);
}

PFELF_API void pfelf_put_ref(pfelf_file *f, pfelf_ref *ref)
{
	if (!f || !ref)
		return;
	if ((f->reopen || f->lazy) && ref->fd >= 0)
		pfelf__fd_release(f);
	ref->fd = -1;
	ref->ptr = NULL;
	ref->len = 0;
}

PFELF_API ssize_t pfelf_read(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	if (len > SSIZE_MAX || (!buf && len > 0))
		return -EINVAL;
	int ret = pfelf__read_range(f, off, buf, len);
	return ret < 0 ? ret : (ssize_t)len;
}

/* The PT_LOAD that holds vaddr, or NULL. */
static const pfelf_phdr *load_at(const pfelf_file *f, uint64_t vaddr)
{
	for (uint32_t i = 0; i < f->eh.phnum; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type == PT_LOAD && vaddr >= p->vaddr && vaddr - p->vaddr < p->memsz)
			return p;
	}
	return NULL;
}

/* Copy what segment p holds at vaddr (file bytes, then zeros); returns
 * the number of bytes produced (> 0) or -errno. */
static ssize_t read_in_load(pfelf_file *f, const pfelf_phdr *p, uint64_t vaddr, uint8_t *dst,
                            size_t len)
{
	uint64_t in = vaddr - p->vaddr;
	uint64_t avail = p->memsz - in;
	size_t n = avail < len ? (size_t)avail : len;
	if (in >= p->filesz) {
		memset(dst, 0, n);
		return (ssize_t)n;
	}
	if (p->status & PFELF_ST_OUT_OF_FILE)
		return -EINVAL;
	uint64_t fileleft = p->filesz - in;
	if (n > fileleft)
		n = (size_t)fileleft;
	int ret = pfelf__read_range(f, p->offset + in, dst, n);
	return ret < 0 ? ret : (ssize_t)n;
}

PFELF_API ssize_t pfelf_read_vaddr(pfelf_file *f, uint64_t vaddr, void *buf, size_t len)
{
	if (len > SSIZE_MAX || (!buf && len > 0))
		return -EINVAL;
	int ret = pfelf_segment_count(f);
	if (ret < 0)
		return ret;
	if (len > 0 && len - 1 > UINT64_MAX - vaddr)
		return -EFAULT; /* the range runs past the top of the address space */
	uint8_t *dst = buf;
	size_t done = 0;
	while (done < len) {
		const pfelf_phdr *p = load_at(f, vaddr + done);
		if (!p)
			return -EFAULT;
		ssize_t n = read_in_load(f, p, vaddr + done, dst + done, len - done);
		if (n < 0)
			return n;
		done += (size_t)n;
	}
	return (ssize_t)len;
}

static int view_copy(pfelf_file *f, uint64_t off, size_t len, pfelf_view *v)
{
	if (len > PFELF_VIEW_MAX_COPY)
		return -E2BIG;
	void *copy = malloc(len ? len : 1);
	if (!copy)
		return -ENOMEM;
	int ret = pfelf__read_range(f, off, copy, len);
	if (ret < 0) {
		free(copy);
		return ret;
	}
	v->data = copy;
	v->len = len;
	v->copied = true;
	v->priv_ = copy;
	return 0;
}

PFELF_API int pfelf_view_get(pfelf_file *f, uint64_t off, size_t len, unsigned flags, pfelf_view *v)
{
	if (!v || !pfelf__range_ok(f->size, off, len))
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	if (off > f->size)
		off = f->size; /* an empty range anywhere: point at the end */
	if ((flags & PFELF_VIEW_COPY) || f->ops->kind == PFELF_BACKEND_PREAD)
		return view_copy(f, off, len, v);
	/* A lazy handle is mapped now; one that cannot be is served by copy. */
	if (f->ops->kind == PFELF_BACKEND_MMAP && pfelf__mmap_ensure(f) < 0)
		return view_copy(f, off, len, v);
	if (f->ops->kind == PFELF_BACKEND_MMAP && len > 0) {
		uint8_t last; /* fails now rather than later if the file already shrank */
		if (pfelf__safe_copy(&last, f->base + off + len - 1, 1) < 0)
			return -EIO;
		pfelf__registry_hold(f->map);
		v->priv_ = f->map;
	}
	v->data = f->base + off;
	v->len = len;
	return 0;
}

PFELF_API void pfelf_view_release(pfelf_view *v)
{
	if (!v)
		return;
	if (v->copied)
		free(v->priv_);
	else if (v->priv_)
		pfelf__registry_put(v->priv_);
	memset(v, 0, sizeof(*v));
}

PFELF_API int pfelf_advise(pfelf_file *f, uint64_t off, uint64_t len, enum pfelf_advice advice)
{
	if ((unsigned)advice > PFELF_ADVICE_DONTNEED || off > f->size)
		return -EINVAL;
	if (len == 0 || len > f->size - off)
		len = f->size - off;
	return f->ops->advise(f, off, len, advice);
}

PFELF_API int pfelf_drop_pages(pfelf_file *f)
{
	return pfelf_advise(f, 0, 0, PFELF_ADVICE_DONTNEED);
}
