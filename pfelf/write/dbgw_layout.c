/* The binary's layout in its debug file, as `objcopy --only-keep-debug`
 * keeps it: a SHT_NOBITS copy of every SHF_ALLOC section (gdb and BFD
 * match sections by name, binutils' addr2line answers only inside one),
 * the PT_LOAD headers without file bytes (elfutils places a debug file's
 * addresses by them: without them eu-addr2line names nothing), and the
 * GNU build-id note (gdb and elfutils check that a debug file found by
 * build id has it). A binary without SHF_ALLOC sections (no section
 * headers) gets a SHT_NOBITS section over each PT_LOAD instead, so that
 * binutils places its addresses. Also the writer's own sections. */
#include "write/dbgw_i.h"

#include <string.h>

/* Flags a copy cannot keep: it has no bytes, no link and no group. */
#define DROPPED_FLAGS (SHF_COMPRESSED | SHF_GROUP | SHF_INFO_LINK | SHF_LINK_ORDER)
#define NOTE_ALIGN    4

/* Where the first GNU build-id note is: its section's index, 0 when it
 * is in a segment or there is none. */
static int note_section(pfelf_file *f, uint32_t *sec)
{
	*sec = 0;
	int n = pfelf_note_count(f);
	for (int i = 0; i < n; i++) {
		pfelf_note note;
		if (pfelf_note_get(f, (uint32_t)i, &note) < 0)
			break;
		if (note.type == NT_GNU_BUILD_ID && strcmp(note.name, "GNU") == 0) {
			*sec = note.in_segment ? 0 : note.source;
			break;
		}
	}
	return n < 0 ? n : 0;
}

/* The note's bytes: namesz, descsz, type, "GNU\0", the id padded to 4. */
static void encode_note(struct pfelf_dbgw *w, const uint8_t *id, size_t len)
{
	struct dbgw_buf *b = &w->note;
	dbgw_u32(b, 4);
	dbgw_u32(b, (uint32_t)len);
	dbgw_u32(b, NT_GNU_BUILD_ID);
	dbgw_put(b, "GNU", 4);
	dbgw_put(b, id, len);
	dbgw_pad(b, NOTE_ALIGN);
}

void dbgw_write_note(struct pfelf_dbgw *w, struct dbgw_buf *b)
{
	dbgw_put(b, w->note.p, w->note.len);
}

uint32_t dbgw_add_section(struct pfelf_dbgw *w, const char *name, uint32_t type, uint64_t flags,
                          uint64_t align, uint64_t entsize,
                          void (*write)(struct pfelf_dbgw *w, struct dbgw_buf *b))
{
	uint32_t at = (uint32_t)w->shnames.len;
	dbgw_put(&w->shnames, name, strlen(name) + 1);
	struct dbgw_sec *s = dbgw_arr_push(w, &w->secs);
	if (!s)
		return 0;
	s->name = at;
	s->type = type;
	s->flags = flags;
	s->align = align;
	s->entsize = entsize;
	s->write = write;
	return (uint32_t)(w->secs.n - 1);
}

/* Checks the copies fit (-E2BIG); *sections: how many SHF_ALLOC ones. */
static int count_copies(pfelf_file *f, int nsec, int nseg, uint32_t *sections)
{
	uint32_t copies = 0, loads = 0;
	for (int i = 1; i < nsec; i++) {
		const pfelf_shdr *sh;
		int ret = pfelf_section(f, (uint32_t)i, &sh);
		if (ret < 0)
			return ret;
		copies += (sh->flags & SHF_ALLOC) != 0;
	}
	for (int i = 0; i < nseg; i++) {
		const pfelf_phdr *ph;
		int ret = pfelf_segment(f, (uint32_t)i, &ph);
		if (ret < 0)
			return ret;
		loads += ph->type == PT_LOAD;
	}
	*sections = copies;
	return copies > DBGW_MAX_COPIES || loads > DBGW_MAX_COPIES ? -E2BIG : 0;
}

static void copy_section(struct pfelf_dbgw *w, const pfelf_shdr *sh, uint32_t note_sec)
{
	struct dbgw_sec *s = dbgw_arr_push(w, &w->secs);
	if (!s)
		return;
	s->name = (uint32_t)w->shnames.len;
	dbgw_put(&w->shnames, sh->name, strlen(sh->name) + 1);
	s->type = SHT_NOBITS;
	s->flags = sh->flags & ~(uint64_t)DROPPED_FLAGS;
	s->addr = sh->addr;
	s->size = sh->size;
	s->align = sh->addralign;
	s->entsize = sh->entsize;
	if (note_sec && sh->index == note_sec && w->note.len) {
		s->type = SHT_NOTE;
		s->size = w->note.len;
		s->align = NOTE_ALIGN;
		s->write = dbgw_write_note;
		w->note_sec = (uint32_t)(w->secs.n - 1);
	}
}

/* A binary without SHF_ALLOC sections (no section headers): a SHT_NOBITS
 * section over PT_LOAD ph, named and flagged by what it holds, aligned to
 * the most of p_align its address allows. */
static void load_section(struct pfelf_dbgw *w, const pfelf_phdr *ph)
{
	const char *name = (ph->flags & PF_X) ? ".text" : (ph->flags & PF_W) ? ".data" : ".rodata";
	uint64_t flags = SHF_ALLOC | ((ph->flags & PF_X) ? SHF_EXECINSTR : 0) |
	                 ((ph->flags & PF_W) ? SHF_WRITE : 0);
	uint64_t align = ph->align && !(ph->align & (ph->align - 1)) ? ph->align : 1;
	while (ph->vaddr & (align - 1))
		align >>= 1;
	uint32_t at = dbgw_add_section(w, name, SHT_NOBITS, flags, align, 0, NULL);
	if (at) {
		struct dbgw_sec *s = dbgw_sec_at(&w->secs, at);
		s->addr = ph->vaddr;
		s->size = ph->memsz;
	}
}

static void copy_load(struct pfelf_dbgw *w, const pfelf_phdr *ph, bool as_section)
{
	if (as_section && ph->memsz)
		load_section(w, ph);
	struct dbgw_seg *g = dbgw_arr_push(w, &w->segs);
	if (!g)
		return;
	g->type = ph->type;
	g->flags = ph->flags;
	g->vaddr = ph->vaddr;
	g->paddr = ph->paddr;
	g->memsz = ph->memsz;
	g->align = ph->align;
}

PFELF_API int pfelf_dbgw_copy_layout(pfelf_dbgw *w, pfelf_file *binary)
{
	int ret = dbgw_usable(w);
	if (ret < 0)
		return ret;
	const pfelf_ehdr *eh = binary ? pfelf_header(binary) : NULL;
	if (w->layout || !eh || eh->elfclass != w->t.elfclass || eh->data != w->t.data)
		return -EINVAL;
	int nsec = pfelf_section_count(binary);
	int nseg = nsec < 0 ? 0 : pfelf_segment_count(binary);
	if (nsec < 0 || nseg < 0)
		return nsec < 0 ? nsec : nseg;
	uint32_t copies;
	if ((ret = count_copies(binary, nsec, nseg, &copies)) < 0)
		return ret;
	const uint8_t *id = NULL;
	int idlen = pfelf_build_id(binary, &id);
	uint32_t note_sec = 0;
	if (idlen < 0 && idlen != -ENOENT)
		return idlen;
	if (idlen >= 0 && (ret = note_section(binary, &note_sec)) < 0)
		return ret;
	w->layout = true;
	if (idlen >= 0)
		encode_note(w, id, (size_t)idlen);
	for (int i = 1; i < nsec && !w->err; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(binary, (uint32_t)i, &sh) == 0 && (sh->flags & SHF_ALLOC))
			copy_section(w, sh, note_sec);
	}
	for (int i = 0; i < nseg && !w->err; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(binary, (uint32_t)i, &ph) == 0 && ph->type == PT_LOAD)
			copy_load(w, ph, copies == 0);
	}
	return w->err;
}

void dbgw_default_layout(struct pfelf_dbgw *w)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	for (size_t i = 0; i < w->funcs.n; i++) {
		const struct dbgw_func *f = dbgw_func_at(w, (uint32_t)i);
		lo = f->lo < lo ? f->lo : lo;
		hi = f->hi > hi ? f->hi : hi;
	}
	if (w->layout || hi <= lo)
		return;
	uint32_t at =
	        dbgw_add_section(w, ".text", SHT_NOBITS, SHF_ALLOC | SHF_EXECINSTR, 1, 0, NULL);
	if (at) {
		struct dbgw_sec *s = dbgw_sec_at(&w->secs, at);
		s->addr = lo;
		s->size = hi - lo;
	}
}
