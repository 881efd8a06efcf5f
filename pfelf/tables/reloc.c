/* Relocation sections: SHT_REL and SHT_RELA entries read a few at a time,
 * SHT_RELR words expanded lazily into addresses. Nothing is copied whole. */
#include "pfelf_i.h"

#include <string.h>

/* Bytes of one entry of a section of type type in a file of class is64. */
static uint64_t entry_size(uint32_t type, bool is64)
{
	if (type == PFELF_SHT_RELR)
		return is64 ? 8 : 4;
	if (type == PFELF_SHT_REL)
		return is64 ? 16 : 8;
	return is64 ? 24 : 12;
}

PFELF_API int pfelf_reloc_section(pfelf_file *f, uint32_t index, pfelf_relsec *out)
{
	const pfelf_shdr *sh;
	int ret = pfelf_section(f, index, &sh);
	if (ret < 0)
		return ret;
	if (sh->type != PFELF_SHT_REL && sh->type != PFELF_SHT_RELA && sh->type != PFELF_SHT_RELR)
		return -ENODATA;
	if ((sh->status & PFELF_ST_OUT_OF_FILE) || !pfelf__range_ok(f->size, sh->offset, sh->size))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->index = index;
	out->type = sh->type;
	out->offset = sh->offset;
	out->entsize = entry_size(sh->type, f->is64);
	out->count = sh->size / out->entsize;
	out->symtab = sh->link;
	return 0;
}

/* Decode one REL or RELA entry of section s from its bytes b. */
static void decode(const pfelf_file *f, const pfelf_relsec *s, const uint8_t *b, pfelf_reloc *r)
{
	bool m = f->msb;
	memset(r, 0, sizeof(*r));
	r->has_addend = s->type == PFELF_SHT_RELA;
	if (!f->is64) {
		r->offset = pfelf__u32(b, m);
		r->info = pfelf__u32(b + 4, m);
		r->type = (uint32_t)(r->info & 0xff);
		r->sym = (uint32_t)(r->info >> 8);
		if (r->has_addend)
			r->addend = (int32_t)pfelf__u32(b + 8, m);
		return;
	}
	r->offset = pfelf__u64(b, m);
	uint64_t inf = pfelf__u64(b + 8, m);
	if (r->has_addend)
		r->addend = (int64_t)pfelf__u64(b + 16, m);
	if (f->eh.machine == EM_MIPS) {
		/* a 32-bit r_sym, then r_ssym, r_type3, r_type2, r_type: in a
		 * little-endian file the word read above has them swapped */
		if (!m)
			inf = (inf & 0xffffffff) << 32 | ((inf >> 56) & 0xff) |
			      ((inf >> 40) & 0xff00) | ((inf >> 24) & 0xff0000) |
			      ((inf >> 8) & 0xff000000);
		r->info = inf;
		r->type = (uint32_t)(inf & 0xff);
		r->type2 = (uint8_t)(inf >> 8);
		r->type3 = (uint8_t)(inf >> 16);
		r->ssym = (uint8_t)(inf >> 24);
		r->sym = (uint32_t)(inf >> 32);
		return;
	}
	r->info = inf;
	/* SPARC V9: an 8-bit type, R_SPARC_OLO10's addend above it (readelf's
	 * ELF64_R_TYPE_ID; pfelf_reloc_type_data) */
	r->type = f->eh.machine == EM_SPARCV9 ? (uint32_t)(inf & 0xff) : (uint32_t)inf;
	r->sym = (uint32_t)(inf >> 32);
}

PFELF_API int64_t pfelf_reloc_type_data(const pfelf_reloc *r)
{
	int64_t d = (int64_t)((r->info & 0xffffffff) >> 8);
	return (d ^ 0x800000) - 0x800000;
}

PFELF_API int pfelf_reloc_get(pfelf_file *f, uint32_t index, uint64_t i, pfelf_reloc *out)
{
	pfelf_relsec s;
	uint8_t b[24];
	int ret = pfelf_reloc_section(f, index, &s);
	if (ret < 0)
		return ret;
	if (s.type == PFELF_SHT_RELR)
		return -ENODATA;
	if (i >= s.count)
		return -ENOENT;
	ret = pfelf__read_range(f, s.offset + i * s.entsize, b, (size_t)s.entsize);
	if (ret < 0)
		return ret == -EINVAL ? -EIO : ret;
	decode(f, &s, b, out);
	return 0;
}

PFELF_API int pfelf_reloc_iter_init(pfelf_file *f, uint32_t index, pfelf_reloc_iter *it)
{
	memset(it, 0, offsetof(pfelf_reloc_iter, buf));
	it->f = f;
	return pfelf_reloc_section(f, index, &it->sec);
}

PFELF_API void pfelf_reloc_tell(const pfelf_reloc_iter *it, pfelf_reloc_pos *pos)
{
	*pos = it->pos;
}

PFELF_API void pfelf_reloc_seek(pfelf_reloc_iter *it, const pfelf_reloc_pos *pos)
{
	it->pos = *pos;
}

/* The bytes of entry e (< count), reading ahead into it->buf: NULL on -EIO. */
static const uint8_t *entry_at(pfelf_reloc_iter *it, uint64_t e, int *err)
{
	uint64_t es = it->sec.entsize;
	if (e < it->buf_first || e - it->buf_first >= it->buf_n) {
		uint64_t n = sizeof(it->buf) / es;
		if (n > it->sec.count - e)
			n = it->sec.count - e;
		int ret = pfelf__read_range(it->f, it->sec.offset + e * es, it->buf,
		                            (size_t)(n * es));
		if (ret < 0) {
			it->buf_n = 0;
			*err = ret == -EINVAL ? -EIO : ret;
			return NULL;
		}
		it->buf_first = e;
		it->buf_n = (uint32_t)n;
	}
	return it->buf + (e - it->buf_first) * es;
}

/* RELR: the next address, from the bitmap being expanded or the next words. */
static int relr_next(pfelf_reloc_iter *it, pfelf_reloc *out)
{
	pfelf_reloc_pos *p = &it->pos;
	uint64_t es = it->sec.entsize;
	int err = 0;
	for (;;) {
		if (p->bitmap) { /* bit 0 of bitmap is the address base */
			int k = __builtin_ctzll(p->bitmap);
			uint64_t addr = p->base + (uint64_t)k * es;
			p->bitmap >>= k;
			p->bitmap >>= 1;
			p->base = addr + es;
			memset(out, 0, sizeof(*out));
			out->offset = addr;
			return 1;
		}
		if (p->entry >= it->sec.count)
			return 0;
		const uint8_t *b = entry_at(it, p->entry, &err);
		if (!b)
			return err;
		uint64_t w = it->f->is64 ? pfelf__u64(b, it->f->msb) : pfelf__u32(b, it->f->msb);
		p->entry++;
		if ((w & 1) == 0) {
			memset(out, 0, sizeof(*out));
			out->offset = w;
			p->where = w + es;
			return 1;
		}
		p->bitmap = w >> 1;
		p->base = p->where;
		p->where += (es * 8 - 1) * es;
	}
}

PFELF_API int pfelf_reloc_next(pfelf_reloc_iter *it, pfelf_reloc *out)
{
	if (it->sec.type == PFELF_SHT_RELR)
		return relr_next(it, out);
	if (it->pos.entry >= it->sec.count)
		return 0;
	int err = 0;
	const uint8_t *b = entry_at(it, it->pos.entry, &err);
	if (!b)
		return err;
	decode(it->f, &it->sec, b, out);
	it->pos.entry++;
	return 1;
}
