/*
 * The walk of SOURCE for the build-id index, and its refreshes: one
 * function for both (scan). A directory whose identity or mtime changed is
 * listed again; an unchanged one has its indexed files looked at again.
 * Every name is opened through source.c (never our own mount, never a
 * symlink).
 *
 * The walk runs on the index's thread with ix.mu held while it reads or
 * changes the tables, and released across the system calls that read a
 * file or a directory (walk_io, buildid_calls.h; a few small ones, the
 * open of SOURCE's root, a directory's device and close, are made with it
 * held): it is the only writer of the tables, so they do not change
 * meanwhile, and queries answer between two calls. A device below SOURCE
 * that does not answer leaves its subtree as the index had it.
 */
#include "buildid/buildid_walk.h"
#include "buildid/buildid_calls.h"
#include "buildid/buildid_table.h"
#include "base/elffs.h"
#include "base/errors.h"
#include "source/probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* Read file name of directory fd (on device dev) again and put it in the
 * index, or take its entry i (NONE: none) out. false when its device did
 * not answer: the entry stays as it was. */
static bool read_file(int fd, uint64_t dev, uint32_t dir, uint32_t i, const char *name)
{
	atomic_fetch_add(&ix.files, 1);
	struct wjob j = {.op = W_READ, .fd = fd, .name = name};
	if (walk_io(&j, walk_target(fd, dev, name)) < 0)
		return false;
	int ret = j.ret;
	atomic_fetch_add(&ix.preads, j.b.preads);
	if (ret == 1 && bidx_ent_set(dir, i, name, fp_of(&j.st), &j.b) == 0)
		return true;
	if (i != NONE)
		bidx_ent_free(dir, i);
	if (ret == -EINVAL)
		atomic_fetch_add(&ix.leftout, 1);
	else if (ret < 0 && ret != -ENOEXEC && !err_gone(ret))
		atomic_fetch_add(&ix.errors, 1);
	return true;
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

static void scan(int fd, uint64_t dev, uint32_t dir, unsigned depth);

/* Subdirectory name of fd (on device dev): known as sub (NONE: new). */
static void enter(int fd, uint64_t dev, uint32_t dir, uint32_t sub, const char *name,
                  unsigned depth)
{
	if (atomic_load(&ix.stop))
		return;
	struct wjob j = {
	        .op = W_OPEN, .fd = fd, .name = name, .flags = O_RDONLY | O_DIRECTORY | O_NONBLOCK};
	if (depth + 1 >= MAX_DEPTH)
		j.ret = -ELOOP;
	else if (walk_io(&j, walk_target(fd, dev, name)) < 0)
		return; /* its device did not answer: left as it was */
	int cfd = j.ret;
	if (cfd < 0) {
		if (sub != NONE)
			bidx_dir_free(sub);
		if (!err_gone(cfd) || depth + 1 >= MAX_DEPTH)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	uint64_t cdev = walk_dev_at(cfd, NULL);
	if (sub == NONE)
		sub = bidx_dir_new(dir, name);
	if (sub != NONE)
		scan(cfd, cdev ? cdev : dev, sub, depth + 1);
	else
		atomic_fetch_add(&ix.errors, 1);
	close(cfd);
}

/* One entry (d_type type) of a directory listed again. */
static void relist_one(int fd, uint64_t dev, uint32_t dir, unsigned char type, const char *name,
                       const struct named *subs, size_t nsubs, const struct named *ents,
                       size_t nents, unsigned depth)
{
	if (type != DT_DIR && type != DT_REG && type != DT_UNKNOWN)
		return;
	struct wjob j = {.op = W_STAT, .fd = fd, .name = name};
	if (walk_io(&j, dev) < 0) { /* its device did not answer: keep what is known */
		uint32_t sub = find(subs, nsubs, name), i = find(ents, nents, name);
		if (sub != NONE)
			ix.d[sub].flags |= F_SEEN;
		if (i != NONE)
			ix.e[i].flags |= F_SEEN;
		return;
	}
	int ret = j.ret;
	if (ret < 0) {
		if (!err_gone(ret) && ret != -EACCES)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (S_ISDIR(j.st.st_mode)) {
		uint32_t sub = find(subs, nsubs, name);
		if (sub != NONE)
			ix.d[sub].flags |= F_SEEN;
		enter(fd, dev, dir, sub, name, depth);
	} else if (S_ISREG(j.st.st_mode)) {
		uint32_t i = find(ents, nents, name);
		if (i != NONE &&
		    (ix.e[i].fp == fp_of(&j.st) || !read_file(fd, dev, dir, i, name))) {
			ix.e[i].flags |= F_SEEN;
			return;
		}
		/* a new entry is seen: read unless a listing read it already and
		 * found neither magic (probe.h; the same identity) */
		if (i == NONE && probe_known(&j.st) != 0)
			read_file(fd, dev, dir, i, name);
	}
}

/* List directory dir (open as fd, on device dev) again: new entries are
 * read, entries gone are forgotten. */
static void relist(int fd, uint64_t dev, uint32_t dir, unsigned depth)
{
	struct wjob j = {.op = W_LIST, .fd = fd};
	int ret = walk_io(&j, dev);
	size_t nsubs = 0, nents = 0;
	struct named *subs = ret == 0 && j.ret == 0 ? known(dir, true, &nsubs) : NULL;
	struct named *ents = subs ? known(dir, false, &nents) : NULL;
	if (!ents) {
		free(j.list);
		free(subs);
		if (ret == 0)
			atomic_fetch_add(&ix.errors, 1);
		ix.d[dir].fp = 0; /* try again next time */
		return;
	}
	for (uint32_t i = ix.d[dir].child; i != NONE; i = ix.d[i].sibling)
		ix.d[i].flags &= ~F_SEEN;
	for (uint32_t i = ix.d[dir].ents; i != NONE; i = ix.e[i].next)
		ix.e[i].flags &= ~F_SEEN;
	for (size_t at = 0; at < j.nlist && !atomic_load(&ix.stop);) {
		const char *name = j.list + at + 1;
		relist_one(fd, dev, dir, (unsigned char)j.list[at], name, subs, nsubs, ents, nents,
		           depth);
		at += strlen(name) + 2;
	}
	free(j.list);
	free(subs);
	free(ents);
	if (atomic_load(&ix.stop))
		return; /* not all seen: nothing is gone */
	/* what was not seen is gone (subdirectories freed above are not
	 * in the lists any more) */
	for (uint32_t i = ix.d[dir].child, next; i != NONE; i = next) {
		next = ix.d[i].sibling;
		if (!(ix.d[i].flags & F_SEEN))
			bidx_dir_free(i);
	}
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		if (!(ix.e[i].flags & F_SEEN))
			bidx_ent_free(dir, i);
	}
}

/* Look again at the files of an unchanged directory: their identities. */
static void restat(int fd, uint64_t dev, uint32_t dir)
{
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		char *name = strdup(ent_name(&ix.e[i]));
		if (!name) {
			atomic_fetch_add(&ix.errors, 1);
			continue;
		}
		struct wjob j = {.op = W_STAT, .fd = fd, .name = name};
		if (walk_io(&j, dev) == 0) {
			if (j.ret < 0 || !S_ISREG(j.st.st_mode))
				bidx_ent_free(dir, i);
			else if (ix.e[i].fp != fp_of(&j.st))
				read_file(fd, dev, dir, i, name);
		}
		free(name);
	}
}

/* Directory dir, open as fd (on device dev): listed again when it changed,
 * else its subdirectories looked at and its indexed files checked. */
static void scan(int fd, uint64_t dev, uint32_t dir, unsigned depth)
{
	struct wjob j = {.op = W_FSTAT, .fd = fd};
	if (walk_io(&j, dev) < 0)
		return;
	if (j.ret < 0) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	uint64_t fp = fp_of(&j.st);
	if (fp != ix.d[dir].fp) {
		ix.d[dir].fp = fp;
		relist(fd, dev, dir, depth);
		return;
	}
	restat(fd, dev, dir);
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
			enter(fd, dev, dir, subs[k], name, depth);
		free(name);
	}
	free(subs);
}

/* Look at SOURCE: the whole walk the first time, what changed after
 * (ix.mu held, released across each system call). */
void bidx_look(void)
{
	ix.changes_seen = atomic_load(&ix.changes);
	int fd = openat(elffs.srcfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (ix.nd == 0 && bidx_dir_new(NONE, "") == NONE) {
		close(fd);
		atomic_fetch_add(&ix.errors, 1);
		return;
	}
	scan(fd, walk_dev_at(fd, NULL), 0, 0);
	close(fd);
	bidx_pool_compact();
	ix.checked_ns = elffs_now_ns();
	bidx_account();
}
