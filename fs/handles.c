/* The file handles given to the kernel, freed at exit if never released. */
#include "handles.h"

#include <pthread.h>
#include <stddef.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct hlink *head;

void handles_add(struct hlink *h, void (*free_fn)(struct hlink *h))
{
	h->free = free_fn;
	pthread_mutex_lock(&lock);
	h->prev = NULL;
	h->next = head;
	if (head)
		head->prev = h;
	head = h;
	h->linked = true;
	pthread_mutex_unlock(&lock);
}

static void unlink_locked(struct hlink *h)
{
	if (!h->linked)
		return;
	if (h->prev)
		h->prev->next = h->next;
	else
		head = h->next;
	if (h->next)
		h->next->prev = h->prev;
	h->prev = h->next = NULL;
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
		struct hlink *h = head;
		if (h)
			unlink_locked(h);
		pthread_mutex_unlock(&lock);
		if (!h)
			return;
		h->free(h);
	}
}
