/* The cache of decompressed sections and made files, within the memory budget. */
#include "cache/dcache.h"
#include "base/elffs.h"
#include "base/membudget.h"
#include "content/entries.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/queue.h>

/* The key of a made file: the kind of its node, above every section index. */
#define MADE_KEY(k) ((uint64_t)1 << 32 | (uint64_t)(k))

struct dentry_data {
	uint64_t serial; /* key: the core view's serial, section index or MADE_KEY */
	uint64_t index;
	uint64_t size;
	char *data;
	unsigned refs;
	uint64_t stamp;                /* when it was last released */
	TAILQ_ENTRY(dentry_data) link; /* all entries, most recently used first */
};

TAILQ_HEAD(dentry_list, dentry_data);

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct dentry_list cached = TAILQ_HEAD_INITIALIZER(cached);

/* What an entry of size bytes takes (reserved in the budget). */
static uint64_t entry_cost(uint64_t size)
{
	return membudget_chunk(size ? size : 1) + membudget_chunk(sizeof(struct dentry_data));
}

static void unlink_entry(struct dentry_data *e)
{
	TAILQ_REMOVE(&cached, e, link);
}

static void push_front(struct dentry_data *e)
{
	TAILQ_INSERT_HEAD(&cached, e, link);
}

static void entry_free(struct dentry_data *e)
{
	membudget_release(MB_DECOMPRESSED, entry_cost(e->size));
	free(e->data);
	free(e);
}

static struct dentry_data *hit(uint64_t serial, uint64_t index)
{
	struct dentry_data *e;
	TAILQ_FOREACH(e, &cached, link)
	if (e->serial == serial && e->index == index)
		break;
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
	struct dentry_data *e;
	TAILQ_FOREACH_REVERSE(e, &cached, dentry_list, link)
	if (!e->refs)
		break;
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

void dcache_init(void)
{
	membudget_register(MB_DECOMPRESSED, &budget_source);
}

/* Whether the compressed bytes of section index of v (pinned) may have
 * changed under the decompression (view_changed): the zeros of a cut last
 * page, or a rewrite in place, which a stream without a checksum (zstd's,
 * as linkers write them) can decompress to the right size. Asked after the
 * decompression: a change after it left the bytes read before it. */
static bool changed_under(struct bview *v, uint32_t index)
{
	const pfelf_shdr *sh;
	return pfelf_section(v->f, index, &sh) < 0 || view_changed(v, sh->offset + sh->size);
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
	if (n >= 0 && (uint64_t)n == size && changed_under(v, index))
		n = -EIO;
	if (n < 0 || (uint64_t)n != size) {
		free(data);
		free(e);
		return n == -ENOMEM ? -ENOMEM : -EIO;
	}
	*e = (struct dentry_data){.serial = view_core(v)->serial,
	                          .index = index,
	                          .size = size,
	                          .data = data,
	                          .refs = 1};
	*out = e;
	return 0;
}

/* Publish new entry mine (unless another open did it first) into *out. */
static void publish(struct dentry_data *mine, struct dentry_data **out)
{
	pthread_mutex_lock(&lock);
	*out = hit(mine->serial, mine->index); /* another open won the race */
	if (!*out)
		push_front(*out = mine);
	pthread_mutex_unlock(&lock);
	if (*out != mine)
		entry_free(mine);
}

/* Reserve, decompress, and publish. */
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
	publish(mine, out);
	return 0;
}

int dcache_get(struct bview *v, uint32_t index, uint64_t size, const char **data,
               struct dentry_data **out)
{
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

/* What a made entry holds besides the bytes its make is given room for. */
#define MADE_HEAD 256

/* A new entry of the size bytes made at bytes (the caller reserved
 * entry_cost(size) and gives them up on error). */
static int made_entry(struct bview *v, uint64_t key, void *bytes, uint64_t size,
                      struct dentry_data **out)
{
	struct dentry_data *e = bytes ? calloc(1, sizeof(*e)) : NULL;
	if (!e) {
		free(bytes);
		return bytes ? -ENOMEM : -EIO; /* a made file is never empty */
	}
	*e = (struct dentry_data){.serial = view_core(v)->serial,
	                          .index = key,
	                          .size = size,
	                          .data = bytes,
	                          .refs = 1};
	*out = e;
	return 0;
}

/* Make file e of v into a new entry: within a reservation of the row's
 * guess, four times more after each -EFBIG up to the whole budget; the
 * entry keeps entry_cost of its size, the rest goes back. */
static int make(struct bview *v, const struct bin_entry *e, uint64_t key, struct dentry_data **out)
{
	char what[80];
	snprintf(what, sizeof(what), "%s of %s", e->name, view_core(v)->label);
	uint64_t limit = membudget_limit(), max = e->make_guess(v);
	for (;;) {
		max = max < MADE_HEAD * 2 ? MADE_HEAD * 2 : max > limit ? limit : max;
		int ret = membudget_reserve(MB_DECOMPRESSED, max, 0, what);
		if (ret < 0)
			return ret;
		void *bytes = NULL;
		uint64_t size = 0;
		ret = e->make(v, max - MADE_HEAD, &bytes, &size);
		if (ret == 0 && view_changed(v, v->fsize)) /* read while it was written */
			ret = -EIO;
		if (ret == 0) {
			membudget_release(MB_DECOMPRESSED, max - entry_cost(size));
			ret = made_entry(v, key, bytes, size, out);
			if (ret < 0)
				membudget_release(MB_DECOMPRESSED, entry_cost(size));
			return ret;
		}
		free(bytes);
		membudget_release(MB_DECOMPRESSED, max);
		if (ret != -EFBIG || max >= limit)
			return ret;
		max = max > limit / 4 ? limit : max * 4;
	}
}

int dcache_made(struct bview *v, enum node_kind k, const char **data, uint64_t *size,
                struct dentry_data **out)
{
	const struct bin_entry *e = entry_of_kind(k);
	uint64_t key = MADE_KEY(k);
	if (!e || e->bytes != EB_MADE)
		return -EIO;
	pthread_mutex_lock(&lock);
	struct dentry_data *d = hit(view_core(v)->serial, key);
	pthread_mutex_unlock(&lock);
	if (!d) {
		struct dentry_data *mine = NULL;
		int ret = make(v, e, key, &mine);
		if (ret < 0)
			return ret;
		publish(mine, &d);
	}
	*data = d->data;
	*size = d->size;
	*out = d;
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

/* Move the idle entries of serial (all of them: every idle entry) out of
 * the cache (lock held) into *out. */
static void take_idle(uint64_t serial, bool all, struct dentry_list *out)
{
	struct dentry_data *e = TAILQ_FIRST(&cached), *next;
	for (; e; e = next) {
		next = TAILQ_NEXT(e, link);
		if (e->refs || (!all && e->serial != serial))
			continue;
		unlink_entry(e);
		TAILQ_INSERT_TAIL(out, e, link);
	}
}

static void free_list(struct dentry_list *gone)
{
	struct dentry_data *e;
	while ((e = TAILQ_FIRST(gone))) {
		TAILQ_REMOVE(gone, e, link);
		entry_free(e);
	}
}

void dcache_forget(uint64_t serial)
{
	struct dentry_list gone = TAILQ_HEAD_INITIALIZER(gone);
	pthread_mutex_lock(&lock);
	take_idle(serial, false, &gone);
	pthread_mutex_unlock(&lock);
	free_list(&gone);
}

void dcache_destroy(void)
{
	struct dentry_list gone = TAILQ_HEAD_INITIALIZER(gone);
	pthread_mutex_lock(&lock);
	take_idle(0, true, &gone);
	pthread_mutex_unlock(&lock);
	free_list(&gone);
}
