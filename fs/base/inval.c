/* Kernel cache invalidations, sent from a thread of their own. */
#include "base/inval.h"
#include "base/elffs.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PENDING 4096 /* beyond that, the cache timeouts do the work */

struct item {
	struct item *next;
	uint64_t ino;
	char name[]; /* empty for an inode invalidation */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static struct item *head, *tail;
static unsigned pending;
static bool running, stopping;
static pthread_t thread;
static struct fuse_session *session;

static void send_one(struct item *it)
{
	if (it->name[0])
		fuse_lowlevel_notify_inval_entry(session, it->ino, it->name, strlen(it->name));
	else
		fuse_lowlevel_notify_inval_inode(session, it->ino, 0, 0);
}

static void *run(void *arg)
{
	pthread_mutex_lock(&lock);
	while (!stopping) {
		struct item *it = head;
		if (!it) {
			pthread_cond_wait(&cond, &lock);
			continue;
		}
		head = it->next;
		if (!head)
			tail = NULL;
		pending--;
		pthread_mutex_unlock(&lock);
		send_one(it);
		free(it);
		pthread_mutex_lock(&lock);
	}
	pthread_mutex_unlock(&lock);
	return arg;
}

int inval_start(void *se)
{
	session = se;
	stopping = false;
	int ret = pthread_create(&thread, NULL, run, NULL);
	if (ret)
		return -ret;
	running = true;
	return 0;
}

void inval_stop(void)
{
	if (!running)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&cond);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	running = false;
	while (head) {
		struct item *it = head;
		head = it->next;
		free(it);
	}
	tail = NULL;
	pending = 0;
}

static void queue(uint64_t ino, const char *name)
{
	size_t len = strlen(name);
	pthread_mutex_lock(&lock);
	struct item *it = NULL;
	if (running && !stopping && pending < MAX_PENDING)
		it = malloc(sizeof(*it) + len + 1);
	if (it) {
		it->next = NULL;
		it->ino = ino;
		memcpy(it->name, name, len + 1);
		if (tail)
			tail->next = it;
		else
			head = it;
		tail = it;
		pending++;
		pthread_cond_signal(&cond);
	}
	pthread_mutex_unlock(&lock);
}

void inval_entry(uint64_t parent, const char *name)
{
	if (name[0])
		queue(parent, name);
}

void inval_inode(uint64_t ino)
{
	queue(ino, "");
}
