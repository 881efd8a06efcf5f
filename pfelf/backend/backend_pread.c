/* The pread backend: a descriptor owned by the handle. A short read means
 * the file shrank since open: -EIO. */
#include "pfelf_i.h"

#include <fcntl.h>
#include <unistd.h>

static int pread_read(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	if (!f->reopen)
		return pfelf__pread_all(f->fd, f->origin + off, buf, len);
	return pfelf__fd_pread(f, off, buf, len);
}

static int pread_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref)
{
	int fd = f->fd;
	if (f->reopen) {
		int ret = pfelf__fd_acquire(f, &fd); /* released by pfelf_put_ref */
		if (ret < 0)
			return ret;
	}
	ref->ptr = NULL;
	ref->fd = fd;
	ref->pos = f->origin + off;
	ref->len = len;
	return 0;
}

static const int fadvice[] = {
        [PFELF_ADVICE_NORMAL] = POSIX_FADV_NORMAL,
        [PFELF_ADVICE_SEQUENTIAL] = POSIX_FADV_SEQUENTIAL,
        [PFELF_ADVICE_RANDOM] = POSIX_FADV_RANDOM,
        [PFELF_ADVICE_WILLNEED] = POSIX_FADV_WILLNEED,
        [PFELF_ADVICE_DONTNEED] = POSIX_FADV_DONTNEED,
};

static int pread_advise(pfelf_file *f, uint64_t off, uint64_t len, enum pfelf_advice a)
{
	if (len == 0 || f->fd < 0)
		return 0; /* a parked descriptor has no cache hints to keep */
	return -posix_fadvise(f->fd, (off_t)(f->origin + off), (off_t)len, fadvice[a]);
}

static void pread_release(pfelf_file *f)
{
	if (f->reopen)
		pfelf__fd_unregister(f);
	else if (f->fd >= 0 && !f->ar) /* an archive member's is the archive's */
		close(f->fd);
	f->fd = -1;
}

const struct pfelf_ops pfelf__pread_ops = {
        .kind = PFELF_BACKEND_PREAD,
        .read = pread_read,
        .ref = pread_ref,
        .advise = pread_advise,
        .release = pread_release,
};
