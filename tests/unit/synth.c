/* A small ELF writer for tests (see synth.h). */
#include "synth.h"
#include "backends.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

uint8_t tb_synth_byte(size_t i)
{
	return (uint8_t)(i * 131 + (i >> 8) * 7 + 1);
}

struct tb_w {
	uint8_t *p;
	bool be;
};

static void put(struct tb_w *w, size_t off, size_t size, uint64_t v)
{
	tb_put(w->p + off, size, w->be, v);
}

static void synth_ehdr(struct tb_w *w, const struct tb_synth *s, uint64_t shoff, uint32_t shnum)
{
	bool is64 = s->elfclass == ELFCLASS64;
	size_t a = is64 ? 8 : 4; /* size of an address field */
	size_t o = 24;           /* e_entry */

	memcpy(w->p, ELFMAG, SELFMAG);
	w->p[EI_CLASS] = (uint8_t)s->elfclass;
	w->p[EI_DATA] = s->big_endian ? ELFDATA2MSB : ELFDATA2LSB;
	w->p[EI_VERSION] = EV_CURRENT;
	w->p[EI_OSABI] = s->osabi;
	put(w, 16, 2, s->type);
	put(w, 18, 2, s->machine);
	put(w, 20, 4, EV_CURRENT);
	put(w, o, a, s->nseg ? 0x401000 : 0);
	put(w, o + a, a, s->nseg ? (is64 ? 64 : 52) : 0);
	put(w, o + 2 * a, a, shoff);
	o += 3 * a;
	put(w, o, 4, 0);
	put(w, o + 4, 2, is64 ? 64 : 52);
	put(w, o + 6, 2, s->nseg ? (is64 ? 56 : 32) : 0);
	put(w, o + 8, 2, s->nseg);
	put(w, o + 10, 2, is64 ? 64 : 40);
	put(w, o + 12, 2, shnum);
	put(w, o + 14, 2, shnum - 1);
}

static void synth_phdr(struct tb_w *w, size_t at, bool is64, const struct tb_synth_seg *g)
{
	if (is64) {
		put(w, at, 4, g->type);
		put(w, at + 4, 4, g->flags);
		put(w, at + 8, 8, g->offset);
		put(w, at + 16, 8, g->vaddr);
		put(w, at + 24, 8, g->vaddr);
		put(w, at + 32, 8, g->filesz);
		put(w, at + 40, 8, g->memsz);
		put(w, at + 48, 8, g->align);
	} else {
		put(w, at, 4, g->type);
		put(w, at + 4, 4, g->offset);
		put(w, at + 8, 4, g->vaddr);
		put(w, at + 12, 4, g->vaddr);
		put(w, at + 16, 4, g->filesz);
		put(w, at + 20, 4, g->memsz);
		put(w, at + 24, 4, g->flags);
		put(w, at + 28, 4, g->align);
	}
}

static void synth_shdr(struct tb_w *w, size_t at, bool is64, uint32_t name,
                       const struct tb_synth_sec *c)
{
	size_t a = is64 ? 8 : 4;

	put(w, at, 4, name);
	put(w, at + 4, 4, c->type);
	put(w, at + 8, a, c->flags);
	put(w, at + 8 + a, a, c->addr);
	put(w, at + 8 + 2 * a, a, c->offset);
	put(w, at + 8 + 3 * a, a, c->size);
	/* sh_link, sh_info 0; sh_addralign 1; sh_entsize 0 */
	put(w, at + 16 + 4 * a, a, 1);
}

uint8_t *tb_synth_build(const struct tb_synth *s, size_t *len)
{
	bool is64 = s->elfclass == ELFCLASS64;
	size_t shentsize = is64 ? 64 : 40, phentsize = is64 ? 56 : 32;
	size_t strtab = TB_SYNTH_PAYLOAD + s->payload, strsize = 1 + sizeof(".shstrtab");
	size_t shoff, total, pos;
	uint32_t shnum = (uint32_t)s->nsec + 2;
	struct tb_w w;
	struct tb_synth_sec str = {".shstrtab", SHT_STRTAB, 0, 0, strtab, 0};

	assert_true((is64 ? 64 : 52) + s->nseg * phentsize <= TB_SYNTH_PAYLOAD);
	for (size_t i = 0; i < s->nsec; i++)
		strsize += strlen(s->sec[i].name) + 1;
	shoff = (strtab + strsize + 7) & ~(size_t)7;
	total = shoff + shnum * shentsize;
	w.p = calloc(1, total);
	w.be = s->big_endian;
	assert_non_null(w.p);
	synth_ehdr(&w, s, shoff, shnum);
	for (size_t i = 0; i < s->nseg; i++)
		synth_phdr(&w, (is64 ? 64 : 52) + i * phentsize, is64, &s->seg[i]);
	for (size_t i = 0; i < s->payload; i++)
		w.p[TB_SYNTH_PAYLOAD + i] = tb_synth_byte(i);
	/* names: "" at 0, then each section's, then .shstrtab */
	pos = 1;
	for (size_t i = 0; i < s->nsec; i++) {
		size_t n = strlen(s->sec[i].name) + 1;

		memcpy(w.p + strtab + pos, s->sec[i].name, n);
		synth_shdr(&w, shoff + (i + 1) * shentsize, is64, (uint32_t)pos, &s->sec[i]);
		pos += n;
	}
	memcpy(w.p + strtab + pos, ".shstrtab", sizeof(".shstrtab"));
	str.size = strsize;
	synth_shdr(&w, shoff + (shnum - 1) * shentsize, is64, (uint32_t)pos, &str);
	*len = total;
	return w.p;
}
