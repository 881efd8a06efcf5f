/* The cache of decompressed sections. */
#include "dcache.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

struct dentry_data {
	uint64_t serial; /* key: the core view's serial, section index */
	uint32_t index;
	uint64_t size;
	char *data;
	unsigned refs;
	struct dentry_data *prev, *next; /* all entries, most recently used first */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dentry_data *head;
static uint64_t total; /* bytes of entries and of decompressions under way */

static void unlink_entry(struct dentry_data *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	e->prev = e->next = NULL;
}

static void push_front(struct dentry_data *e)
{
	e->next = head;
	e->prev = NULL;
	if (head)
		head->prev = e;
	head = e;
}

static struct dentry_data *find(uint64_t serial, uint32_t index)
{
	for (struct dentry_data *e = head; e; e = e->next)
		if (e->serial == serial && e->index == index)
			return e;
	return NULL;
}

/* Evict idle entries, least recently used first, until size more bytes fit. */
static bool make_room(uint64_t size)
{
	struct dentry_data *e = head;
	while (e && e->next)
		e = e->next;
	while (total + size > DCACHE_BUDGET && e) {
		struct dentry_data *prev = e->prev;
		if (e->refs == 0) {
			unlink_entry(e);
			total -= e->size;
			free(e->data);
			free(e);
		}
		e = prev;
	}
	return total + size <= DCACHE_BUDGET;
}

static struct dentry_data *hit(uint64_t serial, uint32_t index)
{
	struct dentry_data *e = find(serial, index);
	if (e) {
		e->refs++;
		unlink_entry(e);
		push_front(e);
	}
	return e;
}

static int decompress(struct bview *v, uint32_t index, uint64_t size, struct dentry_data **out)
{
	struct dentry_data *e = calloc(1, sizeof(*e));
	char *data = e ? malloc(size ? size : 1) : NULL;
	if (!data) {
		free(e);
		return -ENOMEM;
	}
	ssize_t n = pfelf_section_decompress(v->f, index, data, size);
	if (n < 0 || (uint64_t)n != size) {
		free(data);
		free(e);
		return n == -ENOMEM ? -ENOMEM : -EIO;
	}
	e->data = data;
	e->size = size;
	*out = e;
	return 0;
}

int dcache_acquire(struct bview *v, uint64_t ino, uint32_t index, uint64_t size, const char **data,
                   struct dentry_data **out)
{
	uint64_t serial = view_core(v)->serial;
	(void)ino; /* the key is the core's serial, shared by the links of a file */
	if (size > DCACHE_BUDGET)
		return -EIO;
	pthread_mutex_lock(&lock);
	struct dentry_data *e = hit(serial, index);
	if (!e && !make_room(size)) {
		pthread_mutex_unlock(&lock);
		return -ENOMEM;
	}
	if (!e)
		total += size; /* reserved while decompressing, without the lock */
	pthread_mutex_unlock(&lock);
	if (!e) {
		struct dentry_data *mine;
		int ret = decompress(v, index, size, &mine);
		pthread_mutex_lock(&lock);
		e = ret == 0 ? hit(serial, index) : NULL; /* another open won the race */
		total -= size;
		if (ret == 0 && !e) {
			*mine = (struct dentry_data){serial, index, size, mine->data, 1, 0, 0};
			push_front(mine);
			total += size;
			e = mine;
		} else if (ret == 0) {
			free(mine->data);
			free(mine);
		}
		pthread_mutex_unlock(&lock);
		if (ret < 0)
			return ret;
	}
	*data = e->data;
	*out = e;
	return 0;
}

void dcache_release(struct dentry_data *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&lock);
	e->refs--;
	pthread_mutex_unlock(&lock);
}

void dcache_forget(uint64_t serial)
{
	pthread_mutex_lock(&lock);
	for (struct dentry_data *e = head, *next; e; e = next) {
		next = e->next;
		if (e->refs || e->serial != serial)
			continue;
		unlink_entry(e);
		total -= e->size;
		free(e->data);
		free(e);
	}
	pthread_mutex_unlock(&lock);
}

void dcache_destroy(void)
{
	pthread_mutex_lock(&lock);
	for (struct dentry_data *e = head, *next; e; e = next) {
		next = e->next;
		if (e->refs)
			continue;
		unlink_entry(e);
		free(e->data);
		free(e);
	}
	pthread_mutex_unlock(&lock);
}
