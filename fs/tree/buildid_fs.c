/* The .build-id directory of the mount (buildid_fs.h). */
#include "tree/buildid_fs.h"
#include "tree/buildid_remote.h"
#include "tree/buildid_debug.h"
#include "buildid/buildid_index.h"
#include "buildid/debugsel.h"
#include "buildid/debuginfod.h"
#include "tree/check.h"
#include "base/log.h"
#include "text/xattrtab.h"
#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static atomic_bool hidden_logged;

static void log_hidden(void)
{
	if (!atomic_exchange(&hidden_logged, true))
		elog(LOG_NOTICE,
		     "SOURCE has an entry named %s in its root: the build-id index is not shown "
		     "(-o buildid=NAME gives the index another name)",
		     elffs.buildid);
}

/* Whether SOURCE's root has an entry of the index's name, of any kind: one
 * the view leaves out (a file that is not ELF, a FIFO, ...) hides the index
 * as well as a directory does (SPEC 6). */
static bool source_has_name(void)
{
	struct stat st;
	if (src_statat(elffs.srcfd, elffs.buildid, &st) == -ENOENT)
		return false;
	log_hidden();
	return true;
}

bool bidfs_is_name(const struct node *dir, const char *name)
{
	return elffs.buildid && dir->kind == NK_DIR && !dir->parent &&
	       strcmp(name, elffs.buildid) == 0 && !source_has_name();
}

static struct node *index_node(struct node *parent, enum node_kind kind, const char *name,
                               uint64_t gen, uint64_t size, uint64_t aux)
{
	struct node *cand = node_new(kind, name);
	if (!cand)
		return NULL;
	cand->gen = gen;
	cand->size = size;
	cand->aux = aux;
	return node_attach(parent, cand, check_reuse_inner);
}

int bidfs_lookup_root(struct node *root, struct node **out)
{
	*out = index_node(root, NK_BIDROOT, elffs.buildid, 0, 0, 0);
	return *out ? 0 : -ENOMEM;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* Lowercase hex of 2 * n digits into n bytes; false when not that. */
static bool unhex(const char *s, size_t n, uint8_t *out)
{
	for (size_t i = 0; i < n; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if (hi < 0 || lo < 0)
			return false;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

static int lookup_prefix(struct node *dir, const char *name, struct node **out)
{
	uint8_t b;
	bool have[256];
	if (strlen(name) != 2 || !unhex(name, 1, &b))
		return -ENOENT;
	int ret = bidx_prefixes(have);
	if (ret < 0)
		return ret;
	if (!have[b] && !dbgd_enabled()) /* with servers, any <xx>/ may have ids */
		return -ENOENT;
	*out = index_node(dir, NK_BIDDIR, name, 0, 0, b);
	return *out ? 0 : -ENOMEM;
}

/* <rest>.debug: the order of a binary's debug information (debugsel.h),
 * the index's and the servers' debug files first, then, for the binary
 * with that id, what else it has (buildid_debug.h). */
static int lookup_debug(struct node *dir, const char *name, const uint8_t *id, unsigned len,
                        struct node **out)
{
	struct dfacts f;
	struct dsel *s = malloc(sizeof(*s));
	char *buf = malloc(PATH_MAX);
	dsel_facts_of_id(id, len, &f);
	int ret = s && buf ? dsel_resolve(&f, true, DS_BUILDID, s) : -ENOMEM;
	if (ret == 0 && s->pick == DS_BUILDID) {
		ret = dsel_target(s, &f, true, buf, PATH_MAX);
		*out = ret < 0 ? NULL
		               : index_node(dir, NK_BIDLINK, name, s->serial, (uint64_t)ret,
		                            s->slot);
		ret = ret < 0 ? -ENOENT : *out ? 0 : -ENOMEM;
	} else if (ret == 0 && s->pick == DS_DEBUGINFOD) {
		ret = bidrem_link_node(dir, name, s->entry, out);
	} else if (ret == 0) {
		ret = biddbg_lookup(dir, name, id, len, out);
		if (ret == -ENOENT && s->fetch_err) /* nothing else: the servers' failure */
			ret = s->fetch_err;
	}
	free(s);
	free(buf);
	return ret;
}

static int lookup_link(struct node *dir, const char *name, struct node **out)
{
	size_t len = strlen(name);
	bool debug = len > 6 && strcmp(name + len - 6, ".debug") == 0;
	size_t hex = debug ? len - 6 : len;
	uint8_t id[BID_MAX];
	id[0] = (uint8_t)dir->aux;
	if (hex % 2 || hex / 2 + 1 < BID_MIN || hex / 2 + 1 > BID_MAX ||
	    !unhex(name, hex / 2, id + 1))
		return -ENOENT;
	if (debug)
		return lookup_debug(dir, name, id, (unsigned)(hex / 2 + 1), out);
	char *buf = malloc(PATH_MAX);
	if (!buf)
		return -ENOMEM;
	uint32_t slot, serial;
	int ret = bidx_lookup(id, (unsigned)(hex / 2 + 1), debug, buf, PATH_MAX, &slot, &serial);
	free(buf);
	if (ret == -ENAMETOOLONG)
		ret = -ENOENT;                /* no link can hold that path */
	if (ret == -ENOENT && dbgd_enabled()) /* SOURCE has not: the servers may */
		return bidrem_lookup_link(dir, name, id, (unsigned)(hex / 2 + 1), debug, out);
	if (ret < 0)
		return ret;
	*out = index_node(dir, NK_BIDLINK, name, serial, (uint64_t)ret, slot);
	return *out ? 0 : -ENOMEM;
}

int bidfs_lookup(struct node *dir, const char *name, struct node **out)
{
	if (bidrem_handles(dir, name))
		return bidrem_lookup(dir, name, out);
	return dir->kind == NK_BIDROOT  ? lookup_prefix(dir, name, out)
	       : dir->kind == NK_BIDDIR ? lookup_link(dir, name, out)
	                                : -ENOTDIR;
}

int bidfs_list(struct node *dir, struct dsnap *s)
{
	if (bidrem_is_dir(dir)) /* views are looked up by name */
		return 0;
	if (dir->kind == NK_BIDDIR) {
		char **names = NULL;
		size_t n = 0;
		int ret = bidx_names((uint8_t)dir->aux, &names, &n);
		for (size_t i = 0; i < n; i++) { /* into the snapshot's arena */
			if (ret == 0)
				ret = dsnap_add(s, names[i], DT_LNK, 0, NULL);
			free(names[i]);
		}
		free(names);
		return ret;
	}
	bool have[256];
	int ret = bidx_prefixes(have);
	for (unsigned b = 0; ret == 0 && b < 256; b++) {
		char name[4]; /* a byte as two hex digits */
		snprintf(name, sizeof(name), "%02x", b & 0xffu);
		if (have[b])
			ret = dsnap_add(s, name, DT_DIR, 0, NULL);
	}
	return ret;
}

int bidfs_list_root(struct dsnap *s)
{
	if (!elffs.buildid)
		return 0;
	if (dsnap_has(s, elffs.buildid)) {
		log_hidden();
		return 0;
	}
	if (source_has_name()) /* one the listing leaves out */
		return 0;
	return dsnap_add(s, elffs.buildid, DT_DIR, 0, NULL);
}

ssize_t bidfs_readlink(struct node *n, char *buf, size_t size, char *src)
{
	if (bidrem_is_link(n))
		return bidrem_readlink(n, buf, size);
	if (biddbg_is_link(n))
		return biddbg_readlink(n, buf, size, src);
	return bidx_target((uint32_t)n->aux, (uint32_t)n->gen, buf, size);
}

static int index_state(const void *obj, char *buf)
{
	static const char *const states[] = {"idle", "walking", "done"};
	const struct bidx_stats *s = obj;
	return snprintf(buf, XATTR_VALUE_MAX, "%s", states[s->state]);
}

static int walk_ms(const void *obj, char *buf)
{
	const struct bidx_stats *s = obj;
	return snprintf(buf, XATTR_VALUE_MAX, "%" PRIu64, s->walk_ns / 1000000);
}

#define STAT(member) XATTR_NUMBER("user.elffs." #member, XATTR_DEC, struct bidx_stats, member)

static const struct xattr_field index_fields[] = {
        XATTR_WRITTEN("user.elffs.state", index_state),
        STAT(files),
        STAT(indexed),
        STAT(debug),
        STAT(leftout),
        STAT(errors),
        STAT(preads),
        STAT(dirs),
        STAT(bytes),
        XATTR_WRITTEN("user.elffs.walk_ms", walk_ms),
        STAT(refreshes),
        STAT(stalled),
};

static const struct xattr_table index_xattrs = XATTR_TABLE(index_fields);

int bidfs_getxattr(const struct node *n, const char *name, char *buf)
{
	if (n->kind != NK_BIDROOT)
		return -ENODATA;
	struct bidx_stats s;
	bidx_stats_get(&s);
	int ret = xattr_table_value(&index_xattrs, &s, name, buf);
	return ret == -ENODATA ? bidrem_getxattr(name, buf) : ret;
}

size_t bidfs_listxattr(int kind, char *buf, size_t size)
{
	if (kind != NK_BIDROOT)
		return 0;
	return bidrem_listxattr(buf, size, xattr_table_list(&index_xattrs, buf, size, 0));
}
