/* Directory listings: streamed views, shared snapshots (dirlist.h). */
#include "tree/dirlist.h"
#include "base/inval.h"
#include "cache/bincache.h"
#include "tree/buildid_fs.h"
#include "tree/check.h"
#include "content/debugview.h"
#include "content/entries.h"
#include "base/errors.h"
#include "base/membudget.h"
#include "tree/dirsnap.h"
#include "source/ahead.h"
#include "source/probe.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------- building */

#define BATCH 256 /* entries classified together (probe.h) */

/* Classify the entries of batch b (of directory dp, on device dev) and add
 * those shown to s, in their order; 0 or -errno. */
static int add_batch(struct dsnap *s, DIR *dp, dev_t dev, struct probe_batch *b)
{
	probe_batch_run(b, dirfd(dp), dev);
	s->partial |= probe_batch_stalled(b);
	int ret = 0;
	for (size_t i = 0; ret == 0 && i < probe_batch_count(b); i++) {
		const char *name;
		const struct stat *st;
		int kind = probe_batch_get(b, i, &name, &st);
		if (err_no_fds(kind)) /* a listing with holes is wrong */
			ret = err_for_reader(kind);
		else if (kind >= 0)
			ret = dsnap_add(s, name, kind == NK_LINK ? DT_LNK : DT_DIR,
			                (unsigned char)kind, st);
	}
	return ret;
}

/* Entries of a SOURCE directory: subdirectories, symlinks, ELF files. */
static int list_source(struct node *dir, struct dsnap *s)
{
	int fd = src_open_dir(dir, O_RDONLY);
	if (err_no_fds(fd)) /* even after giving back idle descriptors */
		return err_for_reader(fd);
	if (fd < 0) /* gone, or something else now */
		return fd == -ENOMEM || fd == -EACCES ? fd : -ENOENT;
	struct stat dst;
	DIR *dp = fstat(fd, &dst) == 0 ? fdopendir(fd) : NULL;
	if (!dp) {
		close(fd);
		return -ENOMEM;
	}
	int ret = 0;
	struct dirent *de;
	struct probe_batch *b = NULL;
	s->taken_ns = elffs_now_ns();
	ahead_listed(fd, &dst);
	while (ret == 0 && (errno = 0, de = readdir(dp))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (!b && !(b = probe_batch_new(BATCH)))
			ret = -ENOMEM;
		else if ((ret = probe_batch_add(b, de->d_name, de->d_type)) == 0 &&
		         probe_batch_count(b) == BATCH) {
			ret = add_batch(s, dp, dst.st_dev, b);
			probe_batch_put(b);
			b = NULL;
		}
	}
	if (ret == 0 && errno)
		ret = -errno;
	if (ret == 0 && b)
		ret = add_batch(s, dp, dst.st_dev, b);
	probe_batch_put(b);
	closedir(dp);
	return ret;
}

/* The snapshot of a SOURCE or index directory for d: a shared one, or a
 * new one (then offered to the next handles). */
static int take_snapshot(struct node *dir, struct dirlist *d)
{
	if ((d->snap = dsnap_shared(d->self, check_timeout_ns(dir))))
		return 0;
	if (!(d->snap = dsnap_new(d->self)))
		return -ENOMEM;
	uint64_t seq = inval_seq(); /* a change heard of meanwhile: not shared */
	d->snap->seq = seq;
	int ret;
	if (dir->kind == NK_DIR) {
		ret = list_source(dir, d->snap);
		if (ret == 0 && !dir->parent)
			ret = bidfs_list_root(d->snap);
	} else {
		ret = bidfs_list(dir, d->snap);
	}
	if (ret < 0)
		return ret;
	dsnap_fit(d->snap);
	nodes_lock(); /* what the next open tells the kernel of its cached listing */
	dir->partial = d->snap->partial;
	nodes_unlock();
	if (inval_seq() == seq && !d->snap->partial)
		dsnap_publish(d->snap);
	return 0;
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
	d->rows = entry_rows(d->view, &n);
	if (n > DIRLIST_ROWS_MAX)
		return -EIO;
	for (size_t i = 0; i < n; i++)
		if (!d->rows[i].present || d->rows[i].present(d->view))
			d->pick[d->n++] = (uint8_t)i;
	bool fixed = ret == 0 && d->view && check_listing_watched(bin) && debug_fixed(d->view);
	nodes_lock(); /* the kernel may keep it (check_cache_listing) */
	bin->fixed = fixed && (bin->kind != NK_BIN || bin->src->gen == d->view->gen);
	nodes_unlock();
	return 0;
}

/* The file names of a directory of a binary (entries.h): the view's,
 * taken from it at each readdir. */
static int list_view(struct node *dir, struct dirlist *d)
{
	const struct bin_entry *e = entry_of_kind((enum node_kind)dir->kind);
	int ret = check_dir_view(dir, &d->view);
	if (ret < 0)
		return ret;
	size_t n = 0;
	ret = e && e->bytes == EB_DIR ? e->count(d->view, &n) : -ENOTDIR;
	if (ret < 0)
		return ret;
	d->row = e;
	d->n = n;
	return 0;
}

/* What d lists of dir, taken now: a snapshot (SOURCE, the index), a
 * binary's rows or a view's names; 0 or -errno (d keeps what it took, for
 * drop_listing). */
static int fill(struct node *dir, struct dirlist *d)
{
	int ret;
	if (dir->kind == NK_DIR || bidfs_kind(dir->kind))
		ret = take_snapshot(dir, d);
	else if (node_is_vroot(dir))
		ret = list_binary(dir, d);
	else if (node_is_dir(dir))
		ret = list_view(dir, d);
	else
		ret = -ENOTDIR;
	d->pinned = d->view != NULL;
	if (ret < 0)
		return ret;
	if (d->view) { /* the names are the view's: its handle is not needed */
		bincache_unpin(d->view);
		d->pinned = false;
	}
	if (d->snap)
		d->n = d->snap->n;
	return 0;
}

/* Give back what fill took. */
static void drop_listing(struct dirlist *d)
{
	dsnap_put(d->snap);
	if (d->pinned)
		bincache_release(d->view);
	else
		bincache_unref(d->view);
	d->snap = NULL;
	d->view = NULL;
	d->pinned = false;
	d->row = d->rows = NULL;
	d->n = 0;
}

int dirlist_ready(struct dirlist *d)
{
	if (!d->later)
		return 0;
	struct node *dir = node_get(d->self);
	int ret = dir ? fill(dir, d) : -ESTALE;
	node_put(dir);
	if (ret < 0) {
		drop_listing(d); /* a later read tries again */
		return ret;
	}
	d->later = false;
	return 0;
}

int dirlist_open(struct node *dir, struct dirlist **out)
{
	uint64_t cost = membudget_chunk(sizeof(struct dirlist));
	int ret = membudget_reserve(MB_LISTINGS, cost, 0, DIRSNAP_WHAT);
	if (ret < 0)
		return ret;
	struct dirlist *d = calloc(1, sizeof(*d));
	if (!d) {
		membudget_release(MB_LISTINGS, cost);
		return -ENOMEM;
	}
	d->self = dir->ino;
	d->parent = dir->parent ? dir->parent->ino : dir->ino;
	/* As lookup: a SOURCE directory is listed by its path, a directory of
	 * a binary from the binary's current view, unless the binary is gone. */
	ret = check_node(dir);
	/* a node of an older generation is listed now: the view says ENOENT
	 * or EIO where the kernel's cache would serve the old names */
	bool old = ret == -ESTALE;
	if (ret == -ESTALE || (ret == -ENOENT && dir->kind == NK_DIR))
		ret = 0;
	if (ret == 0 && !old && check_cache_listing(dir))
		d->later = true;
	else if (ret == 0)
		ret = fill(dir, d);
	if (ret < 0) {
		dirlist_free(d);
		return ret;
	}
	*out = d;
	return 0;
}

void dirlist_free(struct dirlist *d)
{
	if (!d)
		return;
	handles_remove(&d->link);
	drop_listing(d);
	free(d);
	membudget_release(MB_LISTINGS, membudget_chunk(sizeof(struct dirlist)));
}

/* --------------------------------------------------------------- access */

const char *dirlist_name(const struct dirlist *d, size_t i, unsigned char *type)
{
	if (d->snap) {
		*type = d->snap->e[i].type;
		return d->snap->names + d->snap->e[i].name;
	}
	if (d->row) {
		*type = d->row->type_at ? d->row->type_at(d->view, i) : DT_REG;
		return d->row->name_at(d->view, i);
	}
	const struct bin_entry *e = &d->rows[d->pick[i]];
	*type = e->bytes == EB_DIR || e->bytes == EB_VIEW ? DT_DIR
	        : e->bytes == EB_LINK                     ? DT_LNK
	                                                  : DT_REG;
	return e->name;
}

const struct srcstat *dirlist_srcstat(const struct dirlist *d, size_t i, int *kind,
                                      uint64_t *taken_ns)
{
	if (!d->snap || i >= d->snap->nst)
		return NULL;
	*kind = d->snap->e[i].kind;
	*taken_ns = d->snap->taken_ns;
	return &d->snap->st[i];
}
