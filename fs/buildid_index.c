/* The build-id index of SOURCE (buildid_index.h). */
#include "buildid_index.h"
#include "elffs.h"
#include "log.h"
#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NONE      UINT32_MAX
#define MAX_DEPTH 256 /* directories deeper than that are not walked (an error) */
#define F_LIVE    1u
#define F_DEBUG   2u
#define F_SEEN    4u

/* An indexed file: 32 bytes. Its name and id are in the pool. */
struct ent {
	uint32_t dir;  /* its directory */
	uint32_t name; /* pool offset, NUL-ended */
	uint32_t id;   /* pool offset of the id bytes */
	uint32_t next; /* next entry of its directory, or of the free list */
	uint64_t fp;   /* identity (dev, ino, size, mtime, ctime) hashed */
	uint32_t serial;
	uint8_t idlen;
	uint8_t flags;
	uint16_t pad;
};

/* A directory of SOURCE (0 is SOURCE itself). */
struct dir {
	uint32_t parent, name; /* pool offset */
	uint32_t child, sibling;
	uint32_t ents;
	uint32_t flags;
	uint64_t fp; /* identity and mtime; 0: never listed */
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	pthread_t thread;
	bool started;
	_Atomic bool stop;
	struct ent *e;
	uint32_t ne, cape, freee;
	struct dir *d;
	uint32_t nd, capd, freed;
	char *pool;
	size_t npool, cappool, deadpool;
	uint32_t *order; /* live entries sorted by (id, debug) */
	uint32_t norder;
	bool dirty; /* order must be made again */
	uint32_t serial;
	uint64_t checked_ns;
	_Atomic int state;
	_Atomic uint64_t files, indexed, debug, leftout, errors, preads, dirs, bytes, walk_ns,
	        refreshes;
} ix = {.mu = PTHREAD_MUTEX_INITIALIZER,
        .cv = PTHREAD_COND_INITIALIZER,
        .freee = NONE,
        .freed = NONE};

/* ------------------------------------------------------------ storage */

static void account(void)
{
	atomic_store(&ix.bytes, (uint64_t)ix.cape * sizeof(struct ent) +
	                                (uint64_t)ix.capd * sizeof(struct dir) + ix.cappool +
	                                (uint64_t)ix.norder * sizeof(uint32_t));
}

static int grow(void **p, uint32_t *cap, uint32_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	uint32_t c = *cap ? *cap * 2 : 256;
	while (c < need)
		c *= 2;
	void *q = realloc(*p, (size_t)c * size);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = c;
	return 0;
}

/* Put n bytes in the pool; its offset, or NONE. */
static uint32_t pool_put(const void *s, size_t n)
{
	if (ix.npool + n > UINT32_MAX)
		return NONE;
	if (ix.npool + n > ix.cappool) {
		size_t c = ix.cappool ? ix.cappool * 2 : 4096;
		while (c < ix.npool + n)
			c *= 2;
		char *p = realloc(ix.pool, c);
		if (!p)
			return NONE;
		ix.pool = p;
		ix.cappool = c;
	}
	memcpy(ix.pool + ix.npool, s, n);
	ix.npool += n;
	return (uint32_t)(ix.npool - n);
}

static const char *ent_name(const struct ent *e)
{
	return ix.pool + e->name;
}

static const char *dir_name(const struct dir *d)
{
	return ix.pool + d->name;
}

static uint32_t dir_new(uint32_t parent, const char *name)
{
	uint32_t i = ix.freed;
	if (i != NONE) {
		ix.freed = ix.d[i].sibling;
	} else {
		if (grow((void **)&ix.d, &ix.capd, ix.nd + 1, sizeof(struct dir)) < 0)
			return NONE;
		i = ix.nd++;
	}
	uint32_t off = pool_put(name, strlen(name) + 1);
	if (off == NONE) {
		ix.d[i].sibling = ix.freed;
		ix.freed = i;
		return NONE;
	}
	ix.d[i] = (struct dir){.parent = parent,
	                       .name = off,
	                       .child = NONE,
	                       .sibling = NONE,
	                       .ents = NONE,
	                       .flags = F_LIVE | F_SEEN};
	if (parent != NONE) {
		ix.d[i].sibling = ix.d[parent].child;
		ix.d[parent].child = i;
	}
	atomic_fetch_add(&ix.dirs, 1);
	return i;
}

static void ent_free(uint32_t dir, uint32_t i)
{
	struct ent *e = &ix.e[i];
	for (uint32_t *p = &ix.d[dir].ents; *p != NONE; p = &ix.e[*p].next)
		if (*p == i) {
			*p = e->next;
			break;
		}
	ix.deadpool += strlen(ent_name(e)) + 1 + e->idlen;
	atomic_fetch_sub(&ix.indexed, 1);
	if (e->flags & F_DEBUG)
		atomic_fetch_sub(&ix.debug, 1);
	e->flags = 0;
	e->next = ix.freee;
	ix.freee = i;
	ix.dirty = true;
}

/* Forget directory i and everything below it. */
static void dir_free(uint32_t i)
{
	while (ix.d[i].child != NONE)
		dir_free(ix.d[i].child);
	while (ix.d[i].ents != NONE)
		ent_free(i, ix.d[i].ents);
	uint32_t parent = ix.d[i].parent;
	for (uint32_t *p = &ix.d[parent].child; parent != NONE && *p != NONE; p = &ix.d[*p].sibling)
		if (*p == i) {
			*p = ix.d[i].sibling;
			break;
		}
	ix.deadpool += strlen(dir_name(&ix.d[i])) + 1;
	ix.d[i].flags = 0;
	ix.d[i].sibling = ix.freed;
	ix.freed = i;
	atomic_fetch_sub(&ix.dirs, 1);
}

/* Put file name of directory dir (identity fp) with build id b in the
 * index, as entry i (an existing one read again) or a new one. */
static int ent_set(uint32_t dir, uint32_t i, const char *name, uint64_t fp,
                   const struct bid_file *b)
{
	if (i != NONE)
		ent_free(dir, i);
	i = ix.freee;
	if (i != NONE) {
		ix.freee = ix.e[i].next;
	} else {
		if (grow((void **)&ix.e, &ix.cape, ix.ne + 1, sizeof(struct ent)) < 0)
			return -ENOMEM;
		i = ix.ne++;
	}
	uint32_t noff = pool_put(name, strlen(name) + 1);
	uint32_t ioff = noff == NONE ? NONE : pool_put(b->id, b->len);
	if (ioff == NONE) {
		ix.e[i].flags = 0;
		ix.e[i].next = ix.freee;
		ix.freee = i;
		return -ENOMEM;
	}
	if (++ix.serial == 0)
		ix.serial = 1;
	ix.e[i] = (struct ent){.dir = dir,
	                       .name = noff,
	                       .id = ioff,
	                       .next = ix.d[dir].ents,
	                       .fp = fp,
	                       .serial = ix.serial,
	                       .idlen = b->len,
	                       .flags = (uint8_t)(F_LIVE | F_SEEN | (b->debug ? F_DEBUG : 0))};
	ix.d[dir].ents = i;
	atomic_fetch_add(&ix.indexed, 1);
	if (b->debug)
		atomic_fetch_add(&ix.debug, 1);
	ix.dirty = true;
	return 0;
}

static size_t copy_to(char *dst, size_t at, uint32_t *off, size_t len)
{
	memcpy(dst + at, ix.pool + *off, len);
	*off = (uint32_t)at;
	return at + len;
}

/* Copy the live names and ids into a new pool when half of it is dead. */
static void pool_compact(void)
{
	if (ix.deadpool < 65536 || ix.deadpool < ix.npool / 2)
		return;
	size_t need = ix.npool - ix.deadpool, at = 0;
	char *p = malloc(need ? need : 1);
	if (!p)
		return; /* next time */
	for (uint32_t i = 0; i < ix.nd; i++)
		if (ix.d[i].flags & F_LIVE)
			at = copy_to(p, at, &ix.d[i].name, strlen(dir_name(&ix.d[i])) + 1);
	for (uint32_t i = 0; i < ix.ne; i++)
		if (ix.e[i].flags & F_LIVE) {
			at = copy_to(p, at, &ix.e[i].name, strlen(ent_name(&ix.e[i])) + 1);
			at = copy_to(p, at, &ix.e[i].id, ix.e[i].idlen);
		}
	free(ix.pool);
	ix.pool = p;
	ix.npool = at;
	ix.cappool = need ? need : 1;
	ix.deadpool = 0;
}

/* ------------------------------------------------------------ the walk */

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
	h *= 0xff51afd7ed558ccdULL;
	return h ^ (h >> 33);
}

static uint64_t fp_of(const struct stat *st)
{
	uint64_t h = mix(0, (uint64_t)st->st_dev);
	h = mix(h, (uint64_t)st->st_ino);
	h = mix(h, (uint64_t)st->st_size);
	h = mix(h, (uint64_t)st->st_mtim.tv_sec * 1000000000ULL + (uint64_t)st->st_mtim.tv_nsec);
	h = mix(h, (uint64_t)st->st_ctim.tv_sec * 1000000000ULL + (uint64_t)st->st_ctim.tv_nsec);
	return h ? h : 1;
}

static bool lost(int err)
{
	return err == -ENOENT || err == -ENOTDIR || err == -ELOOP || err == -EXDEV;
}

/* Read file name of directory fd (stat st) again and put it in the index,
 * or take its entry i (NONE: none) out. */
static void read_file(int fd, uint32_t dir, uint32_t i, const char *name, const struct stat *st)
{
	atomic_fetch_add(&ix.files, 1);
	int ffd = src_openat(fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	struct stat fst;
	struct bid_file b;
	int ret = ffd;
	if (ffd >= 0 && (fstat(ffd, &fst) < 0 || !S_ISREG(fst.st_mode)))
		ret = -ENOENT;
	if (ret >= 0) {
		ret = bid_read(ffd, (uint64_t)fst.st_size, &b);
		atomic_fetch_add(&ix.preads, b.preads);
	}
	if (ffd >= 0)
		close(ffd);
	if (ret == 1 && ent_set(dir, i, name, fp_of(&fst), &b) == 0)
		return;
	if (i != NONE)
		ent_free(dir, i);
	if (ret == -EINVAL)
		atomic_fetch_add(&ix.leftout, 1);
	else if (ret < 0 && ret != -ENOEXEC && !lost(ret))
		atomic_fetch_add(&ix.errors, 1);
	(void)st;
}

/* A name of a directory's table, by its pool offset: the pool may move
 * while the directory is listed again (names are added). */
struct named {
	uint32_t name;
	uint32_t i;
};

static int by_name(const void *a, const void *b)
{
	return strcmp(ix.pool + ((const struct named *)a)->name,
	              ix.pool + ((const struct named *)b)->name);
}

/* What directory dir holds now, by name: its subdirectories (sub) and
 * entries, sorted (a temporary table for listing it again). */
static struct named *known(uint32_t dir, bool sub, size_t *n)
{
	size_t c = 0;
	for (uint32_t i = sub ? ix.d[dir].child : ix.d[dir].ents; i != NONE;
	     i = sub ? ix.d[i].sibling : ix.e[i].next)
		c++;
	struct named *t = malloc((c ? c : 1) * sizeof(*t));
	if (!t)
		return NULL;
	c = 0;
	for (uint32_t i = sub ? ix.d[dir].child : ix.d[dir].ents; i != NONE;
	     i = sub ? ix.d[i].sibling : ix.e[i].next)
		t[c++] = (struct named){sub ? ix.d[i].name : ix.e[i].name, i};
	qsort(t, c, sizeof(*t), by_name);
	*n = c;
	return t;
}

static uint32_t find(const struct named *t, size_t n, const char *name)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix.pool + t[mid].name, name);
		if (c == 0)
			return t[mid].i;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NONE;
}

static void scan(int fd, uint32_t dir, unsigned depth);

/* Subdirectory name of fd: known as sub (NONE: new). */
static void enter(int fd, uint32_t dir, uint32_t sub, const char *name, unsigned depth)
{
	if (atomic_load(&ix.stop))
		return;
	int cfd = depth + 1 >= MAX_DEPTH
	                  ? -ELOOP
	                  : src_openat(fd, name, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (cfd < 0) {
		if (sub != NONE)
			dir_free(sub);
		if (!lost(cfd) || depth + 1 >= MAX_DEPTH)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (sub == NONE)
		sub = dir_new(dir, name);
	if (sub != NONE)
		scan(cfd, sub, depth + 1);
	else
		atomic_fetch_add(&ix.errors, 1);
	close(cfd);
}

/* One entry of a directory listed again. */
static void relist_one(int fd, uint32_t dir, const struct dirent *de, const struct named *subs,
                       size_t nsubs, const struct named *ents, size_t nents, unsigned depth)
{
	struct stat st;
	if (de->d_type != DT_DIR && de->d_type != DT_REG && de->d_type != DT_UNKNOWN)
		return;
	int ret = src_statat(fd, de->d_name, &st);
	if (ret < 0) {
		if (!lost(ret) && ret != -EACCES)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		uint32_t sub = find(subs, nsubs, de->d_name);
		if (sub != NONE)
			ix.d[sub].flags |= F_SEEN;
		enter(fd, dir, sub, de->d_name, depth);
	} else if (S_ISREG(st.st_mode)) {
		uint32_t i = find(ents, nents, de->d_name);
		if (i != NONE && ix.e[i].fp == fp_of(&st)) {
			ix.e[i].flags |= F_SEEN;
			return;
		}
		read_file(fd, dir, i, de->d_name, &st); /* a new entry is seen */
	}
}

/* List directory dir (open as fd) again: new entries are read, entries
 * gone are forgotten. */
static void relist(int fd, uint32_t dir, unsigned depth)
{
	int lfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dp = lfd < 0 ? NULL : fdopendir(lfd);
	size_t nsubs = 0, nents = 0;
	struct named *subs = dp ? known(dir, true, &nsubs) : NULL;
	struct named *ents = subs ? known(dir, false, &nents) : NULL;
	if (!ents) {
		if (dp)
			closedir(dp);
		else if (lfd >= 0)
			close(lfd);
		free(subs);
		atomic_fetch_add(&ix.errors, 1);
		ix.d[dir].fp = 0; /* try again next time */
		return;
	}
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		ix.d[i].flags &= ~F_SEEN;
	for (uint32_t i = ix.d[dir].ents; i != NONE; i = ix.e[i].next)
		ix.e[i].flags &= ~F_SEEN;
	struct dirent *de;
	while (!atomic_load(&ix.stop) && (de = readdir(dp)))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			relist_one(fd, dir, de, subs, nsubs, ents, nents, depth);
	closedir(dp);
	free(subs);
	free(ents);
	/* what was not seen is gone (subdirectories freed above are not
	 * in the lists any more) */
	for (uint32_t i = ix.d[dir].child, next; i != NONE; i = next) {
		next = ix.d[i].sibling;
		if (!(ix.d[i].flags & F_SEEN))
			dir_free(i);
	}
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		if (!(ix.e[i].flags & F_SEEN))
			ent_free(dir, i);
	}
}

/* Look again at the files of an unchanged directory: their identities. */
static void restat(int fd, uint32_t dir)
{
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		struct stat st;
		int ret = src_statat(fd, ent_name(&ix.e[i]), &st);
		if (ret < 0 || !S_ISREG(st.st_mode)) {
			ent_free(dir, i);
			continue;
		}
		if (ix.e[i].fp != fp_of(&st)) {
			char *name = strdup(ent_name(&ix.e[i]));
			if (name)
				read_file(fd, dir, i, name, &st);
			free(name);
		}
	}
}

/* Directory dir, open as fd: listed again when it changed, else its
 * subdirectories looked at and its indexed files checked. */
static void scan(int fd, uint32_t dir, unsigned depth)
{
	struct stat st;
	if (fstat(fd, &st) < 0) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	uint64_t fp = fp_of(&st);
	if (fp != ix.d[dir].fp) {
		ix.d[dir].fp = fp;
		relist(fd, dir, depth);
		return;
	}
	restat(fd, dir);
	/* a subdirectory freed on the way takes its sibling link with it */
	uint32_t n = 0;
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		n++;
	uint32_t *subs = malloc((n ? n : 1) * sizeof(*subs));
	if (!subs) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	n = 0;
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		subs[n++] = i;
	for (uint32_t k = 0; k < n; k++) {
		char *name = strdup(dir_name(&ix.d[subs[k]]));
		if (name)
			enter(fd, dir, subs[k], name, depth);
		free(name);
	}
	free(subs);
}

/* Look at SOURCE: the whole walk the first time, what changed after. */
static void look(void)
{
	int fd = openat(elffs.srcfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (ix.nd == 0 && dir_new(NONE, "") == NONE) {
		close(fd);
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	scan(fd, 0, 0);
	close(fd);
	pool_compact();
	ix.checked_ns = elffs_now_ns();
	account();
}

static void *walker(void *arg)
{
	(void)arg;
	uint64_t t0 = elffs_now_ns();
	pthread_mutex_lock(&ix.mu);
	look();
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
	account();
	atomic_store(&ix.walk_ns, elffs_now_ns() - t0);
	atomic_store(&ix.state, BIDX_DONE);
	pthread_cond_broadcast(&ix.cv);
	pthread_mutex_unlock(&ix.mu);
	elog(LOG_INFO, "build-id index: %llu files read, %llu indexed in %.3f s",
	     (unsigned long long)atomic_load(&ix.files),
	     (unsigned long long)atomic_load(&ix.indexed), (double)atomic_load(&ix.walk_ns) / 1e9);
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
	account();
	return 0;
}

/* Lock the index once the walk is done and it is current (and ordered). */
static int ready(void)
{
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
	if (elffs_now_ns() - ix.checked_ns >= elffs.timeout_ns) {
		atomic_fetch_add(&ix.refreshes, 1);
		look();
	}
	int ret = make_order();
	if (ret < 0)
		pthread_mutex_unlock(&ix.mu);
	return ret;
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

int bidx_lookup(const uint8_t *id, unsigned len, bool debug, char *buf, size_t size, uint32_t *slot,
                uint32_t *serial)
{
	int ret = ready();
	if (ret < 0)
		return ret;
	uint32_t lo = 0, hi = ix.norder;
	while (lo < hi) { /* the first entry not below the key */
		uint32_t mid = lo + (hi - lo) / 2;
		if (cmp_key(&ix.e[ix.order[mid]], id, len, debug) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	char *best = NULL, *cand = malloc(size);
	ret = cand ? -ENOENT : -ENOMEM;
	for (uint32_t k = lo; cand && k < ix.norder; k++) {
		uint32_t i = ix.order[k];
		if (cmp_key(&ix.e[i], id, len, debug) != 0)
			break;
		int l = target_of(i, cand, size);
		if (l < 0) {
			if (ret == -ENOENT)
				ret = l;
			continue;
		}
		if (!best || strcmp(cand, best) < 0) { /* the first path in byte order wins */
			char *t = best;
			best = cand;
			cand = t ? t : malloc(size);
			ret = l;
			*slot = i;
			*serial = ix.e[i].serial;
		}
	}
	if (best)
		memcpy(buf, best, (size_t)ret + 1);
	pthread_mutex_unlock(&ix.mu);
	free(best);
	free(cand);
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
}

void bidx_destroy(void)
{
	atomic_store(&ix.stop, true);
	if (ix.started)
		pthread_join(ix.thread, NULL);
	ix.started = false;
	free(ix.e);
	free(ix.d);
	free(ix.pool);
	free(ix.order);
	ix.e = NULL;
	ix.d = NULL;
	ix.pool = NULL;
	ix.order = NULL;
}
