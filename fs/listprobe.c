/* Classifying a SOURCE directory's entries on a few threads. */
#include "listprobe.h"
#include "probe.h"

#include <pthread.h>
#include <stdatomic.h>

#define PER_THREAD 64 /* entries for each thread (the caller's included) */
#define HELPERS    3  /* threads besides the caller at most */
#define CHUNK      16 /* entries taken at a time */

struct job {
	int dirfd;
	const struct dent *e;
	struct stat *st;
	int *kind;
	size_t n;
	atomic_size_t next;
};

static void *work(void *arg)
{
	struct job *j = arg;
	for (;;) {
		size_t i = atomic_fetch_add(&j->next, CHUNK);
		if (i >= j->n)
			return NULL;
		size_t end = j->n - i > CHUNK ? i + CHUNK : j->n;
		for (; i < end; i++)
			j->kind[i] = probe_entry(j->dirfd, j->e[i].name, j->e[i].type, &j->st[i]);
	}
}

void listprobe_run(int dirfd, const struct dent *e, struct stat *st, int *kind, size_t n)
{
	struct job j = {.dirfd = dirfd, .e = e, .st = st, .kind = kind, .n = n};
	atomic_init(&j.next, 0);
	size_t want = n / PER_THREAD > HELPERS ? HELPERS : n / PER_THREAD;
	pthread_t t[HELPERS];
	size_t started = 0;
	while (started < want && pthread_create(&t[started], NULL, work, &j) == 0)
		started++;
	work(&j);
	for (size_t k = 0; k < started; k++)
		pthread_join(t[k], NULL);
}
