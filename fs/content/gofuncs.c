/*
 * go/functions: one line per function of the pclntab, in entry order,
 * "<entry>\t<end>\t<name>\t<file>:<line>" (the position of the entry, as
 * debug/gosym's PCToLine(Entry) gives it), addresses in hex zero-padded
 * to the class's width as readelf prints them. Names and file names are
 * fields (textline.h): control characters as ^X (fb_add_shown, as in
 * `symbols`), cut at TEXT_FIELD_MAX bytes. Made line by line (textview.h)
 * through a reader lent by the core (gotables.h).
 */
#include "content/gotables.h"
#include "text/textline.h"

#include <errno.h>
#include <inttypes.h>

static void put_field(struct linebuf *b, const char *s)
{
	struct fieldbuf x;
	x.shown = x.full = 0;
	fb_add_shown(&x, s);
	lb_fieldbuf(b, &x);
}

static int func_line(void *ctx, uint64_t i, char *buf)
{
	struct vcore *c = ctx;
	pfelf_go_reader *r = i <= UINT32_MAX ? goview_reader(c) : NULL;
	if (!r)
		return -EIO;
	pfelf_go_func fn;
	pfelf_go_pos pos;
	int ret = pfelf_go_func_get(r, (uint32_t)i, &fn, &pos);
	if (ret == 0) {
		int w = c->eh.elfclass == 2 ? 16 : 8;
		struct linebuf b = {buf, 0};
		lb_printf(&b, "%0*" PRIx64 "\t%0*" PRIx64 "\t", w, fn.entry, w, fn.end);
		put_field(&b, fn.name.str);
		lb_printf(&b, "\t");
		put_field(&b, pos.file.str);
		lb_printf(&b, ":%" PRId32, pos.line);
		ret = lb_end(&b);
	}
	goview_reader_put(c, r);
	return ret == -ENOMEM || ret >= 0 ? ret : -EIO;
}

int gofuncs_prepare(struct vcore *c, struct textgen *g)
{
	int ret = goview_load(c);
	if (ret == 0 && c->gov->table_err < 0)
		ret = -EIO;
	g->nlines = ret == 0 ? c->gov->t.nfunc : 0;
	g->line = func_line;
	g->ctx = c;
	return ret;
}
