/* A batch of a directory's entries and the listing's thread that
 * classifies them (probe.h, probe_helpers.h). */
#include "source/probe.h"
#include "base/log.h"
#include "base/stall.h"
#include "source/probe_helpers.h"
#include "source/probe_magic.h"
#include "source/probe_uring.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>

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

int probe_batch_dirfd(const struct probe_batch *b, size_t i)
{
	return probe_dir_of(b, &b->it[i]);
}

void probe_batch_alone(struct probe_batch *b)
{
	b->alone = true;
}

size_t probe_batch_count(const struct probe_batch *b)
{
	return b->n;
}

bool probe_batch_stalled(const struct probe_batch *b)
{
	return atomic_load(&b->stalled);
}

void probe_batch_put(struct probe_batch *b)
{
	if (!b)
		return;
	pthread_mutex_lock(&probe_pool.mu);
	bool last = probe_put_locked(b);
	pthread_mutex_unlock(&probe_pool.mu);
	if (last)
		probe_batch_free(b);
}

int probe_batch_get(const struct probe_batch *b, size_t i, const char **name,
                    const struct stat **st)
{
	const struct pitem *it = &b->it[i];
	*name = b->names + it->name;
	*st = &it->st;
	return atomic_load(&it->state) == IT_DONE ? it->kind : -ENOENT;
}

static bool is_foreign(int state)
{
	return state == IT_FOREIGN || state == IT_FOREIGN_TAKEN;
}

/* Whether every entry not answered is a foreign file found STALL_NS ago
 * or more, or any foreign file when unwaited (probe_pool.mu held);
 * *first: the earliest such finding. */
static bool only_stalled(const struct probe_batch *b, uint64_t now, bool unwaited, uint64_t *first)
{
	*first = now;
	for (size_t i = 0; i < b->n; i++) {
		int s = atomic_load(&b->it[i].state);
		if (s == IT_DONE)
			continue;
		if (!is_foreign(s))
			return false;
		if (!unwaited && now - b->it[i].found_ns < STALL_NS)
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

static void say_stalled(const struct probe_batch *b, uint64_t now, bool unwaited)
{
	static atomic_bool said[2];
	size_t i = 0;
	while (i < b->n && atomic_load(&b->it[i].state) == IT_DONE)
		i++;
	if (i == b->n || atomic_exchange(&said[unwaited], true))
		return;
	dev_t d = b->it[i].st.st_dev;
	if (unwaited)
		elog(LOG_WARNING,
		     "a file of a listed directory, on device %u:%u below SOURCE, is left out of "
		     "the listing: the workers' share of such devices is taken (said once; every "
		     "such file is left out of its listing)",
		     major(d), minor(d));
	else
		elog(LOG_WARNING,
		     "a file of a listed directory, on device %u:%u below SOURCE, has not "
		     "answered for %llu s: left out of the listing (said once; every such "
		     "file is left out of its listing)",
		     major(d), minor(d),
		     (unsigned long long)((now - b->it[i].found_ns) / 1000000000ULL));
}

/* The listing's thread, a worker, waits for a foreign file of b (one not
 * answered yet, probe_pool.mu held): in the share of the workers that wait
 * on devices below SOURCE (stall.h), entered in c under the first such
 * file's device. 1 when it may wait, -1 when the share is taken (it does
 * not wait for them), 0 when there is none to wait for. */
static int wait_share(const struct probe_batch *b, struct stall_call *c)
{
	for (size_t i = 0; i < b->n; i++)
		if (is_foreign(atomic_load(&b->it[i].state)))
			return stall_wait_enter(c, (uint64_t)b->it[i].st.st_dev) ? 1 : -1;
	return 0;
}

void probe_batch_run(struct probe_batch *b, int dirfd, dev_t dev)
{
	b->dirfd = dirfd;
	b->dev = dev;
	pthread_mutex_lock(&probe_pool.mu);
	if (!probe_pool.cond_ready)
		probe_pool_start();
	pthread_mutex_unlock(&probe_pool.mu);
	/* Alone while the entries answer from the caches; the helpers once
	 * they take longer (they wait for the disk): a warm listing pays no
	 * hand-over, a cold one has as many reads in flight as helpers. Warm
	 * is PROBE_WARM_ENTRIES or more done in each PROBE_ALONE_NS: a big
	 * warm directory wakes no helper either (they would only wait for
	 * each other's locks). */
	uint64_t start = elffs_now_ns();
	size_t since = 0;
	bool woken = b->n < 2 || !probe_pool.helpers;
	size_t i;
	while ((i = atomic_fetch_add(&b->take, 1)) < b->n) {
		probe_step(b, i, false);
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
		pthread_mutex_lock(&probe_pool.mu);
		probe_offer(b);
		probe_wake_helpers(left < probe_pool.helpers ? left : probe_pool.helpers);
		pthread_mutex_unlock(&probe_pool.mu);
	}
	pthread_mutex_lock(&probe_pool.mu);
	bool read = false;
	struct stall_call call;
	int share = 0;
	while (atomic_load(&b->done) < b->n) {
		if (!read && lstats_taken(b)) {
			read = true; /* every lstat taken: the reads, together */
			pthread_mutex_unlock(&probe_pool.mu);
			if (atomic_load(&b->magic))
				probe_read_together(b, probe_pool.depth);
			pthread_mutex_lock(&probe_pool.mu);
			continue;
		}
		if (!share)
			share = wait_share(b, &call);
		uint64_t now = elffs_now_ns(), first;
		if (only_stalled(b, now, share < 0, &first)) {
			b->closed = true; /* the helpers inside keep b */
			atomic_store(&b->stalled, true);
			say_stalled(b, now, share < 0);
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
		pthread_cond_timedwait(&probe_pool.done, &probe_pool.mu, &until);
	}
	for (struct probe_batch **p = &probe_pool.list; *p; p = &(*p)->next)
		if (*p == b) { /* no helper takes anything of it any more */
			*p = b->next;
			b->listed = false;
			break;
		}
	b->closed = true;
	pthread_mutex_unlock(&probe_pool.mu);
	if (share > 0)
		stall_leave(&call);
}

/* What regular file name of directory dirfd (on device dirdev), on
 * another device, shows as: read by a helper and waited for as in a
 * listing, a batch of that one entry. */
static int classify_foreign(int dirfd, dev_t dirdev, const char *name)
{
	struct probe_batch *b = probe_batch_new(1);
	if (!b)
		return -ENOMEM;
	int kind = probe_batch_add(b, name, DT_REG);
	if (kind == 0) {
		const struct stat *st;
		probe_batch_run(b, dirfd, dirdev);
		kind = probe_batch_get(b, 0, &name, &st);
	}
	probe_batch_put(b);
	return kind;
}

int probe_classify(int dirfd, const char *name, const struct stat *st)
{
	struct stat dst; /* a file bind-mounted from a file system below SOURCE */
	if (S_ISREG(st->st_mode) && stall_foreign((uint64_t)st->st_dev) && probe_known(st) < 0 &&
	    fstat(dirfd, &dst) == 0 && dst.st_dev != st->st_dev)
		return classify_foreign(dirfd, dst.st_dev, name);
	return probe_classify_here(dirfd, name, st);
}

int probe_entry(int dirfd, const char *name, unsigned char d_type, struct stat *st)
{
	if (!probe_listed_type(d_type))
		return -ENOENT;
	int ret = src_statat_listed(dirfd, name, st);
	return ret < 0 ? ret : probe_classify(dirfd, name, st);
}
