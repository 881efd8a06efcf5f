/* The file handles given to the kernel, freed at exit if never released. */
#include "base/handles.h"

#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static LIST_HEAD(, hlink) handles = LIST_HEAD_INITIALIZER(handles);

void handles_add(struct hlink *h, void (*free_fn)(struct hlink *h))
{
	h->free = free_fn;
	pthread_mutex_lock(&lock);
	LIST_INSERT_HEAD(&handles, h, link);
	h->linked = true;
	pthread_mutex_unlock(&lock);
}

static void unlink_locked(struct hlink *h)
{
	if (!h->linked)
		return;
	LIST_REMOVE(h, link);
	h->linked = false;
}

void handles_remove(struct hlink *h)
{
	pthread_mutex_lock(&lock);
	unlink_locked(h);
	pthread_mutex_unlock(&lock);
}

void handles_free_all(void)
{
	for (;;) {
		pthread_mutex_lock(&lock);
		struct hlink *h = LIST_FIRST(&handles);
		if (h)
			unlink_locked(h);
		pthread_mutex_unlock(&lock);
		if (!h)
			return;
		h->free(h);
	}
}
