/* The remote part of the .build-id directory (buildid_remote.h). */
#include "tree/buildid_remote.h"
#include "buildid/buildid_index.h"
#include "buildid/debuginfod.h"
#include "tree/check.h"
#include "node/kinds.h"
#include "text/xattrtab.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool bidrem_is_dir(const struct node *dir)
{
	return dir->kind == NK_BIDDIR && dir->aux == BIDREM_DIR_AUX;
}

bool bidrem_handles(const struct node *dir, const char *name)
{
	if (!dbgd_enabled())
		return false;
	return bidrem_is_dir(dir) || (dir->kind == NK_BIDROOT && strcmp(name, BIDREM_NAME) == 0);
}

bool bidrem_is_link(const struct node *n)
{
	return n->kind == NK_BIDLINK && (n->aux & BIDREM_LINK);
}

static int remote_dir(struct node *root, struct node **out)
{
	struct node *cand = node_new(NK_BIDDIR, BIDREM_NAME);
	if (!cand)
		return -ENOMEM;
	cand->aux = BIDREM_DIR_AUX;
	*out = node_attach(root, cand, check_reuse_inner);
	return 0;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "<hex>[.debug]" as an id; its length in bytes, or -ENOENT. */
static int parse_name(const char *name, uint8_t *id, bool *debug)
{
	size_t n = strlen(name);
	*debug = n > 6 && strcmp(name + n - 6, ".debug") == 0;
	size_t hex = *debug ? n - 6 : n;
	if (hex % 2 || hex / 2 < BID_MIN || hex / 2 > BID_MAX)
		return -ENOENT;
	for (size_t i = 0; i < hex / 2; i++) {
		int hi = hexval(name[2 * i]), lo = hexval(name[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return -ENOENT;
		id[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(hex / 2);
}

/* The view .remote/name: fetched (or known) and verified. */
static int remote_view(struct node *dir, const char *name, struct node **out)
{
	uint8_t id[BID_MAX];
	bool debug;
	int len = parse_name(name, id, &debug);
	if (len < 0)
		return len;
	int e = dbgd_fetch(id, (unsigned)len, debug);
	if (e < 0)
		return e;
	struct stat st;
	int ret = dbgd_entry_stat((uint32_t)e, &st);
	if (ret < 0)
		return ret;
	struct node *cand = node_new(NK_BIN, name);
	if (!cand)
		return -ENOMEM;
	node_stat_set(cand, &st);
	cand->src->checked_ns = elffs_now_ns();
	*out = node_attach(dir, cand, check_reuse_source);
	return 0;
}

int bidrem_lookup(struct node *dir, const char *name, struct node **out)
{
	return dir->kind == NK_BIDROOT ? remote_dir(dir, out) : remote_view(dir, name, out);
}

/* "../.remote/<name of entry e>/elf" into buf; its length or -errno. */
static int target_of(uint32_t e, char *buf, size_t size)
{
	char name[2 * BID_MAX + 8];
	int ret = dbgd_entry_name(e, name, sizeof(name));
	if (ret < 0)
		return ret;
	ret = snprintf(buf, size, "../" BIDREM_NAME "/%s/elf", name);
	return (size_t)ret < size ? ret : -ENAMETOOLONG;
}

int bidrem_lookup_link(struct node *dir, const char *name, const uint8_t *id, unsigned len,
                       bool debug, struct node **out)
{
	int e = dbgd_fetch(id, len, debug);
	return e < 0 ? e : bidrem_link_node(dir, name, (uint32_t)e, out);
}

int bidrem_link_node(struct node *dir, const char *name, uint32_t e, struct node **out)
{
	char target[2 * BID_MAX + 32];
	int tl = target_of(e, target, sizeof(target));
	if (tl < 0)
		return tl;
	struct node *cand = node_new(NK_BIDLINK, name);
	if (!cand)
		return -ENOMEM;
	cand->gen = 0;
	cand->size = (uint64_t)tl;
	cand->aux = BIDREM_LINK | e;
	*out = node_attach(dir, cand, check_reuse_inner);
	return 0;
}

ssize_t bidrem_readlink(const struct node *n, char *buf, size_t size)
{
	int ret = target_of((uint32_t)n->aux, buf, size);
	return ret == -ENAMETOOLONG ? -ERANGE : ret;
}

/* Whether entry e (or -errno) has its verified file still (or one that
 * passes the verification again): a lookup of it asks no server. */
static bool entry_holds(int e)
{
	struct stat st;
	return e >= 0 && dbgd_entry_stat((uint32_t)e, &st) == 0;
}

/* Whether name in the prefix directory of byte b is neither in the local
 * index nor verified already. */
static bool needs_fetch(unsigned b, const char *name)
{
	uint8_t id[BID_MAX];
	bool debug;
	char full[2 * BID_MAX + 8];
	if (snprintf(full, sizeof(full), "%02x%s", b & 0xffu, name) >= (int)sizeof(full))
		return false;
	int len = parse_name(full, id, &debug);
	if (len < 0 || entry_holds(dbgd_known(id, (unsigned)len, debug)))
		return false;
	char *buf = malloc(PATH_MAX);
	if (!buf)
		return false;
	uint32_t slot, serial;
	int ret = bidx_lookup(id, (unsigned)len, debug, buf, PATH_MAX, &slot, &serial);
	free(buf);
	return ret == -ENOENT;
}

uint64_t bidrem_lookup_dev(fuse_ino_t parent, const char *name)
{
	if (!dbgd_enabled())
		return 0;
	struct node *dir = node_get(parent);
	bool fetch = false;
	if (dir && bidrem_is_dir(dir))
		fetch = !entry_holds(dbgd_entry_of_name(name));
	else if (dir && dir->kind == NK_BIN) /* a binary's debug link may ask */
		fetch = strcmp(name, node_kind_name(NK_DEBUG)) == 0;
	else if (dir && dir->kind == NK_BIDDIR)
		fetch = needs_fetch((unsigned)dir->aux, name);
	node_put(dir);
	return fetch ? DBGD_STALL_DEV : 0;
}

#define STAT(member)                                                                               \
	XATTR_NUMBER("user.elffs.debuginfod." #member, XATTR_DEC, struct dbgd_stats, member)

static const struct xattr_field fields[] = {
        STAT(requests), STAT(hits), STAT(misses), STAT(errors), STAT(bytes), STAT(inflight),
};

static const struct xattr_table xattrs = XATTR_TABLE(fields);

int bidrem_getxattr(const char *name, char *buf)
{
	if (!dbgd_enabled())
		return -ENODATA;
	struct dbgd_stats s;
	dbgd_stats_get(&s);
	return xattr_table_value(&xattrs, &s, name, buf);
}

size_t bidrem_listxattr(char *buf, size_t size, size_t len)
{
	return dbgd_enabled() ? xattr_table_list(&xattrs, buf, size, len) : len;
}
