/*
 * Relocations in the walk: every SHT_REL, SHT_RELA and SHT_RELR
 * section described, its entries (up to MAX_RELOCS per section) read by
 * the iterator and checked against the input's bytes (offset, info,
 * addend, type and symbol from info), against pfelf_reloc_get, and across
 * a tell and a seek; type names of every entry.
 */
#include "walk.h"

#include <errno.h>
#include <string.h>

#define MAX_RELOCS 4096
#define EM_MIPS    8

static uint64_t get(const struct walk *w, uint64_t off, size_t n, bool msb)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		uint8_t b = w->data[off + (msb ? i : n - 1 - i)];
		v = v << 8 | b;
	}
	return v;
}

/* Entry k of REL/RELA section s as the input's bytes say. */
static void check_entry(const struct walk *w, const pfelf_relsec *s, uint64_t k,
                        const pfelf_reloc *r)
{
	const pfelf_ehdr *eh = pfelf_header(w->f);
	bool msb = eh->data == 2, is64 = eh->elfclass == 2;
	size_t word = is64 ? 8 : 4;
	uint64_t at = s->offset + k * s->entsize;
	WALK_CHECK(at + s->entsize <= w->size);
	WALK_CHECK(r->offset == get(w, at, word, msb));
	WALK_CHECK(r->has_addend == (s->type == PFELF_SHT_RELA));
	if (r->has_addend) {
		uint64_t a = get(w, at + 2 * word, word, msb);
		WALK_CHECK((uint64_t)r->addend == (is64 ? a : (uint64_t)(int64_t)(int32_t)a));
	} else {
		WALK_CHECK(r->addend == 0);
	}
	uint64_t info = get(w, at + word, word, msb);
	if (is64 && eh->machine == EM_MIPS) {
		WALK_CHECK(r->type == (r->info & 0xff) && r->sym == (r->info >> 32));
		WALK_CHECK(r->type2 == ((r->info >> 8) & 0xff) &&
		           r->type3 == ((r->info >> 16) & 0xff));
		if (msb)
			WALK_CHECK(r->info == info);
		return;
	}
	WALK_CHECK(r->info == info);
	WALK_CHECK(r->type == (is64 ? (uint32_t)info : (uint32_t)(info & 0xff)));
	WALK_CHECK(r->sym == (is64 ? (uint32_t)(info >> 32) : (uint32_t)(info >> 8)));
}

static void walk_section(struct walk *w, uint32_t i)
{
	pfelf_relsec s;
	int ret = pfelf_reloc_section(w->f, i, &s);
	WALK_CHECK(ret == 0 || ret == -ENODATA || ret == -EINVAL);
	walk_mix(w, (uint64_t)ret);
	if (ret < 0)
		return;
	WALK_CHECK(s.index == i && s.entsize > 0);
	WALK_CHECK(s.count == 0 ||
	           (s.offset <= w->size && s.count <= (w->size - s.offset) / s.entsize));
	pfelf_reloc_iter it;
	pfelf_reloc r, again;
	pfelf_reloc_pos pos;
	WALK_CHECK(pfelf_reloc_iter_init(w->f, i, &it) == 0);
	char name[64];
	uint64_t k = 0;
	for (; k < MAX_RELOCS; k++) {
		if (k == 7)
			pfelf_reloc_tell(&it, &pos);
		ret = pfelf_reloc_next(&it, &r);
		WALK_CHECK(ret == 0 || ret == 1);
		if (ret == 0)
			break;
		walk_mix(w, r.offset ^ r.info ^ (uint64_t)r.addend);
		WALK_CHECK(pfelf_reloc_type_name(w->machine, r.type, name, sizeof(name)) > 0);
		if (s.type == PFELF_SHT_RELR) {
			WALK_CHECK(r.info == 0 && r.sym == 0 && !r.has_addend);
			continue;
		}
		WALK_CHECK(k < s.count);
		check_entry(w, &s, k, &r);
		WALK_CHECK(pfelf_reloc_get(w->f, i, k, &again) == 0);
		WALK_CHECK(memcmp(&again, &r, sizeof(r)) == 0);
	}
	if (s.type != PFELF_SHT_RELR) {
		WALK_CHECK(k == s.count || k == MAX_RELOCS);
		WALK_CHECK(pfelf_reloc_get(w->f, i, s.count, &again) == -ENOENT);
	}
	if (k > 8) { /* the eighth again, from the position before it */
		pfelf_reloc_iter it2;
		pfelf_reloc eighth;
		WALK_CHECK(pfelf_reloc_iter_init(w->f, i, &it2) == 0);
		for (int n = 0; n < 8; n++)
			WALK_CHECK(pfelf_reloc_next(&it2, &eighth) == 1);
		pfelf_reloc_seek(&it, &pos);
		WALK_CHECK(pfelf_reloc_next(&it, &again) == 1);
		WALK_CHECK(memcmp(&again, &eighth, sizeof(again)) == 0);
	}
}

void walk_relocs(struct walk *w)
{
	int n = pfelf_section_count(w->f);
	for (uint32_t i = 0; n > 0 && i < (uint32_t)n && i < 65536; i++)
		walk_section(w, i);
}
