/* The steps of a batch's entries, taken by the listing's thread and the
 * helper threads, and those helpers (probe.h, probe_helpers.h). */
#include "source/probe_helpers.h"
#include "base/stall.h"
#include "source/probe_magic.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

struct probe_pool probe_pool = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void *helper_main(void *arg);

int probe_dir_of(const struct probe_batch *b, const struct pitem *it)
{
	return it->dirfd >= 0 ? it->dirfd : b->dirfd;
}

void probe_batch_free(struct probe_batch *b)
{
	if (b->ffd >= 0)
		close(b->ffd);
	free(b->it);
	free(b->fq);
	free(b->names);
	free(b);
}

bool probe_put_locked(struct probe_batch *b)
{
	return --b->refs == 0;
}

void probe_finish(struct probe_batch *b, size_t i, int kind)
{
	b->it[i].kind = kind;
	atomic_store(&b->it[i].state, IT_DONE);
	size_t d = atomic_fetch_add(&b->done, 1) + 1;
	if (d == b->n || d + atomic_load(&b->magic) == b->n) { /* all, or all but the reads */
		pthread_mutex_lock(&probe_pool.mu);
		pthread_cond_broadcast(&probe_pool.done);
		pthread_mutex_unlock(&probe_pool.mu);
	}
}

void probe_wake_helpers(size_t want)
{
	if (want > PROBE_HELPERS_MAX)
		want = PROBE_HELPERS_MAX;
	for (size_t started = 0;
	     probe_pool.idle + started < want && probe_pool.threads < PROBE_THREADS_MAX;
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
		probe_pool.threads++;
	}
	pthread_cond_broadcast(&probe_pool.work);
}

void probe_offer(struct probe_batch *b)
{
	if (b->listed || b->closed)
		return;
	b->next = probe_pool.list;
	probe_pool.list = b;
	b->listed = true;
}

/* Entry i is a regular file on another device, not known: for a helper
 * (called by the listing's thread). */
static void queue_foreign(struct probe_batch *b, size_t i)
{
	if (stall_stalled((uint64_t)b->it[i].st.st_dev)) {
		atomic_store(&b->stalled, true);
		probe_finish(b, i, -ENOENT); /* not waited for, helpers or not */
		return;
	}
	pthread_mutex_lock(&probe_pool.mu);
	b->it[i].found_ns = elffs_now_ns();
	atomic_store(&b->it[i].state, IT_FOREIGN);
	b->fq[b->fq_n++] = i;
	probe_offer(b);
	probe_wake_helpers(1);
	pthread_mutex_unlock(&probe_pool.mu);
}

/* Read the magic of foreign entry i (a helper): noted as a call into its
 * device, left out at once when that device does not answer already. */
static void read_foreign(struct probe_batch *b, size_t i)
{
	struct pitem *it = &b->it[i];
	uint64_t dev = (uint64_t)it->st.st_dev;
	int kind = -ENOENT;
	pthread_mutex_lock(&probe_pool.mu);
	if (b->ffd < 0 && !b->closed)
		b->ffd = fcntl(b->dirfd, F_DUPFD_CLOEXEC, 0);
	int fd = b->ffd;
	pthread_mutex_unlock(&probe_pool.mu);
	if (fd >= 0 && !stall_stalled(dev)) {
		struct stall_call call;
		stall_enter(&call, dev);
		kind = probe_kind_of(probe_is_elf(fd, b->names + it->name, &it->st));
		stall_leave(&call);
	} else {
		atomic_store(&b->stalled, true);
	}
	probe_finish(b, i, kind);
}

void probe_step(struct probe_batch *b, size_t i, bool helper)
{
	struct pitem *it = &b->it[i];
	const char *name = b->names + it->name;
	atomic_store(&it->state, IT_TAKEN);
	if (!probe_listed_type(it->d_type)) {
		probe_finish(b, i, -ENOENT);
		return;
	}
	int ret = src_statat_listed(probe_dir_of(b, it), name, &it->st);
	int k = ret == 0 && S_ISREG(it->st.st_mode) ? probe_known(&it->st) : -1;
	if (k >= 0) {
		probe_finish(b, i, probe_kind_of(k));
		return;
	}
	if (ret == 0 && S_ISREG(it->st.st_mode) && it->st.st_dev == b->dev &&
	    PROBE_URING) { /* read with the others of the batch */
		atomic_store(&it->state, IT_MAGIC);
		if (atomic_fetch_add(&b->magic, 1) + 1 + atomic_load(&b->done) == b->n) {
			/* every lstat taken: the listing reads */
			pthread_mutex_lock(&probe_pool.mu);
			pthread_cond_broadcast(&probe_pool.done);
			pthread_mutex_unlock(&probe_pool.mu);
		}
		return;
	}
	if (ret < 0 || !S_ISREG(it->st.st_mode) || it->st.st_dev == b->dev) {
		probe_finish(b, i,
		             ret < 0 ? ret
		                     : probe_classify_here(probe_dir_of(b, it), name, &it->st));
		return;
	}
	if (b->alone) {
		probe_finish(b, i, -ENOENT); /* no answer, nothing kept */
	} else if (helper) {
		pthread_mutex_lock(&probe_pool.mu);
		it->found_ns = elffs_now_ns();
		atomic_store(&it->state, IT_FOREIGN_TAKEN);
		pthread_mutex_unlock(&probe_pool.mu);
		read_foreign(b, i);
	} else
		queue_foreign(b, i);
}

/* Work on b until it has none left for a helper (holding a reference). */
static void work(struct probe_batch *b)
{
	size_t i;
	while ((i = atomic_fetch_add(&b->take, 1)) < b->n)
		probe_step(b, i, true);
	pthread_mutex_lock(&probe_pool.mu);
	while (!b->closed && b->fq_taken < b->fq_n) {
		i = b->fq[b->fq_taken++];
		atomic_store(&b->it[i].state, IT_FOREIGN_TAKEN);
		pthread_mutex_unlock(&probe_pool.mu);
		read_foreign(b, i);
		pthread_mutex_lock(&probe_pool.mu);
	}
	pthread_mutex_unlock(&probe_pool.mu);
}

static bool has_work(const struct probe_batch *b)
{
	return !b->closed && (atomic_load(&b->take) < b->n || b->fq_taken < b->fq_n);
}

/* A batch with work, with a reference (probe_pool.mu held); the list loses the
 * batches without. */
static struct probe_batch *pick(void)
{
	struct probe_batch **p = &probe_pool.list, *b;
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
	pthread_mutex_lock(&probe_pool.mu);
	for (;;) {
		struct probe_batch *b = pick();
		if (!b) {
			struct timespec until;
			clock_gettime(CLOCK_MONOTONIC, &until);
			until.tv_sec += PROBE_IDLE_S;
			probe_pool.idle++;
			int ret = pthread_cond_timedwait(&probe_pool.work, &probe_pool.mu, &until);
			probe_pool.idle--;
			if (ret == ETIMEDOUT && !(b = pick()))
				break;
			if (!b)
				continue;
		}
		pthread_mutex_unlock(&probe_pool.mu);
		work(b);
		pthread_mutex_lock(&probe_pool.mu);
		if (probe_put_locked(b)) {
			pthread_mutex_unlock(&probe_pool.mu);
			probe_batch_free(b);
			pthread_mutex_lock(&probe_pool.mu);
		}
	}
	probe_pool.threads--;
	pthread_mutex_unlock(&probe_pool.mu);
	return NULL;
}

void probe_pool_start(void)
{
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&probe_pool.work, &ca);
	pthread_cond_init(&probe_pool.done, &ca);
	pthread_condattr_destroy(&ca);
	probe_pool.cond_ready = true;
	/* a knob for the benchmark's lever (0: the listing's thread alone,
	 * but for files on another device) */
	const char *env = getenv("ELFFS_PROBE_HELPERS");
	char *end;
	unsigned long h = env ? strtoul(env, &end, 10) : PROBE_HELPERS;
	probe_pool.helpers = env && *env && !*end && h <= PROBE_HELPERS_MAX ? h : PROBE_HELPERS;
	struct rlimit rl;
	rlim_t fds = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 1024;
	probe_pool.depth = fds == RLIM_INFINITY || fds / 16 > PROBE_READS_MAX ? PROBE_READS_MAX
	                   : fds / 16                                         ? (size_t)(fds / 16)
	                                                                      : 1;
}
