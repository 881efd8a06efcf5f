/*
 * The `symbols` text: one line per symbol of .symtab, then of .dynsym,
 * "table index value size type bind visibility ndx name", the fields
 * spelled as readelf -sW spells them (leading blanks of Ndx dropped; the
 * visibility with readelf's "[...]" words for other bits of st_other),
 * made line by line (textview.h). The name is a field (textline.h):
 * control characters as ^X (fb_add_shown), cut at TEXT_FIELD_MAX bytes,
 * with "...[cut, N bytes]".
 */
#include "content/symview.h"
#include "text/textgen.h"
#include "text/textline.h"
#include "view/view.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <elf.h>

static const char *skip_blanks(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

/* The name readelf shows before any version suffix (pfelf's rule). */
static const char *base_name(pfelf_file *f, const pfelf_sym *s)
{
	const pfelf_shdr *sh;
	if (s->type == STT_SECTION && s->name_off == 0 && pfelf_section(f, s->shndx, &sh) == 0)
		return (sh->status & PFELF_ST_BAD_NAME) ? "<corrupt>" : sh->name;
	return (s->status & PFELF_SYM_BAD_NAME) ? "<corrupt>" : s->name;
}

/*
 * The Name column, as pfelf_symbol_display_name spells it (name, then
 * "@@VER", "@VER", "@VER (N)" or "@<corrupt>"), made by bounded copies:
 * printf of a 64 KiB string into a short buffer costs a millisecond.
 */
static void put_name(struct linebuf *b, pfelf_file *f, const pfelf_sym *s)
{
	static const char *const sep[] = {
	        [PFELF_VER_DEFAULT] = "@@",
	        [PFELF_VER_HIDDEN] = "@",
	        [PFELF_VER_NEEDED] = "@",
	};
	struct fieldbuf x;
	x.shown = x.full = 0;
	char num[16];
	fb_add_shown(&x, base_name(f, s)); /* control characters as ^X, as readelf */
	if (s->ver_kind == PFELF_VER_BAD)
		fb_add(&x, "@<corrupt>");
	else if (s->ver_kind >= PFELF_VER_DEFAULT && s->ver_kind <= PFELF_VER_NEEDED &&
	         s->version) {
		fb_add(&x, sep[s->ver_kind]);
		fb_add(&x, s->version);
	}
	if (s->ver_kind == PFELF_VER_NEEDED && s->version) {
		snprintf(num, sizeof(num), " (%u)", s->versym);
		fb_add(&x, num);
	}
	lb_fieldbuf(b, &x);
}

static void put_symbol(struct linebuf *b, pfelf_file *f, const char *table, const pfelf_sym *s,
                       bool elf64)
{
	char type[64] = "", bind[64] = "", vis[64] = "", ndx[64] = "";
	pfelf_symbol_type_name(f, s->type, type, sizeof(type));
	pfelf_symbol_bind_name(f, s->bind, bind, sizeof(bind));
	pfelf_symbol_vis_text(f, s->other, vis, sizeof(vis)); /* with readelf's "[...]" */
	pfelf_symbol_shndx_name(f, s, ndx, sizeof(ndx));
	lb_printf(b, "%s %" PRIu32 " %0*" PRIx64 " ", table, s->index, elf64 ? 16 : 8, s->value);
	if (s->size > 99999)
		lb_printf(b, "0x%" PRIx64, s->size);
	else
		lb_printf(b, "%" PRIu64, s->size);
	lb_printf(b, " %s %s %s %s ", type, bind, vis, skip_blanks(ndx));
	put_name(b, f, s);
}

/* Line i: symbol i of .symtab, or i - nsymtab of .dynsym. */
static int sym_line(void *ctx, uint64_t i, char *buf)
{
	struct vcore *v = ctx;
	enum pfelf_symtab_kind t = i < v->sym->nsymtab ? PFELF_SYMTAB : PFELF_DYNSYM;
	uint64_t index = t == PFELF_SYMTAB ? i : i - v->sym->nsymtab;
	pfelf_sym s;
	if (index > UINT32_MAX || pfelf_symbol(v->f, t, (uint32_t)index, &s) < 0)
		return -EIO;
	struct linebuf b = {buf, 0};
	put_symbol(&b, v->f, t == PFELF_SYMTAB ? "symtab" : "dynsym", &s, v->eh.elfclass == 2);
	return lb_end(&b);
}

/* Symbols of table t; a malformed table has none, and so has a dynamic
 * table that is no section (DT_SYMTAB of a file without section headers:
 * readelf -sW shows none, and its extent is only a guess from the hash
 * tables). */
static int count(struct vcore *v, enum pfelf_symtab_kind t, uint32_t *n)
{
	int ret = pfelf_symbol_count(v->f, t);
	if (ret > 0 && t == PFELF_DYNSYM && pfelf_symbol_table_section(v->f, t) == 0)
		ret = 0;
	*n = ret > 0 ? (uint32_t)ret : 0;
	return ret == -EINVAL ? 0 : ret < 0 ? ret : 0;
}

int symtext_prepare(struct vcore *v, struct textgen *g)
{
	int ret = count(v, PFELF_SYMTAB, &v->sym->nsymtab);
	if (ret == 0)
		ret = count(v, PFELF_DYNSYM, &v->sym->ndynsym);
	g->nlines = (uint64_t)v->sym->nsymtab + v->sym->ndynsym;
	g->line = sym_line;
	g->ctx = v;
	return ret;
}
