/* Directory listings: snapshots taken at opendir. */
#include "dirlist.h"
#include "bincache.h"
#include "buildid_fs.h"
#include "check.h"
#include "entries.h"
#include "listprobe.h"
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

/* Entry name with its d_type of a SOURCE directory, to be probed. */
static int add_name(struct dirlist *d, size_t *cap, const char *name, unsigned char d_type)
{
	char *s = strdup(name);
	if (!s || grow(d, cap) < 0) {
		free(s);
		return -ENOMEM;
	}
	d->owned[d->n] = s;
	d->e[d->n++] = (struct dent){.name = s, .type = d_type};
	return 0;
}

/* Keep the entries whose kind[i] is one, in their order, as listed kinds;
 * -EIO when the daemon was out of descriptors for one (a listing with
 * holes is wrong). */
static int keep_probed(struct dirlist *d, const int *kind)
{
	size_t k = 0;
	int ret = 0;
	for (size_t i = 0; i < d->n; i++) {
		if (kind[i] == -EMFILE || kind[i] == -ENFILE)
			ret = -EIO;
		if (kind[i] < 0) {
			free(d->owned[i]);
			continue;
		}
		d->owned[k] = d->owned[i];
		d->st[k] = d->st[i];
		d->e[k] = (struct dent){.name = d->owned[i],
		                        .type = kind[i] == NK_LINK ? DT_LNK : DT_DIR,
		                        .kind = (unsigned char)kind[i]};
		k++;
	}
	d->n = d->nst = k;
	return ret;
}

/* Entries of a SOURCE directory: subdirectories, symlinks, ELF files. The
 * names are read first, then classified (listprobe.h). */
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
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			ret = add_name(d, &cap, de->d_name, de->d_type);
	}
	if (ret == 0 && errno)
		ret = -errno;
	int *kind = ret == 0 && d->n ? calloc(d->n, sizeof(*kind)) : NULL;
	if (ret == 0 && d->n && !kind)
		ret = -ENOMEM;
	if (ret == 0 && d->n) {
		listprobe_run(dirfd(dp), d->e, d->st, kind, d->n);
		ret = keep_probed(d, kind);
	}
	free(kind);
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
