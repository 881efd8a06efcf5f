/*
 * lookup: find or create the node for a name. In a SOURCE directory it
 * takes an lstat and, for a regular file, the ELF magic; inside a binary
 * it parses the binary (once per generation, through the binary cache).
 */
#include "ops.h"
#include "attr.h"
#include "bincache.h"
#include "check.h"
#include "lookup.h"
#include "meta.h"
#include "probe.h"
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The kind and lstat of entry name of SOURCE directory dir. */
static int classify(struct node *dir, const char *name, struct stat *st)
{
	int fd = dir->parent ? src_open_dir(dir, O_PATH) : elffs.srcfd;
	int ret = fd < 0 ? fd : src_statat(fd, name, st); /* -ELOOP: our own mount */
	if (ret == 0)
		ret = probe_classify(fd, name, st);
	if (fd >= 0 && fd != elffs.srcfd)
		close(fd);
	if (ret == -EMFILE || ret == -ENFILE) /* even after giving back idle ones */
		return -EIO;
	if (fd < 0) /* the directory itself is gone or is something else now */
		return fd == -ENOMEM ? fd : -ENOENT;
	return ret == -EACCES || ret == -ENOTDIR || ret == -ELOOP ? -ENOENT : ret;
}

static int lookup_source(struct node *dir, const char *name, struct node **out)
{
	struct stat st;
	int kind = classify(dir, name, &st);
	if (kind < 0)
		return kind;
	struct node *cand = node_new((enum node_kind)kind, name);
	if (!cand)
		return -ENOMEM;
	node_stat_set(cand, &st);
	cand->src->checked_ns = elffs_now_ns();
	*out = node_attach(dir, cand, check_reuse_source);
	return 0;
}

struct node *inner_new(const struct bview *v, enum node_kind kind, const char *name, uint64_t size,
                       uint64_t aux)
{
	struct node *cand = node_new(kind, name);
	if (cand) {
		cand->gen = v->gen;
		cand->size = size;
		cand->aux = aux;
	}
	return cand;
}

struct node *inner_node(struct node *parent, const struct bview *v, enum node_kind kind,
                        const char *name, uint64_t size, uint64_t aux)
{
	struct node *cand = inner_new(v, kind, name, size, aux);
	return cand ? node_attach(parent, cand, check_reuse_inner) : NULL;
}

static struct node *bin_child(struct node *bin, struct bview *v, const char *name)
{
	if (strcmp(name, "sections") == 0)
		return inner_node(bin, v, NK_SECTIONS, name, v->nsec ? v->nsec - 1 : 0, 0);
	if (strcmp(name, "segments") == 0)
		return inner_node(bin, v, NK_SEGMENTS, name, v->nseg, 0);
	if (meta_is_bin_child(name))
		return meta_bin_child(bin, v, name);
	if (strcmp(name, "header") == 0) {
		uint64_t off, len;
		view_header_range(v, &off, &len);
		return inner_node(bin, v, NK_HEADER, name, len, off);
	}
	return meta_bin_child(bin, v, name); /* info: a generated text, like symbols */
}

static struct node *section_child(struct node *dir, const struct bview *v, const char *name)
{
	int i = view_find_section(v, name);
	const pfelf_shdr *sh;
	if (i < 0 || pfelf_section(v->f, (uint32_t)i, &sh) < 0) {
		errno = ENOENT;
		return NULL;
	}
	uint64_t off, len;
	view_section_range(sh, &off, &len);
	struct node *cand = inner_new(v, NK_SECTION, name, len, (uint64_t)i);
	pfelf_chdr ch;
	errno = ENOMEM;
	if (!cand)
		return NULL;
	cand->compressed = meta_compressed(v, (uint32_t)i, &ch);
	return node_attach(dir, cand, check_reuse_inner);
}

static struct node *segment_child(struct node *dir, const struct bview *v, const char *name)
{
	int i = view_find_segment(v, name);
	const pfelf_phdr *ph;
	if (i < 0 || pfelf_segment(v->f, (uint32_t)i, &ph) < 0) {
		errno = ENOENT;
		return NULL;
	}
	uint64_t off, len;
	view_segment_range(ph, &off, &len);
	errno = ENOMEM;
	return inner_node(dir, v, NK_SEGMENT, name, len, (uint64_t)i);
}

static bool is_bin_child(const char *name)
{
	return strcmp(name, "info") == 0 || strcmp(name, "header") == 0 ||
	       strcmp(name, "sections") == 0 || strcmp(name, "segments") == 0 ||
	       meta_is_bin_child(name);
}

/*
 * Lookup inside a binary: in its root, sections/ or segments/, always in
 * the binary's current view (a directory node of an older generation the
 * kernel still holds gets children of the current one).
 */
static int lookup_view(struct node *dir, const char *name, struct node **out)
{
	if (dir->kind == NK_BIN && !is_bin_child(name))
		return -ENOENT;
	struct bview *v;
	int ret = check_current_view(node_broot(dir), &v);
	if (ret < 0)
		return ret;
	errno = ENOMEM;
	if (dir->kind == NK_BIN)
		*out = bin_child(dir, v, name);
	else if (dir->kind == NK_SECTIONS)
		*out = section_child(dir, v, name);
	else if (dir->kind == NK_SEGMENTS)
		*out = segment_child(dir, v, name);
	else
		*out = meta_child(dir, v, name);
	ret = *out ? 0 : -errno;
	bincache_release(v);
	return ret;
}

static int lookup_in(struct node *dir, const char *name, struct node **out)
{
	if (strlen(name) > NAME_MAX)
		return -ENAMETOOLONG;
	if (!node_is_dir(dir))
		return -ENOTDIR;
	/* A directory of SOURCE is looked into by its path even when its node
	 * went stale (what is there now answers); inside a binary, by the
	 * binary's current view unless the binary is gone. */
	int ret = check_node(dir);
	if (ret == -ENOENT && dir->kind != NK_DIR)
		return ret;
	return dir->kind == NK_DIR ? lookup_source(dir, name, out) : lookup_view(dir, name, out);
}

void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
	struct node *dir = node_get(parent);
	struct node *n = NULL;
	int ret = dir ? lookup_in(dir, name, &n) : -ESTALE;
	node_put(dir);
	if (ret < 0) {
		fuse_reply_err(req, -ret);
		return;
	}
	struct fuse_entry_param e = {.ino = n->ino};
	attr_of(n, &e.attr);
	e.attr_timeout = elffs.timeout;
	e.entry_timeout = elffs.timeout;
	if (fuse_reply_entry(req, &e) != 0)
		node_forget(n->ino, 1); /* the kernel did not get it */
}
