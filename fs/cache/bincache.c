/*
 * The binary cache: one refcounted core per file identity, shared by the
 * binaries (hard links) of that identity through one alias each; an LRU of
 * the handles nobody pins; idle cores given back to the memory budget.
 */
#include "cache/bincache.h"
#include "content/arview.h"
#include "base/log.h"
#include "cache/dcache.h"
#include "base/membudget.h"
#include "source/source.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CLOSE_BATCH 16   /* handles closed per eviction pass (the next pass goes on) */
#define ID_BUCKETS  4096 /* buckets of the identity table */

struct binary {
	pthread_mutex_t build; /* one parse at a time per binary */
	struct bview *view;    /* current alias (cache lock) */
	uint64_t bad_gen;      /* 1 + generation whose header was refused, or 0 */
	char *why;             /* why it was refused (user.elffs.refused), or NULL */
	uint64_t big_gen;      /* 1 + generation too big for the memory budget, or 0 */
};

/* What a call decided to free, freed once the lock is dropped. */
struct graveyard {
	TAILQ_HEAD(, bview) views; /* aliases and cores, linked through lru */
	struct vhandle handles[CLOSE_BATCH];
	unsigned nhandles;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Cores whose open handle nobody pins, oldest first. */
static TAILQ_HEAD(, bview) lru = TAILQ_HEAD_INITIALIZER(lru);
static unsigned live, live_fds;         /* open handles; those holding a descriptor */
static struct bview *by_id[ID_BUCKETS]; /* cores by file identity */

/* ------------------------------------------------------------ identities */

static size_t id_bucket(const pfelf_identity *id)
{
	uint64_t h = id->ino * 0x9e3779b97f4a7c15ULL;
	h ^= id->dev + (h << 6) + (h >> 2);
	h ^= (uint64_t)id->mtime_nsec + id->size;
	return (size_t)(h ^ (h >> 29)) % ID_BUCKETS;
}

/* The core of identity id (lock held), or NULL. */
static struct bview *core_find(const pfelf_identity *id)
{
	struct bview *c = by_id[id_bucket(id)];
	while (c && memcmp(&c->id, id, sizeof(*id)) != 0)
		c = c->hash_next;
	return c;
}

static void core_insert(struct bview *c)
{
	size_t i = id_bucket(&c->id);
	c->hash_next = by_id[i];
	by_id[i] = c;
}

static void core_remove(struct bview *c)
{
	struct bview **p = &by_id[id_bucket(&c->id)];
	while (*p && *p != c)
		p = &(*p)->hash_next;
	if (*p)
		*p = c->hash_next;
}

/* ------------------------------------------------------------- the LRU */

static void lru_remove(struct bview *c)
{
	if (!c->in_lru)
		return;
	TAILQ_REMOVE(&lru, c, lru);
	c->in_lru = false;
}

static void lru_append(struct bview *c)
{
	TAILQ_INSERT_TAIL(&lru, c, lru);
	c->in_lru = true;
	c->stamp = elffs_now_ns();
}

/* ------------------------------------------------------------- handles */

/* c's handle is open now (lock held). */
static void handle_opened(struct bview *c, struct vhandle h)
{
	c->f = h.f;
	c->arch = h.arch;
	c->fd_backed = view_backend(c) == PFELF_BACKEND_PREAD;
	live++;
	if (c->fd_backed)
		live_fds++;
}

/* c's handle stops counting (lock held); whoever holds f closes it. */
static void handle_closing(struct bview *c)
{
	lru_remove(c);
	live--;
	if (c->fd_backed)
		live_fds--;
}

/* Take c's handle away (lock held; nobody pins c); the caller closes it. */
static struct vhandle handle_taken(struct bview *c)
{
	struct vhandle h = {c->f, c->arch};
	handle_closing(c);
	c->f = NULL;
	c->arch = NULL;
	for (struct bview *a = c->aliases; a; a = a->sibling) {
		a->f = NULL;
		a->arch = NULL;
	}
	return h;
}

/* --------------------------------------------------------- references */

static void bury_later(struct graveyard *g, struct bview *v)
{
	TAILQ_INSERT_HEAD(&g->views, v, lru); /* never in the LRU by now */
}

/* Core c has no alias left (lock held): it goes. */
static void core_gone(struct bview *c, struct graveyard *g)
{
	core_remove(c);
	if (view_is_open(c))
		handle_closing(c); /* view_free closes it, unlocked */
	bury_later(g, c);
}

/* Alias a has no reference left (lock held). */
static void alias_gone(struct bview *a, struct graveyard *g)
{
	struct bview *c = a->core;
	struct bview **p = &c->aliases;
	while (*p != a)
		p = &(*p)->sibling;
	*p = a->sibling;
	bury_later(g, a);
	if (--c->refs == 0)
		core_gone(c, g);
}

/* a stops being its binary's current view (lock held). */
static void detach(struct bview *a, struct graveyard *g)
{
	if (!a->owner)
		return;
	a->owner->view = NULL;
	a->owner = NULL;
	if (--a->refs == 0)
		alias_gone(a, g);
}

/* Core c is idle (only owners reference its aliases): every alias goes,
 * and c with them (lock held). */
static void detach_all(struct bview *c, struct graveyard *g)
{
	for (struct bview *a = c->aliases, *next; a; a = next) {
		next = a->sibling;
		detach(a, g);
	}
}

/* One user reference of a less (lock held): free at zero; a core left idle
 * without a handle goes (it is parsed again when needed). */
static void drop_ref(struct bview *a, struct graveyard *g)
{
	struct bview *c = a->core;
	c->busy--;
	if (--a->refs == 0)
		alias_gone(a, g);
	if (c->refs > 0 && c->busy == 0 && !view_is_open(c))
		detach_all(c, g);
}

/* One pin less (lock held): a core with an open handle nobody pins joins the LRU. */
static void drop_pin(struct bview *a)
{
	struct bview *c = a->core;
	a->pins--;
	if (--c->pins == 0 && view_is_open(c))
		lru_append(c);
}

/* Pin a (lock held); whether its core's handle is open (a->f, a->arch are then its). */
static bool pin_locked(struct bview *a)
{
	struct bview *c = a->core;
	a->refs++;
	a->pins++;
	c->busy++;
	c->pins++;
	lru_remove(c);
	a->f = c->f;
	a->arch = c->arch;
	return view_is_open(c);
}

/* ----------------------------------------------------------- evictions */

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
	while (!TAILQ_EMPTY(&lru) && g->nhandles < CLOSE_BATCH &&
	       (live > BINCACHE_MAX_HANDLES || live_fds > max_fds())) {
		struct bview *c = TAILQ_FIRST(&lru);
		if (c->busy == 0)
			detach_all(c, g); /* idle: the whole view goes */
		else
			g->handles[g->nhandles++] = handle_taken(c);
	}
}

/* Take idle descriptor-backed handles, up to a batch (lock held); whether
 * some may be left. */
static bool shed_batch(struct graveyard *g)
{
	struct bview *c = TAILQ_FIRST(&lru);
	while (c && g->nhandles < CLOSE_BATCH) {
		struct bview *next = TAILQ_NEXT(c, lru);
		if (c->fd_backed && c->busy == 0)
			detach_all(c, g); /* idle: the whole view goes */
		else if (c->fd_backed)
			g->handles[g->nhandles++] = handle_taken(c);
		c = next;
	}
	return c != NULL;
}

static void bury(struct graveyard *g)
{
	for (unsigned i = 0; i < g->nhandles; i++) {
		pfelf_close(g->handles[i].f);
		pfelf_archive_close(g->handles[i].arch);
	}
	struct bview *v;
	while ((v = TAILQ_FIRST(&g->views))) {
		TAILQ_REMOVE(&g->views, v, lru);
		if (v->core == v) {
			src_handle_free(v->fh);
			dcache_forget(v->serial);
		}
		view_free(v);
	}
}

void bincache_shed_fds(void)
{
	bool more = true;
	while (more) {
		struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
		pthread_mutex_lock(&lock);
		more = shed_batch(&g);
		pthread_mutex_unlock(&lock);
		bury(&g);
	}
}

/* The least recently used idle core (lock held), or NULL. */
static struct bview *oldest_idle(void)
{
	struct bview *c;
	TAILQ_FOREACH(c, &lru, lru)
	if (!c->busy)
		break;
	return c;
}

/* The memory budget's view of the cache: idle cores, oldest first. */
static bool budget_oldest(uint64_t *stamp)
{
	pthread_mutex_lock(&lock);
	struct bview *c = oldest_idle();
	if (c)
		*stamp = c->stamp;
	pthread_mutex_unlock(&lock);
	return c != NULL;
}

static bool budget_evict(void)
{
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	pthread_mutex_lock(&lock);
	struct bview *c = oldest_idle();
	if (c)
		detach_all(c, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
	return c != NULL;
}

static const struct membudget_source budget_source = {budget_oldest, budget_evict};

static void register_budget(void)
{
	membudget_register(MB_VIEWS, &budget_source);
}

/* ------------------------------------------------------------ binaries */

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
	free(b->why);
	free(b);
}

void bincache_invalidate(struct binary *b, uint64_t gen)
{
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	pthread_mutex_lock(&lock);
	if (b->view && b->view->gen < gen)
		detach(b->view, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

/* Open fd as an ELF file (archive false) or an ar archive, tried again
 * when out of descriptors (the pread backend keeps a duplicate). */
static int open_fd(int fd, bool archive, struct vhandle *h)
{
	unsigned tries = 0;
	int ret;
	*h = (struct vhandle){NULL, NULL};
	do
		ret = archive ? pfelf_archive_open_fd(fd, elffs.pfelf_flags, &h->arch)
		              : pfelf_open_fd(fd, elffs.pfelf_flags, &h->f);
	while (src_fd_retry(ret, &tries));
	return ret;
}

static void handle_close(struct vhandle h)
{
	pfelf_close(h.f);
	pfelf_archive_close(h.arch);
}

/* Open the source of a->root again; -ENOENT when the binary is gone (no
 * file on its path, or a directory on that path became something else),
 * -EIO when it cannot be opened or is not the file of a any more. */
static int reopen(const struct bview *a, struct vhandle *out)
{
	int fd = src_open_file(a->root);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return -ENOENT;
	if (fd < 0)
		return -EIO;
	struct stat st;
	pfelf_identity id;
	struct vhandle h = {NULL, NULL};
	int ret = fstat(fd, &st) < 0 ? -EIO : 0;
	if (ret == 0) {
		src_identity(&st, &id);
		ret = memcmp(&id, &a->id, sizeof(id)) == 0 ? 0 : -EIO;
	}
	if (ret == 0 && open_fd(fd, a->ar != NULL, &h) < 0)
		ret = -EIO;
	close(fd);
	if (ret == 0 && h.f &&
	    (pfelf_get_identity(h.f, &id) < 0 || memcmp(&id, &a->id, sizeof(id)) != 0))
		ret = -EIO;
	if (ret < 0) {
		handle_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

/* Give pinned alias a's core its handle back (it was closed); 0, -ENOENT
 * or -EIO (reopen). */
static int reinstate(struct bview *a)
{
	struct vhandle h;
	int ret = reopen(a, &h);
	if (ret < 0)
		return ret;
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	struct bview *c = a->core;
	pthread_mutex_lock(&lock);
	if (view_is_open(c))
		g.handles[g.nhandles++] = h; /* another thread was first */
	else
		handle_opened(c, h);
	a->f = c->f;
	a->arch = c->arch;
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
	return 0;
}

int bincache_pin(struct bview *v)
{
	struct bview *a = view_outer(v);
	pthread_mutex_lock(&lock);
	bool open = pin_locked(a);
	if (v != a)
		v->refs++; /* a member's alias: the references it stands for */
	pthread_mutex_unlock(&lock);
	int ret = open ? 0 : reinstate(a);
	if (ret < 0)
		bincache_release(v);
	return ret;
}

/* Pinned alias *out got without its core's handle (2) gets it back: 0,
 * -ENOENT (the binary is gone) or -ESTALE (the source changed since the
 * core was built); on failure the pin is dropped and *out is NULL, so that
 * no caller releases it twice. */
static int reinstated(int ret, struct bview **out)
{
	if (ret != 2)
		return ret;
	ret = reinstate(*out);
	if (ret < 0) {
		bincache_release(*out);
		*out = NULL;
		return ret == -ENOENT ? ret : -ESTALE;
	}
	return 0;
}

/* The current view of generation gen, pinned: 0; -EIO (header refused),
 * -EFBIG (over the memory budget); 1 (none yet). */
static int lookup(struct binary *b, uint64_t gen, struct bview **out)
{
	int ret = 1;
	pthread_mutex_lock(&lock);
	struct bview *a = b->view;
	if (a && a->gen == gen) {
		ret = pin_locked(a) ? 0 : 2;
		*out = a;
	} else if (b->bad_gen == gen + 1) {
		ret = -EIO;
	} else if (b->big_gen == gen + 1) {
		ret = -EFBIG;
	}
	pthread_mutex_unlock(&lock);
	return reinstated(ret, out);
}

/*
 * A new alias of core c for generation gen of binary node root, pinned for
 * the caller, made b's current view unless b has a newer one (lock held).
 * 0; 2 when c's handle is closed (reinstated() opens it); -ENOMEM.
 */
static int adopt(struct binary *b, struct bview *c, uint64_t gen, struct node *root,
                 struct graveyard *g, struct bview **out)
{
	struct bview *a = view_alias(c, gen, root);
	if (!a)
		return -ENOMEM;
	a->sibling = c->aliases;
	c->aliases = a;
	c->refs++;
	bool open = pin_locked(a);
	if (!b->view || b->view->gen <= gen) {
		if (b->view)
			detach(b->view, g);
		b->view = a;
		a->owner = b;
		a->refs++;
	}
	*out = a;
	return open ? 0 : 2;
}

/* Share the core of the identity of expect, if there is one: 0, 1 (none), -errno. */
static int share(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	pfelf_identity id;
	src_identity(expect, &id);
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	pthread_mutex_lock(&lock);
	struct bview *c = core_find(&id);
	int ret = c ? adopt(root->bin, c, gen, root, &g, out) : 1;
	pthread_mutex_unlock(&lock);
	bury(&g);
	return ret == 1 ? 1 : reinstated(ret, out);
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

/* Why fd's header is refused (open_source's -EIO) into why: pfelf's words
 * for an ELF file, an archive's errno for an ar archive. */
static void refusal(int fd, int ret, char *why, size_t size)
{
	if (pfelf_header_why(fd, why, size) == -ENOEXEC && strcmp(why, "no ELF magic") == 0)
		snprintf(why, size, "ar archive: %s", strerror(-ret));
	else if (!why[0])
		snprintf(why, size, "%s", strerror(-ret));
}

/* Open the source of root: *vh its handle (an ELF file's, or an ar
 * archive's when it has no ELF magic), *h its file handle, *id its
 * identity; -ESTALE when it is not expect any more, -EIO when pfelf
 * refuses its header (why it does in why, REFUSED_MAX bytes). */
static int open_source(struct node *root, const struct stat *expect, struct vhandle *vh,
                       struct src_handle **h, pfelf_identity *id, char *why)
{
	int fd = src_open_file(root);
	if (fd < 0)
		return fd == -ENOENT || fd == -ELOOP ? -ESTALE : fd;
	struct stat st;
	int ret = fstat(fd, &st) < 0 ? -errno : 0;
	if (ret == 0 && (!S_ISREG(st.st_mode) || !src_same_identity(&st, expect)))
		ret = -ESTALE;
	if (ret == 0)
		ret = open_fd(fd, false, vh);
	if (ret == -ENOEXEC)
		ret = open_fd(fd, true, vh);
	if (ret == -ENOEXEC || ret == -EINVAL)
		refusal(fd, ret, why, REFUSED_MAX);
	*h = ret == 0 && vh->f ? handle_for(fd, &st, root, vh->f) : NULL;
	close(fd);
	if (ret == 0 && vh->f)
		ret = pfelf_get_identity(vh->f, id);
	else if (ret == 0)
		src_identity(&st, id);
	return ret == -ENOEXEC || ret == -EINVAL ? -EIO : ret;
}

/* Open and parse the source of root into a new core (not in the cache yet). */
static int parse(struct node *root, const struct stat *expect, struct bview **out, char *why)
{
	struct vhandle vh = {NULL, NULL};
	struct src_handle *h = NULL;
	pfelf_identity id;
	int ret = open_source(root, expect, &vh, &h, &id, why);
	if (ret == 0)
		ret = vh.f ? view_build(vh.f, root->name, out)
		           : arview_build(vh.arch, root->name, out);
	if (ret < 0) {
		src_handle_free(h);
		handle_close(vh);
		return ret;
	}
	(*out)->id = id;
	(*out)->fh = h;
	return 0;
}

/*
 * Put new core c in the cache (or, when a core of its identity got there
 * first, drop c for it) and give the caller a pinned alias of it for
 * generation gen of binary node root.
 */
static int install(struct node *root, uint64_t gen, struct bview *c, struct bview **out)
{
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	pthread_mutex_lock(&lock);
	struct bview *first = core_find(&c->id);
	if (first) {
		bury_later(&g, c); /* another link of the same file was parsed meanwhile */
		c = first;
	} else {
		handle_opened(c, (struct vhandle){c->f, c->arch});
		core_insert(c);
	}
	int ret = adopt(root->bin, c, gen, root, &g, out);
	if (ret < 0 && !first && c->refs == 0)
		core_gone(c, &g);
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
	return reinstated(ret, out);
}

/* One log line for a refused header, at most one every 10 s. */
static void log_refusal(struct node *root, const char *why)
{
	static struct elog_limit limit;
	unsigned skipped;
	if (!elog_due(&limit, REFUSED_LOG_EVERY_NS, &skipped))
		return;
	char *path = malloc(PATH_MAX);
	if (path && node_source_path(root, path, PATH_MAX) < 0)
		snprintf(path, PATH_MAX, "%s", node_name(root));
	elog(LOG_WARNING,
	     "%s: ELF header refused, every lookup inside is EIO: %s "
	     "(%u more refusals since the last message)",
	     path && path[0] ? path : ".", why, skipped);
	free(path);
}

/* Remember a refusal of generation gen that parsing again would repeat
 * (with why, for -EIO: a header refused). */
static void remember(struct binary *b, uint64_t gen, int ret, const char *why)
{
	char *text = ret == -EIO && why[0] ? strdup(why) : NULL;
	pthread_mutex_lock(&lock);
	if (ret == -EIO) {
		b->bad_gen = gen + 1;
		free(b->why);
		b->why = text;
	} else if (ret == -EFBIG) {
		b->big_gen = gen + 1;
	}
	pthread_mutex_unlock(&lock);
}

/* Under b's build mutex: the view, shared or parsed. */
static int build(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	int ret = share(root, gen, expect, out);
	if (ret != 1)
		return ret;
	struct bview *c;
	char why[REFUSED_MAX] = "";
	ret = parse(root, expect, &c, why);
	if (ret == 0)
		return install(root, gen, c, out);
	if (ret == -EIO && why[0])
		log_refusal(root, why);
	remember(root->bin, gen, ret, why);
	return ret;
}

int bincache_refused(struct node *root, uint64_t gen, char *buf, size_t size)
{
	struct binary *b = root->bin;
	int ret = -ENODATA;
	pthread_mutex_lock(&lock);
	if (b && b->bad_gen == gen + 1 && b->why) {
		size_t len = strlen(b->why);
		ret = len <= size ? (int)len : -ERANGE;
		if (ret > 0)
			memcpy(buf, b->why, len);
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

int bincache_acquire(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, register_budget);
	struct binary *b = root->bin;
	int ret = lookup(b, gen, out);
	if (ret <= 0)
		return ret;
	pthread_mutex_lock(&b->build);
	ret = lookup(b, gen, out);
	if (ret == 1)
		ret = build(root, gen, expect, out);
	pthread_mutex_unlock(&b->build);
	/* Out of descriptors even after giving back the idle ones: the
	 * reader gets EIO, never our EMFILE. */
	return ret == -EMFILE || ret == -ENFILE ? -EIO : ret;
}

/*
 * A member's alias ma (arview.h) stands for one reference less; on its
 * last, its member view goes back to the archive's core (arview_member_put,
 * which frees ma). That is done before ma's reference on the archive's
 * alias is dropped: once dropped, another thread can drop the archive's
 * last one and free its core with every member view in it.
 */
static void member_release(struct bview *ma)
{
	if (!ma->outer)
		return;
	pthread_mutex_lock(&lock);
	bool last = --ma->refs == 0;
	pthread_mutex_unlock(&lock);
	if (last)
		arview_member_put(ma);
}

void bincache_release(struct bview *v)
{
	if (!v)
		return;
	struct bview *a = view_outer(v);
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	member_release(v); /* v may be freed */
	pthread_mutex_lock(&lock);
	drop_pin(a);
	drop_ref(a, &g);
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

void bincache_unpin(struct bview *v)
{
	v = view_outer(v); /* a member's alias keeps its references */
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
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
	struct bview *a = view_outer(v);
	struct graveyard g = {.views = TAILQ_HEAD_INITIALIZER(g.views)};
	member_release(v); /* v may be freed */
	pthread_mutex_lock(&lock);
	drop_ref(a, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}
