/* pfelf's Go tables of a core, their readers, and info's lines of them. */
#include "content/gotables.h"
#include "base/membudget.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- the Go tables */

/* What pfelf keeps for the Go tables of f and the readers a core keeps. */
static uint64_t tables_cost(pfelf_file *f)
{
	pfelf_go_cost g;
	if (pfelf_cost_go(f, &g) < 0)
		return 0;
	uint64_t reader = membudget_chunk(g.reader) + 2 * membudget_chunk(PFELF_GO_NAME_MAX + 1);
	return membudget_chunk(sizeof(struct goview)) + membudget_chunk(g.functions) +
	       membudget_chunk(g.files) + membudget_chunk(g.units) + membudget_chunk(g.buildinfo) +
	       GOVIEW_READERS * reader;
}

/* A transient error: not kept, the next call tries again. */
static bool transient(int err)
{
	return err == -EIO || err == -ENOMEM || err == -EFBIG;
}

static int new_state(struct vcore *c)
{
	if (c->gov)
		return 0;
	struct goview *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	pthread_mutex_init(&g->pool_lock, NULL);
	c->gov = g;
	return 0;
}

int goview_load(struct vcore *c)
{
	if (!c->is_go)
		return -ENOENT;
	int ret = new_state(c);
	if (ret < 0 || c->gov->loaded)
		return ret;
	struct goview *g = c->gov;
	const char *text;
	size_t len;
	g->table_err = pfelf_go_table_get(c->f, &g->t);
	g->info_err = pfelf_go_buildinfo(c->f, &text, &len);
	if (transient(g->table_err) || transient(g->info_err))
		return transient(g->table_err) ? g->table_err : g->info_err;
	if (g->table_err < 0 && g->table_err != -ENOENT)
		g->table_err = -EINVAL; /* a table that does not hold together */
	if (g->info_err < 0 && g->info_err != -ENOENT)
		g->info_err = -EINVAL;
	ret = view_charge(c, tables_cost(c->f));
	g->loaded = ret == 0;
	return ret;
}

int goview_get(struct bview *v, const struct goview **out)
{
	struct vcore *c = view_core(v);
	pthread_mutex_lock(&c->lazy_lock);
	bool was = c->gov && c->gov->loaded;
	int ret = goview_load(c);
	pthread_mutex_unlock(&c->lazy_lock);
	if (ret == 0 && !was) /* the table's pages read now: out of the resident set */
		view_drop_pages(c);
	*out = c->gov;
	return ret;
}

pfelf_go_reader *goview_reader(struct vcore *c)
{
	struct goview *g = c->gov;
	pfelf_go_reader *r = NULL;
	pthread_mutex_lock(&g->pool_lock);
	if (g->npool > 0)
		r = g->pool[--g->npool];
	pthread_mutex_unlock(&g->pool_lock);
	if (!r && pfelf_go_reader_open(c->f, &r) < 0)
		return NULL;
	return r;
}

void goview_reader_put(struct vcore *c, pfelf_go_reader *r)
{
	struct goview *g = c->gov;
	pthread_mutex_lock(&g->pool_lock);
	if (g->npool < GOVIEW_READERS) {
		g->pool[g->npool++] = r;
		r = NULL;
	}
	pthread_mutex_unlock(&g->pool_lock);
	pfelf_go_reader_close(r);
}

void goview_handle_gone(struct vcore *c)
{
	struct goview *g = c->gov;
	if (!g)
		return;
	pthread_mutex_lock(&g->pool_lock);
	while (g->npool > 0)
		pfelf_go_reader_close(g->pool[--g->npool]);
	pthread_mutex_unlock(&g->pool_lock);
}

void goview_free(struct vcore *c)
{
	if (!c->gov)
		return;
	goview_handle_gone(c);
	pthread_mutex_destroy(&c->gov->pool_lock);
	free(c->gov);
	c->gov = NULL;
}

/* ------------------------------------------------------------- info */

static const char *format_name(uint16_t version)
{
	switch (version) {
	case PFELF_GO_V12:
		return "1.2";
	case PFELF_GO_V116:
		return "1.16";
	case PFELF_GO_V118:
		return "1.18";
	default:
		return "1.20";
	}
}

int goview_info_plan(struct vcore *c, uint32_t *n)
{
	*n = 0;
	if (!c->is_go)
		return 0;
	int ret = goview_load(c);
	if (ret == -ENOMEM || ret == -EIO || !c->gov)
		return ret == 0 ? -ENOMEM : ret;
	c->gov->info_over = ret < 0; /* what the lines say from now on */
	*n = ret == 0 && c->gov->table_err == 0 ? 3 : 1;
	return 0;
}

void goview_info_line(const struct vcore *c, uint32_t j, struct linebuf *b)
{
	const struct goview *g = c->gov;
	if (g->info_over) {
		lb_printf(b, "go pclntab: over the memory budget");
		return;
	}
	const pfelf_go_table *t = &g->t;
	if (g->table_err < 0)
		lb_printf(b, "go pclntab: %s", g->table_err == -ENOENT ? "not found" : "malformed");
	else if (j == 0)
		lb_printf(b, "go functions: %" PRIu32, t->nfunc);
	else if (j == 1)
		lb_printf(b,
		          "go pclntab: %s, offset 0x%" PRIx64 ", %" PRIu64 " bytes, Go %s format "
		          "(magic 0x%08" PRIx32 ")",
		          pfelf_go_where_name(t->where), t->offset, t->size,
		          format_name(t->version), t->magic);
	else if (t->text_from == PFELF_GO_TEXT_ABSOLUTE)
		lb_printf(b, "go text start: none (%s are addresses)",
		          pfelf_go_text_name(t->text_from));
	else
		lb_printf(b, "go text start: 0x%" PRIx64 " (%s)", t->text,
		          pfelf_go_text_name(t->text_from));
}
