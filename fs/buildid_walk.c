/*
 * The walk of SOURCE for the build-id index, and its refreshes: one
 * function for both (scan). A directory whose identity or mtime changed is
 * listed again; an unchanged one has its indexed files looked at again.
 * Every name is opened through source.c (never our own mount, never a
 * symlink).
 */
#include "buildid_table.h"
#include "elffs.h"
#include "source.h"

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
	if (ret == 1 && bidx_ent_set(dir, i, name, fp_of(&fst), &b) == 0)
		return;
	if (i != NONE)
		bidx_ent_free(dir, i);
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
			bidx_dir_free(sub);
		if (!lost(cfd) || depth + 1 >= MAX_DEPTH)
			atomic_fetch_add(&ix.errors, 1);
		return;
	}
	if (sub == NONE)
		sub = bidx_dir_new(dir, name);
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
			bidx_dir_free(i);
	}
	for (uint32_t i = ix.d[dir].ents, next; i != NONE; i = next) {
		next = ix.e[i].next;
		if (!(ix.e[i].flags & F_SEEN))
			bidx_ent_free(dir, i);
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
			bidx_ent_free(dir, i);
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
void bidx_look(void)
{
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
	scan(fd, 0, 0);
	close(fd);
	bidx_pool_compact();
	ix.checked_ns = elffs_now_ns();
	bidx_account();
}
