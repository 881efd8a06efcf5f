/* The cache of decompressed sections, within the memory budget. */
#include "dcache.h"
#include "elffs.h"
#include "membudget.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct dentry_data {
	uint64_t serial; /* key: the core view's serial, section index */
	uint32_t index;
	uint64_t size;
	char *data;
	unsigned refs;
	uint64_t stamp;                  /* when it was last released */
	struct dentry_data *prev, *next; /* all entries, most recently used first */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dentry_data *head, *tail;

/* What an entry of size bytes takes (reserved in the budget). */
static uint64_t entry_cost(uint64_t size)
{
	return membudget_chunk(size ? size : 1) + membudget_chunk(sizeof(struct dentry_data));
}

static void unlink_entry(struct dentry_data *e)
{
	if (e->prev)
		e->prev->next = e->next;
	else
		head = e->next;
	if (e->next)
		e->next->prev = e->prev;
	else
		tail = e->prev;
	e->prev = e->next = NULL;
}

static void push_front(struct dentry_data *e)
{
	e->next = head;
	e->prev = NULL;
	if (head)
		head->prev = e;
	else
		tail = e;
	head = e;
}

static void entry_free(struct dentry_data *e)
{
	membudget_release(MB_DECOMPRESSED, entry_cost(e->size));
	free(e->data);
	free(e);
}

static struct dentry_data *hit(uint64_t serial, uint32_t index)
{
	struct dentry_data *e = head;
	while (e && (e->serial != serial || e->index != index))
		e = e->next;
	if (e) {
		e->refs++;
		unlink_entry(e);
		push_front(e);
	}
	return e;
}

/* The least recently used idle entry (lock held), or NULL. */
static struct dentry_data *oldest_idle(void)
{
	struct dentry_data *e = tail;
	while (e && e->refs)
		e = e->prev;
	return e;
}

static bool budget_oldest(uint64_t *stamp)
{
	pthread_mutex_lock(&lock);
	struct dentry_data *e = oldest_idle();
	if (e)
		*stamp = e->stamp;
	pthread_mutex_unlock(&lock);
	return e != NULL;
}

static bool budget_evict(void)
{
	pthread_mutex_lock(&lock);
	struct dentry_data *e = oldest_idle();
	if (e)
		unlink_entry(e);
	pthread_mutex_unlock(&lock);
	if (e)
		entry_free(e);
	return e != NULL;
}

static const struct membudget_source budget_source = {budget_oldest, budget_evict};

static void register_budget(void)
{
	membudget_register(MB_DECOMPRESSED, &budget_source);
}

/* Decompress section index of v into a new entry (reserved by the caller). */
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
	*e = (struct dentry_data){view_core(v)->serial, index, size, data, 1, 0, NULL, NULL};
	*out = e;
	return 0;
}

/* Reserve, decompress, and publish (unless another open did it first). */
static int fill(struct bview *v, uint32_t index, uint64_t size, struct dentry_data **out)
{
	char what[80];
	snprintf(what, sizeof(what), "decompressed section %u of %s", index, view_core(v)->label);
	int ret = membudget_reserve(MB_DECOMPRESSED, entry_cost(size), 0, what);
	if (ret < 0)
		return ret;
	struct dentry_data *mine = NULL;
	ret = decompress(v, index, size, &mine);
	if (ret < 0) {
		membudget_release(MB_DECOMPRESSED, entry_cost(size));
		return ret;
	}
	pthread_mutex_lock(&lock);
	*out = hit(mine->serial, index); /* another open won the race */
	if (!*out)
		push_front(*out = mine);
	pthread_mutex_unlock(&lock);
	if (*out != mine)
		entry_free(mine);
	return 0;
}

int dcache_acquire(struct bview *v, uint64_t ino, uint32_t index, uint64_t size, const char **data,
                   struct dentry_data **out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, register_budget);
	(void)ino; /* the key is the core's serial, shared by the links of a file */
	if (size > DCACHE_MAX_SECTION)
		return -EIO;
	pthread_mutex_lock(&lock);
	struct dentry_data *e = hit(view_core(v)->serial, index);
	pthread_mutex_unlock(&lock);
	int ret = e ? 0 : fill(v, index, size, &e);
	if (ret < 0)
		return ret;
	*data = e->data;
	*out = e;
	return 0;
}

void dcache_release(struct dentry_data *e)
{
	if (!e)
		return;
	pthread_mutex_lock(&lock);
	if (--e->refs == 0)
		e->stamp = elffs_now_ns();
	pthread_mutex_unlock(&lock);
}

/* Take the idle entries of serial (all of them: every idle entry) out of
 * the cache (lock held), into a list linked through next. */
static struct dentry_data *take_idle(uint64_t serial, bool all)
{
	struct dentry_data *out = NULL;
	for (struct dentry_data *e = head, *next; e; e = next) {
		next = e->next;
		if (e->refs || (!all && e->serial != serial))
			continue;
		unlink_entry(e);
		e->next = out;
		out = e;
	}
	return out;
}

static void free_list(struct dentry_data *e)
{
	while (e) {
		struct dentry_data *next = e->next;
		entry_free(e);
		e = next;
	}
}

void dcache_forget(uint64_t serial)
{
	pthread_mutex_lock(&lock);
	struct dentry_data *gone = take_idle(serial, false);
	pthread_mutex_unlock(&lock);
	free_list(gone);
}

void dcache_destroy(void)
{
	pthread_mutex_lock(&lock);
	struct dentry_data *gone = take_idle(0, true);
	pthread_mutex_unlock(&lock);
	free_list(gone);
}
