/* The debug-file writer's life (new, free, peak) and what callers add to
 * it: compile units, the file names of their line tables, functions. */
#include "write/dbgw_i.h"

#include <stdlib.h>
#include <string.h>

PFELF_API int pfelf_dbgw_new(const pfelf_ehdr *target, uint64_t max_bytes, pfelf_dbgw **out)
{
	*out = NULL;
	if (!target || (target->elfclass != ELFCLASS32 && target->elfclass != ELFCLASS64) ||
	    (target->data != ELFDATA2LSB && target->data != ELFDATA2MSB))
		return -EINVAL;
	if (max_bytes < sizeof(pfelf_dbgw))
		return -EFBIG;
	pfelf_dbgw *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->t = *target;
	w->is64 = target->elfclass == ELFCLASS64;
	w->msb = target->data == ELFDATA2MSB;
	w->asize = w->is64 ? 8 : 4;
	w->max = max_bytes;
	dbgw_charge(w, sizeof(*w));
	w->units.elem = sizeof(struct dbgw_unit);
	w->files.elem = sizeof(struct dbgw_file);
	w->funcs.elem = sizeof(struct dbgw_func);
	w->secs.elem = sizeof(struct dbgw_sec);
	w->segs.elem = sizeof(struct dbgw_seg);
	w->spans.elem = sizeof(struct dbgw_span);
	dbgw_pool_init(&w->names, w);
	dbgw_pool_init(&w->fnames, w);
	dbgw_buf_init(&w->shnames, w, DBGW_GROW);
	dbgw_u8(&w->shnames, 0);
	dbgw_buf_init(&w->lines, w, DBGW_GROW);
	dbgw_buf_init(&w->note, w, DBGW_GROW);
	dbgw_arr_push(w, &w->secs); /* section 0, SHT_NULL */
	if (w->err) {
		int err = w->err;
		pfelf_dbgw_free(w);
		return err;
	}
	*out = w;
	return 0;
}

void dbgw_release_all(pfelf_dbgw *w)
{
	dbgw_order_free(w);
	dbgw_pool_free(&w->names);
	dbgw_pool_free(&w->fnames);
	dbgw_buf_free(&w->shnames);
	dbgw_buf_free(&w->lines);
	dbgw_buf_free(&w->note);
	dbgw_arr_free(w, &w->units);
	dbgw_arr_free(w, &w->files);
	dbgw_arr_free(w, &w->funcs);
	dbgw_arr_free(w, &w->secs);
	dbgw_arr_free(w, &w->segs);
}

PFELF_API void pfelf_dbgw_free(pfelf_dbgw *w)
{
	if (!w)
		return;
	dbgw_release_all(w);
	free(w);
}

PFELF_API uint64_t pfelf_dbgw_peak(const pfelf_dbgw *w)
{
	return w ? w->peak : 0;
}

PFELF_API int pfelf_dbgw_unit(pfelf_dbgw *w, const char *name, size_t namelen, uint16_t lang,
                              uint32_t *unit)
{
	int ret = dbgw_usable(w);
	if (ret < 0)
		return ret;
	if ((!name && namelen) || w->units.n >= DBGW_MAX_IDS)
		return -EINVAL;
	uint32_t off;
	if (dbgw_pool_add(&w->names, name, namelen, &off) < 0)
		return w->err;
	struct dbgw_unit *u = dbgw_arr_push(w, &w->units);
	if (!u)
		return w->err;
	u->name = off;
	u->lang = lang;
	*unit = (uint32_t)(w->units.n - 1);
	return 0;
}

PFELF_API int pfelf_dbgw_file(pfelf_dbgw *w, uint32_t unit, const char *name, size_t namelen,
                              uint32_t *file)
{
	int ret = dbgw_usable(w);
	if (ret < 0)
		return ret;
	if (unit >= w->units.n || (!name && namelen) || w->files.n >= DBGW_MAX_IDS)
		return -EINVAL;
	if (namelen == 0) { /* "" would end DWARF 4's list of file names */
		name = DBGW_NO_FILE;
		namelen = sizeof(DBGW_NO_FILE) - 1;
	}
	uint32_t off;
	if (dbgw_pool_add(&w->fnames, name, namelen, &off) < 0)
		return w->err;
	struct dbgw_file *f = dbgw_arr_push(w, &w->files);
	if (!f)
		return w->err;
	struct dbgw_unit *u = dbgw_unit_at(w, unit);
	f->unit = unit;
	f->name = off;
	f->idx = ++u->nfiles;
	*file = (uint32_t)(w->files.n - 1);
	return 0;
}

PFELF_API int pfelf_dbgw_func(pfelf_dbgw *w, uint32_t unit, uint64_t lo, uint64_t hi,
                              const char *name, size_t namelen, unsigned flags)
{
	int ret = dbgw_usable(w);
	if (ret < 0)
		return ret;
	if (unit >= w->units.n || hi < lo || (!w->is64 && hi > UINT32_MAX) ||
	    flags > PFELF_DBGW_WEAK || (!name && namelen) || w->funcs.n >= DBGW_MAX_IDS)
		return -EINVAL;
	uint32_t off;
	if (dbgw_pool_add(&w->names, name, namelen, &off) < 0)
		return w->err;
	dbgw_lines_close(w);
	struct dbgw_func *f = dbgw_arr_push(w, &w->funcs);
	if (!f)
		return w->err;
	f->lo = lo;
	f->hi = hi;
	f->name = off;
	f->unit = unit;
	f->bind = flags == PFELF_DBGW_GLOBAL ? STB_GLOBAL
	          : flags == PFELF_DBGW_WEAK ? STB_WEAK
	                                     : STB_LOCAL;
	w->have_func = true;
	return 0;
}
