/* Opening and closing handles; choosing the backend. */
#include "pfelf_i.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A descriptor of f's own for fd: fd itself when the caller gave it away
 * (own), else a duplicate. */
static int keep_fd(int fd, bool own)
{
	if (own)
		return fd;
	int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (d < 0 && (errno == EMFILE || errno == ENFILE)) {
		pfelf__fd_shed(); /* give back idle descriptors, try once more */
		d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	}
	return d < 0 ? -errno : d;
}

/* The mmap backend: the file's mapping when one exists already (or with
 * PFELF_OPEN_MAP_NOW), else a lazy handle that maps on first zero-copy use
 * (backend_mmap.c) and reads its tables with pread until then. Returns 0
 * with f->ops unset when the file cannot be mapped now: pread serves it. */
static int attach_mmap(pfelf_file *f, int fd, unsigned flags, bool own)
{
	if (pfelf__registry_find(&f->id, &f->map) < 0) {
		/* Lazy, unless asked to map now or out of descriptors to keep. */
		int kept = flags & PFELF_OPEN_MAP_NOW ? -1 : keep_fd(fd, own);
		if (kept >= 0) {
			f->fd = kept;
			f->lazy = true;
		} else if (pfelf__registry_get(fd, &f->id, &f->map) < 0) {
			return 0;
		}
	}
	f->ops = &pfelf__mmap_ops;
	pfelf__registry_handles(1);
	if (f->lazy)
		return pfelf__fd_register(f);
	f->base = f->map->addr;
	return 0;
}

/* Serve f from fd: the shared mapping when allowed and possible, else f's
 * own descriptor for pread. With own, fd is f's from now on (closed here
 * unless f keeps it); else it stays the caller's. */
static int attach_fd(pfelf_file *f, int fd, unsigned flags, bool own)
{
	struct stat st;
	int ret = 0;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (S_ISDIR(st.st_mode))
		ret = -EISDIR;
	else if (!S_ISREG(st.st_mode))
		ret = -EINVAL;
	else if ((uint64_t)st.st_size < (flags & PFELF_OPEN_RAW ? 4 : 16))
		ret = -ENOEXEC; /* no e_ident (no ELF magic) */
	if (ret == 0) {
		pfelf_identity_of(&st, &f->id);
		f->has_id = true;
		f->size = f->id.size;
	}
	if (ret == 0 && !(flags & PFELF_OPEN_NOMMAP) && !pfelf__mmap_should_fail() &&
	    f->size <= SIZE_MAX)
		ret = attach_mmap(f, fd, flags, own);
	if (ret == 0 && !f->ops) { /* pread: asked for, or the file cannot be mapped */
		f->fd = keep_fd(fd, own);
		if (f->fd >= 0)
			f->ops = &pfelf__pread_ops;
		else
			ret = f->fd;
	}
	if (f->fd < 0)
		f->fd = -1;
	if (own && f->fd != fd)
		close(fd);
	return ret;
}

/* A pread handle that may park its descriptor: remember where it came from. */
static int make_reopenable(pfelf_file *f, int dirfd, const char *path)
{
	f->path = strdup(path);
	if (!f->path)
		return -ENOMEM;
	f->dirfd = dirfd;
	f->reopen = true;
	return pfelf__fd_register(f);
}

PFELF_API int pfelf_open_fd(int fd, unsigned flags, pfelf_file **out)
{
	if (!out || fd < 0)
		return -EINVAL;
	*out = NULL;
	pfelf_file *f = pfelf__alloc();
	if (!f)
		return -ENOMEM;
	int ret = attach_fd(f, fd, flags, false);
	if (ret < 0) {
		pfelf__free(f);
		return ret;
	}
	return pfelf__finish_open(f, flags, out);
}

PFELF_API int pfelf_header_why(int fd, char *why, size_t len)
{
	if (why && len)
		why[0] = '\0';
	if (fd < 0)
		return -EINVAL;
	pfelf_file *f = pfelf__alloc();
	if (!f)
		return -ENOMEM;
	int ret = attach_fd(f, fd, PFELF_OPEN_NOMMAP, false);
	if (ret == 0) {
		f->why = why;
		f->why_len = why ? len : 0;
		ret = pfelf__parse_header(f); /* the checks of every open, with words */
		f->why = NULL;
	} else if (why && len) {
		snprintf(why, len, "%s",
		         ret == -ENOEXEC ? "shorter than e_ident (16 bytes)" : strerror(-ret));
	}
	pfelf__free(f);
	return ret;
}

PFELF_API int pfelf_openat(int dirfd, const char *path, unsigned flags, pfelf_file **out)
{
	if (!out || !path)
		return -EINVAL;
	*out = NULL;
	int fd = pfelf__open_input(dirfd, path, flags);
	if (fd < 0)
		return fd;
	pfelf_file *f = pfelf__alloc();
	if (!f)
		close(fd);
	int ret = f ? attach_fd(f, fd, flags, true) : -ENOMEM;
	if (ret == 0 && (flags & PFELF_OPEN_REOPEN) && f->ops == &pfelf__pread_ops)
		ret = make_reopenable(f, dirfd, path);
	if (ret < 0) {
		if (f)
			pfelf__free(f);
		return ret;
	}
	return pfelf__finish_open(f, flags, out);
}

PFELF_API int pfelf_open(const char *path, unsigned flags, pfelf_file **out)
{
	return pfelf_openat(AT_FDCWD, path, flags, out);
}

PFELF_API int pfelf_open_memory(const void *buf, size_t len, unsigned flags, pfelf_file **out)
{
	if (!out || (!buf && len > 0))
		return -EINVAL;
	*out = NULL;
	if (len < 16)
		return -ENOEXEC;
	pfelf_file *f = pfelf__alloc();
	if (!f)
		return -ENOMEM;
	f->ops = &pfelf__memory_ops;
	f->base = buf;
	f->size = len;
	return pfelf__finish_open(f, 0, out);
}

PFELF_API void pfelf_close(pfelf_file *f)
{
	if (f)
		pfelf__free(f);
}

PFELF_API enum pfelf_backend pfelf_backend(const pfelf_file *f)
{
	/* A lazy handle whose file could not be mapped is served by pread. */
	if (f->lazy && atomic_load(&((pfelf_file *)f)->map_failed))
		return PFELF_BACKEND_PREAD;
	return f->ops->kind;
}

PFELF_API const char *pfelf_backend_name(enum pfelf_backend b)
{
	switch (b) {
	case PFELF_BACKEND_MMAP:
		return "mmap";
	case PFELF_BACKEND_PREAD:
		return "pread";
	case PFELF_BACKEND_MEMORY:
		return "memory";
	}
	return "unknown";
}

PFELF_API uint64_t pfelf_size(const pfelf_file *f)
{
	return f->size;
}

PFELF_API int pfelf_get_identity(const pfelf_file *f, pfelf_identity *id)
{
	if (!f->has_id) {
		memset(id, 0, sizeof(*id));
		return -EINVAL;
	}
	*id = f->id;
	return 0;
}

PFELF_API int pfelf_is_elf_magic(const void *buf, size_t len)
{
	return buf && len >= 4 && memcmp(buf, "\177ELF", 4) == 0;
}
