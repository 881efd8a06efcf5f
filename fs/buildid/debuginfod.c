/* Build ids asked of debuginfod servers (debuginfod.h). */
#include "buildid/debuginfod.h"
#include "buildid/debuginfod_verdict.h"
#include "buildid/debuginfod_verify.h"
#include "base/elffs.h"
#include "base/errors.h"
#include "base/log.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef ELFFS_DEBUGINFOD
#include <elfutils/debuginfod.h>
#endif

#define DBGD_LOG_MAX (64u << 10) /* libdebuginfod's diagnostics of one call, read */

/* A build id asked for: verified (dir and base set), or refused until bad_until_ns. */
struct entry {
	uint8_t id[BID_MAX];
	uint8_t len;
	bool debug;
	bool good;
	uint64_t bad_until_ns;
	char *dir;      /* the file's directory in the cache */
	char *base;     /* its name there */
	struct stat st; /* at verification */
};

/* A fetch under way: its caller and those that wait for its answer. */
struct flight {
	uint8_t id[BID_MAX];
	uint8_t len;
	bool debug;
	bool done;
	int ret;
	unsigned waiting;
	pthread_t fetcher; /* the caller that asks the servers */
	struct flight *next;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t landed = PTHREAD_COND_INITIALIZER;
static struct entry **entries;
static size_t n_entries, cap_entries;
static struct flight *flights;
static char **retired; /* names entries had: kept until exit */
static size_t n_retired, cap_retired;
static struct dbgd_stats stats;
static bool enabled;
static atomic_bool stopping; /* dbgd_stop: downloads are abandoned */

bool dbgd_built(void)
{
#ifdef ELFFS_DEBUGINFOD
	return true;
#else
	return false;
#endif
}

int dbgd_configure(const char *urls)
{
	if (!dbgd_built())
		return -ENOTSUP;
	if (urls && setenv("DEBUGINFOD_URLS", urls, 1) < 0)
		return -errno;
	const char *set = getenv("DEBUGINFOD_URLS");
	if (!set || !*set)
		return -EINVAL;
	enabled = true;
	return 0;
}

bool dbgd_enabled(void)
{
	return enabled;
}

static bool same_id(const uint8_t *a, unsigned alen, const uint8_t *b, unsigned blen)
{
	return alen == blen && memcmp(a, b, alen) == 0;
}

/* The entry of (id, debug) (mu held); its index or -1. */
static long find_locked(const uint8_t *id, unsigned len, bool debug)
{
	for (size_t i = 0; i < n_entries; i++)
		if (entries[i]->debug == debug && same_id(entries[i]->id, entries[i]->len, id, len))
			return (long)i;
	return -1;
}

int dbgd_known(const uint8_t *id, unsigned len, bool debug)
{
	pthread_mutex_lock(&mu);
	long i = find_locked(id, len, debug);
	int ret = i >= 0 && entries[i]->good ? (int)i : -ENOENT;
	pthread_mutex_unlock(&mu);
	return ret;
}

uint64_t dbgd_entry_dev(uint32_t e)
{
	pthread_mutex_lock(&mu);
	uint64_t dev = e < n_entries && entries[e]->good ? (uint64_t)entries[e]->st.st_dev : 0;
	pthread_mutex_unlock(&mu);
	return dev;
}

int dbgd_entry_name(uint32_t e, char *buf, size_t size)
{
	char hex[2 * BID_MAX + 1];
	pthread_mutex_lock(&mu);
	int ret = -ENOENT;
	if (e < n_entries) {
		dbgd_hex_of(entries[e]->id, entries[e]->len, hex);
		ret = snprintf(buf, size, "%s%s", hex, entries[e]->debug ? ".debug" : "");
	}
	pthread_mutex_unlock(&mu);
	return ret < 0 || (size_t)ret < size ? ret : -ENAMETOOLONG;
}

int dbgd_entry_of_name(const char *name)
{
	size_t n = strlen(name);
	bool debug = n > 6 && strcmp(name + n - 6, ".debug") == 0;
	size_t hex = debug ? n - 6 : n;
	uint8_t id[BID_MAX];
	if (hex % 2 || hex / 2 < BID_MIN || hex / 2 > BID_MAX)
		return -ENOENT;
	for (size_t i = 0; i < hex / 2; i++) {
		unsigned v;
		char two[3] = {name[2 * i], name[2 * i + 1], '\0'};
		char *end;
		if (!((two[0] >= '0' && two[0] <= '9') || (two[0] >= 'a' && two[0] <= 'f')) ||
		    !((two[1] >= '0' && two[1] <= '9') || (two[1] >= 'a' && two[1] <= 'f')))
			return -ENOENT;
		v = (unsigned)strtoul(two, &end, 16);
		id[i] = (uint8_t)v;
	}
	return dbgd_known(id, (unsigned)(hex / 2), debug);
}

/* What an entry holds, copied out of the table. */
struct held {
	uint8_t id[BID_MAX];
	unsigned len;
	bool debug;
	const char *dir;  /* kept until exit */
	const char *base; /* kept until exit */
	struct stat st;   /* the identity verified */
};

/* Entry e if it is verified; -ENOENT when it is not. */
static int held_of(uint32_t e, struct held *h)
{
	pthread_mutex_lock(&mu);
	struct entry *en = e < n_entries && entries[e]->good ? entries[e] : NULL;
	if (en) {
		memcpy(h->id, en->id, en->len);
		h->len = en->len;
		h->debug = en->debug;
		h->dir = en->dir;
		h->base = en->base;
		h->st = en->st;
	}
	pthread_mutex_unlock(&mu);
	return en ? 0 : -ENOENT;
}

/* Entry e's file, verified as h, is another file now: st, verified again,
 * or with st NULL none (the entry is no longer verified: the next lookup
 * fetches again). Nothing when e was verified again meanwhile. */
static void reverified(uint32_t e, const struct held *h, const struct stat *st)
{
	pthread_mutex_lock(&mu);
	struct entry *en = entries[e];
	if (en->good && src_same_identity(&en->st, &h->st)) {
		if (st)
			en->st = *st;
		en->good = st != NULL;
		en->bad_until_ns = 0;
	}
	pthread_mutex_unlock(&mu);
}

/*
 * Entry e's file now: 0 and *st when it is the file verified, or another
 * file (any change of identity, the ctime's too) that passes the
 * verification again. A file that is gone or fails (then removed from
 * the cache) unverifies the entry: -ENOENT or -EIO. Other errors (no
 * descriptor, no memory) leave it as it is.
 */
static int entry_now(uint32_t e, struct stat *st)
{
	struct held h;
	int ret = held_of(e, &h);
	if (ret < 0)
		return ret;
	int dfd = open(h.dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	ret = dfd < 0 ? -errno : src_statat(dfd, h.base, st);
	char why[256] = "";
	if (ret == 0 && !src_same_identity(st, &h.st))
		ret = dbgd_verify_again(dfd, h.base, h.id, h.len, h.debug, st, why, sizeof(why));
	if (dfd >= 0)
		close(dfd);
	if (ret == 0 || ret == -EIO || err_unreachable(ret))
		reverified(e, &h, ret == 0 ? st : NULL);
	if (ret == -EIO) {
		char hex[2 * BID_MAX + 1];
		dbgd_hex_of(h.id, h.len, hex);
		elog(LOG_WARNING,
		     "debuginfod: %s %s: the cached file changed and fails the verification: %s; "
		     "removed, to be fetched again",
		     hex, h.debug ? "debuginfo" : "executable", why);
	}
	return ret;
}

int dbgd_entry_stat(uint32_t e, struct stat *st)
{
	return entry_now(e, st) < 0 ? -ENOENT : 0;
}

/* source.c's locator of a remote view's binary node: its file in the cache. */
static int locate_entry(const struct node *n, struct srcloc *loc)
{
	int e = dbgd_entry_of_name(n->name);
	struct stat st;
	struct held h;
	int ret = e < 0 ? e : dbgd_entry_stat((uint32_t)e, &st);
	if (ret == 0)
		ret = held_of((uint32_t)e, &h);
	if (ret < 0)
		return ret;
	int dfd = open(h.dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -ENOENT;
	loc->dirfd = dfd;
	loc->owned = true;
	loc->name = h.base; /* kept until exit */
	return 0;
}

void dbgd_start(void)
{
	if (enabled)
		src_set_foreign_locate(locate_entry);
}

void dbgd_stats_get(struct dbgd_stats *s)
{
	pthread_mutex_lock(&mu);
	*s = stats;
	pthread_mutex_unlock(&mu);
}

#ifdef ELFFS_DEBUGINFOD

/* Keep name[0..n) in *slot (mu held): the name there when it is the same,
 * else a copy; the name replaced stays until exit (a locator may hold it). */
static int keep_name_locked(char **slot, const char *name, size_t n)
{
	if (*slot && strlen(*slot) == n && memcmp(*slot, name, n) == 0)
		return 0;
	if (*slot && n_retired == cap_retired) {
		size_t cap = cap_retired ? 2 * cap_retired : 4;
		char **p = realloc(retired, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		retired = p;
		cap_retired = cap;
	}
	char *copy = strndup(name, n);
	if (!copy)
		return -ENOMEM;
	if (*slot)
		retired[n_retired++] = *slot;
	*slot = copy;
	return 0;
}

/* Keep (id, debug) as verified at path with identity st, or as refused
 * (path NULL); its index or -ENOMEM (mu held). */
static int remember_locked(const uint8_t *id, unsigned len, bool debug, const char *path,
                           const struct stat *st)
{
	long i = find_locked(id, len, debug);
	struct entry *e = i >= 0 ? entries[i] : calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	if (i < 0) {
		if (n_entries == cap_entries) {
			size_t cap = cap_entries ? 2 * cap_entries : 16;
			struct entry **p = realloc(entries, cap * sizeof(*p));
			if (!p) {
				free(e);
				return -ENOMEM;
			}
			entries = p;
			cap_entries = cap;
		}
		memcpy(e->id, id, len);
		e->len = (uint8_t)len;
		e->debug = debug;
		i = (long)n_entries;
		entries[n_entries++] = e;
	}
	e->good = false;
	if (!path) {
		e->bad_until_ns = elffs_now_ns() + DBGD_BAD_RETRY_S * 1000000000ULL;
		return (int)i;
	}
	const char *slash = strrchr(path, '/');
	int ret = slash ? keep_name_locked(&e->dir, path, (size_t)(slash - path))
	                : keep_name_locked(&e->dir, ".", 1);
	const char *base = slash ? slash + 1 : path;
	if (ret == 0)
		ret = keep_name_locked(&e->base, base, strlen(base));
	if (ret < 0)
		return ret;
	e->st = *st;
	e->good = true;
	return (int)i;
}

struct progress {
	const char *what;
	uint64_t last_ns;
	bool abandoned; /* the callback stopped the download (dbgd_stop) */
};

/* libdebuginfod's progress callback, called at least once a second during
 * a fetch: nonzero abandons it once the daemon stops; else a log line now
 * and then for a big download. */
static int progress(debuginfod_client *c, long done, long total)
{
	struct progress *p = debuginfod_get_user_data(c);
	if (p && atomic_load(&stopping)) {
		p->abandoned = true;
		return 1;
	}
	uint64_t now = elffs_now_ns();
	if (!p || (total < (long)DBGD_PROGRESS_MIN && done < (long)DBGD_PROGRESS_MIN) ||
	    now - p->last_ns < DBGD_PROGRESS_EVERY_S * 1000000000ULL)
		return 0;
	p->last_ns = now;
	const char *url = debuginfod_get_url(c);
	if (total > 0)
		elog(LOG_NOTICE, "debuginfod: %s: %ld of %ld KiB from %s", p->what, done >> 10,
		     total >> 10, url ? url : "a server");
	else
		elog(LOG_NOTICE, "debuginfod: %s: %ld KiB from %s", p->what, done >> 10,
		     url ? url : "a server");
	return 0;
}

/* libdebuginfod's diagnostics of the last call, from its verbose descriptor. */
static size_t read_log(int fd, char *buf, size_t size)
{
	ssize_t n = fd >= 0 ? pread(fd, buf, size, 0) : -1;
	return n > 0 ? (size_t)n : 0;
}

/* Remove the negative-cache entry libdebuginfod wrote for a failure. */
static void drop_negative(const char *log, size_t n, const char *hex, bool debug)
{
	char dir[PATH_MAX], path[PATH_MAX + 2 * BID_MAX + 16];
	struct stat st;
	if (!dbgd_verdict_cache_dir(log, n, dir, sizeof(dir)))
		return;
	snprintf(path, sizeof(path), "%s/%s/%s", dir, hex, debug ? "debuginfo" : "executable");
	if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0)
		unlink(path);
}

/* Count the answer of a fetch and keep what it gave (no lock held). */
static int account(const uint8_t *id, unsigned len, bool debug, int ret, const char *path,
                   const struct stat *st)
{
	pthread_mutex_lock(&mu);
	stats.requests++;
	if (ret == 0) {
		ret = remember_locked(id, len, debug, path, st);
		stats.hits += ret >= 0;
		stats.bytes += ret >= 0 ? (uint64_t)entries[ret]->st.st_size : 0;
	} else if (ret == -ENOENT) {
		stats.misses++;
	} else {
		stats.errors++;
		if (st) /* a bad file: not asked again for a while */
			remember_locked(id, len, debug, NULL, NULL);
	}
	pthread_mutex_unlock(&mu);
	return ret;
}

/* Ask the servers (no lock held); the entry's index or -errno. */
static int fetch_now(const uint8_t *id, unsigned len, bool debug)
{
	char hex[2 * BID_MAX + 1], what[2 * BID_MAX + 16];
	if (atomic_load(&stopping))
		return -EINTR;
	dbgd_hex_of(id, len, hex);
	snprintf(what, sizeof(what), "%s %s", hex, debug ? "debuginfo" : "executable");
	debuginfod_client *c = debuginfod_begin();
	if (!c)
		return -ENOMEM;
	int vfd = memfd_create("elffs-debuginfod", MFD_CLOEXEC);
	if (vfd >= 0)
		debuginfod_set_verbose_fd(c, vfd);
	struct progress pr = {what, 0, false};
	debuginfod_set_user_data(c, &pr);
	debuginfod_set_progressfn(c, progress);
	char *path = NULL;
	int fd = debug ? debuginfod_find_debuginfo(c, id, (int)len, &path)
	               : debuginfod_find_executable(c, id, (int)len, &path);
	char *log = malloc(DBGD_LOG_MAX);
	size_t logn = log ? read_log(vfd, log, DBGD_LOG_MAX) : 0;
	struct dbgd_verdict v;
	dbgd_verdict_of(fd, log, logn, &v);
	const char *u = debuginfod_get_url(c); /* set once a server sent the file */
	char *url = strdup(u ? u : v.url[0] ? v.url : fd >= 0 ? "the local cache" : "no server");
	/* Abandoned: libdebuginfod removed its partial file, and wrote the
	 * negative-cache entry of a 404 (0.188), which is not one. */
	if (v.drop_negative || (fd < 0 && pr.abandoned))
		drop_negative(log, logn, hex, debug);
	char why[256] = "";
	struct stat st; /* the identity verified, taken before: a change after it is seen */
	int ret = fd < 0 && pr.abandoned ? -EINTR
	          : fd < 0               ? v.err
	          : fstat(fd, &st) < 0   ? -EIO
	                                 : dbgd_verify(fd, id, len, debug, why, sizeof(why));
	if (fd < 0 && ret != -ENOENT && ret != -EINTR)
		elog(LOG_WARNING, "debuginfod: %s: %s from %s: %s (libdebuginfod: %s)", what,
		     ret == -ETIMEDOUT ? "no answer in time" : "failed", url ? url : "?",
		     v.why[0] ? v.why : "-", strerror(-fd));
	if (fd >= 0 && ret < 0) {
		unlink(path);
		elog(LOG_WARNING, "debuginfod: %s from %s refused: %s; removed from the cache",
		     what, url ? url : "?", why);
	}
	ret = account(id, len, debug, ret, path, fd >= 0 ? &st : NULL);
	if (fd >= 0)
		close(fd);
	if (vfd >= 0)
		close(vfd);
	free(log);
	free(path);
	free(url);
	debuginfod_end(c);
	return ret;
}

#else

static int fetch_now(const uint8_t *id, unsigned len, bool debug)
{
	return -ENOENT;
}

#endif

/* What the table says of (id, debug) (mu held): an entry, -EIO for one
 * refused lately, or 1 to ask the servers. */
static int table_answer_locked(const uint8_t *id, unsigned len, bool debug)
{
	long i = find_locked(id, len, debug);
	if (i < 0)
		return 1;
	if (entries[i]->good)
		return (int)i;
	return elffs_now_ns() < entries[i]->bad_until_ns ? -EIO : 1;
}

static struct flight *flight_of_locked(const uint8_t *id, unsigned len, bool debug)
{
	for (struct flight *f = flights; f; f = f->next)
		if (f->debug == debug && same_id(f->id, f->len, id, len))
			return f;
	return NULL;
}

static void flight_unlink_locked(struct flight *f)
{
	for (struct flight **p = &flights; *p; p = &(*p)->next)
		if (*p == f) {
			*p = f->next;
			return;
		}
}

int dbgd_fetch(const uint8_t *id, unsigned len, bool debug)
{
	if (!enabled || len < BID_MIN || len > BID_MAX)
		return -ENOENT;
	/* a verified file that changed and fails again is fetched again */
	int e = dbgd_known(id, len, debug);
	struct stat st;
	if (e >= 0 && entry_now((uint32_t)e, &st) == 0)
		return e;
	pthread_mutex_lock(&mu);
	int ret = table_answer_locked(id, len, debug);
	struct flight *f = ret == 1 ? flight_of_locked(id, len, debug) : NULL;
	if (f) { /* another caller asks the servers: wait for its answer */
		f->waiting++;
		while (!f->done)
			pthread_cond_wait(&landed, &mu);
		ret = f->ret;
		if (--f->waiting == 0)
			free(f);
	} else if (ret == 1 && (f = calloc(1, sizeof(*f))) == NULL) {
		ret = -ENOMEM;
	} else if (ret == 1) {
		memcpy(f->id, id, len);
		f->len = (uint8_t)len;
		f->debug = debug;
		f->waiting = 1;
		f->fetcher = pthread_self();
		f->next = flights;
		flights = f;
		stats.inflight++;
		pthread_mutex_unlock(&mu);
		ret = fetch_now(id, len, debug);
		pthread_mutex_lock(&mu);
		stats.inflight--;
		flight_unlink_locked(f);
		f->ret = ret;
		f->done = true;
		pthread_cond_broadcast(&landed);
		if (--f->waiting == 0)
			free(f);
	}
	pthread_mutex_unlock(&mu);
	return ret;
}

void dbgd_stop(int sig)
{
	atomic_store(&stopping, true);
	pthread_mutex_lock(&mu);
	for (struct flight *f = flights; sig && f; f = f->next)
		pthread_kill(f->fetcher, sig); /* alive: it unlinks f under mu */
	pthread_mutex_unlock(&mu);
}

void dbgd_destroy(void)
{
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < n_entries; i++) {
		free(entries[i]->dir);
		free(entries[i]->base);
		free(entries[i]);
	}
	free(entries);
	entries = NULL;
	n_entries = cap_entries = 0;
	for (size_t i = 0; i < n_retired; i++)
		free(retired[i]);
	free(retired);
	retired = NULL;
	n_retired = cap_retired = 0;
	pthread_mutex_unlock(&mu);
}
