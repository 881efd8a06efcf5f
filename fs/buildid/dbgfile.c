/* Debug file candidates of SOURCE and their CRCs (dbgfile.h). */
#include "buildid/dbgfile.h"
#include "base/elffs.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Computations under way at once that others wait for (more: not shared). */
#define BUSY_MAX 16

struct kept {
	pfelf_identity id;
	uint32_t crc;
	uint64_t used; /* 0: free */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t done = PTHREAD_COND_INITIALIZER;
static struct kept kept[DBGF_CRC_KEPT];
static pfelf_identity busy[BUSY_MAX];
static unsigned nbusy;
static uint64_t ticks;

int dbgf_open_dir(const char *rel)
{
	char part[NAME_MAX + 1];
	int cur = openat(elffs.srcfd, ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (cur < 0)
		return -errno;
	while (*rel) {
		size_t n = strcspn(rel, "/");
		int fd = n == 0 || n > NAME_MAX ? -ENOENT : 0;
		if (fd == 0) {
			memcpy(part, rel, n);
			part[n] = '\0';
			fd = strcmp(part, ".") == 0 || strcmp(part, "..") == 0
			             ? -ENOENT
			             : src_openat(cur, part, O_PATH | O_DIRECTORY);
		}
		close(cur);
		if (fd < 0)
			return fd;
		cur = fd;
		rel += n + (rel[n] == '/');
	}
	return cur;
}

/* The kept entry of id (lock held), or NULL. */
static struct kept *find(const pfelf_identity *id)
{
	for (size_t i = 0; i < DBGF_CRC_KEPT; i++)
		if (kept[i].used && pfelf_identity_equal(&kept[i].id, id))
			return &kept[i];
	return NULL;
}

/* Keep crc for id in a free entry or the least recently used (lock held). */
static void keep(const pfelf_identity *id, uint32_t crc)
{
	struct kept *k = find(id);
	if (!k) { /* a free entry (used 0) is the least recently used */
		k = &kept[0];
		for (size_t i = 1; i < DBGF_CRC_KEPT && k->used; i++)
			if (kept[i].used < k->used)
				k = &kept[i];
	}
	*k = (struct kept){*id, crc, ++ticks};
}

static bool is_busy(const pfelf_identity *id)
{
	for (unsigned i = 0; i < nbusy; i++)
		if (pfelf_identity_equal(&busy[i], id))
			return true;
	return false;
}

static void unbusy(const pfelf_identity *id)
{
	for (unsigned i = 0; i < nbusy; i++)
		if (pfelf_identity_equal(&busy[i], id)) {
			busy[i] = busy[--nbusy];
			return;
		}
}

/* Whether fd is still the file of identity id. */
static bool same_file(int fd, const pfelf_identity *id)
{
	struct stat st;
	pfelf_identity now;
	if (fstat(fd, &st) < 0)
		return false;
	src_identity(&st, &now);
	return pfelf_identity_equal(&now, id);
}

/* Read file name of dirfd (identity id) whole for its CRC. */
static int compute(int dirfd, const char *name, const pfelf_identity *id, uint32_t *crc)
{
	int fd = src_openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fd == -ELOOP ? -ENOENT : fd;
	pfelf_file *f = NULL;
	int ret = same_file(fd, id) ? pfelf_open_fd(fd, PFELF_OPEN_NOMMAP, &f) : -ESTALE;
	if (ret == -EINVAL)
		ret = -ENOEXEC; /* a header pfelf refuses: no debug file */
	if (ret == 0)
		ret = pfelf_file_crc32(f, crc);
	pfelf_close(f);
	if (ret == 0 && !same_file(fd, id))
		ret = -ESTALE; /* written, grown or cut while it was read */
	close(fd);
	return ret;
}

int dbgf_crc(int dirfd, const char *name, bool want, uint32_t *crc)
{
	struct stat st;
	pfelf_identity id;
	int ret = src_statat(dirfd, name, &st);
	if (ret < 0)
		return ret == -ELOOP || ret == -ENOTDIR ? -ENOENT : ret;
	if (!S_ISREG(st.st_mode))
		return -ENOENT;
	src_identity(&st, &id);
	pthread_mutex_lock(&lock);
	struct kept *k;
	while (!(k = find(&id)) && want && is_busy(&id))
		pthread_cond_wait(&done, &lock);
	if (k || !want) {
		if (k) {
			k->used = ++ticks;
			*crc = k->crc;
		}
		pthread_mutex_unlock(&lock);
		return k ? 0 : -EAGAIN;
	}
	bool mine = nbusy < BUSY_MAX;
	if (mine)
		busy[nbusy++] = id;
	pthread_mutex_unlock(&lock);
	ret = compute(dirfd, name, &id, crc);
	pthread_mutex_lock(&lock);
	if (mine)
		unbusy(&id);
	if (ret == 0)
		keep(&id, *crc);
	pthread_cond_broadcast(&done);
	pthread_mutex_unlock(&lock);
	return ret;
}
