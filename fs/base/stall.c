/* Calls into file systems mounted below SOURCE (stall.h). */
#include "base/stall.h"
#include "base/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#define DEVS      64   /* devices with calls in flight at once, tracked apiece */
#define QUEUE_MAX 4096 /* requests waiting for a worker share, beyond: EIO */

TAILQ_HEAD(calls, stall_call);

struct devrec {
	uint64_t dev;
	unsigned workers;   /* worker calls in flight */
	struct calls calls; /* every call in flight, oldest first */
	bool logged;        /* "no answer" said for this episode */
};

struct qjob {
	struct stall_job j;
	uint64_t dev;
	TAILQ_ENTRY(qjob) link;
	char name[]; /* the copy of j.name */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct devrec devs[DEVS];
static TAILQ_HEAD(, qjob) queue = TAILQ_HEAD_INITIALIZER(queue);
static unsigned queued, workers_all;
static unsigned dev_share = 1, all_share = 1;
static uint64_t src_dev;
static atomic_bool ready;

/* Worker calls of this thread in flight (it counts once in the total),
 * and the device of the first. */
static _Thread_local unsigned thread_calls;
static _Thread_local uint64_t thread_dev;
/* This thread gave a worker's place back in its own request
 * (stall_wait_enter): what may run then is run once that request is
 * answered (stall_run), as a worker back from a device does. */
static _Thread_local bool owed;

void stall_init(uint64_t srcdev, unsigned workers)
{
	src_dev = srcdev;
	dev_share = STALL_DEV_SHARE(workers);
	all_share = STALL_ALL_SHARE(workers);
	for (size_t i = 0; i < DEVS; i++)
		TAILQ_INIT(&devs[i].calls);
	atomic_store(&ready, true);
}

bool stall_foreign(uint64_t dev)
{
	return dev != 0 && dev != src_dev && atomic_load(&ready);
}

/* The record of dev (mu held): its own, a free one (made its own), or NULL
 * when DEVS devices have calls in flight (then only the total counts). */
static struct devrec *rec_of(uint64_t dev, bool make)
{
	struct devrec *free_rec = NULL;
	for (size_t i = 0; i < DEVS; i++) {
		if (devs[i].dev == dev && (devs[i].workers || !TAILQ_EMPTY(&devs[i].calls)))
			return &devs[i];
		if (!free_rec && !devs[i].workers && TAILQ_EMPTY(&devs[i].calls))
			free_rec = &devs[i];
	}
	if (free_rec && make) {
		free_rec->dev = dev;
		free_rec->logged = false;
		return free_rec;
	}
	return NULL;
}

static void add_call(struct stall_call *c, struct devrec *r, uint64_t dev, bool worker)
{
	c->dev = dev;
	c->start_ns = elffs_now_ns();
	c->worker = worker;
	c->in_all = worker && thread_calls == 0;
	if (c->in_all)
		thread_dev = dev;
	if (r) {
		TAILQ_INSERT_TAIL(&r->calls, c, link);
		r->workers += worker;
	} else {
		c->dev = 0; /* untracked */
	}
	thread_calls += worker;
	workers_all += c->in_all;
}

static bool stalled_locked(const struct devrec *r, uint64_t now)
{
	const struct stall_call *c = r ? TAILQ_FIRST(&r->calls) : NULL;
	return c && now - c->start_ns >= STALL_NS;
}

void stall_enter(struct stall_call *c, uint64_t dev)
{
	pthread_mutex_lock(&mu);
	add_call(c, rec_of(dev, true), dev, false);
	pthread_mutex_unlock(&mu);
}

/* Take c out (mu held). */
static void remove_call(struct stall_call *c)
{
	workers_all -= c->in_all;
	thread_calls -= c->worker;
	if (!c->dev)
		return;
	struct devrec *r = rec_of(c->dev, false);
	if (!r)
		return;
	TAILQ_REMOVE(&r->calls, c, link);
	r->workers -= c->worker;
	if (r->logged && !stalled_locked(r, elffs_now_ns())) {
		r->logged = false;
		if (r->dev == STALL_DEV_NETWORK)
			elog(LOG_NOTICE, "the debuginfod servers answer again");
		else
			elog(LOG_NOTICE, "device %u:%u below SOURCE answers again",
			     major((dev_t)r->dev), minor((dev_t)r->dev));
	}
}

void stall_leave(struct stall_call *c)
{
	pthread_mutex_lock(&mu);
	remove_call(c);
	pthread_mutex_unlock(&mu);
	owed |= c->worker;
}

bool stall_stalled(uint64_t dev)
{
	pthread_mutex_lock(&mu);
	bool s = stalled_locked(rec_of(dev, false), elffs_now_ns());
	pthread_mutex_unlock(&mu);
	return s;
}

/* Whether this worker may go into dev now (mu held): one already in a
 * call counts in the total already. */
static bool has_share(const struct devrec *r)
{
	return (thread_calls || workers_all < all_share) && (!r || r->workers < dev_share);
}

bool stall_wait_enter(struct stall_call *c, uint64_t dev)
{
	*c = (struct stall_call){.dev = 0}; /* as left: nothing counted */
	if (!stall_foreign(dev) || (thread_calls && thread_dev == dev))
		return true; /* not below SOURCE, or this worker counts in dev already */
	pthread_mutex_lock(&mu);
	struct devrec *r = rec_of(dev, true);
	bool ok = has_share(r);
	if (ok)
		add_call(c, r, dev, true);
	pthread_mutex_unlock(&mu);
	return ok;
}

/* The first queued request that may run now, taken out with its call
 * entered (mu held); NULL if none. */
static struct qjob *next_runnable(struct stall_call *c)
{
	struct qjob *q;
	if (workers_all >= all_share)
		return NULL;
	TAILQ_FOREACH(q, &queue, link)
	{
		struct devrec *r = rec_of(q->dev, true);
		if (has_share(r)) {
			TAILQ_REMOVE(&queue, q, link);
			queued--;
			add_call(c, r, q->dev, true);
			return q;
		}
	}
	return NULL;
}

/* FUSE_INTERRUPT for a queued request (libfuse holds the request's lock):
 * answered EINTR if it still waits. */
static void interrupted(fuse_req_t req, void *data)
{
	struct qjob *found = NULL, *q;
	pthread_mutex_lock(&mu);
	TAILQ_FOREACH(q, &queue, link)
	if (q == data && q->j.req == req) {
		TAILQ_REMOVE(&queue, q, link);
		queued--;
		found = q;
		break;
	}
	pthread_mutex_unlock(&mu);
	if (found) {
		fuse_reply_err(req, EINTR);
		free(found);
	}
}

/* Queue a copy of j (mu held); false when the queue is full. */
static struct qjob *queue_copy(const struct stall_job *j, uint64_t dev)
{
	size_t nl = j->name ? strlen(j->name) + 1 : 0;
	if (queued >= QUEUE_MAX)
		return NULL;
	struct qjob *q = malloc(sizeof(*q) + nl);
	if (!q)
		return NULL;
	q->j = *j;
	q->dev = dev;
	if (nl) {
		memcpy(q->name, j->name, nl);
		q->j.name = q->name;
	}
	return q;
}

/* Run j, then the queued requests this worker may take on. */
static void run_and_drain(struct stall_call *c, const struct stall_job *j)
{
	j->run(j);
	for (;;) {
		owed = false; /* what a wait given back let run is taken here */
		pthread_mutex_lock(&mu);
		remove_call(c);
		struct qjob *q = next_runnable(c);
		pthread_mutex_unlock(&mu);
		if (!q)
			return;
		fuse_req_interrupt_func(q->j.req, NULL, NULL); /* waits for a callback under way */
		q->j.run(&q->j);
		free(q);
	}
}

/* The queued requests that a wait given back in this worker's request
 * let run (stall_wait_enter), run now that the request is answered. */
static void run_owed(void)
{
	struct stall_call c;
	owed = false;
	pthread_mutex_lock(&mu);
	struct qjob *q = next_runnable(&c);
	pthread_mutex_unlock(&mu);
	if (!q)
		return;
	fuse_req_interrupt_func(q->j.req, NULL, NULL); /* waits for a callback under way */
	run_and_drain(&c, &q->j);
	free(q);
}

void stall_run(uint64_t dev, const struct stall_job *j)
{
	if (!stall_foreign(dev)) {
		j->run(j);
		if (owed)
			run_owed();
		return;
	}
	struct stall_call c;
	pthread_mutex_lock(&mu);
	struct devrec *r = rec_of(dev, true);
	if (has_share(r)) {
		add_call(&c, r, dev, true);
		pthread_mutex_unlock(&mu);
		run_and_drain(&c, j);
		return;
	}
	struct qjob *q = queue_copy(j, dev);
	uint64_t now = elffs_now_ns();
	if (r && !r->logged && stalled_locked(r, now) && dev == STALL_DEV_NETWORK) {
		r->logged = true;
		elog(LOG_WARNING,
		     "the debuginfod servers have not answered for %llu s: lookups of remote ids "
		     "wait without a worker (%u workers wait on servers at most)",
		     (unsigned long long)((now - TAILQ_FIRST(&r->calls)->start_ns) / 1000000000ULL),
		     dev_share);
	} else if (r && !r->logged && stalled_locked(r, now)) {
		r->logged = true;
		elog(LOG_WARNING,
		     "device %u:%u below SOURCE has not answered for %llu s: its calls wait "
		     "without a worker (%u workers in it at most)",
		     major((dev_t)dev), minor((dev_t)dev),
		     (unsigned long long)((now - TAILQ_FIRST(&r->calls)->start_ns) / 1000000000ULL),
		     dev_share);
	}
	pthread_mutex_unlock(&mu);
	if (!q) {
		fuse_reply_err(j->req, EIO);
		return;
	}
	/* Registered before it is queued: an interrupt that came already is
	 * seen here (the callback, called at once, finds nothing queued). */
	fuse_req_interrupt_func(j->req, interrupted, q);
	if (fuse_req_interrupted(j->req)) {
		fuse_req_interrupt_func(j->req, NULL, NULL);
		fuse_reply_err(j->req, EINTR);
		free(q);
		return;
	}
	pthread_mutex_lock(&mu);
	/* a worker may have come back meanwhile: then run it here. An
	 * interrupt that came after the check above is seen under mu: its
	 * callback takes mu, so it runs either before this (seen here) or
	 * after the insertion (and finds the job queued). */
	bool now_ok = has_share(rec_of(dev, true));
	bool gone = !now_ok && fuse_req_interrupted(j->req);
	if (now_ok)
		add_call(&c, rec_of(dev, true), dev, true);
	else if (!gone) {
		TAILQ_INSERT_TAIL(&queue, q, link);
		queued++;
	}
	pthread_mutex_unlock(&mu);
	if (gone) {
		fuse_req_interrupt_func(j->req, NULL, NULL);
		fuse_reply_err(j->req, EINTR);
		free(q);
		return;
	}
	if (now_ok) {
		fuse_req_interrupt_func(q->j.req, NULL, NULL);
		run_and_drain(&c, &q->j);
		free(q);
	}
}

void stall_shutdown(void)
{
	for (;;) {
		pthread_mutex_lock(&mu);
		struct qjob *q = TAILQ_FIRST(&queue);
		if (q) {
			TAILQ_REMOVE(&queue, q, link);
			queued--;
		}
		pthread_mutex_unlock(&mu);
		if (!q)
			return;
		fuse_req_interrupt_func(q->j.req, NULL, NULL);
		fuse_reply_err(q->j.req, EIO);
		free(q);
	}
}
