/* The build-id index of SOURCE (buildid_index.h): its thread and queries. */
#include "buildid/buildid_index.h"
#include "buildid/buildid_calls.h"
#include "buildid/buildid_table.h"
#include "buildid/buildid_walk.h"
#include "base/elffs.h"
#include "base/log.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/*
 * The index's thread: the first walk, then the refreshes queries ask for
 * (ix.want), one at a time. It holds ix.mu except across system calls
 * (bidx_look), so queries read the tables between two of them, and no
 * query waits on SOURCE itself: they wait for the thread (ix.cv), which
 * gives up on a file system below SOURCE that does not answer.
 */
static void *walker(void *arg)
{
	(void)arg;
	uint64_t t0 = elffs_now_ns();
	pthread_mutex_lock(&ix.mu);
	bidx_look();
	/* the first walk grew the tables by doubling: give back the rest */
	if (ix.ne && ix.ne < ix.cape) {
		struct ent *e = realloc(ix.e, ix.ne * sizeof(*e));
		if (e) {
			ix.e = e;
			ix.cape = ix.ne;
		}
	}
	if (ix.npool && ix.npool < ix.cappool) {
		char *p = realloc(ix.pool, ix.npool);
		if (p) {
			ix.pool = p;
			ix.cappool = ix.npool;
		}
	}
	bidx_account();
	atomic_store(&ix.walk_ns, elffs_now_ns() - t0);
	atomic_store(&ix.state, BIDX_DONE);
	pthread_cond_broadcast(&ix.cv);
	pthread_mutex_unlock(&ix.mu);
	elog(LOG_INFO, "build-id index: %llu files read, %llu indexed in %.3f s",
	     (unsigned long long)atomic_load(&ix.files),
	     (unsigned long long)atomic_load(&ix.indexed), (double)atomic_load(&ix.walk_ns) / 1e9);
	pthread_mutex_lock(&ix.mu);
	while (!atomic_load(&ix.stop)) {
		if (!ix.want) {
			pthread_cond_wait(&ix.wake, &ix.mu);
			continue;
		}
		ix.want = false;
		ix.refreshing = true;
		atomic_fetch_add(&ix.refreshes, 1);
		bidx_look();
		ix.refreshing = false;
		ix.looks++;
		pthread_cond_broadcast(&ix.cv);
	}
	pthread_mutex_unlock(&ix.mu);
	return NULL;
}

/* ------------------------------------------------------------ queries */

static int by_id(const void *a, const void *b)
{
	const struct ent *x = &ix.e[*(const uint32_t *)a], *y = &ix.e[*(const uint32_t *)b];
	unsigned n = x->idlen < y->idlen ? x->idlen : y->idlen;
	int c = memcmp(ix.pool + x->id, ix.pool + y->id, n);
	if (c == 0)
		c = (int)x->idlen - (int)y->idlen;
	if (c == 0)
		c = (int)(x->flags & F_DEBUG) - (int)(y->flags & F_DEBUG);
	return c;
}

static int make_order(void)
{
	if (!ix.dirty)
		return 0;
	uint32_t n = 0;
	for (uint32_t i = 0; i < ix.ne; i++)
		n += (ix.e[i].flags & F_LIVE) != 0;
	uint32_t *o = realloc(ix.order, (n ? n : 1) * sizeof(*o));
	if (!o)
		return -ENOMEM;
	ix.order = o;
	n = 0;
	for (uint32_t i = 0; i < ix.ne; i++)
		if (ix.e[i].flags & F_LIVE)
			o[n++] = i;
	qsort(o, n, sizeof(*o), by_id);
	ix.norder = n;
	ix.dirty = false;
	bidx_account();
	return 0;
}

void bidx_keep(uint64_t keep_ns)
{
	atomic_store(&ix.keep_ns, keep_ns);
}

void bidx_changed(void)
{
	atomic_fetch_add(&ix.changes, 1);
}

/* Whether a query has the index's thread look at SOURCE again (ix.mu
 * held): -o timeout after the last look, unless the watch keeps it and
 * heard of no change since that look began. */
static bool look_due(void)
{
	uint64_t age = elffs_now_ns() - ix.checked_ns, keep = atomic_load(&ix.keep_ns);
	if (age < elffs.timeout_ns || atomic_load(&ix.stop))
		return false;
	return keep == 0 || age >= keep || atomic_load(&ix.changes) != ix.changes_seen;
}

/* How a query takes the index: walk (start the first walk if need be and
 * wait for it, and for a refresh when one is due), done (no walk: -EAGAIN
 * until the first one is done; a refresh when due waited for), peek (the
 * same, but a refresh due is only asked for: the tables as they are). */
enum readiness { READY_WALK, READY_DONE, READY_PEEK };

/* Lock the index once the first walk is done and the index is current
 * (and ordered), as how says; -EAGAIN (nothing locked) without a walk. */
static int ready_for(enum readiness how)
{
	if (how != READY_WALK && atomic_load(&ix.state) != BIDX_DONE)
		return -EAGAIN;
	pthread_mutex_lock(&ix.mu);
	if (!ix.started) {
		atomic_store(&ix.state, BIDX_WALKING);
		int ret = pthread_create(&ix.thread, NULL, walker, NULL);
		if (ret != 0) {
			atomic_store(&ix.state, BIDX_IDLE);
			pthread_mutex_unlock(&ix.mu);
			return -ret;
		}
		ix.started = true;
	}
	while (atomic_load(&ix.state) != BIDX_DONE)
		pthread_cond_wait(&ix.cv, &ix.mu);
	if (look_due()) {
		/* the thread looks again (or is looking): wait for that look */
		uint64_t looks = ix.looks;
		if (!ix.refreshing) {
			ix.want = true;
			pthread_cond_signal(&ix.wake);
		}
		while (how != READY_PEEK && ix.looks == looks && !atomic_load(&ix.stop))
			pthread_cond_wait(&ix.cv, &ix.mu);
	}
	int ret = make_order();
	if (ret < 0)
		pthread_mutex_unlock(&ix.mu);
	return ret;
}

static int ready(void)
{
	return ready_for(READY_WALK);
}

/* The relative path of entry i ("dir/sub/name") into buf; its length, or
 * -ENAMETOOLONG. */
static int path_of(uint32_t i, char *buf, size_t size)
{
	const char *parts[MAX_DEPTH + 2];
	unsigned n = 0;
	parts[n++] = ent_name(&ix.e[i]);
	for (uint32_t d = ix.e[i].dir; d != 0 && n < MAX_DEPTH + 2; d = ix.d[d].parent)
		parts[n++] = dir_name(&ix.d[d]);
	size_t len = 0;
	while (n--) {
		size_t l = strlen(parts[n]);
		if (len + l + 2 > size)
			return -ENAMETOOLONG;
		memcpy(buf + len, parts[n], l);
		len += l;
		buf[len++] = n ? '/' : '\0';
	}
	return (int)len - 1;
}

static int target_of(uint32_t i, char *buf, size_t size)
{
	if (size < 16)
		return -ENAMETOOLONG;
	int len = path_of(i, buf + 6, size - 6 - 4);
	if (len < 0)
		return len;
	memcpy(buf, "../../", 6);
	memcpy(buf + 6 + len, "/elf", 5);
	return len + 10;
}

static int cmp_key(const struct ent *x, const uint8_t *id, unsigned len, bool debug)
{
	unsigned n = x->idlen < len ? x->idlen : len;
	int c = memcmp(ix.pool + x->id, id, n);
	if (c == 0)
		c = (int)x->idlen - (int)len;
	if (c == 0)
		c = (int)(x->flags & F_DEBUG) - (debug ? (int)F_DEBUG : 0);
	return c;
}

/* The first place of the order not below the key. */
static uint32_t first_of(const uint8_t *id, unsigned len, bool debug)
{
	uint32_t lo = 0, hi = ix.norder;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (cmp_key(&ix.e[ix.order[mid]], id, len, debug) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The end of the run of order[lo...] that has the key. */
static uint32_t end_of(uint32_t lo, const uint8_t *id, unsigned len, bool debug)
{
	uint32_t hi = lo;
	while (hi < ix.norder && cmp_key(&ix.e[ix.order[hi]], id, len, debug) == 0)
		hi++;
	return hi;
}

/*
 * The winner among the entries of order[lo, hi), the one place of the
 * rule (SPEC 6, elffs(1) BUILD-ID INDEX): the first relative path in byte
 * order, whole paths compared ("bin/prog" before "bin/prog-copy" and
 * "bin/prog.orig"; never the link targets, where "-" and "." sort before
 * "/"). Paths too long for a link take no part. The entry's index in ix.e
 * and its path in best (PATH_MAX bytes; cand is scratch of the same
 * size); -ENOENT when there is none, -ENAMETOOLONG when every path is too
 * long.
 */
static int64_t winner_of(uint32_t lo, uint32_t hi, char *best, char *cand)
{
	int64_t win = -ENOENT;
	for (uint32_t k = lo; k < hi; k++) {
		uint32_t i = ix.order[k];
		int l = path_of(i, cand, PATH_MAX - 10);
		if (l < 0) {
			if (win == -ENOENT)
				win = l;
			continue;
		}
		if (win < 0 || strcmp(cand, best) < 0) {
			memcpy(best, cand, (size_t)l + 1);
			win = i;
		}
	}
	return win;
}

int bidx_lookup(const uint8_t *id, unsigned len, bool debug, char *buf, size_t size, uint32_t *slot,
                uint32_t *serial)
{
	return bidx_find(id, len, debug, true, buf, size, slot, serial);
}

int bidx_find(const uint8_t *id, unsigned len, bool debug, bool walk, char *buf, size_t size,
              uint32_t *slot, uint32_t *serial)
{
	char *best = malloc(PATH_MAX), *cand = malloc(PATH_MAX);
	int ret = best && cand ? ready_for(walk ? READY_WALK : READY_PEEK) : -ENOMEM;
	if (ret < 0) {
		free(best);
		free(cand);
		return ret;
	}
	uint32_t lo = first_of(id, len, debug);
	int64_t win = winner_of(lo, end_of(lo, id, len, debug), best, cand);
	if (win < 0)
		ret = (int)win;
	else {
		ret = target_of((uint32_t)win, buf, size);
		if (ret >= 0) {
			*slot = (uint32_t)win;
			*serial = ix.e[win].serial;
		}
	}
	pthread_mutex_unlock(&ix.mu);
	free(best);
	free(cand);
	return ret;
}

static int by_path(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The paths of the entries of order[lo, hi) that can be link targets
 * (target_of's limit), in one malloc'd block: *pool, pointers into it in
 * *paths (malloc'd), their number in *n. 0 or -ENOMEM. */
static int paths_of(uint32_t lo, uint32_t hi, char **pool, char ***paths, size_t *n)
{
	size_t cap = 4096, used = 0, c = 0;
	size_t *at = malloc((hi - lo) * sizeof(*at));
	char *p = malloc(cap), *buf = malloc(PATH_MAX);
	int ret = at && p && buf ? 0 : -ENOMEM;
	for (uint32_t k = lo; ret == 0 && k < hi; k++) {
		int l = path_of(ix.order[k], buf, PATH_MAX - 10);
		if (l < 0)
			continue; /* too long for a link: no winner, not listed */
		if (used + (size_t)l + 1 > cap) {
			while (used + (size_t)l + 1 > cap)
				cap *= 2;
			char *q = realloc(p, cap);
			if (!q) {
				ret = -ENOMEM;
				break;
			}
			p = q;
		}
		memcpy(p + used, buf, (size_t)l + 1);
		at[c++] = used;
		used += (size_t)l + 1;
	}
	char **v = ret == 0 ? malloc((c ? c : 1) * sizeof(*v)) : NULL;
	if (ret == 0 && !v)
		ret = -ENOMEM;
	for (size_t k = 0; ret == 0 && k < c; k++)
		v[k] = p + at[k];
	free(at);
	free(buf);
	if (ret < 0) {
		free(p);
		return ret;
	}
	*pool = p;
	*paths = v;
	*n = c;
	return 0;
}

int bidx_same(const uint8_t *id, unsigned len, bool debug, const char *path,
              int (*each)(void *ctx, const char *path), void *ctx)
{
	char *best = malloc(PATH_MAX), *cand = malloc(PATH_MAX);
	int ret = best && cand ? ready_for(READY_DONE) : -ENOMEM;
	if (ret < 0) {
		free(best);
		free(cand);
		return ret == -EAGAIN ? 0 : ret;
	}
	uint32_t lo = first_of(id, len, debug), hi = end_of(lo, id, len, debug);
	char *pool = NULL, **paths = NULL;
	size_t n = 0;
	if (hi - lo >= 2 && winner_of(lo, hi, best, cand) >= 0 && strcmp(best, path) == 0)
		ret = paths_of(lo, hi, &pool, &paths, &n);
	pthread_mutex_unlock(&ix.mu);
	free(cand);
	if (ret < 0 || n < 2) {
		free(best);
		free(pool);
		free(paths);
		return ret;
	}
	size_t k = 0, m = n - 1; /* the others: every path but the winner's */
	while (k < m && strcmp(paths[k], best) != 0)
		k++;
	paths[k] = paths[m];
	free(best);
	qsort(paths, m, sizeof(*paths), by_path);
	for (k = 0; k < m && each(ctx, paths[k]) == 0; k++)
		;
	ret = (int)(m < INT32_MAX ? m : INT32_MAX);
	free(pool);
	free(paths);
	return ret;
}

int bidx_target(uint32_t slot, uint32_t serial, char *buf, size_t size)
{
	int ret = ready();
	if (ret < 0)
		return ret;
	ret = -ENOENT;
	if (slot < ix.ne && (ix.e[slot].flags & F_LIVE) && ix.e[slot].serial == serial)
		ret = target_of(slot, buf, size);
	pthread_mutex_unlock(&ix.mu);
	return ret;
}

int bidx_prefixes(bool have[256])
{
	int ret = ready();
	if (ret < 0)
		return ret;
	memset(have, 0, 256 * sizeof(bool));
	for (uint32_t k = 0; k < ix.norder; k++)
		have[(uint8_t)ix.pool[ix.e[ix.order[k]].id]] = true;
	pthread_mutex_unlock(&ix.mu);
	return 0;
}

int bidx_names(uint8_t b, char ***names, size_t *n)
{
	int ret = ready();
	if (ret < 0)
		return ret;
	size_t c = 0, cap = 0;
	char **v = NULL;
	const struct ent *prev = NULL;
	for (uint32_t k = 0; k < ix.norder && ret == 0; k++) {
		const struct ent *e = &ix.e[ix.order[k]];
		if ((uint8_t)ix.pool[e->id] != b)
			continue;
		if (prev && cmp_key(prev, (const uint8_t *)ix.pool + e->id, e->idlen,
		                    (e->flags & F_DEBUG) != 0) == 0)
			continue; /* one name for every copy */
		prev = e;
		if (c == cap) {
			cap = cap ? cap * 2 : 16;
			char **nv = realloc(v, cap * sizeof(*nv));
			if (!nv) {
				ret = -ENOMEM;
				break;
			}
			v = nv;
		}
		char *s = malloc(2u * e->idlen + 8);
		if (!s) {
			ret = -ENOMEM;
			break;
		}
		bid_hex((const uint8_t *)ix.pool + e->id + 1, e->idlen - 1u, s);
		if (e->flags & F_DEBUG)
			strcat(s, ".debug");
		v[c++] = s;
	}
	pthread_mutex_unlock(&ix.mu);
	if (ret < 0) {
		while (c)
			free(v[--c]);
		free(v);
		return ret;
	}
	*names = v;
	*n = c;
	return 0;
}

bool bidx_walked(void)
{
	return atomic_load(&ix.state) == BIDX_DONE;
}

void bidx_stats_get(struct bidx_stats *s)
{
	s->state = (enum bidx_state)atomic_load(&ix.state);
	s->files = atomic_load(&ix.files);
	s->indexed = atomic_load(&ix.indexed);
	s->debug = atomic_load(&ix.debug);
	s->leftout = atomic_load(&ix.leftout);
	s->errors = atomic_load(&ix.errors);
	s->preads = atomic_load(&ix.preads);
	s->dirs = atomic_load(&ix.dirs);
	s->bytes = atomic_load(&ix.bytes);
	s->walk_ns = atomic_load(&ix.walk_ns);
	s->refreshes = atomic_load(&ix.refreshes);
	s->stalled = atomic_load(&ix.stalled);
}

void bidx_destroy(void)
{
	pthread_mutex_lock(&ix.mu);
	atomic_store(&ix.stop, true);
	pthread_cond_broadcast(&ix.wake);
	pthread_cond_broadcast(&ix.cv);
	pthread_mutex_unlock(&ix.mu);
	if (ix.started)
		pthread_join(ix.thread, NULL);
	ix.started = false;
	bidx_walk_helper_stop();
	free(ix.e);
	free(ix.d);
	free(ix.pool);
	free(ix.order);
	ix.e = NULL;
	ix.d = NULL;
	ix.pool = NULL;
	ix.order = NULL;
}
