/* The ELF file of a finished writer: the header, program headers (the
 * binary's PT_LOADs without file bytes, a PT_NOTE for a build-id note
 * that has an address), the sections' bytes (.symtab, .strtab, the
 * DWARF, .shstrtab) and the section headers, the copies first. Every
 * section is counted first, so the file is allocated once at its size. */
#include "write/dbgw_i.h"

#include <string.h>

#define OWN_MAX ((uint64_t)UINT32_MAX - 16) /* largest section: 32-bit offsets */

/* Sizes of the class's header, program and section header, symbol. */
static unsigned ehsize(const struct pfelf_dbgw *w)
{
	return w->is64 ? 64 : 52;
}
static unsigned phentsize(const struct pfelf_dbgw *w)
{
	return w->is64 ? 56 : 32;
}
static unsigned shentsize(const struct pfelf_dbgw *w)
{
	return w->is64 ? 64 : 40;
}
static unsigned symsize(const struct pfelf_dbgw *w)
{
	return w->is64 ? 24 : 16;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

static void write_symbol(struct pfelf_dbgw *w, struct dbgw_buf *b, const struct dbgw_func *f)
{
	uint8_t info = (uint8_t)(f->bind << 4 | STT_FUNC);
	uint16_t shndx = dbgw_shndx_of(w, f->lo);
	dbgw_u32(b, f->name);
	if (w->is64) {
		dbgw_u8(b, info);
		dbgw_u8(b, 0);
		dbgw_u16(b, shndx);
		dbgw_u64(b, f->lo);
		dbgw_u64(b, f->hi - f->lo);
	} else {
		dbgw_u32(b, (uint32_t)f->lo);
		dbgw_u32(b, (uint32_t)(f->hi - f->lo));
		dbgw_u8(b, info);
		dbgw_u8(b, 0);
		dbgw_u16(b, shndx);
	}
}

/* The null symbol, then the local functions, then the others, each by
 * address (sh_info: the first non-local). */
static void write_symtab(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	dbgw_put(b, NULL, symsize(w));
	for (int local = 1; local >= 0; local--)
		for (size_t r = 0; r < w->funcs.n; r++) {
			const struct dbgw_func *f = dbgw_func_at(w, w->by_addr[r]);
			if ((f->bind == STB_LOCAL) == local)
				write_symbol(w, b, f);
		}
}

static void write_strtab(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	dbgw_put(b, w->names.bytes.p, w->names.bytes.len);
}

static void write_shstrtab(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	dbgw_put(b, w->shnames.p, w->shnames.len);
}

static void add_sections(struct pfelf_dbgw *w)
{
	if (w->note.len && !w->note_sec)
		dbgw_add_section(w, ".note.gnu.build-id", SHT_NOTE, 0, 4, 0, dbgw_write_note);
	uint32_t symtab =
	        dbgw_add_section(w, ".symtab", SHT_SYMTAB, 0, w->asize, symsize(w), write_symtab);
	uint32_t strtab = dbgw_add_section(w, ".strtab", SHT_STRTAB, 0, 1, 0, write_strtab);
	if (dbgw_dwarf_sections(w) < 0)
		return;
	w->shstrndx = dbgw_add_section(w, ".shstrtab", SHT_STRTAB, 0, 1, 0, write_shstrtab);
	if (w->err)
		return;
	struct dbgw_sec *s = dbgw_sec_at(&w->secs, symtab);
	s->link = strtab;
	s->info = w->nlocal + 1;
}

static uint32_t phnum(const struct pfelf_dbgw *w)
{
	return (uint32_t)w->segs.n + (w->note_sec != 0);
}

/* Offsets: header, program headers, each section's bytes at its
 * alignment (the copies at the first byte after the program headers),
 * the section headers. The file's size. */
static uint64_t layout(struct pfelf_dbgw *w)
{
	uint64_t off = ehsize(w);
	if (phnum(w)) {
		off = align_up(off, w->asize);
		w->phoff = off;
		off += (uint64_t)phnum(w) * phentsize(w);
	}
	uint64_t data = off;
	for (uint32_t i = 1; i < w->secs.n && !w->err; i++) {
		struct dbgw_sec *s = dbgw_sec_at(&w->secs, i);
		s->offset = data;
		if (!s->write)
			continue;
		struct dbgw_buf count;
		dbgw_buf_init(&count, w, DBGW_COUNT);
		s->write(w, &count);
		s->size = count.len;
		if (s->size > OWN_MAX)
			w->err = w->err ? w->err : -EFBIG;
		off = align_up(off, s->align);
		s->offset = off;
		off += s->size;
	}
	w->shoff = align_up(off, w->asize);
	uint64_t total = w->shoff + (uint64_t)w->secs.n * shentsize(w);
	if (!w->is64 && total > UINT32_MAX)
		w->err = w->err ? w->err : -EFBIG; /* ELF32 offsets are 32 bits */
	return total;
}

static void write_ehdr(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	uint8_t ident[EI_NIDENT] = {ELFMAG0, ELFMAG1, ELFMAG2, ELFMAG3};
	ident[EI_CLASS] = w->t.elfclass;
	ident[EI_DATA] = w->t.data;
	ident[EI_VERSION] = EV_CURRENT;
	ident[EI_OSABI] = w->t.osabi;
	ident[EI_ABIVERSION] = w->t.abiversion;
	dbgw_put(b, ident, sizeof(ident));
	dbgw_u16(b, w->t.type);
	dbgw_u16(b, w->t.machine);
	dbgw_u32(b, EV_CURRENT);
	dbgw_addr(b, w->t.entry);
	dbgw_addr(b, w->phoff);
	dbgw_addr(b, w->shoff);
	dbgw_u32(b, w->t.flags);
	dbgw_u16(b, (uint16_t)ehsize(w));
	dbgw_u16(b, (uint16_t)(phnum(w) ? phentsize(w) : 0));
	dbgw_u16(b, (uint16_t)phnum(w));
	dbgw_u16(b, (uint16_t)shentsize(w));
	dbgw_u16(b, (uint16_t)w->secs.n);
	dbgw_u16(b, (uint16_t)w->shstrndx);
}

static void write_phdr(struct pfelf_dbgw *w, struct dbgw_buf *b, const struct dbgw_seg *g,
                       uint64_t offset, uint64_t filesz)
{
	dbgw_u32(b, g->type);
	if (w->is64)
		dbgw_u32(b, g->flags);
	dbgw_addr(b, offset);
	dbgw_addr(b, g->vaddr);
	dbgw_addr(b, g->paddr);
	dbgw_addr(b, filesz);
	dbgw_addr(b, g->memsz);
	if (!w->is64)
		dbgw_u32(b, g->flags);
	dbgw_addr(b, g->align);
}

/* The PT_LOADs with no file bytes, at an offset congruent to their
 * address (inside the file when it can be), and the PT_NOTE. */
static void write_phdrs(struct pfelf_dbgw *w, struct dbgw_buf *b, uint64_t total)
{
	for (size_t i = 0; i < w->segs.n; i++) {
		const struct dbgw_seg *g = (const struct dbgw_seg *)w->segs.v + i;
		bool pow2 = g->align && !(g->align & (g->align - 1));
		uint64_t off = pow2 ? g->vaddr & (g->align - 1) : 0;
		write_phdr(w, b, g, off <= total ? off : 0, 0);
	}
	if (w->note_sec) {
		const struct dbgw_sec *s = dbgw_sec_at(&w->secs, w->note_sec);
		struct dbgw_seg note = {PT_NOTE, PF_R, s->addr, s->addr, s->size, 4};
		write_phdr(w, b, &note, s->offset, s->size);
	}
}

static void write_shdr(struct pfelf_dbgw *w, struct dbgw_buf *b, const struct dbgw_sec *s)
{
	dbgw_u32(b, s->name);
	dbgw_u32(b, s->type);
	dbgw_addr(b, s->flags);
	dbgw_addr(b, s->addr);
	dbgw_addr(b, s->type == SHT_NULL ? 0 : s->offset);
	dbgw_addr(b, s->size);
	dbgw_u32(b, s->link);
	dbgw_u32(b, s->info);
	dbgw_addr(b, s->align);
	dbgw_addr(b, s->entsize);
}

/* Move on to offset off of the file (its bytes are zero, or a section's). */
static void skip_to(struct dbgw_buf *b, uint64_t off)
{
	if (off < b->len || off > b->cap)
		b->w->err = b->w->err ? b->w->err : -EOVERFLOW;
	else
		b->len = (size_t)off;
}

/* The bytes of section s at its offset: a region of the file of its
 * size, offsets in it counted from its start. */
static void write_section(struct pfelf_dbgw *w, uint8_t *out, struct dbgw_sec *s)
{
	struct dbgw_buf b;
	dbgw_buf_init(&b, w, DBGW_FIXED);
	b.p = out + s->offset;
	b.cap = (size_t)s->size;
	s->write(w, &b);
	if (b.len != s->size)
		w->err = w->err ? w->err : -EOVERFLOW;
}

static void write_file(struct pfelf_dbgw *w, uint8_t *out, uint64_t total)
{
	struct dbgw_buf b;
	dbgw_buf_init(&b, w, DBGW_FIXED);
	b.p = out;
	b.cap = (size_t)total;
	memset(out, 0, (size_t)total);
	write_ehdr(w, &b);
	if (phnum(w)) {
		skip_to(&b, w->phoff);
		write_phdrs(w, &b, total);
	}
	for (uint32_t i = 1; i < w->secs.n && !w->err; i++) {
		struct dbgw_sec *s = dbgw_sec_at(&w->secs, i);
		if (s->write)
			write_section(w, out, s);
	}
	skip_to(&b, w->shoff);
	for (uint32_t i = 0; i < w->secs.n; i++)
		write_shdr(w, &b, dbgw_sec_at(&w->secs, i));
	if (b.len != total)
		w->err = w->err ? w->err : -EOVERFLOW;
}

/* Nothing is added from here on: give back what the tables hold past
 * their contents before the file is allocated. */
static void trim(struct pfelf_dbgw *w)
{
	dbgw_pool_trim(&w->names);
	dbgw_pool_trim(&w->fnames);
	dbgw_buf_trim(&w->shnames);
	dbgw_buf_trim(&w->lines);
	dbgw_arr_trim(w, &w->units);
	dbgw_arr_trim(w, &w->files);
	dbgw_arr_trim(w, &w->funcs);
	dbgw_arr_trim(w, &w->secs);
	dbgw_arr_trim(w, &w->spans);
}

PFELF_API int pfelf_dbgw_finish(pfelf_dbgw *w, void **bytes, uint64_t *size)
{
	*bytes = NULL;
	*size = 0;
	int ret = dbgw_usable(w);
	if (ret < 0)
		return ret;
	dbgw_lines_close(w);
	dbgw_default_layout(w);
	if (dbgw_order(w) == 0)
		add_sections(w);
	trim(w);
	uint64_t total = w->err ? 0 : layout(w);
	if (total > SIZE_MAX && !w->err)
		w->err = -EFBIG;
	uint8_t *out = w->err ? NULL : dbgw_alloc(w, (size_t)total);
	if (out)
		write_file(w, out, total);
	ret = w->err;
	if (out)
		dbgw_charge(w, -(int64_t)total); /* the caller's, or freed */
	dbgw_release_all(w);
	w->done = true;
	if (ret < 0) {
		free(out);
		return ret;
	}
	*bytes = out;
	*size = total;
	return 0;
}
