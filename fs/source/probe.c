/* Classification of SOURCE entries and the cache of ELF magic answers. */
#include "source/probe.h"
#include "base/errors.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_SLOTS (1u << 16)

struct slot {
	pfelf_identity id;
	bool used;
	bool elf;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct slot *cache;

static size_t slot_of(const pfelf_identity *id)
{
	uint64_t h = id->ino * 0x9e3779b97f4a7c15ULL ^ id->dev ^ (uint64_t)id->mtime_nsec ^
	             id->size * 31;
	return (size_t)((h ^ (h >> 32)) & (CACHE_SLOTS - 1));
}

/* 1 or 0 when cached, -1 when not. */
static int cache_get(const pfelf_identity *id)
{
	int ret = -1;
	pthread_mutex_lock(&lock);
	struct slot *s = cache ? &cache[slot_of(id)] : NULL;
	if (s && s->used && memcmp(&s->id, id, sizeof(*id)) == 0)
		ret = s->elf;
	pthread_mutex_unlock(&lock);
	return ret;
}

static void cache_put(const pfelf_identity *id, bool elf)
{
	pthread_mutex_lock(&lock);
	if (!cache)
		cache = calloc(CACHE_SLOTS, sizeof(*cache));
	if (cache) {
		struct slot *s = &cache[slot_of(id)];
		s->id = *id;
		s->used = true;
		s->elf = elf;
	}
	pthread_mutex_unlock(&lock);
}

/* Read the magic; 1 ELF, 0 not (or not a regular file any more), -errno. */
static int read_magic(int dirfd, const char *name, pfelf_identity *id)
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

/* Whether regular file name (lstat st) starts with the ELF or the ar magic: 1 or 0;
 * -EMFILE or -ENFILE when out of descriptors (nothing is known). */
static int is_elf(int dirfd, const char *name, const struct stat *st)
{
	pfelf_identity id;
	src_identity(st, &id);
	int ret = cache_get(&id);
	if (ret >= 0)
		return ret;
	ret = read_magic(dirfd, name, &id);
	if (err_no_fds(ret))
		return ret;
	if (ret < 0 && transient(ret))
		return 0;
	cache_put(&id, ret > 0);
	return ret > 0;
}

int probe_classify(int dirfd, const char *name, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return NK_DIR;
	if (S_ISLNK(st->st_mode))
		return NK_LINK;
	int ret = S_ISREG(st->st_mode) ? is_elf(dirfd, name, st) : 0;
	return ret < 0 ? ret : ret ? NK_BIN : -ENOENT;
}

int probe_entry(int dirfd, const char *name, unsigned char d_type, struct stat *st)
{
	if (d_type != DT_DIR && d_type != DT_LNK && d_type != DT_REG && d_type != DT_UNKNOWN)
		return -ENOENT;
	int ret = src_statat_listed(dirfd, name, st);
	return ret < 0 ? ret : probe_classify(dirfd, name, st);
}
