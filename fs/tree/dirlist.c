/* Directory listings: streamed views, shared snapshots (dirlist.h). */
#include "tree/dirlist.h"
#include "cache/bincache.h"
#include "tree/buildid_fs.h"
#include "tree/check.h"
#include "content/entries.h"
#include "base/errors.h"
#include "base/membudget.h"
#include "source/probe.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WHAT           "a directory listing" /* for the budget's log line */
#define SHARE_BUCKETS  64
#define NAMES_FIRST    4096         /* bytes of the first arena block */
#define RECORDS_FIRST  64           /* entries of the first record blocks */
#define MALLOC_MMAPPED (128 * 1024) /* membudget.c's fixed mmap threshold */

/* One entry of a snapshot. */
struct dsent {
	uint32_t name;      /* offset of its name in the arena */
	unsigned char type; /* DT_DIR, DT_REG, DT_LNK */
	unsigned char kind; /* SOURCE entries (i < nst): NK_DIR, NK_LINK or NK_BIN */
};

struct dsnap {
	struct dsnap *next; /* in its bucket of the sharing registry (share_lock) */
	uint64_t key;       /* inode of the directory */
	uint64_t taken_ns;  /* when it was taken (elffs_now_ns, before the first lstat) */
	unsigned refs;      /* handles (share_lock) */
	bool shared;        /* in the registry (share_lock) */
	size_t n, cap;      /* entries, records allocated */
	struct dsent *e;
	size_t nst, stcap; /* SOURCE entries come first: the lstat of entries 0 to nst - 1 */
	struct srcstat *st;
	char *names; /* the arena: every name, NUL-terminated */
	size_t used, room;
	uint64_t cost; /* reserved in the budget (MB_LISTINGS) */
};

static pthread_mutex_t share_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dsnap *shared[SHARE_BUCKETS];

/* ------------------------------------------------------------ snapshots */

/* What a block of n bytes takes: a heap chunk, or whole pages once glibc
 * maps it on its own (membudget_init fixes the threshold). */
static uint64_t block_cost(size_t n)
{
	if (n == 0)
		return 0;
	if (n + 16 >= MALLOC_MMAPPED)
		return ((uint64_t)n + 16 + 4095) & ~(uint64_t)4095;
	return membudget_chunk(n);
}

/* Resize block *p from *cap to c elements of sz bytes, the difference
 * reserved (or given back) first; 0, -ENOMEM or -EFBIG. */
static int resize(struct dsnap *s, void **p, size_t *cap, size_t c, size_t sz)
{
	uint64_t was = block_cost(*cap * sz), will = block_cost(c * sz);
	if (will > was) {
		int ret = membudget_reserve(MB_LISTINGS, will - was, s->cost, WHAT);
		if (ret < 0)
			return ret;
		s->cost += will - was;
	}
	void *q = c ? realloc(*p, c * sz) : NULL;
	if (c && !q) {
		if (will > was) {
			membudget_release(MB_LISTINGS, will - was);
			s->cost -= will - was;
		}
		return -ENOMEM;
	}
	if (!c)
		free(*p);
	if (will < was) {
		membudget_release(MB_LISTINGS, was - will);
		s->cost -= was - will;
	}
	*p = q;
	*cap = c;
	return 0;
}

/* Room for want elements in block *p (doubling). */
static int room_for(struct dsnap *s, void **p, size_t *cap, size_t want, size_t sz, size_t first)
{
	if (want <= *cap)
		return 0;
	size_t c = *cap ? *cap : first;
	while (c < want) {
		if (c > SIZE_MAX / 2 / sz)
			return -ENOMEM;
		c *= 2;
	}
	return resize(s, p, cap, c, sz);
}

static struct dsnap *snap_new(uint64_t key)
{
	uint64_t cost = membudget_chunk(sizeof(struct dsnap));
	if (membudget_reserve(MB_LISTINGS, cost, 0, WHAT) < 0)
		return NULL;
	struct dsnap *s = calloc(1, sizeof(*s));
	if (!s) {
		membudget_release(MB_LISTINGS, cost);
		return NULL;
	}
	s->key = key;
	s->refs = 1;
	s->cost = cost;
	s->taken_ns = elffs_now_ns();
	return s;
}

static void snap_free(struct dsnap *s)
{
	free(s->e);
	free(s->st);
	free(s->names);
	membudget_release(MB_LISTINGS, s->cost);
	free(s);
}

/* Entry name of s with d_type type; from SOURCE (kind, lstat st) or not
 * (st NULL: only after the SOURCE entries). */
static int snap_add(struct dsnap *s, const char *name, unsigned char type, unsigned char kind,
                    const struct stat *st)
{
	size_t len = strlen(name) + 1;
	if (s->used + len > UINT32_MAX || (st && s->nst != s->n))
		return -ENOMEM;
	int ret = room_for(s, (void **)&s->names, &s->room, s->used + len, 1, NAMES_FIRST);
	if (ret == 0)
		ret = room_for(s, (void **)&s->e, &s->cap, s->n + 1, sizeof(*s->e), RECORDS_FIRST);
	if (ret == 0 && st)
		ret = room_for(s, (void **)&s->st, &s->stcap, s->nst + 1, sizeof(*s->st),
		               RECORDS_FIRST);
	if (ret < 0)
		return ret;
	memcpy(s->names + s->used, name, len);
	s->e[s->n++] = (struct dsent){(uint32_t)s->used, type, kind};
	s->used += len;
	if (st)
		s->st[s->nst++] = node_srcstat(st);
	return 0;
}

/* Give back what the doubling left unused (a shrinking realloc stays in
 * place: a heap chunk is split, a mapped block remapped). */
static void snap_fit(struct dsnap *s)
{
	resize(s, (void **)&s->names, &s->room, s->used, 1);
	resize(s, (void **)&s->e, &s->cap, s->n, sizeof(*s->e));
	resize(s, (void **)&s->st, &s->stcap, s->nst, sizeof(*s->st));
}

/* The snapshot of directory key still within the cache timeout, with a
 * reference, or NULL; older ones leave the registry (their handles keep
 * them). */
static struct dsnap *share_find(uint64_t key)
{
	uint64_t now = elffs_now_ns();
	pthread_mutex_lock(&share_lock);
	struct dsnap **p = &shared[key % SHARE_BUCKETS], *s;
	while ((s = *p)) {
		if (s->key == key && now - s->taken_ns < elffs.timeout_ns) {
			s->refs++;
			break;
		}
		if (s->key == key) {
			*p = s->next;
			s->shared = false;
			continue;
		}
		p = &s->next;
	}
	pthread_mutex_unlock(&share_lock);
	return s;
}

/* Offer s (complete) to the handles opened after it. */
static void share_publish(struct dsnap *s)
{
	if (elffs.timeout_ns == 0)
		return;
	pthread_mutex_lock(&share_lock);
	s->next = shared[s->key % SHARE_BUCKETS];
	shared[s->key % SHARE_BUCKETS] = s;
	s->shared = true;
	pthread_mutex_unlock(&share_lock);
}

static void snap_put(struct dsnap *s)
{
	if (!s)
		return;
	pthread_mutex_lock(&share_lock);
	bool last = --s->refs == 0;
	if (last && s->shared) {
		struct dsnap **p = &shared[s->key % SHARE_BUCKETS];
		while (*p != s)
			p = &(*p)->next;
		*p = s->next;
	}
	pthread_mutex_unlock(&share_lock);
	if (last)
		snap_free(s);
}

/* ------------------------------------------------------------- building */

/* Entries of a SOURCE directory: subdirectories, symlinks, ELF files. */
static int list_source(struct node *dir, struct dsnap *s)
{
	int fd = src_open_dir(dir, O_RDONLY);
	if (err_no_fds(fd)) /* even after giving back idle descriptors */
		return err_for_reader(fd);
	if (fd < 0) /* gone, or something else now */
		return fd == -ENOMEM || fd == -EACCES ? fd : -ENOENT;
	DIR *dp = fdopendir(fd);
	if (!dp) {
		close(fd);
		return -ENOMEM;
	}
	int ret = 0;
	struct dirent *de;
	s->taken_ns = elffs_now_ns();
	while (ret == 0 && (errno = 0, de = readdir(dp))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		struct stat st;
		int kind = probe_entry(dirfd(dp), de->d_name, de->d_type, &st);
		if (err_no_fds(kind)) /* a listing with holes is wrong */
			ret = err_for_reader(kind);
		else if (kind >= 0)
			ret = snap_add(s, de->d_name, kind == NK_LINK ? DT_LNK : DT_DIR,
			               (unsigned char)kind, &st);
	}
	if (ret == 0 && errno)
		ret = -errno;
	closedir(dp);
	return ret;
}

/* The snapshot of a SOURCE or index directory for d: a shared one, or a
 * new one (then offered to the next handles). */
static int take_snapshot(struct node *dir, struct dirlist *d)
{
	if ((d->snap = share_find(d->self)))
		return 0;
	if (!(d->snap = snap_new(d->self)))
		return -ENOMEM;
	int ret;
	if (dir->kind == NK_DIR) {
		ret = list_source(dir, d->snap);
		if (ret == 0 && !dir->parent)
			ret = bidfs_list_root(d);
	} else {
		ret = bidfs_list(dir, d);
	}
	if (ret < 0)
		return ret;
	snap_fit(d->snap);
	share_publish(d->snap);
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

int dirlist_open(struct node *dir, struct dirlist **out)
{
	uint64_t cost = membudget_chunk(sizeof(struct dirlist));
	int ret = membudget_reserve(MB_LISTINGS, cost, 0, WHAT);
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
	if (ret == -ESTALE || (ret == -ENOENT && dir->kind == NK_DIR))
		ret = 0;
	if (ret == 0 && (dir->kind == NK_DIR || bidfs_kind(dir->kind)))
		ret = take_snapshot(dir, d);
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
	if (d->snap)
		d->n = d->snap->n;
	*out = d;
	return 0;
}

void dirlist_free(struct dirlist *d)
{
	if (!d)
		return;
	handles_remove(&d->link);
	snap_put(d->snap);
	if (d->pinned)
		bincache_release(d->view);
	else
		bincache_unref(d->view);
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
	*type = e->bytes == EB_DIR ? DT_DIR : DT_REG;
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

bool dirlist_has(const struct dirlist *d, const char *name)
{
	for (size_t i = 0; d->snap && i < d->snap->n; i++)
		if (strcmp(d->snap->names + d->snap->e[i].name, name) == 0)
			return true;
	return false;
}

int dirlist_add(struct dirlist *d, const char *name, unsigned char type)
{
	return d->snap ? snap_add(d->snap, name, type, 0, NULL) : -EINVAL;
}
