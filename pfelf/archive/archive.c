/*
 * ar archives: opening (the three backends), the handle's reference count,
 * and member handles that share the archive's mapping, descriptor or
 * buffer. Reading the archive's bytes is in archive_read.c, the walk of the
 * member headers in archive_walk.c, the symbol index in archive_index.c.
 */
#include "archive/archive_i.h"

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static pfelf_archive *ar_alloc(void)
{
	pfelf_archive *a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->fd = -1;
	atomic_init(&a->refs, 1);
	return a;
}

static void ar_free(pfelf_archive *a)
{
	if (a->map) {
		pfelf__registry_put(a->map);
		pfelf__registry_handles(-1);
	}
	if (a->fd >= 0)
		close(a->fd);
	free(a->members);
	free(a->skipped);
	free(a->longnames);
	free(a->names);
	free(a->index);
	free(a->syms);
	free(a);
}

void pfelf__archive_put(pfelf_archive *a)
{
	if (a && atomic_fetch_sub_explicit(&a->refs, 1, memory_order_acq_rel) == 1)
		ar_free(a);
}

PFELF_API int pfelf_is_archive_magic(const void *buf, size_t len)
{
	return buf && len >= AR_MAGIC_LEN &&
	       (memcmp(buf, "!<arch>\n", AR_MAGIC_LEN) == 0 ||
	        memcmp(buf, "!<thin>\n", AR_MAGIC_LEN) == 0);
}

/* Check the magic and walk the headers; frees a on failure. */
static int finish_open(pfelf_archive *a, pfelf_archive **out)
{
	uint8_t magic[AR_MAGIC_LEN];
	int ret = a->size < AR_MAGIC_LEN ? -ENOEXEC : pfelf__ar_read(a, 0, magic, sizeof(magic));
	if (ret == 0 && memcmp(magic, "!<thin>\n", AR_MAGIC_LEN) == 0)
		a->thin = true;
	else if (ret == 0 && memcmp(magic, "!<arch>\n", AR_MAGIC_LEN) != 0)
		ret = -ENOEXEC;
	if (ret == 0)
		ret = pfelf__ar_walk(a);
	if (ret < 0) {
		pfelf__archive_put(a);
		return ret;
	}
	*out = a;
	return 0;
}

/* Serve a from fd (a's own: kept for pread, closed once mapped). */
static int attach_fd(pfelf_archive *a, int fd, unsigned flags)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		int ret = -errno;
		close(fd);
		return ret;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	pfelf_identity_of(&st, &a->id);
	a->has_id = true;
	a->size = a->id.size;
	if (!(flags & PFELF_OPEN_NOMMAP) && a->size <= SIZE_MAX &&
	    pfelf__registry_get(fd, &a->id, &a->map) == 0) {
		pfelf__registry_handles(1);
		a->kind = PFELF_BACKEND_MMAP;
		a->base = a->map->addr;
		close(fd);
		return 0;
	}
	a->kind = PFELF_BACKEND_PREAD; /* asked for, or the file cannot be mapped */
	a->fd = fd;
	return 0;
}

PFELF_API int pfelf_archive_openat(int dirfd, const char *path, unsigned flags, pfelf_archive **out)
{
	if (!out || !path)
		return -EINVAL;
	*out = NULL;
	int fd = pfelf__open_input(dirfd, path, flags);
	if (fd < 0)
		return fd;
	pfelf_archive *a = ar_alloc();
	if (!a) {
		close(fd);
		return -ENOMEM;
	}
	int ret = attach_fd(a, fd, flags);
	if (ret < 0) {
		pfelf__archive_put(a);
		return ret;
	}
	return finish_open(a, out);
}

PFELF_API int pfelf_archive_open(const char *path, unsigned flags, pfelf_archive **out)
{
	return pfelf_archive_openat(AT_FDCWD, path, flags, out);
}

PFELF_API int pfelf_archive_open_fd(int fd, unsigned flags, pfelf_archive **out)
{
	if (!out || fd < 0)
		return -EINVAL;
	*out = NULL;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d < 0)
		return -errno;
	pfelf_archive *a = ar_alloc();
	if (!a) {
		close(d);
		return -ENOMEM;
	}
	int ret = attach_fd(a, d, flags);
	if (ret < 0) {
		pfelf__archive_put(a);
		return ret;
	}
	return finish_open(a, out);
}

PFELF_API int pfelf_archive_open_memory(const void *buf, size_t len, unsigned flags,
                                        pfelf_archive **out)
{
	if (!out || (!buf && len > 0))
		return -EINVAL;
	*out = NULL;
	pfelf_archive *a = ar_alloc();
	if (!a)
		return -ENOMEM;
	a->kind = PFELF_BACKEND_MEMORY;
	a->base = buf;
	a->size = len;
	return finish_open(a, out);
}

PFELF_API void pfelf_archive_close(pfelf_archive *a)
{
	pfelf__archive_put(a);
}

PFELF_API enum pfelf_backend pfelf_archive_backend(const pfelf_archive *a)
{
	return a->kind;
}

PFELF_API uint64_t pfelf_archive_size(const pfelf_archive *a)
{
	return a->size;
}

PFELF_API int pfelf_archive_is_thin(const pfelf_archive *a)
{
	return a->thin;
}

PFELF_API int pfelf_archive_member_count(const pfelf_archive *a)
{
	return (int)a->nmembers;
}

PFELF_API int pfelf_archive_member(const pfelf_archive *a, uint32_t index, pfelf_ar_member *out)
{
	if (!out || index >= a->nmembers)
		return -ENOENT;
	*out = a->members[index];
	return 0;
}

PFELF_API int pfelf_archive_skipped_count(const pfelf_archive *a)
{
	return (int)a->nskipped;
}

PFELF_API int pfelf_archive_skipped(const pfelf_archive *a, uint32_t index, pfelf_ar_skipped *out)
{
	if (!out || index >= a->nskipped)
		return -ENOENT;
	*out = a->skipped[index];
	return 0;
}

PFELF_API ssize_t pfelf_archive_read(pfelf_archive *a, uint64_t off, void *buf, size_t len)
{
	if (len > SSIZE_MAX || (!buf && len > 0) || !pfelf__range_ok(a->size, off, len))
		return -EINVAL;
	int ret = pfelf__ar_read(a, off, buf, len);
	return ret < 0 ? ret : (ssize_t)len;
}

PFELF_API int pfelf_archive_get_ref(pfelf_archive *a, uint64_t off, size_t len, pfelf_ref *ref)
{
	if (!ref || !pfelf__range_ok(a->size, off, len))
		return -EINVAL;
	if (off > a->size)
		off = a->size; /* an empty range anywhere: point at the end */
	ref->ptr = a->kind == PFELF_BACKEND_PREAD ? NULL : a->base + off;
	ref->fd = a->kind == PFELF_BACKEND_PREAD ? a->fd : -1;
	ref->pos = off;
	ref->len = len;
	return 0;
}

PFELF_API int pfelf_archive_open_member(pfelf_archive *a, uint32_t index, unsigned flags,
                                        pfelf_file **out)
{
	(void)flags;
	if (!out)
		return -EINVAL;
	*out = NULL;
	if (index >= a->nmembers)
		return -ENOENT;
	const pfelf_ar_member *m = &a->members[index];
	if (m->thin)
		return -EXDEV;
	if (m->size < 16)
		return -ENOEXEC;
	pfelf_file *f = pfelf__alloc();
	if (!f)
		return -ENOMEM;
	atomic_fetch_add_explicit(&a->refs, 1, memory_order_relaxed);
	f->ar = a; /* dropped by pfelf__free from here on */
	f->archive_put = pfelf__archive_put;
	f->size = m->size;
	f->id = a->id;
	f->has_id = a->has_id;
	switch (a->kind) {
	case PFELF_BACKEND_MMAP:
		pfelf__registry_hold(a->map);
		pfelf__registry_handles(1);
		f->map = a->map;
		f->base = a->base + m->offset;
		f->ops = &pfelf__mmap_ops;
		break;
	case PFELF_BACKEND_MEMORY:
		f->base = a->base + m->offset;
		f->ops = &pfelf__memory_ops;
		break;
	case PFELF_BACKEND_PREAD:
		f->fd = a->fd;
		f->origin = m->offset;
		f->ops = &pfelf__pread_ops;
		break;
	}
	return pfelf__finish_open(f, 0, out);
}
