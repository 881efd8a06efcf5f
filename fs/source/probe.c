/* Classification of SOURCE entries, the cache of ELF magic answers, and
 * the helpers that classify a directory's entries together (probe.h). */
#include "source/probe.h"
#include "base/errors.h"
#include "base/log.h"
#include "base/membudget.h"
#include "base/stall.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#ifdef ELFFS_URING
#include <liburing.h>
#endif

/* ---------------------------------------------------------------- cache */

#define WAYS       8          /* tags of a bucket: 64 bytes */
#define FIRST_TAGS (1u << 16) /* 512 KiB */
#define CACHE_WHAT "the cache of ELF magic answers"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t *tags;      /* buckets * WAYS; 0: free */
static size_t buckets;      /* a power of two */
static size_t used;         /* tags in use */
static uint64_t key[2];     /* of the hash, drawn at the first use */
static atomic_bool growing; /* one growth at a time */
static bool overflowed;     /* a tag took the place of another since the last growth */

static uint64_t mix(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* The tag of id: a keyed hash, bit 0 clear (the answer goes there), never 0. */
static uint64_t tag_of(const pfelf_identity *id)
{
	const uint64_t f[] = {id->dev,
	                      id->ino,
	                      id->size,
	                      (uint64_t)id->mtime_sec,
	                      (uint64_t)id->mtime_nsec,
	                      (uint64_t)id->ctime_sec,
	                      (uint64_t)id->ctime_nsec};
	uint64_t h = key[0];
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		h = mix(h ^ f[i] ^ key[1]);
	h &= ~(uint64_t)1;
	return h ? h : 2;
}

/* The two buckets tag t may live in, of a table of n buckets (from
 * different bits of t). A tag goes to the one with more room, and the
 * table grows at half full: then a bucket practically never overflows
 * (with one bucket a tag and growth at three quarters, 8-way buckets
 * overflowed often enough that a second walk of /usr/share read 3,680
 * files again). */
static uint64_t *bucket_of(uint64_t *tab, size_t n, uint64_t t, int which)
{
	t &= ~(uint64_t)1; /* not the answer: a tag and its lookup key agree */
	uint64_t bits = which ? t >> 40 ^ t << 7 : t >> 32;
	return tab + (bits & (n - 1)) * WAYS;
}

/* The place of tag t (its answer bit aside) in tab, or NULL. */
static uint64_t *find_tag(uint64_t *tab, size_t n, uint64_t t)
{
	for (int which = 0; which < 2; which++) {
		uint64_t *b = bucket_of(tab, n, t, which);
		for (size_t i = 0; i < WAYS; i++)
			if ((b[i] & ~(uint64_t)1) == (t & ~(uint64_t)1))
				return &b[i];
	}
	return NULL;
}

/* The first free place of bucket b, and how many are free. */
static uint64_t *free_place(uint64_t *b, size_t *nfree)
{
	uint64_t *first = NULL;
	*nfree = 0;
	for (size_t i = 0; i < WAYS; i++)
		if (!b[i]) {
			(*nfree)++;
			first = first ? first : &b[i];
		}
	return first;
}

/* Put tag t (with its answer bit) into tab (lock held): 1 when it took a
 * free place, 0 when it was there already, -1 when both buckets were full
 * and it took the place of another. */
static int put_tag(uint64_t *tab, size_t n, uint64_t t)
{
	uint64_t *at = find_tag(tab, n, t);
	if (at) {
		*at = t;
		return 0;
	}
	size_t f0, f1;
	uint64_t *p0 = free_place(bucket_of(tab, n, t, 0), &f0);
	uint64_t *p1 = free_place(bucket_of(tab, n, t, 1), &f1);
	at = f1 > f0 ? p1 : p0;
	if (at) {
		*at = t;
		return 1;
	}
	bucket_of(tab, n, t, (int)(t >> 8 & 1))[(t >> 9) % WAYS] = t; /* full: forget one */
	return -1;
}

/* The table's first size: FIRST_TAGS, or ELFFS_PROBE_CACHE_FIRST (a power
 * of two from WAYS to FIRST_TAGS: the tests make the table grow with a
 * small tree). */
static size_t first_tags(void)
{
	const char *env = getenv("ELFFS_PROBE_CACHE_FIRST");
	char *end;
	unsigned long n = env ? strtoul(env, &end, 10) : 0;
	if (!env || !*env || *end || n < WAYS || n > FIRST_TAGS || (n & (n - 1)))
		return FIRST_TAGS;
	return n;
}

static bool cache_start(void)
{
	if (tags)
		return true;
	if (getrandom(key, sizeof(key), GRND_NONBLOCK) != (ssize_t)sizeof(key)) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		key[0] = mix((uint64_t)ts.tv_nsec ^ (uint64_t)getpid() << 32);
		key[1] = mix(key[0] ^ (uint64_t)(uintptr_t)&ts);
	}
	size_t first = first_tags();
	tags = calloc(first, sizeof(*tags));
	buckets = tags ? first / WAYS : 0;
	return tags != NULL;
}

/* 1 or 0 when known, -1 when not. */
static int cache_get(const pfelf_identity *id)
{
	int ret = -1;
	pthread_mutex_lock(&lock);
	if (tags) {
		uint64_t *at = find_tag(tags, buckets, tag_of(id));
		if (at)
			ret = (int)(*at & 1);
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

/* Double the table when it is more than half full or a tag had
 * to take the place of another, the growth reserved first (with no lock
 * held: a reservation may evict). */
static void cache_grow(void)
{
	pthread_mutex_lock(&lock);
	size_t n = buckets;
	bool want = n && (used > n * WAYS / 2 || overflowed) && n * WAYS < PROBE_CACHE_MAX_TAGS;
	pthread_mutex_unlock(&lock);
	if (!want || atomic_exchange(&growing, true))
		return;
	uint64_t bytes = (uint64_t)n * WAYS * sizeof(uint64_t); /* what doubling adds */
	uint64_t *tab = NULL;
	if (membudget_reserve(MB_LISTINGS, bytes, bytes, CACHE_WHAT) == 0 &&
	    !(tab = calloc(2 * n * WAYS, sizeof(*tab))))
		membudget_release(MB_LISTINGS, bytes);
	pthread_mutex_lock(&lock);
	if (tab && buckets != n) { /* another growth came between: this one is late */
		pthread_mutex_unlock(&lock);
		free(tab);
		membudget_release(MB_LISTINGS, bytes);
		tab = NULL;
		pthread_mutex_lock(&lock);
	}
	if (tab) {
		size_t u = 0;
		bool over = false;
		for (size_t i = 0; i < n * WAYS; i++)
			if (tags[i]) {
				int put = put_tag(tab, 2 * n, tags[i]);
				u += put > 0;
				over |= put < 0;
			}
		free(tags);
		tags = tab;
		buckets = 2 * n;
		used = u;
		overflowed = over;
	}
	pthread_mutex_unlock(&lock);
	atomic_store(&growing, false);
}

static void cache_put(const pfelf_identity *id, bool elf)
{
	pthread_mutex_lock(&lock);
	if (cache_start()) {
		int put = put_tag(tags, buckets, tag_of(id) | (elf ? 1 : 0));
		used += put > 0;
		overflowed |= put < 0;
	}
	pthread_mutex_unlock(&lock);
	cache_grow();
}

/* ------------------------------------------------------------ one entry */

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

/* What a read of the magic (ret: read_magic's, id: what was read) gives:
 * 1 or 0, kept; 0 without keeping it for a transient error; -EMFILE or
 * -ENFILE. */
static int settle(const pfelf_identity *id, int ret)
{
	if (err_no_fds(ret))
		return ret;
	if (ret < 0 && transient(ret))
		return 0;
	cache_put(id, ret > 0);
	return ret > 0;
}

/* Whether regular file name (lstat st) starts with the ELF or the ar magic:
 * 1 or 0 when known, -1 when not. */
static int known(const struct stat *st)
{
	pfelf_identity id;
	src_identity(st, &id);
	return cache_get(&id);
}

int probe_known(const struct stat *st)
{
	return S_ISREG(st->st_mode) ? known(st) : -1;
}

/* The same, reading the file when not known: 1 or 0; -EMFILE or -ENFILE
 * when out of descriptors (nothing is known). */
static int is_elf(int dirfd, const char *name, const struct stat *st)
{
	int ret = known(st);
	if (ret >= 0)
		return ret;
	pfelf_identity id;
	src_identity(st, &id);
	return settle(&id, read_magic(dirfd, name, &id));
}

static int kind_of(int elf)
{
	return elf < 0 ? elf : elf ? NK_BIN : -ENOENT;
}

int probe_classify(int dirfd, const char *name, const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return NK_DIR;
	if (S_ISLNK(st->st_mode))
		return NK_LINK;
	return S_ISREG(st->st_mode) ? kind_of(is_elf(dirfd, name, st)) : -ENOENT;
}

static bool listed_type(unsigned char d_type)
{
	return d_type == DT_DIR || d_type == DT_LNK || d_type == DT_REG || d_type == DT_UNKNOWN;
}

int probe_entry(int dirfd, const char *name, unsigned char d_type, struct stat *st)
{
	if (!listed_type(d_type))
		return -ENOENT;
	int ret = src_statat_listed(dirfd, name, st);
	return ret < 0 ? ret : probe_classify(dirfd, name, st);
}

/* -------------------------------------------------------------- batches */

enum { IT_NEW, IT_TAKEN, IT_MAGIC, IT_FOREIGN, IT_FOREIGN_TAKEN, IT_DONE };

struct pitem {
	uint32_t name; /* offset in the batch's arena */
	unsigned char d_type;
	int dirfd; /* its directory (probe_batch_add_at), or -1: the batch's */
	_Atomic int state;
	int kind;
	uint64_t found_ns; /* IT_FOREIGN: when it was found on another device */
	struct stat st;
};

struct probe_batch {
	struct probe_batch *next; /* in the pool's list while it has work (pool.mu) */
	bool listed;              /* in that list (pool.mu) */
	unsigned refs;            /* the listing and the helpers inside (pool.mu) */
	bool closed; /* the listing went on (without its stalled files): no more work (pool.mu) */
	bool alone;  /* probe_batch_alone: no helpers, foreign files not read */
	int dirfd;   /* the listing's (valid while it waits) */
	int ffd;     /* a copy of it for the foreign files (pool.mu), or -1 */
	dev_t dev;   /* of the directory */
	size_t n, cap;
	_Atomic size_t take;  /* the next entry to take */
	_Atomic size_t done;  /* entries answered */
	_Atomic size_t magic; /* entries waiting for the reads together (IT_MAGIC) */
	size_t *fq;           /* foreign entries to read (pool.mu) */
	size_t fq_n, fq_taken;
	struct pitem *it;
	char *names;
	size_t nused, nroom;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work; /* helpers wait for work */
	pthread_cond_t done; /* listings wait for their batch */
	struct probe_batch *list;
	unsigned threads, idle;
	bool cond_ready;
	size_t helpers; /* woken for a directory: PROBE_HELPERS, or ELFFS_PROBE_HELPERS */
	size_t depth;   /* reads together: a 16th of the descriptors, 1 to 64 */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER};

static atomic_bool said_stalled;

struct probe_batch *probe_batch_new(size_t cap)
{
	struct probe_batch *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->it = calloc(cap ? cap : 1, sizeof(*b->it));
	b->fq = calloc(cap ? cap : 1, sizeof(*b->fq));
	if (!b->it || !b->fq) {
		free(b->it);
		free(b->fq);
		free(b);
		return NULL;
	}
	b->cap = cap;
	b->refs = 1;
	b->dirfd = b->ffd = -1;
	return b;
}

int probe_batch_add(struct probe_batch *b, const char *name, unsigned char d_type)
{
	size_t len = strlen(name) + 1;
	if (b->n >= b->cap || b->nused + len > UINT32_MAX)
		return -ENOMEM;
	if (b->nused + len > b->nroom) {
		size_t room = b->nroom ? b->nroom : 4096;
		while (room < b->nused + len)
			room *= 2;
		char *p = realloc(b->names, room);
		if (!p)
			return -ENOMEM;
		b->names = p;
		b->nroom = room;
	}
	memcpy(b->names + b->nused, name, len);
	b->it[b->n] = (struct pitem){.name = (uint32_t)b->nused, .d_type = d_type, .dirfd = -1};
	b->nused += len;
	b->n++;
	return 0;
}

int probe_batch_add_at(struct probe_batch *b, int dirfd, const char *name, unsigned char d_type)
{
	int ret = probe_batch_add(b, name, d_type);
	if (ret == 0)
		b->it[b->n - 1].dirfd = dirfd;
	return ret;
}

/* The directory of item it of b. */
static int dir_of(const struct probe_batch *b, const struct pitem *it)
{
	return it->dirfd >= 0 ? it->dirfd : b->dirfd;
}

int probe_batch_dirfd(const struct probe_batch *b, size_t i)
{
	return dir_of(b, &b->it[i]);
}

void probe_batch_alone(struct probe_batch *b)
{
	b->alone = true;
}

size_t probe_batch_count(const struct probe_batch *b)
{
	return b->n;
}

static void batch_free(struct probe_batch *b)
{
	if (b->ffd >= 0)
		close(b->ffd);
	free(b->it);
	free(b->fq);
	free(b->names);
	free(b);
}

/* Drop a reference (pool.mu held); whether it was the last. */
static bool put_locked(struct probe_batch *b)
{
	return --b->refs == 0;
}

void probe_batch_put(struct probe_batch *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&pool.mu);
	bool last = put_locked(b);
	pthread_mutex_unlock(&pool.mu);
	if (last)
		batch_free(b);
}

int probe_batch_get(const struct probe_batch *b, size_t i, const char **name,
                    const struct stat **st)
{
	const struct pitem *it = &b->it[i];
	*name = b->names + it->name;
	*st = &it->st;
	return atomic_load(&it->state) == IT_DONE ? it->kind : -ENOENT;
}

/* Entry i answered (by anyone). */
static void finish(struct probe_batch *b, size_t i, int kind)
{
	b->it[i].kind = kind;
	atomic_store(&b->it[i].state, IT_DONE);
	size_t d = atomic_fetch_add(&b->done, 1) + 1;
	if (d == b->n || d + atomic_load(&b->magic) == b->n) { /* all, or all but the reads */
		pthread_mutex_lock(&pool.mu);
		pthread_cond_broadcast(&pool.done);
		pthread_mutex_unlock(&pool.mu);
	}
}

static void *helper_main(void *arg);

/* Helpers for want more entries (pool.mu held): the idle ones are woken,
 * and new ones started while fewer than want are idle. */
static void wake_helpers(size_t want)
{
	if (want > PROBE_HELPERS_MAX)
		want = PROBE_HELPERS_MAX;
	for (size_t started = 0; pool.idle + started < want && pool.threads < PROBE_THREADS_MAX;
	     started++) {
		pthread_attr_t ta;
		pthread_t t;
		pthread_attr_init(&ta);
		pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&ta, 256 * 1024);
		int ret = pthread_create(&t, &ta, helper_main, NULL);
		pthread_attr_destroy(&ta);
		if (ret != 0)
			break;
		pool.threads++;
	}
	pthread_cond_broadcast(&pool.work);
}

/* Put b in the pool's list (pool.mu held). */
static void offer(struct probe_batch *b)
{
	if (b->listed || b->closed)
		return;
	b->next = pool.list;
	pool.list = b;
	b->listed = true;
}

/* Entry i is a regular file on another device, not known: for a helper
 * (called by the listing's thread). */
static void queue_foreign(struct probe_batch *b, size_t i)
{
	pthread_mutex_lock(&pool.mu);
	b->it[i].found_ns = elffs_now_ns();
	atomic_store(&b->it[i].state, IT_FOREIGN);
	b->fq[b->fq_n++] = i;
	offer(b);
	wake_helpers(1);
	pthread_mutex_unlock(&pool.mu);
}

/* Read the magic of foreign entry i (a helper): noted as a call into its
 * device, left out at once when that device does not answer already. */
static void read_foreign(struct probe_batch *b, size_t i)
{
	struct pitem *it = &b->it[i];
	uint64_t dev = (uint64_t)it->st.st_dev;
	int kind = -ENOENT;
	pthread_mutex_lock(&pool.mu);
	if (b->ffd < 0 && !b->closed)
		b->ffd = fcntl(b->dirfd, F_DUPFD_CLOEXEC, 0);
	int fd = b->ffd;
	pthread_mutex_unlock(&pool.mu);
	if (fd >= 0 && !stall_stalled(dev)) {
		struct stall_call call;
		stall_enter(&call, dev);
		kind = kind_of(is_elf(fd, b->names + it->name, &it->st));
		stall_leave(&call);
	}
	finish(b, i, kind);
}

/* ---------------------------------------------- the reads together */

#ifdef ELFFS_URING
#define URING           1
#define URING_DEPTH_MAX PROBE_READS_MAX

/* Read the magic of the entries of b waiting for it (IT_MAGIC), up to
 * depth at once: each opened and checked as read_magic does, its read
 * submitted with the others in one io_uring_enter, so that the block
 * layer sends neighbouring blocks as one request. Without a ring, one
 * after the other. */
static void read_together(struct probe_batch *b, size_t depth)
{
	struct io_uring ring;
	bool ok = io_uring_queue_init((unsigned)depth, &ring, 0) == 0;
	size_t idx[URING_DEPTH_MAX];
	int fds[URING_DEPTH_MAX];
	unsigned char buf[URING_DEPTH_MAX][8];
	pfelf_identity ids[URING_DEPTH_MAX];
	size_t i = 0;
	while (i < b->n) {
		size_t m = 0;
		for (; i < b->n && m < depth; i++) {
			struct pitem *it = &b->it[i];
			if (atomic_load(&it->state) != IT_MAGIC)
				continue;
			const char *name = b->names + it->name;
			if (!ok) {
				finish(b, i, probe_classify(dir_of(b, it), name, &it->st));
				continue;
			}
			src_identity(&it->st, &ids[m]);
			int fd = src_openat(dir_of(b, it), name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
			struct stat st;
			int ret = fd < 0 ? fd : fstat(fd, &st) < 0 ? -errno : 0;
			if (ret == 0)
				src_identity(&st, &ids[m]);
			if (ret == 0 && S_ISREG(st.st_mode)) {
				posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
				struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
				io_uring_prep_read(sqe, fd, buf[m], sizeof(buf[m]), 0);
				sqe->user_data = m;
				idx[m] = i;
				fds[m++] = fd;
				continue;
			}
			if (fd >= 0)
				close(fd);
			finish(b, i, kind_of(settle(&ids[m], ret)));
		}
		if (m == 0)
			continue;
		int got = io_uring_submit(&ring);
		if (got < (int)m)
			ok = false; /* what was not submitted is read the slow way, and the rest too
			             */
		int res[URING_DEPTH_MAX];
		for (size_t k = 0; k < m; k++)
			res[k] = INT_MIN; /* no answer */
		for (int k = 0; k < got; k++) {
			struct io_uring_cqe *cqe;
			if (io_uring_wait_cqe(&ring, &cqe) < 0)
				break;
			if (cqe->user_data < m)
				res[cqe->user_data] = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
		for (size_t k = 0; k < m; k++) {
			int ret = res[k] < 0 ? res[k]
			          : pfelf_is_elf_magic(buf[k], (size_t)res[k]) ||
			                          pfelf_is_archive_magic(buf[k], (size_t)res[k])
			                  ? 1
			                  : 0;
			if (res[k] == INT_MIN) /* not submitted, or no answer: the slow way */
				ret = read_magic(dir_of(b, &b->it[idx[k]]),
				                 b->names + b->it[idx[k]].name, &ids[k]);
			close(fds[k]);
			finish(b, idx[k], kind_of(settle(&ids[k], ret)));
		}
	}
	if (ok)
		io_uring_queue_exit(&ring);
}
#else
#define URING 0

static void read_together(struct probe_batch *b, size_t depth)
{
	(void)b;
	(void)depth;
}
#endif

/* The first step of entry i: its lstat, and its magic when it is on the
 * directory's device (or known); a foreign one is read by a helper. */
static void step(struct probe_batch *b, size_t i, bool helper)
{
	struct pitem *it = &b->it[i];
	const char *name = b->names + it->name;
	atomic_store(&it->state, IT_TAKEN);
	if (!listed_type(it->d_type)) {
		finish(b, i, -ENOENT);
		return;
	}
	int ret = src_statat_listed(dir_of(b, it), name, &it->st);
	int k = ret == 0 && S_ISREG(it->st.st_mode) ? known(&it->st) : -1;
	if (k >= 0) {
		finish(b, i, kind_of(k));
		return;
	}
	if (ret == 0 && S_ISREG(it->st.st_mode) && it->st.st_dev == b->dev &&
	    URING) { /* read with the others of the batch */
		atomic_store(&it->state, IT_MAGIC);
		if (atomic_fetch_add(&b->magic, 1) + 1 + atomic_load(&b->done) == b->n) {
			pthread_mutex_lock(&pool.mu); /* every lstat taken: the listing reads */
			pthread_cond_broadcast(&pool.done);
			pthread_mutex_unlock(&pool.mu);
		}
		return;
	}
	if (ret < 0 || !S_ISREG(it->st.st_mode) || it->st.st_dev == b->dev) {
		finish(b, i, ret < 0 ? ret : probe_classify(dir_of(b, it), name, &it->st));
		return;
	}
	if (b->alone) {
		finish(b, i, -ENOENT); /* no answer, nothing kept */
	} else if (helper) {
		pthread_mutex_lock(&pool.mu);
		it->found_ns = elffs_now_ns();
		atomic_store(&it->state, IT_FOREIGN_TAKEN);
		pthread_mutex_unlock(&pool.mu);
		read_foreign(b, i);
	} else
		queue_foreign(b, i);
}

/* Work on b until it has none left for a helper (holding a reference). */
static void work(struct probe_batch *b)
{
	size_t i;
	while ((i = atomic_fetch_add(&b->take, 1)) < b->n)
		step(b, i, true);
	pthread_mutex_lock(&pool.mu);
	while (!b->closed && b->fq_taken < b->fq_n) {
		i = b->fq[b->fq_taken++];
		atomic_store(&b->it[i].state, IT_FOREIGN_TAKEN);
		pthread_mutex_unlock(&pool.mu);
		read_foreign(b, i);
		pthread_mutex_lock(&pool.mu);
	}
	pthread_mutex_unlock(&pool.mu);
}

static bool has_work(const struct probe_batch *b)
{
	return !b->closed && (atomic_load(&b->take) < b->n || b->fq_taken < b->fq_n);
}

/* A batch with work, with a reference (pool.mu held); the list loses the
 * batches without. */
static struct probe_batch *pick(void)
{
	struct probe_batch **p = &pool.list, *b;
	while ((b = *p)) {
		if (has_work(b)) {
			b->refs++;
			return b;
		}
		*p = b->next;
		b->listed = false;
	}
	return NULL;
}

static void *helper_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pool.mu);
	for (;;) {
		struct probe_batch *b = pick();
		if (!b) {
			struct timespec until;
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += PROBE_IDLE_S;
			pool.idle++;
			int ret = pthread_cond_timedwait(&pool.work, &pool.mu, &until);
			pool.idle--;
			if (ret == ETIMEDOUT && !(b = pick()))
				break;
			if (!b)
				continue;
		}
		pthread_mutex_unlock(&pool.mu);
		work(b);
		pthread_mutex_lock(&pool.mu);
		if (put_locked(b)) {
			pthread_mutex_unlock(&pool.mu);
			batch_free(b);
			pthread_mutex_lock(&pool.mu);
		}
	}
	pool.threads--;
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

static void pool_start(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pool.work, &ca);
	pthread_cond_init(&pool.done, &ca);
	pthread_condattr_destroy(&ca);
	pool.cond_ready = true;
	/* a knob for the benchmark's lever (0: the listing's thread alone,
	 * but for files on another device) */
	const char *env = getenv("ELFFS_PROBE_HELPERS");
	char *end;
	unsigned long h = env ? strtoul(env, &end, 10) : PROBE_HELPERS;
	pool.helpers = env && *env && !*end && h <= PROBE_HELPERS_MAX ? h : PROBE_HELPERS;
	struct rlimit rl;
	rlim_t fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	pool.depth = fds == RLIM_INFINITY || fds / 16 > PROBE_READS_MAX ? PROBE_READS_MAX
	             : fds / 16                                         ? (size_t)(fds / 16)
	                                                                : 1;
}

/* Whether every entry not answered is a foreign file found STALL_NS ago
 * or more (pool.mu held); *first: the earliest such finding. */
static bool only_stalled(const struct probe_batch *b, uint64_t now, uint64_t *first)
{
	*first = now;
	for (size_t i = 0; i < b->n; i++) {
		int s = atomic_load(&b->it[i].state);
		if (s == IT_DONE)
			continue;
		if (s != IT_FOREIGN && s != IT_FOREIGN_TAKEN)
			return false;
		if (now - b->it[i].found_ns < STALL_NS)
			return false;
		if (b->it[i].found_ns < *first)
			*first = b->it[i].found_ns;
	}
	return true;
}

/* Whether every entry of b has had its first step (its lstat): the reads
 * together may start (files on other devices are not waited for). */
static bool lstats_taken(const struct probe_batch *b)
{
	for (size_t i = 0; i < b->n; i++) {
		int s = atomic_load(&b->it[i].state);
		if (s == IT_NEW || s == IT_TAKEN)
			return false;
	}
	return true;
}

static void say_stalled(const struct probe_batch *b, uint64_t now)
{
	for (size_t i = 0; i < b->n; i++)
		if (atomic_load(&b->it[i].state) != IT_DONE) {
			dev_t d = b->it[i].st.st_dev;
			elog(LOG_WARNING,
			     "a file of a listed directory, on device %u:%u below SOURCE, has not "
			     "answered for %llu s: left out of the listing (said once; every such "
			     "file is left out of its listing)",
			     major(d), minor(d),
			     (unsigned long long)((now - b->it[i].found_ns) / 1000000000ULL));
			return;
		}
}

void probe_batch_run(struct probe_batch *b, int dirfd, dev_t dev)
{
	b->dirfd = dirfd;
	b->dev = dev;
	pthread_mutex_lock(&pool.mu);
	if (!pool.cond_ready)
		pool_start();
	pthread_mutex_unlock(&pool.mu);
	/* Alone while the entries answer from the caches; the helpers once
	 * they take longer (they wait for the disk): a warm listing pays no
	 * hand-over, a cold one has as many reads in flight as helpers. Warm
	 * is PROBE_WARM_ENTRIES or more done in each PROBE_ALONE_NS: a big
	 * warm directory wakes no helper either (they would only wait for
	 * each other's locks). */
	uint64_t start = elffs_now_ns();
	size_t since = 0;
	bool woken = b->n < 2 || !pool.helpers;
	size_t i;
	while ((i = atomic_fetch_add(&b->take, 1)) < b->n) {
		step(b, i, false);
		since++;
		if (woken || i + 1 >= b->n)
			continue;
		uint64_t now = elffs_now_ns();
		if (now - start < PROBE_ALONE_NS)
			continue;
		/* a rate, not a count: one slow entry after fast ones is slow */
		if ((uint64_t)since * PROBE_ALONE_NS >= PROBE_WARM_ENTRIES * (now - start)) {
			start = now; /* warm: alone for one more while */
			since = 0;
			continue;
		}
		size_t left = b->n - i - 1;
		woken = true;
		pthread_mutex_lock(&pool.mu);
		offer(b);
		wake_helpers(left < pool.helpers ? left : pool.helpers);
		pthread_mutex_unlock(&pool.mu);
	}
	pthread_mutex_lock(&pool.mu);
	bool read = false;
	while (atomic_load(&b->done) < b->n) {
		if (!read && lstats_taken(b)) {
			read = true; /* every lstat taken: the reads, together */
			pthread_mutex_unlock(&pool.mu);
			if (atomic_load(&b->magic))
				read_together(b, pool.depth);
			pthread_mutex_lock(&pool.mu);
			continue;
		}
		uint64_t now = elffs_now_ns(), first;
		if (only_stalled(b, now, &first)) {
			b->closed = true; /* the helpers inside keep b */
			if (!atomic_exchange(&said_stalled, true))
				say_stalled(b, now);
			break;
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		uint64_t wait = 100000000ULL; /* 0.1 s, or until the first may be given up */
		if (first < now && STALL_NS - (now - first) < wait)
			wait = STALL_NS - (now - first);
		until.tv_nsec += (long)wait;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&pool.done, &pool.mu, &until);
	}
	for (struct probe_batch **p = &pool.list; *p; p = &(*p)->next)
		if (*p == b) { /* no helper takes anything of it any more */
			*p = b->next;
			b->listed = false;
			break;
		}
	b->closed = true;
	pthread_mutex_unlock(&pool.mu);
}
