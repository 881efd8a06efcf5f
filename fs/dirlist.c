/* Directory listings: snapshots taken at opendir. */
#include "dirlist.h"
#include "bincache.h"
#include "buildid_fs.h"
#include "check.h"
#include "entries.h"
#include "probe.h"
#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int grow(struct dirlist *d, size_t *cap)
{
	if (d->n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	struct dent *e = realloc(d->e, c * sizeof(*e));
	char **o = realloc(d->owned, c * sizeof(*o));
	struct stat *st = realloc(d->st, c * sizeof(*st));
	if (e)
		d->e = e;
	if (o)
		d->owned = o;
	if (st)
		d->st = st;
	if (!e || !o || !st)
		return -ENOMEM;
	*cap = c;
	return 0;
}

/* Entry name of kind kind (lstat st) of a SOURCE directory. */
static int add_source(struct dirlist *d, size_t *cap, const char *name, int kind,
                      const struct stat *st)
{
	char *s = strdup(name);
	if (!s || grow(d, cap) < 0) {
		free(s);
		return -ENOMEM;
	}
	d->owned[d->n] = s;
	d->st[d->n] = *st;
	d->e[d->n++] = (struct dent){s, kind == NK_LINK ? DT_LNK : DT_DIR, (unsigned char)kind};
	d->nst = d->n;
	return 0;
}

/* Entries of a SOURCE directory: subdirectories, symlinks, ELF files. */
static int list_source(struct node *dir, struct dirlist *d)
{
	int fd = src_open_dir(dir, O_RDONLY);
	if (fd == -EMFILE || fd == -ENFILE) /* even after giving back idle descriptors */
		return -EIO;
	if (fd < 0) /* gone, or something else now */
		return fd == -ENOMEM || fd == -EACCES ? fd : -ENOENT;
	DIR *dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return -ENOMEM;
	}
	size_t cap = 0;
	int ret = 0;
	struct dirent *de;
	d->taken_ns = elffs_now_ns();
	while (ret == 0 && (errno = 0, de = readdir(dp))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		struct stat st;
		int kind = probe_entry(dirfd(dp), de->d_name, de->d_type, &st);
		if (kind == -EMFILE || kind == -ENFILE) /* a listing with holes is wrong */
			ret = -EIO;
		else if (kind >= 0)
			ret = add_source(d, &cap, de->d_name, kind, &st);
	}
	if (ret == 0 && errno)
		ret = -errno;
	closedir(dp);
	return ret;
}

/* The entries of a binary's directory that its view has (entries.h); those
 * every binary has when the parse failed. */
static int list_binary(struct node *bin, struct dirlist *d)
{
	nodes_lock();
	bool absent = bin->absent;
	nodes_unlock();
	if (absent)
		return 0;
	int ret = check_view(bin, &d->view);
	if (ret == -ESTALE)
		return ret;
	size_t n;
	const struct bin_entry *rows = entry_rows(d->view, &n);
	d->e = calloc(n, sizeof(*d->e));
	if (!d->e)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct bin_entry *e = &rows[i];
		if (e->present && !e->present(d->view))
			continue;
		d->e[d->n++] = (struct dent){.name = e->name,
		                             .type = e->bytes == EB_DIR ? DT_DIR : DT_REG};
	}
	return 0;
}

/* The file names of a directory of a binary (entries.h): the view's. */
static int list_view(struct node *dir, struct dirlist *d)
{
	const struct bin_entry *e = entry_of_kind((enum node_kind)dir->kind);
	int ret = check_dir_view(dir, &d->view);
	if (ret < 0)
		return ret;
	size_t n = 0;
	ret = e && e->bytes == EB_DIR ? e->count(d->view, &n) : -ENOTDIR;
	if (ret < 0 || n == 0)
		return ret;
	d->e = calloc(n, sizeof(*d->e));
	if (!d->e)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		d->e[i] = (struct dent){.name = e->name_at(d->view, i),
		                        .type = e->type_at ? e->type_at(d->view, i) : DT_REG};
	d->n = n;
	return 0;
}

int dirlist_open(struct node *dir, struct dirlist **out)
{
	struct dirlist *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->self = dir->ino;
	d->parent = dir->parent ? dir->parent->ino : dir->ino;
	/* As lookup: a SOURCE directory is listed by its path, a directory of
	 * a binary from the binary's current view, unless the binary is gone. */
	int ret = check_node(dir);
	if (ret == -ESTALE || (ret == -ENOENT && dir->kind == NK_DIR))
		ret = 0;
	if (ret == 0 && dir->kind == NK_DIR) {
		ret = list_source(dir, d);
		if (ret == 0 && !dir->parent)
			ret = bidfs_list_root(d);
	} else if (ret == 0 && bidfs_kind(dir->kind))
		ret = bidfs_list(dir, d);
	else if (ret == 0 && node_is_vroot(dir))
		ret = list_binary(dir, d);
	else if (ret == 0 && node_is_dir(dir))
		ret = list_view(dir, d);
	else if (ret == 0)
		ret = -ENOTDIR;
	d->pinned = d->view != NULL;
	if (ret < 0) {
		dirlist_free(d);
		return ret;
	}
	if (d->view) { /* the names are the view's: its handle is not needed */
		bincache_unpin(d->view);
		d->pinned = false;
	}
	*out = d;
	return 0;
}

void dirlist_free(struct dirlist *d)
{
	if (!d)
		return;
	handles_remove(&d->link);
	for (size_t i = 0; d->owned && i < d->n; i++)
		free(d->owned[i]);
	free(d->owned);
	free(d->st);
	free(d->e);
	if (d->pinned)
		bincache_release(d->view);
	else
		bincache_unref(d->view);
	free(d);
}
