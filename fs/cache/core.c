/* A core's whole lifecycle: build, content, free. */
#include "cache/core.h"
#include "cache/dcache.h"
#include "content/arview.h"
#include "content/entries.h"
#include "content/gotables.h"
#include "content/symview.h"
#include "content/textview.h"
#include "source/source.h"

#include <errno.h>

/* The state of the lazy content of new core c: texts and symbol views. */
static int lazy_init(struct vcore *c)
{
	int ret = textview_init(c);
	return ret < 0 ? ret : symview_init(c);
}

int core_build(pfelf_file *f, const char *what, struct vcore **out)
{
	struct vcore *v;
	int ret = view_parse(f, what, &v);
	if (ret < 0)
		return ret;
	ret = lazy_init(v);
	if (ret == 0)
		ret = entries_build(v);
	uint64_t cost = ret == 0 ? view_cost(v) : 0;
	if (ret == 0 && cost > v->cost)
		ret = view_charge(v, cost - v->cost);
	if (ret < 0) {
		v->f = NULL; /* the caller keeps f on failure */
		core_free(v);
		return ret;
	}
	view_drop_pages(v);
	*out = v;
	return 0;
}

int core_build_archive(pfelf_archive *a, const char *what, struct vcore **out)
{
	struct vcore *v;
	int ret = arview_build(a, what, &v);
	if (ret < 0)
		return ret;
	ret = lazy_init(v);
	if (ret < 0) {
		v->arch = NULL; /* the caller keeps a on failure */
		core_free(v);
		return ret;
	}
	*out = v;
	return 0;
}

/* Free the member views of archive core c (none for other cores). */
static void members_free(struct vcore *c)
{
	struct arview *ar = c->ar;
	for (uint32_t i = 0; ar && ar->mcore && i < ar->n; i++) {
		core_free(ar->mcore[i]);
		ar->mcore[i] = NULL;
	}
}

void core_free(struct vcore *c)
{
	if (!c)
		return;
	members_free(c);
	core_free(c->ddcore); /* its handle reads ddhold's bytes: first */
	dcache_release(c->ddhold);
	arview_free(c);
	entries_free(c);
	goview_free(c);
	symview_free(c);
	textview_free(c);
	dcache_forget(c->serial);
	src_handle_free(c->fh);
	c->fh = NULL;
	vcore_free(c);
}
