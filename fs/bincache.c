/* The binary cache: one refcounted view per binary, an LRU of unpinned handles. */
#include "bincache.h"
#include "source.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CLOSE_BATCH 16 /* handles closed per eviction pass (the next pass goes on) */

struct binary {
	pthread_mutex_t build; /* one parse at a time per binary */
	struct bview *view;    /* current view (cache lock) */
	uint64_t bad_gen;      /* 1 + generation whose header was refused, or 0 */
};

/* What a call decided to free, freed once the lock is dropped. */
struct graveyard {
	struct bview *views; /* linked through lru_next */
	pfelf_file *handles[CLOSE_BATCH];
	unsigned nhandles;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct bview *lru_head, *lru_tail; /* open handles nobody pins, oldest first */
static unsigned live, live_fds;           /* open handles; those holding a descriptor */

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

/* v's handle is open now (lock held). */
static void handle_opened(struct bview *v, pfelf_file *f)
{
	v->f = f;
	v->fd_backed = pfelf_backend(f) == PFELF_BACKEND_PREAD;
	live++;
	if (v->fd_backed)
		live_fds++;
}

/* v's handle stops counting (lock held); whoever holds f closes it. */
static void handle_closing(struct bview *v)
{
	lru_remove(v);
	live--;
	if (v->fd_backed)
		live_fds--;
}

/* Take v's handle away (lock held); the caller closes it. */
static pfelf_file *handle_taken(struct bview *v)
{
	pfelf_file *f = v->f;
	handle_closing(v);
	v->f = NULL;
	return f;
}

static void drop_ref(struct bview *v, struct graveyard *g);

/* v stops being its binary's current view (lock held). */
static void detach(struct bview *v, struct graveyard *g)
{
	if (!v->owner)
		return;
	v->owner->view = NULL;
	v->owner = NULL;
	drop_ref(v, g);
}

/* One reference less (lock held): free at zero, drop an idle view without handle. */
static void drop_ref(struct bview *v, struct graveyard *g)
{
	if (--v->refs == 0) {
		if (v->f)
			handle_closing(v); /* view_free closes it, unlocked */
		v->lru_next = g->views;
		g->views = v;
	} else if (v->refs == 1 && v->owner && !v->f) {
		detach(v, g);
	}
}

/* One pin less (lock held): an unpinned open handle joins the LRU. */
static void drop_pin(struct bview *v)
{
	if (--v->pins == 0 && v->f)
		lru_append(v);
}

/* Descriptors handles may hold: a quarter of the soft RLIMIT_NOFILE, at
 * most BINCACHE_MAX_FDS, read again every second (lock held). */
static unsigned max_fds(void)
{
	static unsigned cached;
	static uint64_t when;
	uint64_t now = elffs_now_ns();
	if (cached && now - when < 1000000000ULL)
		return cached;
	struct rlimit rl;
	cached = BINCACHE_MAX_FDS;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur / 4 < BINCACHE_MAX_FDS)
		cached = rl.rlim_cur >= 4 ? (unsigned)(rl.rlim_cur / 4) : 1;
	when = now;
	return cached;
}

/* Close unpinned handles while there are too many (lock held). */
static void evict(struct graveyard *g)
{
	while (lru_head && g->nhandles < CLOSE_BATCH &&
	       (live > BINCACHE_MAX_HANDLES || live_fds > max_fds())) {
		struct bview *v = lru_head;
		if (v->refs == 1 && v->owner)
			detach(v, g); /* idle: the whole view goes */
		else
			g->handles[g->nhandles++] = handle_taken(v);
	}
}

/* Take idle descriptor-backed handles, up to a batch (lock held); whether
 * some may be left. */
static bool shed_batch(struct graveyard *g)
{
	struct bview *v = lru_head;
	while (v && g->nhandles < CLOSE_BATCH) {
		struct bview *next = v->lru_next;
		if (v->fd_backed && v->refs == 1 && v->owner)
			detach(v, g); /* idle: the whole view goes */
		else if (v->fd_backed)
			g->handles[g->nhandles++] = handle_taken(v);
		v = next;
	}
	return v != NULL;
}

static void bury(struct graveyard *g);

void bincache_shed_fds(void)
{
	bool more = true;
	while (more) {
		struct graveyard g = {0};
		pthread_mutex_lock(&lock);
		more = shed_batch(&g);
		pthread_mutex_unlock(&lock);
		bury(&g);
	}
}

static void bury(struct graveyard *g)
{
	for (unsigned i = 0; i < g->nhandles; i++)
		pfelf_close(g->handles[i]);
	while (g->views) {
		struct bview *next = g->views->lru_next;
		src_handle_free(g->views->fh);
		view_free(g->views);
		g->views = next;
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
	struct graveyard g = {0};
	pthread_mutex_lock(&lock);
	if (b->view && b->view->gen < gen)
		detach(b->view, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

/* pfelf_open_fd, tried again when out of descriptors (its pread backend
 * keeps a duplicate). */
static int open_fd(int fd, pfelf_file **f)
{
	unsigned tries = 0;
	int ret;
	do
		ret = pfelf_open_fd(fd, elffs.pfelf_flags, f);
	while (src_fd_retry(ret, &tries));
	return ret;
}

/* Open the source of v->root again; -EIO unless it still is the file of v. */
static int reopen(struct bview *v, pfelf_file **out)
{
	int fd = src_open_file(v->root);
	if (fd < 0)
		return -EIO;
	struct stat st;
	pfelf_identity id;
	pfelf_file *f = NULL;
	int ret = fstat(fd, &st) < 0 ? -EIO : 0;
	if (ret == 0) {
		src_identity(&st, &id);
		ret = memcmp(&id, &v->id, sizeof(id)) == 0 ? 0 : -EIO;
	}
	if (ret == 0 && open_fd(fd, &f) < 0)
		ret = -EIO;
	close(fd);
	if (ret == 0 && (pfelf_get_identity(f, &id) < 0 || memcmp(&id, &v->id, sizeof(id)) != 0))
		ret = -EIO;
	if (ret < 0) {
		pfelf_close(f);
		return ret;
	}
	*out = f;
	return 0;
}

/* Give pinned view v its handle back (v->f is NULL); 0 or -EIO. */
static int reinstate(struct bview *v)
{
	pfelf_file *f;
	int ret = reopen(v, &f);
	if (ret < 0)
		return ret;
	struct graveyard g = {0};
	pthread_mutex_lock(&lock);
	if (v->f)
		g.handles[g.nhandles++] = f; /* another thread was first */
	else
		handle_opened(v, f);
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
	return 0;
}

/* Pin v (lock held); whether its handle is open. */
static bool pin_locked(struct bview *v)
{
	v->refs++;
	v->pins++;
	lru_remove(v);
	return v->f != NULL;
}

int bincache_pin(struct bview *v)
{
	pthread_mutex_lock(&lock);
	bool open = pin_locked(v);
	pthread_mutex_unlock(&lock);
	int ret = open ? 0 : reinstate(v);
	if (ret < 0)
		bincache_release(v);
	return ret;
}

/* The current view of generation gen, pinned; -EIO (refused); 1 (none yet). */
static int lookup(struct binary *b, uint64_t gen, struct bview **out)
{
	int ret = 1;
	pthread_mutex_lock(&lock);
	struct bview *v = b->view;
	if (v && v->gen == gen) {
		ret = pin_locked(v) ? 0 : 2;
		*out = v;
	} else if (b->bad_gen == gen + 1) {
		ret = -EIO;
	}
	pthread_mutex_unlock(&lock);
	if (ret == 2 && reinstate(v) < 0) {
		bincache_release(v);
		return -ESTALE; /* the source changed since the view was built */
	}
	return ret == 2 ? 0 : ret;
}

/* The handle of open source fd (lstat st) of a mapped handle f, for the
 * check of a cut last page (ops_file.c); NULL under pread, or when the
 * file system or our privileges give no handles. */
static struct src_handle *handle_for(int fd, const struct stat *st, struct node *root,
                                     pfelf_file *f)
{
	struct src_handle *h = NULL;
	if (pfelf_backend(f) == PFELF_BACKEND_MMAP)
		src_handle_of(fd, st, root, &h);
	return h;
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
		ret = open_fd(fd, &f);
	struct src_handle *h = ret == 0 ? handle_for(fd, &st, root, f) : NULL;
	close(fd);
	if (ret == -ENOEXEC || ret == -EINVAL)
		return -EIO;
	if (ret < 0)
		return ret;
	pfelf_identity id;
	ret = pfelf_get_identity(f, &id);
	if (ret == 0)
		ret = view_build(f, gen, out);
	if (ret < 0) {
		src_handle_free(h);
		pfelf_close(f);
		return ret;
	}
	(*out)->id = id;
	(*out)->root = root;
	(*out)->fh = h;
	return 0;
}

/*
 * Make v the binary's current view, with a pinned reference for the
 * caller; a view of an older generation cannot replace a newer one (it
 * then serves only its caller).
 */
static void install(struct binary *b, struct bview *v)
{
	struct graveyard g = {0};
	pfelf_file *f = v->f;
	v->f = NULL;
	pthread_mutex_lock(&lock);
	handle_opened(v, f);
	v->refs = 1;
	v->pins = 1;
	if (!b->view || b->view->gen <= v->gen) {
		if (b->view)
			detach(b->view, &g);
		b->view = v;
		v->owner = b;
		v->refs++;
	}
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
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
	/* Out of descriptors even after giving back the idle ones: the
	 * reader gets EIO, never our EMFILE. */
	return ret == -EMFILE || ret == -ENFILE ? -EIO : ret;
}

void bincache_release(struct bview *v)
{
	if (!v)
		return;
	struct graveyard g = {0};
	pthread_mutex_lock(&lock);
	drop_pin(v);
	drop_ref(v, &g);
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

void bincache_unpin(struct bview *v)
{
	struct graveyard g = {0};
	pthread_mutex_lock(&lock);
	drop_pin(v);
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

void bincache_unref(struct bview *v)
{
	if (!v)
		return;
	struct graveyard g = {0};
	pthread_mutex_lock(&lock);
	drop_ref(v, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

void bincache_stats(unsigned *nlive, unsigned *nfds)
{
	pthread_mutex_lock(&lock);
	*nlive = live;
	*nfds = live_fds;
	pthread_mutex_unlock(&lock);
}
