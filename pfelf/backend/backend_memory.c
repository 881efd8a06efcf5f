/* The memory backend: a caller's buffer that outlives the handle. */
#include "pfelf_i.h"

#include <string.h>

static int mem_read(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	if (len > 0)
		memcpy(buf, f->base + off, len);
	return 0;
}

static int mem_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref)
{
	ref->ptr = f->base + off;
	ref->fd = -1;
	ref->pos = off;
	ref->len = len;
	return 0;
}

static int mem_advise(pfelf_file *f, uint64_t off, uint64_t len, enum pfelf_advice a)
{
	return 0;
}

static void mem_release(pfelf_file *f)
{
	f->base = NULL;
}

const struct pfelf_ops pfelf__memory_ops = {
        .kind = PFELF_BACKEND_MEMORY,
        .read = mem_read,
        .ref = mem_ref,
        .advise = mem_advise,
        .release = mem_release,
};
