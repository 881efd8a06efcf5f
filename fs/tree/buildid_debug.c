/* The .debug links of binaries without a separate debug file (buildid_debug.h). */
#include "tree/buildid_debug.h"
#include "buildid/buildid_index.h"
#include "buildid/dbgfile.h"
#include "buildid/debugsel.h"
#include "node/namekey.h"
#include "source/source.h"
#include "tree/check.h"

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SLOT_MASK  0xffffffffULL
#define HASH_MASK  0x3fffffffULL
#define HASH_SHIFT 34

/* What one lookup needs: the binary's path, facts and the choice. */
struct fall {
	char path[PATH_MAX];
	struct dfacts f;
	struct dsel s;
};

/* The facts of the binary at path of SOURCE (read by its path). */
static int read_binary(const char *path, struct dfacts *f)
{
	const char *slash = strrchr(path, '/');
	char dir[PATH_MAX];
	size_t dlen = slash ? (size_t)(slash - path) : 0;
	memcpy(dir, path, dlen);
	dir[dlen] = '\0';
	int dfd = dbgf_open_dir(dir);
	if (dfd < 0)
		return -ENOENT;
	int fd = src_openat(dfd, slash ? slash + 1 : path, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	close(dfd);
	if (fd < 0)
		return -ENOENT;
	pfelf_file *h;
	int ret = pfelf_open_fd(fd, PFELF_OPEN_NOMMAP, &h);
	close(fd);
	if (ret < 0)
		return -ENOENT;
	ret = dsel_facts(h, path, false, f);
	if (ret == 0)
		dsel_go_look(h, f); /* go/debug only when its pclntab holds together */
	pfelf_close(h);
	return ret;
}

/*
 * The rest of the order for the binary the index has for id (its path,
 * slot and serial in x and *slot, *serial); the target from the index in
 * buf. Its length, -ENOENT, -ENOMEM.
 */
static int resolve(const uint8_t *id, unsigned len, struct fall *x, uint32_t *slot,
                   uint32_t *serial, char *buf, size_t size)
{
	int n = bidx_lookup(id, len, false, x->path, sizeof(x->path), slot, serial);
	if (n <= 10)
		return n < 0 && n != -ENAMETOOLONG ? n : -ENOENT;
	memmove(x->path, x->path + 6, (size_t)n - 10); /* "../../<path>/elf" */
	x->path[n - 10] = '\0';
	int ret = read_binary(x->path, &x->f);
	if (ret == 0)
		ret = dsel_resolve(&x->f, true, DS_DEBUGLINK, &x->s);
	return ret < 0 ? ret : dsel_target(&x->s, &x->f, true, buf, size);
}

int biddbg_lookup(struct node *dir, const char *name, const uint8_t *id, unsigned len,
                  struct node **out)
{
	struct fall *x = malloc(sizeof(*x));
	char *target = malloc(PATH_MAX);
	uint32_t slot, serial;
	int n = x && target ? resolve(id, len, x, &slot, &serial, target, PATH_MAX) : -ENOMEM;
	struct node *cand = n >= 0 ? node_new(NK_BIDLINK, name) : NULL;
	if (cand) {
		cand->gen = serial;
		cand->size = (uint64_t)n;
		cand->aux = BIDDBG_LINK | (name_key(target) & HASH_MASK) << HASH_SHIFT | slot;
		*out = node_attach(dir, cand, check_reuse_inner);
	}
	free(x);
	free(target);
	return n < 0 ? n : cand ? 0 : -ENOMEM;
}

bool biddbg_is_link(const struct node *n)
{
	return n->kind == NK_BIDLINK && (n->aux & BIDDBG_LINK);
}

ssize_t biddbg_readlink(const struct node *n, char *buf, size_t size, char *src)
{
	struct fall *x = malloc(sizeof(*x));
	if (!x)
		return -ENOMEM;
	int ret = bidx_target((uint32_t)(n->aux & SLOT_MASK), (uint32_t)n->gen, x->path,
	                      sizeof(x->path));
	int len = ret > 10 ? 0 : -ENOENT;
	if (len == 0) {
		memmove(x->path, x->path + 6, (size_t)ret - 10);
		x->path[ret - 10] = '\0';
		len = read_binary(x->path, &x->f);
	}
	if (len == 0)
		len = dsel_resolve(&x->f, true, DS_DEBUGLINK, &x->s);
	if (len == 0)
		len = dsel_target(&x->s, &x->f, true, buf, size);
	if (len >= 0 && ((uint64_t)len != n->size ||
	                 (name_key(buf) & HASH_MASK) != (n->aux >> HASH_SHIFT & HASH_MASK)))
		len = -ENOENT; /* it leads elsewhere now: looked up again */
	if (len >= 0) {        /* the debug link's file, else the binary (minidebuginfo.debug) */
		const char *file = dsel_source_file(&x->s);
		snprintf(src, PATH_MAX, "%s", file ? file : x->path);
	}
	free(x);
	return len == -ENAMETOOLONG ? -ERANGE : len;
}
