/*
 * The mutator of fuzz_go: inputs are a flags byte and a pclntab. Three
 * times in four one part of the table is set to a boundary value: a
 * header word (counts, text start, the offsets of its parts), the pad,
 * quantum and pointer size bytes, a function table field, a field of a
 * function's record (name, pc-file and pc-line table offsets, compile
 * unit), or bytes of the pc-value tables (long varints, steps that do not
 * advance, a table's end taken away); or the flags byte. Else libFuzzer's
 * byte mutator.
 */
#include "fuzz.h"
#include "mutate.h"

#include <string.h>

/* The table's layout as its header says (unchecked: any bytes at all). */
struct gotab {
	struct elfbuf e; /* the table: data + 1 */
	unsigned ps, fs; /* pointer size, function table field size */
	int first;       /* header word of the first offset (funcnametab) */
	uint64_t ftab;   /* offset of the function table */
	uint64_t nfunc;
};

static void layout(struct gotab *g)
{
	uint32_t le = (uint32_t)eb_get(&g->e, 0, 4);
	g->e.msb = le != 0xfffffffbu && le != 0xfffffffau && le != 0xfffffff0u && le != 0xfffffff1u;
	uint32_t magic = (uint32_t)eb_get(&g->e, 0, 4);
	g->ps = eb_get(&g->e, 7, 1) == 4 ? 4 : 8;
	g->e.is64 = g->ps == 8;
	g->first = magic == 0xfffffffbu ? -1 : magic == 0xfffffffau ? 2 : 3;
	g->fs = magic == 0xfffffff0u || magic == 0xfffffff1u ? 4 : g->ps;
	g->nfunc = eb_get(&g->e, 8, g->ps);
	g->ftab = g->first < 0 ? 8 + g->ps
	                       : eb_get(&g->e, 8 + (uint64_t)(g->first + 4) * g->ps, g->ps);
}

/* A field of function i's record: name, pcfile, pcln or cuOffset. */
static uint64_t record_field(struct rng *r, const struct gotab *g, uint64_t i)
{
	static const unsigned field[] = {0, 16, 20, 28};
	uint64_t base = g->first < 0 ? 0 : g->ftab;
	uint64_t rec = base + eb_get(&g->e, g->ftab + (2 * i + 1) * g->fs, g->fs);
	unsigned esz = g->fs == 4 && g->first == 3 ? 4 : g->ps;
	return rec + esz + field[rng_below(r, 4)];
}

/* Bytes of a pc-value table: a long varint, stalls, or no end. */
static void pc_bytes(struct rng *r, struct gotab *g, uint64_t at)
{
	static const uint8_t pats[][6] = {
	        {0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, {0x04, 0x00, 0x03, 0x00, 0x04, 0x00},
	        {0x02, 0x01, 0x02, 0x01, 0x02, 0x01}, {0x80, 0x80, 0x80, 0x80, 0x80, 0x80},
	        {0x00, 0x00, 0x00, 0x00, 0x00, 0x00}, {0xff, 0xff, 0xff, 0xff, 0x0f, 0x7f},
	};
	const uint8_t *p = pats[rng_below(r, sizeof(pats) / sizeof(pats[0]))];
	for (unsigned i = 0; i < 6; i++)
		eb_put(&g->e, at + i, 1, p[i]);
}

static void mutate_table(struct rng *r, struct gotab *g)
{
	uint64_t n = g->nfunc < 4096 ? g->nfunc : 4096;
	uint64_t i = rng_below(r, n + 1), at;
	unsigned w = g->ps;
	switch (rng_below(r, 6)) {
	case 0: /* a header word */
		at = 8 + rng_below(r, g->first < 0 ? 1 : (uint64_t)g->first + 5) * g->ps;
		break;
	case 1: /* pad, quantum, pointer size */
		at = 4 + rng_below(r, 4);
		w = 1;
		break;
	case 2: /* a function table field */
		at = g->ftab + rng_below(r, 2 * n + 1) * g->fs;
		w = g->fs;
		break;
	case 3:
	case 4: /* a record's field */
		at = i < n ? record_field(r, g, i) : 8;
		w = 4;
		break;
	default: /* bytes somewhere after the header */
		pc_bytes(r, g, 8 + rng_below(r, g->e.size > 8 ? g->e.size - 8 : 1));
		return;
	}
	eb_put(&g->e, at, w, interesting(r, &g->e, eb_get(&g->e, at, w), w));
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	struct rng r = {seed * 0x9e3779b97f4a7c15ull + 1};
	if (size < 17 || rng_below(&r, 4) == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	if (rng_below(&r, 16) == 0) {
		data[0] ^= (uint8_t)(1u << rng_below(&r, 4));
		return size;
	}
	struct gotab g = {.e = {data + 1, size - 1, max_size - 1, true, false}};
	layout(&g);
	mutate_table(&r, &g);
	return size;
}
