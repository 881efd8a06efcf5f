/*
 * The binary cache: one refcounted core per file identity, shared by the
 * binaries (hard links) of that identity through one alias each; an LRU of
 * the handles nobody pins; idle cores given back to the memory budget.
 */
#include "cache/bincache.h"
#include "base/errors.h"
#include "base/membudget.h"
#include "cache/core.h"
#include "content/gotables.h"
#include "cache/corefind.h"
#include "cache/debugdata.h"
#include "cache/members.h"
#include "cache/opening.h"
#include "source/source.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define CLOSE_BATCH 16 /* handles closed per eviction pass (the next pass goes on) */

struct binary {
	pthread_mutex_t build; /* one parse at a time per binary */
	struct bview *view;    /* current alias (cache lock) */
	uint64_t bad_gen;      /* 1 + generation whose header was refused, or 0 */
	char *why;             /* why it was refused (user.elffs.refused), or NULL */
	uint64_t big_gen;      /* 1 + generation too big for the memory budget, or 0 */
};

/* What a call decided to free, freed once the lock is dropped. */
struct graveyard {
	TAILQ_HEAD(, vcore) cores; /* linked through lru */
	struct bview *aliases;     /* linked through grave */
	struct vhandle handles[CLOSE_BATCH];
	unsigned nhandles;
};

/* An empty graveyard named g. */
#define GRAVEYARD(g) struct graveyard g = {.cores = TAILQ_HEAD_INITIALIZER(g.cores)}

/* What lookup, adopt and share found, besides an -errno. */
enum found {
	FOUND_OPEN,   /* *out pinned, its core's handle open (the caller's 0) */
	FOUND_NONE,   /* no view yet */
	FOUND_CLOSED, /* *out pinned, its core's handle closed: reinstated() opens it */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* Cores whose open handle nobody pins, oldest first. */
static TAILQ_HEAD(, vcore) lru = TAILQ_HEAD_INITIALIZER(lru);
static unsigned live, live_fds; /* open handles; those holding a descriptor */

/* ------------------------------------------------------------- the LRU */

static void lru_remove(struct vcore *c)
{
	if (!c->in_lru)
		return;
	TAILQ_REMOVE(&lru, c, lru);
	c->in_lru = false;
}

static void lru_append(struct vcore *c)
{
	TAILQ_INSERT_TAIL(&lru, c, lru);
	c->in_lru = true;
	c->stamp = elffs_now_ns();
}

/* ------------------------------------------------------------- handles */

/* c's handle is open now (lock held). */
static void handle_opened(struct vcore *c, struct vhandle h)
{
	c->f = h.f;
	c->arch = h.arch;
	c->fd_backed = vcore_backend(c) == PFELF_BACKEND_PREAD;
	live++;
	if (c->fd_backed)
		live_fds++;
}

/* c's handle stops counting (lock held); whoever holds f closes it. */
static void handle_closing(struct vcore *c)
{
	lru_remove(c);
	live--;
	if (c->fd_backed)
		live_fds--;
}

/* Take c's handle away (lock held; nobody pins c); the caller closes it. */
static struct vhandle handle_taken(struct vcore *c)
{
	struct vhandle h = {c->f, c->arch};
	goview_handle_gone(c); /* readers of the handle go with it */
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

static void bury_later(struct graveyard *g, struct vcore *c)
{
	TAILQ_INSERT_HEAD(&g->cores, c, lru); /* never in the LRU by now */
}

/* Core c has no alias left (lock held): it goes. */
static void core_gone(struct vcore *c, struct graveyard *g)
{
	core_remove(c);
	if (vcore_is_open(c))
		handle_closing(c); /* core_free closes it, unlocked */
	bury_later(g, c);
}

/* Alias a has no reference left (lock held). */
static void alias_gone(struct bview *a, struct graveyard *g)
{
	struct vcore *c = a->core;
	struct bview **p = &c->aliases;
	while (*p != a)
		p = &(*p)->sibling;
	*p = a->sibling;
	a->grave = g->aliases;
	g->aliases = a;
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
static void detach_all(struct vcore *c, struct graveyard *g)
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
	struct vcore *c = a->core;
	c->busy--;
	if (--a->refs == 0)
		alias_gone(a, g);
	if (c->refs > 0 && c->busy == 0 && !vcore_is_open(c))
		detach_all(c, g);
}

/* One pin less (lock held): a core with an open handle nobody pins joins the LRU. */
static void drop_pin(struct bview *a)
{
	struct vcore *c = a->core;
	a->pins--;
	if (--c->pins == 0 && vcore_is_open(c))
		lru_append(c);
}

/* Pin a (lock held); whether its core's handle is open (a->f, a->arch are then its). */
static bool pin_locked(struct bview *a)
{
	struct vcore *c = a->core;
	a->refs++;
	a->pins++;
	c->busy++;
	c->pins++;
	lru_remove(c);
	a->f = c->f;
	a->arch = c->arch;
	return vcore_is_open(c);
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
		struct vcore *c = TAILQ_FIRST(&lru);
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
	struct vcore *c = TAILQ_FIRST(&lru);
	while (c && g->nhandles < CLOSE_BATCH) {
		struct vcore *next = TAILQ_NEXT(c, lru);
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
	for (unsigned i = 0; i < g->nhandles; i++)
		bincache_handle_close(g->handles[i]);
	struct vcore *c;
	while ((c = TAILQ_FIRST(&g->cores))) {
		TAILQ_REMOVE(&g->cores, c, lru);
		core_free(c);
	}
	for (struct bview *a = g->aliases, *next; a; a = next) {
		next = a->grave;
		view_free(a);
	}
}

void bincache_shed_fds(void)
{
	bool more = true;
	while (more) {
		GRAVEYARD(g);
		pthread_mutex_lock(&lock);
		more = shed_batch(&g);
		pthread_mutex_unlock(&lock);
		bury(&g);
	}
}

/* The least recently used idle core (lock held), or NULL. */
static struct vcore *oldest_idle(void)
{
	struct vcore *c;
	TAILQ_FOREACH(c, &lru, lru)
	if (!c->busy)
		break;
	return c;
}

/* The memory budget's view of the cache: idle cores, oldest first. */
static bool budget_oldest(uint64_t *stamp)
{
	pthread_mutex_lock(&lock);
	struct vcore *c = oldest_idle();
	if (c)
		*stamp = c->stamp;
	pthread_mutex_unlock(&lock);
	return c != NULL;
}

static bool budget_evict(void)
{
	GRAVEYARD(g);
	pthread_mutex_lock(&lock);
	struct vcore *c = oldest_idle();
	if (c)
		detach_all(c, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
	return c != NULL;
}

static const struct membudget_source budget_source = {budget_oldest, budget_evict};

void bincache_init(void)
{
	membudget_register(MB_VIEWS, &budget_source);
	src_set_fd_shedder(bincache_shed_fds);
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
	GRAVEYARD(g);
	pthread_mutex_lock(&lock);
	if (b->view && b->view->gen < gen)
		detach(b->view, &g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

/* Give pinned alias a's core its handle back (it was closed); 0, -ENOENT
 * or -EIO (reopen). */
static int reinstate(struct bview *a)
{
	struct vhandle h;
	int ret = bincache_reopen(a, &h);
	if (ret < 0)
		return ret;
	GRAVEYARD(g);
	struct vcore *c = a->core;
	pthread_mutex_lock(&lock);
	if (vcore_is_open(c))
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

/* Pinned alias *out found without its core's handle gets it back: 0,
 * -ENOENT (the binary is gone) or -ESTALE (the source changed since the
 * core was built); on failure the pin is dropped and *out is NULL, so that
 * no caller releases it twice. */
static int reinstated(int ret, struct bview **out)
{
	if (ret != FOUND_CLOSED)
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
 * -EFBIG (over the memory budget); FOUND_NONE. */
static int lookup(struct binary *b, uint64_t gen, struct bview **out)
{
	int ret = FOUND_NONE;
	pthread_mutex_lock(&lock);
	struct bview *a = b->view;
	if (a && a->gen == gen) {
		ret = pin_locked(a) ? FOUND_OPEN : FOUND_CLOSED;
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
 * FOUND_OPEN, FOUND_CLOSED or -ENOMEM.
 */
static int adopt(struct binary *b, struct vcore *c, uint64_t gen, struct node *root,
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
	return open ? FOUND_OPEN : FOUND_CLOSED;
}

/* Share the core of the identity of expect, if there is one: 0, FOUND_NONE, -errno. */
static int share(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	pfelf_identity id;
	src_identity(expect, &id);
	GRAVEYARD(g);
	pthread_mutex_lock(&lock);
	struct vcore *c = core_find(&id);
	int ret = c ? adopt(root->bin, c, gen, root, &g, out) : FOUND_NONE;
	pthread_mutex_unlock(&lock);
	bury(&g);
	return ret == FOUND_NONE ? ret : reinstated(ret, out);
}

/*
 * Put new core c in the cache (or, when a core of its identity got there
 * first, drop c for it) and give the caller a pinned alias of it for
 * generation gen of binary node root.
 */
static int install(struct node *root, uint64_t gen, struct vcore *c, struct bview **out)
{
	GRAVEYARD(g);
	pthread_mutex_lock(&lock);
	struct vcore *first = core_find(&c->id);
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
	if (ret != FOUND_NONE)
		return ret;
	struct vcore *c;
	char why[REFUSED_MAX] = "";
	ret = bincache_parse(root, expect, &c, why);
	if (why[0]) /* a header refused: a view of the bytes only, or EIO inside */
		bincache_log_refusal(root, why);
	if (ret == 0)
		return install(root, gen, c, out);
	remember(root->bin, gen, ret, why);
	return ret;
}

int bincache_refused(struct node *root, uint64_t gen, char *buf, size_t size)
{
	struct binary *b = root->bin;
	int ret = -ENODATA;
	pthread_mutex_lock(&lock);
	if (b && b->bad_gen == gen + 1 && b->why)
		ret = refused_copy(b->why, buf, size);
	pthread_mutex_unlock(&lock);
	return ret;
}

int bincache_acquire(struct node *root, uint64_t gen, const struct stat *expect, struct bview **out)
{
	struct binary *b = root->bin;
	int ret = lookup(b, gen, out);
	if (ret <= 0)
		return ret;
	pthread_mutex_lock(&b->build);
	ret = lookup(b, gen, out);
	if (ret == FOUND_NONE)
		ret = build(root, gen, expect, out);
	pthread_mutex_unlock(&b->build);
	/* Out of descriptors even after giving back the idle ones: the
	 * reader gets EIO, never our EMFILE. */
	return err_for_reader(ret);
}

/*
 * A nested alias ma (a member's, arview.h; a MiniDebugInfo view's,
 * debugdata.h) stands for one reference less; on its last, its view goes
 * back to the outer core (arview_member_put, ddview_put, which free ma).
 * That is done before ma's reference on the outer alias is dropped: once
 * dropped, another thread can drop the outer's last one and free its core
 * with every nested view in it.
 */
static void member_release(struct bview *ma)
{
	if (!ma->outer)
		return;
	pthread_mutex_lock(&lock);
	bool last = --ma->refs == 0;
	pthread_mutex_unlock(&lock);
	if (last && ma->inner)
		ddview_put(ma);
	else if (last)
		arview_member_put(ma);
}

/* One reference of v less, and its pin with it (pinned). */
static void drop(struct bview *v, bool pinned)
{
	if (!v)
		return;
	struct bview *a = view_outer(v);
	GRAVEYARD(g);
	member_release(v); /* v may be freed */
	pthread_mutex_lock(&lock);
	if (pinned)
		drop_pin(a);
	drop_ref(a, &g);
	if (pinned)
		evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

void bincache_release(struct bview *v)
{
	drop(v, true);
}

void bincache_unpin(struct bview *v)
{
	v = view_outer(v); /* a member's alias keeps its references */
	GRAVEYARD(g);
	pthread_mutex_lock(&lock);
	drop_pin(v);
	evict(&g);
	pthread_mutex_unlock(&lock);
	bury(&g);
}

void bincache_unref(struct bview *v)
{
	drop(v, false);
}
