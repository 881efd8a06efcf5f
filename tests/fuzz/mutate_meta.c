/*
 * Mutations of what sections hold, for the metadata APIs: symbol entries,
 * dynamic entries, note headers, and any word of any section (hash tables,
 * version tables, compression headers...).
 */
#include "mutate.h"

#define SHT_SYMTAB  2
#define SHT_DYNAMIC 6
#define SHT_NOTE    7
#define SHT_DYNSYM  11

/* A section of that type (any type when type is 0): its header's offset
 * in the buffer, or UINT64_MAX when there is none. */
static uint64_t pick_section(struct rng *r, const struct elfbuf *e, const struct tables *t,
                             uint32_t type, uint32_t type2)
{
	if (t->shnum == 0)
		return UINT64_MAX;
	uint64_t start = rng_below(r, t->shnum);
	for (uint64_t k = 0; k < t->shnum; k++) {
		uint64_t base = t->shoff + ((start + k) % t->shnum) * t->shentsize;
		uint64_t ty = eb_field(e, base, &S_TYPE);
		if (type == 0 || ty == type || ty == type2)
			return base;
	}
	return UINT64_MAX;
}

/* A position of a width-byte field in entry number k of a section's
 * entsize-byte entries, inside the buffer; UINT64_MAX when none. */
static uint64_t entry_field(struct rng *r, const struct elfbuf *e, uint64_t shdr, uint64_t entsize,
                            uint64_t field_off, unsigned width)
{
	uint64_t off = eb_field(e, shdr, &S_OFFSET), size = eb_field(e, shdr, &S_SIZE);
	if (off >= e->size || entsize == 0)
		return UINT64_MAX;
	if (size > e->size - off)
		size = e->size - off;
	uint64_t n = size / entsize;
	if (n == 0 || field_off + width > entsize)
		return UINT64_MAX;
	return off + rng_below(r, n) * entsize + field_off;
}

static void set_at(struct rng *r, struct elfbuf *e, uint64_t at, unsigned width)
{
	if (at == UINT64_MAX)
		return;
	eb_put(e, at, width, interesting(r, e, eb_get(e, at, width), width));
}

/* st_name, st_info, st_other, st_shndx, st_value or st_size of a symbol. */
void mut_symbol(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	static const struct field fields[] = {
	        {0, 4, 0, 4},  /* st_name */
	        {12, 1, 4, 1}, /* st_info */
	        {13, 1, 5, 1}, /* st_other */
	        {14, 2, 6, 2}, /* st_shndx */
	        {4, 4, 8, 8},  /* st_value */
	        {8, 4, 16, 8}, /* st_size */
	};
	uint64_t sh = pick_section(r, e, t, SHT_SYMTAB, SHT_DYNSYM);
	if (sh == UINT64_MAX)
		return;
	const struct field *f = &fields[rng_below(r, sizeof(fields) / sizeof(fields[0]))];
	uint64_t at = entry_field(r, e, sh, e->is64 ? 24 : 16, e->is64 ? f->off64 : f->off32,
	                          field_width(e, f));
	set_at(r, e, at, field_width(e, f));
}

/* d_tag (often to a tag that matters) or d_val of a dynamic entry. */
void mut_dynamic(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	static const uint64_t tags[] = {0,          1,          4,          5,          6,
	                                10,         11,         14,         15,         29,
	                                0x6ffffef5, 0x6ffffffb, 0x6ffffff0, 0x6ffffffc, 0x6ffffffe,
	                                0x6ffffffd, 0x6fffffff};
	uint64_t sh = pick_section(r, e, t, SHT_DYNAMIC, SHT_DYNAMIC);
	if (sh == UINT64_MAX)
		return;
	unsigned w = e->is64 ? 8 : 4;
	bool tag = rng_below(r, 2);
	uint64_t at = entry_field(r, e, sh, 2 * w, tag ? 0 : w, w);
	if (at == UINT64_MAX)
		return;
	if (tag && rng_below(r, 2))
		eb_put(e, at, w, tags[rng_below(r, sizeof(tags) / sizeof(tags[0]))]);
	else
		set_at(r, e, at, w);
}

/* n_namesz, n_descsz or n_type of the first note of a note section. */
void mut_note(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	uint64_t sh = pick_section(r, e, t, SHT_NOTE, SHT_NOTE);
	if (sh == UINT64_MAX)
		return;
	uint64_t off = eb_field(e, sh, &S_OFFSET);
	set_at(r, e, off + 4 * rng_below(r, 3), 4);
}

/* Any aligned word of any section. */
void mut_section_word(struct rng *r, struct elfbuf *e, const struct tables *t)
{
	uint64_t sh = pick_section(r, e, t, 0, 0);
	if (sh == UINT64_MAX)
		return;
	unsigned w = rng_below(r, 2) ? 4 : 8;
	set_at(r, e, entry_field(r, e, sh, w, 0, w), w);
}
