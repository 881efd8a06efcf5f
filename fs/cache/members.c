/*
 * The views of an archive's ELF members (arview.h): built on first use
 * into the archive's core, handed out as aliases that stand for the
 * caller's references on the archive's alias, kept idle up to
 * AR_IDLE_MEMBERS, freed with the archive's core.
 */
#include "cache/members.h"
#include "cache/core.h"
#include "content/arview.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static void arview_member_put_locked(struct vcore *c, struct vcore *m);

/* Free idle member view m of core c (c's lazy_lock held). */
static void member_drop(struct vcore *c, struct vcore *m)
{
	struct arview *ar = c->ar;
	TAILQ_REMOVE(&ar->idle, m, lru);
	ar->nidle--;
	ar->mcore[m->member] = NULL;
	core_free(m);
}

/* Free the idle member views of core c but the `keep` most recently used
 * ones (c's lazy_lock held); whether one was freed. */
static bool members_trim(struct vcore *c, uint32_t keep)
{
	struct arview *ar = c->ar;
	bool freed = false;
	while (ar->nidle > keep) {
		member_drop(c, TAILQ_FIRST(&ar->idle));
		freed = true;
	}
	return freed;
}

/* Build the view of ELF member i of core c (c's lazy_lock held, its handle
 * open through the caller's pin); when the memory budget has no room, the
 * idle member views go first. */
static int member_build(struct vcore *c, uint32_t i, struct vcore **out)
{
	pfelf_ar_member m;
	pfelf_file *f;
	char label[64];
	int ret = pfelf_archive_member(c->arch, i, &m);
	if (ret == 0)
		ret = pfelf_archive_open_member(c->arch, i, 0, &f);
	if (ret < 0)
		return ret == -ENOMEM ? ret : -EIO;
	snprintf(label, sizeof(label), "%s(%s)", c->label, c->ar->name[i]);
	ret = core_build(f, label, out);
	if (ret == -ENOMEM && members_trim(c, 0))
		ret = core_build(f, label, out);
	if (ret < 0) {
		pfelf_close(f);
		return ret;
	}
	(*out)->id = c->id;
	(*out)->base = m.offset;
	(*out)->member = i;
	return 0;
}

/* The view of ELF member i of core c with one more user (c's lazy_lock held). */
static int member_get(struct vcore *c, uint32_t i, struct vcore **out)
{
	struct arview *ar = c->ar;
	if (!ar->mcore) {
		ar->mcore = calloc(ar->n, sizeof(*ar->mcore));
		if (!ar->mcore)
			return -ENOMEM;
	}
	struct vcore *m = ar->mcore[i];
	if (!m) {
		int ret = member_build(c, i, &m);
		if (ret < 0)
			return ret;
		ar->mcore[i] = m;
	} else if (m->refs == 0) {
		TAILQ_REMOVE(&ar->idle, m, lru);
		ar->nidle--;
	}
	m->refs++;
	*out = m;
	return 0;
}

int arview_member(struct bview *a, uint32_t index, struct bview **out)
{
	struct vcore *c = view_core(a);
	if (!c->ar || index >= c->ar->n || c->ar->kind[index] != AR_ELF)
		return -ENOENT;
	pthread_mutex_lock(&c->lazy_lock);
	struct vcore *m = NULL;
	int ret = member_get(c, index, &m);
	struct bview *ma = ret == 0 ? view_alias(m, a->gen, a->root) : NULL;
	if (ma) {
		ma->outer = a;
		ma->f = m->f; /* open as long as m is */
		ma->refs = 1;
	} else if (ret == 0) {
		arview_member_put_locked(c, m);
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&c->lazy_lock);
	*out = ma;
	return ret;
}

static void arview_member_put_locked(struct vcore *c, struct vcore *m)
{
	struct arview *ar = c->ar;
	if (--m->refs > 0)
		return;
	TAILQ_INSERT_TAIL(&ar->idle, m, lru);
	ar->nidle++;
	members_trim(c, AR_IDLE_MEMBERS);
}

void arview_member_put(struct bview *ma)
{
	struct vcore *c = view_core(ma->outer);
	pthread_mutex_lock(&c->lazy_lock);
	arview_member_put_locked(c, view_core(ma));
	pthread_mutex_unlock(&c->lazy_lock);
	view_free(ma);
}
