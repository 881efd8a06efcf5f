/*
 * open, read, release: the data path. An open file holds what read needs
 * (its byte range and a reference on the binary's view). When the view's
 * handle is a mapping, the open file keeps it pinned and read takes no lock
 * of the daemon's: it asks pfelf for a reference to the range and hands the
 * kernel a pointer into the shared mapping (fuse_reply_data with a memory
 * buffer, written with writev: no userspace copy). If the source shrank
 * under the mapping, the kernel's copy faults: the daemon gets EFAULT from
 * the write and the reader EIO. Under the pread backend an open file holds
 * no descriptor: each read pins the view (the binary cache opens the
 * source again if its descriptor was closed) and reads the bytes into a
 * per-thread buffer first, so that a short read becomes EIO rather than a
 * short reply.
 */
#include "ops/ops.h"
#include "ops/passthrough.h"
#include "source/access.h"
#include "cache/bincache.h"
#include "tree/check.h"
#include "cache/dcache.h"
#include "content/entries.h"
#include "base/handles.h"
#include "content/info.h"
#include "tree/iopolicy.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kernel's open of a file it executes (__FMODE_EXEC, in the open flags
 * the kernel sends; not an O_ flag of the uapi headers). */
#define OPEN_EXEC 0x20

/* Served bytes after which a file's range is dropped from the daemon's page tables. */
#define DROP_EVERY ((uint64_t)64 << 20)

struct ofile {
	struct bview *view; /* NULL for EB_COPY (build-id) and for empty files */
	uint64_t off;       /* range of the source file */
	uint64_t len;
	char *text;               /* EB_COPY (build-id): its own copy */
	const char *mem;          /* EB_DECOMP (decompressed/), EB_MADE: bytes held by hold */
	struct dentry_data *hold; /* EB_DECOMP, EB_MADE: the cache entry */
	bool generated;           /* EB_TEXT (info, symbols): text made at each read */
	enum text_kind textk;     /* EB_TEXT: which text */
	uint64_t textsize;        /* EB_TEXT: bytes of the text (the tail's follow) */
	char *tail;               /* EB_TEXT: the node's own lines after the text (info.h) */
	_Atomic uint64_t served;  /* bytes replied from the mapping since the last drop */
	bool pinned;              /* view pinned for the file's life (mapped handle) */
	struct ptopen pt;         /* passthrough.h: an `elf` open's mode */
	struct hlink link;        /* in the registry of handles (freed at exit) */
};

/*
 * The kernel maps the pages it copies a reply from into the daemon's page
 * tables (they count as its RssFile). Drop them again, for the file's range
 * only: the pages stay in the page cache, readers see no difference.
 */
static void drop_served(struct ofile *of)
{
	if (of->pinned && of->view->f && pfelf_backend(of->view->f) == PFELF_BACKEND_MMAP)
		pfelf_advise(of->view->f, of->off, of->len, PFELF_ADVICE_DONTNEED);
}

static void count_served(struct ofile *of, size_t len)
{
	if (atomic_fetch_add(&of->served, len) + len >= DROP_EVERY) {
		atomic_store(&of->served, 0);
		drop_served(of);
	}
}

static void ofile_free(struct ofile *of)
{
	if (!of)
		return;
	handles_remove(&of->link);
	passthrough_release(&of->pt);
	if (atomic_load(&of->served) > 0)
		drop_served(of);
	dcache_release(of->hold);
	if (of->pinned)
		bincache_release(of->view);
	else
		bincache_unref(of->view);
	free(of->text);
	free(of->tail);
	free(of);
}

/* Drop of's view: a passthrough open file is never read through the daemon. */
static void ofile_unview(struct ofile *of)
{
	if (of->pinned)
		bincache_release(of->view);
	else
		bincache_unref(of->view);
	of->view = NULL;
	of->pinned = false;
}

static void ofile_free_link(struct hlink *h)
{
	ofile_free((struct ofile *)((char *)h - offsetof(struct ofile, link)));
}

/*
 * The byte range of file node n in view v (pinned): a section's or a
 * segment's header is read again by its index (the node keeps only that
 * and its size: EB_INDEXED), the others' range is the node's own.
 */
static int range_of(const struct node *n, const struct bview *v, enum entry_bytes b, uint64_t *off,
                    uint64_t *len)
{
	*off = n->aux;
	*len = n->size;
	if (b == EB_INDEXED) {
		const struct bin_entry *dir = entry_holding((enum node_kind)n->kind);
		if (dir->file_range(v, n->aux, off, len) < 0)
			return -EIO;
	}
	return *len == n->size ? 0 : -EIO;
}

/* EB_COPY: the open file's own copy of the view's text, which n showed. */
static int copy_text(const struct node *n, struct ofile *of, const struct bview *v)
{
	size_t len;
	const char *text = entry_of_kind((enum node_kind)n->kind)->copy(v, &len);
	if (!text || len != of->len)
		return -EIO;
	of->text = malloc(of->len ? of->len : 1);
	if (!of->text)
		return -ENOMEM;
	memcpy(of->text, text, of->len);
	return 0;
}

/* EB_TEXT: a generated text, indexed by the lookup that made n, and the
 * lines after it that are n's own (a copy kept by the open file). A node
 * that no longer shows them (the build-id index changed since its lookup)
 * is stale: the kernel looks it up again. */
static int open_text(struct node *n, struct ofile *of)
{
	const struct bin_entry *e = entry_of_kind((enum node_kind)n->kind);
	struct infotail t = {0};
	of->generated = true;
	of->textk = e->text;
	int ret = textview_size(of->view, of->textk, &of->textsize);
	if (ret == 0 && e->tail)
		ret = e->tail(node_vroot(n), of->view, &t);
	if (ret < 0)
		return ret;
	of->tail = t.text;
	return of->textsize + t.len != n->size || t.hash != n->aux ? -ESTALE : 0;
}

/* What of serves for file node n (entries.h says where its bytes come
 * from); of->view is its pinned reference or NULL. */
static int ofile_fill(struct node *n, struct ofile *of)
{
	enum entry_bytes b = entry_bytes_of((enum node_kind)n->kind);
	if (of->len == 0 && (b == EB_RANGE || b == EB_INDEXED)) /* empty: no view needed */
		return 0;
	int ret = check_view(n, &of->view);
	if (ret < 0)
		return ret;
	switch (b) {
	case EB_TEXT:
		return open_text(n, of);
	case EB_DECOMP:
		return dcache_acquire(of->view, node_vroot(n)->ino, (uint32_t)n->aux, n->size,
		                      &of->mem, &of->hold);
	case EB_MADE: /* the same bytes as at lookup, made again if they were evicted */
		ret = dcache_made(of->view, (enum node_kind)n->kind, &of->mem, &of->len, &of->hold);
		return ret < 0 ? ret : of->len != n->size ? -EIO : 0;
	case EB_COPY:
		ret = copy_text(n, of, of->view);
		bincache_release(of->view); /* its text is copied: the view is not needed */
		of->view = NULL;
		return ret;
	default:
		return range_of(n, of->view, b, &of->off, &of->len);
	}
}

static int ofile_new(struct node *n, struct ofile **out)
{
	struct ofile *of = calloc(1, sizeof(*of));
	if (!of)
		return -ENOMEM;
	of->len = n->size;
	int ret = ofile_fill(n, of);
	of->pinned = of->view != NULL;
	if (ret < 0) {
		ofile_free(of);
		return ret;
	}
	/* A mapped handle stays pinned (reads take no lock); a descriptor does
	 * not: reads pin it, so open files do not hold descriptors. */
	if (of->view && view_backend(of->view) != PFELF_BACKEND_MMAP) {
		bincache_unpin(of->view);
		of->pinned = false;
	}
	*out = of;
	return 0;
}

static int open_node(struct node *n, int tid, struct fuse_file_info *fi, struct ofile **out)
{
	bool retry = check_open_retry(tid);
	if (node_is_dir(n))
		return -EISDIR;
	if (node_is_source(n) || entry_bytes_of((enum node_kind)n->kind) == EB_LINK) /* a symlink */
		return -EINVAL;
	int ret = check_node(n);
	if (ret == 0)
		ret = ofile_new(n, out);
	if (ret == 0) {
		iopolicy_open(n, fi); /* direct_io, keep_cache */
		ret = passthrough_open(n, (*out)->view, fi, &(*out)->pt);
	}
	if (ret < 0 && *out) {
		ofile_free(*out);
		*out = NULL;
	}
	return ret == -ESTALE ? check_refuse_open(tid, retry) : ret;
}

void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & (O_TRUNC | O_CREAT | O_APPEND))) {
		fuse_reply_err(req, EROFS);
		return;
	}
	struct node *n = node_get(ino);
	struct ofile *of = NULL;
	int ret = n ? access_check(req, n, fi->flags & OPEN_EXEC ? ACCESS_EXEC : ACCESS_OPEN)
	            : -ESTALE;
	if (ret == 0)
		ret = open_node(n, (int)fuse_req_ctx(req)->pid, fi, &of);
	node_put(n);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
		return;
	}
	handles_add(&of->link, ofile_free_link);
	fi->fh = (uintptr_t)of;
	if (of->pt.mode == PT_PASS) /* the kernel reads the source: no view kept */
		ofile_unview(of);
	int err = fuse_reply_open(req, fi);
	passthrough_replied();
	if (err != 0)
		ofile_free(of);
}

static pthread_key_t buf_key;

struct tbuf {
	size_t cap;
	char data[];
};

int ops_file_init(void)
{
	return -pthread_key_create(&buf_key, free);
}

/* This thread's buffer of at least size bytes, or NULL. */
static char *thread_buf(size_t size)
{
	struct tbuf *b = pthread_getspecific(buf_key);
	if (!b || b->cap < size) {
		free(b);
		b = malloc(sizeof(*b) + size);
		pthread_setspecific(buf_key, b);
		if (!b)
			return NULL;
		b->cap = size;
	}
	return b->data;
}

/* Reply with len bytes at pos of fd, the source of view v (pos - from: at
 * from in v's file); a short read (the file shrank), or a file written
 * since (view_stale: the bytes read may be new ones at old offsets), is
 * EIO. The check after the read leaves no window: a write after it did not
 * change what was read. */
static void reply_pread(fuse_req_t req, struct bview *v, const pfelf_ref *ref, uint64_t from)
{
	int fd = ref->fd;
	uint64_t pos = ref->pos;
	size_t len = ref->len;
	char *buf = thread_buf(len);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	size_t done = 0;
	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, (off_t)(pos + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fuse_reply_err(req, EIO);
			return;
		}
		done += (size_t)n;
	}
	struct stat st;
	if (src_fd_stat(fd, &view_outer(v)->id, &st) < 0 || view_stale(v, &st, from + len)) {
		fuse_reply_err(req, EIO);
		return;
	}
	fuse_reply_buf(req, buf, len);
}

/*
 * Reply with a copy of len bytes of heap memory owned by the open file: a
 * release racing with the end of this reply (the kernel completes the read
 * inside writev, the reader may close at once) must not free what the reply
 * is still looking at (AddressSanitizer checks the iovec after writev).
 */
static void reply_copy(fuse_req_t req, const char *src, size_t len)
{
	char *buf = thread_buf(len);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	memcpy(buf, src, len);
	fuse_reply_buf(req, buf, len);
}

/*
 * Reply with len bytes at off of a generated text (info, symbols), made
 * from the view for this read: pinned by the open file (mapped handle) or
 * for the call; and of the open file's copy of the lines after it.
 */
static void reply_text(fuse_req_t req, struct ofile *of, uint64_t off, size_t len)
{
	struct bview *v = of->view;
	bool pin = !of->pinned && !v->inner; /* an inner file's handle is its memory */
	size_t head = off < of->textsize
	                      ? (size_t)(of->textsize - off < len ? of->textsize - off : len)
	                      : 0;
	char *buf = thread_buf(len);
	if (!buf) {
		fuse_reply_err(req, ENOMEM);
		return;
	}
	if (head < len) /* ofile_free may run once the reply is sent */
		memcpy(buf + head, of->tail + (off + head - of->textsize), len - head);
	if (head && pin && bincache_pin(v) < 0) {
		fuse_reply_err(req, EIO);
		return;
	}
	int ret = head ? textview_read(v, of->textk, off, buf, head) : 0;
	if (ret < 0)
		fuse_reply_err(req, -ret);
	else
		fuse_reply_buf(req, buf, len); /* of may be freed from here on */
	if (head && pin)
		bincache_release(v);
}

/* Reply with len bytes at pos of the source of view v, which the caller pins. */
static void reply_range(fuse_req_t req, struct bview *v, uint64_t pos, size_t len)
{
	pfelf_ref ref;
	int ret = v->f ? pfelf_get_ref(v->f, pos, len, &ref)
	               : pfelf_archive_get_ref(v->arch, pos, len, &ref); /* an archive's member */
	if (ret < 0 || (ref.ptr && view_changed(v, pos + len))) {
		fuse_reply_err(req, EIO);
		return;
	}
	if (!ref.ptr) {
		reply_pread(req, v, &ref, pos);
		return;
	}
	struct fuse_bufvec bv = FUSE_BUFVEC_INIT(len);
	bv.buf[0].mem = (void *)ref.ptr;
	fuse_reply_data(req, &bv, FUSE_BUF_NO_SPLICE); /* EFAULT: the reader got EIO */
}

void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
	struct ofile *of = (struct ofile *)(uintptr_t)fi->fh;
	if (of->pt.mode == PT_PASS) { /* the kernel never asks: its open was refused */
		fuse_reply_err(req, EIO);
		return;
	}
	if (off < 0 || (uint64_t)off >= of->len) {
		fuse_reply_buf(req, NULL, 0);
		return;
	}
	size_t len = of->len - (uint64_t)off < size ? (size_t)(of->len - (uint64_t)off) : size;
	if (of->generated) {
		reply_text(req, of, (uint64_t)off, len);
		return;
	}
	if (of->text || of->mem) {
		reply_copy(req, (of->text ? of->text : of->mem) + off, len);
		return;
	}
	/* Nothing may touch of once the reply is sent: the reader can close and
	 * release can free it before the reply returns. */
	struct bview *v = of->view;
	uint64_t pos = of->off + (uint64_t)off;
	if (of->pinned || v->inner) { /* inner: memory its view keeps, no pin needed */
		count_served(of, len);
		reply_range(req, v, pos, len);
		return;
	}
	if (bincache_pin(v) < 0) { /* this pin keeps v through the reply */
		fuse_reply_err(req, EIO);
		return;
	}
	reply_range(req, v, pos, len);
	bincache_release(v);
}

uint64_t op_read_dev(const struct fuse_file_info *fi)
{
	const struct ofile *of = (const struct ofile *)(uintptr_t)fi->fh;
	return of->view && !of->text && !of->mem ? of->view->id.dev : 0;
}

void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
	ofile_free((struct ofile *)(uintptr_t)fi->fh);
	fuse_reply_err(req, 0);
}
