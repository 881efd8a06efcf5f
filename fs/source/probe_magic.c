/* What one entry of SOURCE shows as: the read of its magic, the answers
 * kept (probe.h, probe_magic.h). */
#include "source/probe_magic.h"
#include "base/errors.h"
#include "source/probe.h"
#include "source/probe_cache.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

int probe_read_magic(int dirfd, const char *name, pfelf_identity *id)
{
	int fd = src_openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fd;
	struct stat st;
	unsigned char magic[8];
	int ret = 0;
	if (fstat(fd, &st) < 0)
		ret = -errno;
	else if (S_ISREG(st.st_mode)) {
		/* the first page only, not a readahead window: most files
		 * of a mixed tree are not ELF and are never read again */
		posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
		ssize_t n = pread(fd, magic, sizeof(magic), 0);
		ret = n > 0 && (pfelf_is_elf_magic(magic, (size_t)n) ||
		                pfelf_is_archive_magic(magic, (size_t)n));
	}
	close(fd);
	if (ret >= 0)
		src_identity(&st, id);
	return ret;
}

static bool transient(int err)
{
	return err_no_fds(err) || err == -ENOMEM || err == -EINTR || err == -EAGAIN;
}

int probe_settle(const pfelf_identity *id, int ret)
{
	if (err_no_fds(ret))
		return ret;
	if (ret < 0 && transient(ret))
		return 0;
	probe_cache_put(id, ret > 0);
	return ret > 0;
}

/* Whether regular file name (lstat st) starts with the ELF or the ar magic:
 * 1 or 0 when known, -1 when not. */
static int known(const struct stat *st)
{
	pfelf_identity id;
	src_identity(st, &id);
	return probe_cache_get(&id);
}

int probe_known(const struct stat *st)
{
	return S_ISREG(st->st_mode) ? known(st) : -1;
}

int probe_is_elf(int dirfd, const char *name, const struct stat *st)
{
	int ret = known(st);
	if (ret >= 0)
		return ret;
	pfelf_identity id;
	src_identity(st, &id);
	return probe_settle(&id, probe_read_magic(dirfd, name, &id));
}

int probe_kind_of(int elf)
{
	return elf < 0 ? elf : elf ? NK_BIN : -ENOENT;
}

int probe_classify_here(int dirfd, const char *name, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return NK_DIR;
	if (S_ISLNK(st->st_mode))
		return NK_LINK;
	return S_ISREG(st->st_mode) ? probe_kind_of(probe_is_elf(dirfd, name, st)) : -ENOENT;
}

bool probe_listed_type(unsigned char d_type)
{
	return d_type == DT_DIR || d_type == DT_LNK || d_type == DT_REG || d_type == DT_UNKNOWN;
}
