/*
 * The `relocations` text: one line per relocation of every SHT_REL,
 * SHT_RELA and SHT_RELR section, in section order: the section's file name
 * under sections/, a blank, then the line readelf -rW prints for the entry,
 * byte for byte (offset, info, type, symbol value, symbol name with its
 * version, addend; a RELR address alone). ELF64 MIPS entries carry
 * readelf's Type2 and Type3 lines appended as they are. Type names are
 * pfelf's (every machine readelf 2.40 names), and readelf's two machine
 * quirks are kept: Alpha's R_ALPHA_LITUSE (RELA) shows its addend's
 * meaning instead of the symbol, SPARC V9's R_SPARC_OLO10 ends with
 * " + <second addend>". Names are fields
 * (textline.h). Made line by line (textview.h) through pfelf's iterator:
 * a thread's last position is kept, so lines read in order cost one step
 * each; a RELR section keeps its position every RELOC_CHECK_EVERY
 * addresses (32 bytes per 1,024 lines).
 *
 * A RELR word gives up to 63 addresses (ELF64), so a few MB of hostile
 * words would make hundreds of millions of lines, each made once to index
 * the text (about 1 us a line): the RELR sections of a view give at most
 * RELOC_RELR_MAX addresses together; a section cut there ends with the
 * line "<section> ...[cut after N addresses]".
 */
#include "content/reloctext.h"
#include "text/textgen.h"
#include "text/textline.h"
#include "view/view.h"

#include <elf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RELOC_CHECK_EVERY 1024
#define RELOC_RELR_MAX    ((uint64_t)1 << 22)

struct relsec {
	uint32_t index;
	uint32_t type;
	uint64_t first; /* its first line */
	uint64_t lines;
	bool cut;    /* RELR: more addresses than it shows (its last line says so) */
	bool sym_ok; /* its symbols are read (readelf: a symbol table it could load) */
	bool dyn;    /* from .dynsym: names get versions */
	uint32_t nsym;
	pfelf_reloc_pos *check; /* RELR: position before line first + k * RELOC_CHECK_EVERY */
	uint64_t ncheck;
};

struct reloctext {
	struct relsec *secs;
	uint32_t nsecs;
	uint64_t relr_left; /* RELR addresses the sections after may still show */
	uint64_t bytes;     /* what it holds, for the budget */
};

/* A thread's last position: the next line of section k of core c. */
struct cursor {
	const struct vcore *c;
	uint64_t serial;
	pfelf_file *f;
	uint32_t k;
	uint64_t next;
	pfelf_reloc_iter it;
};
static __thread struct cursor cur;

/* Which symbols section s's indexes name, as readelf finds them (sh_link). */
static void symbols_of(pfelf_file *f, struct relsec *s, uint32_t link)
{
	const pfelf_shdr *sh;
	if (link == 0 || pfelf_section(f, link, &sh) < 0 ||
	    (sh->type != SHT_SYMTAB && sh->type != SHT_DYNSYM))
		return;
	enum pfelf_symtab_kind k = sh->type == SHT_DYNSYM ? PFELF_DYNSYM : PFELF_SYMTAB;
	int n = pfelf_symbol_count(f, k);
	if (pfelf_symbol_table_section(f, k) != (int)link || n < 0)
		return;
	s->sym_ok = true;
	s->dyn = k == PFELF_DYNSYM;
	s->nsym = (uint32_t)n;
}

/* RELR: count the addresses (up to *left), keeping a position every
 * RELOC_CHECK_EVERY. */
static int count_relr(pfelf_file *f, struct relsec *s, uint64_t *left, uint64_t *bytes)
{
	pfelf_reloc_iter it;
	pfelf_reloc r;
	uint64_t cap = 0;
	int ret = pfelf_reloc_iter_init(f, s->index, &it);
	for (;;) {
		if (ret < 0)
			return ret;
		if (s->lines % RELOC_CHECK_EVERY == 0) {
			if (s->ncheck == cap) {
				cap = cap ? cap * 2 : 16;
				void *p = cap <= SIZE_MAX / sizeof(*s->check)
				                  ? realloc(s->check, cap * sizeof(*s->check))
				                  : NULL;
				if (!p)
					return -ENOMEM;
				s->check = p;
			}
			pfelf_reloc_tell(&it, &s->check[s->ncheck++]);
		}
		ret = pfelf_reloc_next(&it, &r);
		if (ret == 0)
			break;
		if (ret == 1 && s->lines == *left) {
			s->cut = true; /* one line more: the note */
			s->lines++;
			break;
		}
		if (ret == 1)
			s->lines++;
	}
	*left -= s->cut ? s->lines - 1 : s->lines;
	*bytes += cap * sizeof(*s->check);
	return 0;
}

static int add_section(struct vcore *v, struct reloctext *t, uint32_t i, uint64_t *line)
{
	pfelf_relsec rs;
	int ret = pfelf_reloc_section(v->f, i, &rs);
	if (ret == -ENODATA || ret == -EINVAL) /* not one, or past the end: no lines */
		return 0;
	if (ret < 0)
		return ret;
	struct relsec *s = &t->secs[t->nsecs];
	memset(s, 0, sizeof(*s));
	s->index = i;
	s->type = rs.type;
	s->first = *line;
	if (rs.type == PFELF_SHT_RELR)
		ret = count_relr(v->f, s, &t->relr_left, &t->bytes);
	else
		s->lines = rs.count;
	if (ret < 0) {
		free(s->check);
		return ret;
	}
	symbols_of(v->f, s, rs.symtab);
	*line += s->lines;
	t->nsecs++;
	return 0;
}

void reloctext_release(struct vcore *v)
{
	struct reloctext *t = v->reloc;
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nsecs; i++)
		free(t->secs[i].check);
	free(t->secs);
	free(t);
	v->reloc = NULL;
}

uint64_t reloctext_cost(const struct vcore *v)
{
	return v->reloc ? v->reloc->bytes : 0;
}

/* The section that holds line i (some section does). */
static uint32_t section_of(const struct reloctext *t, uint64_t i)
{
	uint32_t lo = 0, hi = t->nsecs; /* secs[lo].first <= i < secs[hi].first */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (t->secs[mid].first <= i)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Relocation i of the text of core c into *r, through the thread's cursor. */
static int reloc_at(struct vcore *c, uint64_t i, uint32_t *k, pfelf_reloc *r)
{
	const struct reloctext *t = c->reloc;
	if (cur.c != c || cur.serial != c->serial || cur.f != c->f || cur.next != i ||
	    cur.k >= t->nsecs || i - t->secs[cur.k].first >= t->secs[cur.k].lines) {
		uint32_t s = section_of(t, i);
		const struct relsec *rs = &t->secs[s];
		uint64_t at = i - rs->first, skip = 0;
		pfelf_reloc_pos pos = {.entry = at};
		int ret = pfelf_reloc_iter_init(c->f, rs->index, &cur.it);
		if (ret < 0)
			return ret;
		if (rs->type == PFELF_SHT_RELR) {
			if (at / RELOC_CHECK_EVERY >= rs->ncheck)
				return -EIO;
			pos = rs->check[at / RELOC_CHECK_EVERY];
			skip = at % RELOC_CHECK_EVERY;
		}
		pfelf_reloc_seek(&cur.it, &pos);
		for (; skip > 0; skip--)
			if (pfelf_reloc_next(&cur.it, r) != 1)
				return -EIO;
		cur.c = c;
		cur.serial = c->serial;
		cur.f = c->f;
		cur.k = s;
	}
	cur.next = i + 1;
	*k = cur.k;
	int ret = pfelf_reloc_next(&cur.it, r);
	if (ret != 1)
		cur.c = NULL;
	return ret == 1 ? 0 : -EIO;
}

/* Name s into field x as readelf's print_symbol writes it (fb_add_shown:
 * gas's local labels ".L1\0021" read ".L1^B1"); the bytes it writes. */
static size_t add_shown(struct fieldbuf *x, const char *s)
{
	return fb_add_shown(x, s);
}

/* A name shown (add_shown) then "@@VER" or "@VER" as readelf -r shows
 * versions; the bytes of the name. */
static size_t name_field(struct fieldbuf *x, const char *name, const pfelf_sym *s)
{
	x->shown = x->full = 0;
	size_t n = add_shown(x, name);
	if (s->ver_kind == PFELF_VER_DEFAULT && s->version) {
		fb_add(x, "@@");
		fb_add(x, s->version);
	} else if ((s->ver_kind == PFELF_VER_HIDDEN || s->ver_kind == PFELF_VER_NEEDED) &&
	           s->version) {
		fb_add(x, "@");
		fb_add(x, s->version);
	}
	return n;
}

static void put_addend(struct linebuf *b, const pfelf_reloc *r, const char *plus, const char *minus)
{
	if (r->addend < 0)
		lb_printf(b, "%s%" PRIx64, minus, -(uint64_t)r->addend);
	else
		lb_printf(b, "%s%" PRIx64, plus, (uint64_t)r->addend);
}

/* " value name[@VER][ +/- addend]" as readelf prints a relocation's symbol. */
static void put_symbol(struct linebuf *b, pfelf_file *f, const struct relsec *s,
                       const pfelf_reloc *r, bool is64)
{
	pfelf_sym sym;
	struct fieldbuf x;
	if (pfelf_symbol(f, s->dyn ? PFELF_DYNSYM : PFELF_SYMTAB, r->sym, &sym) < 0)
		return;
	lb_printf(b, " ");
	if (sym.type == STT_GNU_IFUNC) {
		bool bad = sym.name_off == 0 || (sym.status & PFELF_SYM_BAD_NAME);
		size_t len = name_field(&x, bad ? "??" : sym.name, &sym), width = is64 ? 14 : 8;
		lb_fieldbuf(b, &x);
		lb_printf(b, "()%-*s", len <= width ? (int)(width + 1 - len) : 1, " ");
	} else {
		lb_printf(b, "%0*" PRIx64 "%s", is64 ? 16 : 8, sym.value, is64 ? " " : "   ");
	}
	if (sym.name_off == 0) {
		const pfelf_shdr *sh;
		const char *name = "<null>";
		if (sym.type == STT_SECTION && pfelf_section(f, sym.shndx, &sh) == 0)
			name = sh->name;
		x.shown = x.full = 0;
		add_shown(&x, name);
		lb_fieldbuf(b, &x);
	} else {
		name_field(&x, (sym.status & PFELF_SYM_BAD_NAME) ? "" : sym.name, &sym);
		lb_fieldbuf(b, &x);
	}
	if (r->has_addend)
		put_addend(b, r, " + ", " - ");
}

static const char *put_type(struct linebuf *b, const pfelf_ehdr *eh, uint32_t type, bool main)
{
	const char *name = pfelf_reloc_type_string_hdr(eh, type);
	if (!name)
		lb_printf(b, "unrecognized: %-7x", type);
	else if (main)
		lb_printf(b, "%-22s", name);
	else
		lb_printf(b, "%-17.17s", name);
	return name;
}

/* Alpha's R_ALPHA_LITUSE in a RELA section: readelf shows what its addend
 * says instead of the symbol (" (JSR)"), or the addend it does not know. */
static void put_lituse(struct linebuf *b, int64_t addend)
{
	static const char *const use[] = {"ADDR",  "BASE",   "BYTOFF",   "JSR",
	                                  "TLSGD", "TLSLDM", "JSRDIRECT"};
	if (addend >= 0 && addend < (int64_t)(sizeof(use) / sizeof(use[0])))
		lb_printf(b, " (%s)", use[addend]);
	else
		lb_printf(b, " <unknown addend: %" PRIx64 ">", (uint64_t)addend);
}

static int reloc_line(void *ctx, uint64_t i, char *buf)
{
	struct vcore *v = ctx;
	pfelf_reloc r;
	uint32_t k = section_of(v->reloc, i);
	const struct relsec *s = &v->reloc->secs[k];
	bool is64 = v->eh.elfclass == 2;
	struct linebuf b = {buf, 0};
	lb_field(&b, v->secname[s->index] ? v->secname[s->index] : "");
	lb_printf(&b, " ");
	if (s->cut && i == s->first + s->lines - 1) {
		lb_printf(&b, "...[cut after %" PRIu64 " addresses]", s->lines - 1);
		return lb_end(&b);
	}
	int ret = reloc_at(v, i, &k, &r);
	if (ret < 0)
		return ret;
	if (s->type == PFELF_SHT_RELR) {
		lb_printf(&b, "%0*" PRIx64, is64 ? 16 : 8, r.offset);
		return lb_end(&b);
	}
	if (is64)
		lb_printf(&b, "%16.16" PRIx64 "  %16.16" PRIx64 " ", r.offset, r.info);
	else
		lb_printf(&b, "%8.8" PRIx64 "  %8.8" PRIx64 " ", r.offset, r.info);
	const char *name = put_type(&b, &v->eh, r.type, true);
	if (v->eh.machine == EM_ALPHA && r.has_addend && name &&
	    strcmp(name, "R_ALPHA_LITUSE") == 0) {
		put_lituse(&b, r.addend);
	} else if (r.sym && s->sym_ok && r.sym < s->nsym) {
		put_symbol(&b, v->f, s, &r, is64);
	} else if (!r.sym && r.has_addend) {
		lb_printf(&b, "%*c", is64 ? 20 : 12, ' ');
		put_addend(&b, &r, "", "-");
	}
	if (v->eh.machine == EM_SPARCV9 && name && strcmp(name, "R_SPARC_OLO10") == 0)
		lb_printf(&b, " + %" PRIx64, (uint64_t)pfelf_reloc_type_data(&r));
	if (is64 && v->eh.machine == EM_MIPS) {
		lb_printf(&b, "                    Type2: ");
		put_type(&b, &v->eh, r.type2, false);
		lb_printf(&b, "                    Type3: ");
		put_type(&b, &v->eh, r.type3, false);
	}
	return lb_end(&b);
}

int reloctext_prepare(struct vcore *v, struct textgen *g)
{
	reloctext_release(v);
	struct reloctext *t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	uint32_t n = 0;
	for (uint32_t i = 1; i < v->nsec; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(v->f, i, &sh) == 0 &&
		    (sh->type == PFELF_SHT_REL || sh->type == PFELF_SHT_RELA ||
		     sh->type == PFELF_SHT_RELR))
			n++;
	}
	t->secs = n ? calloc(n, sizeof(*t->secs)) : NULL;
	t->bytes = sizeof(*t) + (uint64_t)n * sizeof(*t->secs);
	t->relr_left = RELOC_RELR_MAX;
	v->reloc = t;
	if (n && !t->secs)
		return -ENOMEM;
	uint64_t line = 0;
	for (uint32_t i = 1; i < v->nsec && t->nsecs < n; i++) {
		int ret = add_section(v, t, i, &line);
		if (ret < 0)
			return ret;
	}
	g->nlines = line;
	g->line = reloc_line;
	g->ctx = v;
	return 0;
}
