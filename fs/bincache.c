/* The binary cache: one refcounted view per binary, idle ones in an LRU. */
#include "bincache.h"
#include "source.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

struct binary {
	pthread_mutex_t build; /* one parse at a time per binary */
	struct bview *view;    /* current view (cache lock) */
	uint64_t bad_gen;      /* 1 + generation whose header was refused, or 0 */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct bview *lru_head, *lru_tail;
static unsigned live, live_fds;

static bool has_fd(const struct bview *v)
{
	return pfelf_backend(v->f) == PFELF_BACKEND_PREAD;
}

static void lru_remove(struct bview *v)
{
	if (!v->in_lru)
		return;
	if (v->lru_prev)
		v->lru_prev->lru_next = v->lru_next;
	else
		lru_head = v->lru_next;
	if (v->lru_next)
		v->lru_next->lru_prev = v->lru_prev;
	else
		lru_tail = v->lru_prev;
	v->lru_prev = v->lru_next = NULL;
	v->in_lru = false;
}

static void lru_append(struct bview *v)
{
	v->lru_prev = lru_tail;
	v->lru_next = NULL;
	if (lru_tail)
		lru_tail->lru_next = v;
	else
		lru_head = v;
	lru_tail = v;
	v->in_lru = true;
}

/* Drop one reference (lock held); a view at zero goes on *dead. */
static void drop(struct bview *v, struct bview **dead)
{
	if (--v->refs > 0)
		return;
	lru_remove(v);
	live--;
	if (has_fd(v))
		live_fds--;
	v->lru_next = *dead;
	*dead = v;
}

/* v stops being its binary's current view (lock held). */
static void detach(struct bview *v, struct bview **dead)
{
	if (!v->owner)
		return;
	v->owner->view = NULL;
	v->owner = NULL;
	lru_remove(v);
	drop(v, dead);
}

/* Close idle views while there are too many (lock held). */
static void evict(struct bview **dead)
{
	while (lru_head && (live > BINCACHE_MAX_HANDLES || live_fds > BINCACHE_MAX_FDS))
		detach(lru_head, dead);
}

static void free_dead(struct bview *dead)
{
	while (dead) {
		struct bview *next = dead->lru_next;
		view_free(dead);
		dead = next;
	}
}

struct binary *binary_new(void)
{
	struct binary *b = calloc(1, sizeof(*b));
	if (b)
		pthread_mutex_init(&b->build, NULL);
	return b;
}

void binary_destroy(struct binary *b)
{
	if (!b)
		return;
	bincache_invalidate(b, UINT64_MAX);
	pthread_mutex_destroy(&b->build);
	free(b);
}

void bincache_invalidate(struct binary *b, uint64_t gen)
{
	struct bview *dead = NULL;
	pthread_mutex_lock(&lock);
	if (b->view && b->view->gen < gen)
		detach(b->view, &dead);
	pthread_mutex_unlock(&lock);
	free_dead(dead);
}

/* The current view of generation gen with a reference, -EIO, or 1 (none). */
static int lookup(struct binary *b, uint64_t gen, struct bview **out)
{
	int ret = 1;
	pthread_mutex_lock(&lock);
	struct bview *v = b->view;
	if (v && v->gen == gen) {
		v->refs++;
		lru_remove(v);
		*out = v;
		ret = 0;
	} else if (b->bad_gen == gen + 1) {
		ret = -EIO;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

/* Open and parse the source of root; -ESTALE when it is not expect any more. */
static int parse(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	int fd = src_open_file(root);
	if (fd < 0)
		return fd == -ENOENT || fd == -ELOOP ? -ESTALE : fd;
	struct stat st;
	pfelf_file *f = NULL;
	int ret = fstat(fd, &st) < 0 ? -errno : 0;
	if (ret == 0 && (!S_ISREG(st.st_mode) || !src_same_identity(&st, expect)))
		ret = -ESTALE;
	if (ret == 0)
		ret = pfelf_open_fd(fd, elffs.pfelf_flags, &f);
	close(fd);
	if (ret == -ENOEXEC || ret == -EINVAL)
		return -EIO;
	if (ret < 0)
		return ret;
	ret = view_build(f, gen, out);
	if (ret < 0)
		pfelf_close(f);
	return ret;
}

/*
 * Make v the binary's current view, with one reference for the caller; a
 * view of an older generation cannot replace a newer one (it then serves
 * only its caller).
 */
static void install(struct binary *b, struct bview *v)
{
	struct bview *dead = NULL;
	pthread_mutex_lock(&lock);
	if (b->view && b->view->gen > v->gen) {
		v->refs = 1;
	} else {
		if (b->view)
			detach(b->view, &dead);
		b->view = v;
		v->owner = b;
		v->refs = 2; /* the binary's and the caller's */
	}
	live++;
	if (has_fd(v))
		live_fds++;
	evict(&dead);
	pthread_mutex_unlock(&lock);
	free_dead(dead);
}

int bincache_acquire(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	struct binary *b = root->bin;
	int ret = lookup(b, gen, out);
	if (ret <= 0)
		return ret;
	pthread_mutex_lock(&b->build);
	ret = lookup(b, gen, out);
	if (ret == 1) {
		ret = parse(root, gen, expect, out);
		if (ret == 0) {
			install(b, *out);
		} else if (ret == -EIO) {
			pthread_mutex_lock(&lock);
			b->bad_gen = gen + 1;
			pthread_mutex_unlock(&lock);
		}
	}
	pthread_mutex_unlock(&b->build);
	return ret;
}

void bincache_ref(struct bview *v)
{
	pthread_mutex_lock(&lock);
	v->refs++;
	lru_remove(v);
	pthread_mutex_unlock(&lock);
}

void bincache_release(struct bview *v)
{
	if (!v)
		return;
	struct bview *dead = NULL;
	pthread_mutex_lock(&lock);
	drop(v, &dead);
	if (!dead && v->refs == 1 && v->owner) {
		lru_append(v);
		evict(&dead);
	}
	pthread_mutex_unlock(&lock);
	free_dead(dead);
}

void bincache_stats(unsigned *nlive, unsigned *nfds)
{
	pthread_mutex_lock(&lock);
	*nlive = live;
	*nfds = live_fds;
	pthread_mutex_unlock(&lock);
}
