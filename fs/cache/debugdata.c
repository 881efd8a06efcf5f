/*
 * The MiniDebugInfo view of a binary (debugdata.h): decompressed into the
 * decompressed cache outside any lock, parsed as a core of its own, kept
 * by the binary's core.
 */
#include "cache/debugdata.h"
#include "cache/core.h"
#include "cache/dcache.h"

#include <errno.h>
#include <stdio.h>

/* A new core of the inner file of pinned alias a, holding the decompressed
 * bytes (*hold, the caller's to release once the core is freed). */
static int inner_build(struct bview *a, struct vcore **out, struct dentry_data **hold)
{
	uint32_t index;
	pfelf_chdr ch;
	const char *data;
	pfelf_file *f;
	char label[64];
	if (pfelf_gnu_debugdata(a->f, &index, &ch) < 0 || index != a->ddata)
		return -EIO;
	int ret = dcache_get(a, index, ch.size, &data, hold);
	if (ret < 0)
		return ret;
	ret = pfelf_open_memory(data, (size_t)ch.size, 0, &f);
	if (ret == 0) {
		snprintf(label, sizeof(label), "%s(gnu_debugdata)", view_core(a)->label);
		ret = core_build(f, label, out);
		if (ret < 0)
			pfelf_close(f);
	} else if (ret != -ENOMEM) {
		ret = -EIO; /* the inner file's header is refused */
	}
	if (ret < 0) {
		dcache_release(*hold);
		return ret;
	}
	(*out)->id = a->id;
	(*out)->inner = true;
	return 0;
}

/* The inner core of core c with one more user: the one c keeps, or m
 * (new, with its bytes held by hold) made c's. The one not kept is freed. */
static struct vcore *adopt(struct vcore *c, struct vcore *m, struct dentry_data *hold)
{
	pthread_mutex_lock(&c->lazy_lock);
	struct vcore *keep = c->ddcore;
	if (!keep && m) {
		c->ddcore = keep = m;
		c->ddhold = hold;
		m = NULL;
	}
	if (keep)
		keep->refs++;
	pthread_mutex_unlock(&c->lazy_lock);
	if (m) { /* another caller built it first */
		core_free(m);
		dcache_release(hold);
	}
	return keep;
}

int ddview_get(struct bview *a, struct bview **out)
{
	struct vcore *c = view_core(a);
	if (!a->ddata || a->outer || !a->f)
		return -ENOENT;
	struct vcore *m = adopt(c, NULL, NULL);
	if (!m) { /* built outside the lazy lock: decoding may take a while */
		struct dentry_data *hold = NULL;
		int ret = inner_build(a, &m, &hold);
		if (ret < 0)
			return ret;
		m = adopt(c, m, hold);
	}
	struct bview *ma = view_alias(m, a->gen, a->root);
	if (!ma) {
		pthread_mutex_lock(&c->lazy_lock);
		m->refs--;
		pthread_mutex_unlock(&c->lazy_lock);
		return -ENOMEM;
	}
	ma->outer = a;
	ma->f = m->f; /* open as long as m is */
	ma->refs = 1;
	*out = ma;
	return 0;
}

void ddview_put(struct bview *ma)
{
	struct vcore *c = view_core(ma->outer);
	pthread_mutex_lock(&c->lazy_lock);
	view_core(ma)->refs--; /* idle: kept until c goes */
	pthread_mutex_unlock(&c->lazy_lock);
	view_free(ma);
}
