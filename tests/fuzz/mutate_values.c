/*
 * The mutator's toolbox: a small PRNG, bounds-checked field access in the
 * file's class and byte order, boundary values, and finding the tables.
 */
#include "mutate.h"

/* ELF header fields (offset/width for ELFCLASS32, then ELFCLASS64). */
const struct field F_PHOFF = {28, 4, 32, 8};
const struct field F_SHOFF = {32, 4, 40, 8};
const struct field F_PHENTSIZE = {42, 2, 54, 2};
const struct field F_PHNUM = {44, 2, 56, 2};
const struct field F_SHENTSIZE = {46, 2, 58, 2};
const struct field F_SHNUM = {48, 2, 60, 2};
const struct field F_SHSTRNDX = {50, 2, 62, 2};
/* Section header fields. */
const struct field S_NAME = {0, 4, 0, 4};
const struct field S_TYPE = {4, 4, 4, 4};
const struct field S_OFFSET = {16, 4, 24, 8};
const struct field S_SIZE = {20, 4, 32, 8};
const struct field S_LINK = {24, 4, 40, 4};
const struct field S_INFO = {28, 4, 44, 4};

uint64_t rng_next(struct rng *r)
{
	/* xorshift64* */
	uint64_t x = r->s ? r->s : 0x853c49e6748fea9bull;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint64_t rng_below(struct rng *r, uint64_t n)
{
	return n ? rng_next(r) % n : 0;
}

static bool eb_has(const struct elfbuf *e, uint64_t off, unsigned width)
{
	return off <= e->size && width <= e->size - off;
}

uint64_t eb_get(const struct elfbuf *e, uint64_t off, unsigned width)
{
	if (!eb_has(e, off, width))
		return 0;
	uint64_t v = 0;
	for (unsigned i = 0; i < width; i++) {
		unsigned k = e->msb ? i : width - 1 - i;
		v = v << 8 | e->d[off + k];
	}
	return v;
}

void eb_put(struct elfbuf *e, uint64_t off, unsigned width, uint64_t v)
{
	if (!eb_has(e, off, width))
		return;
	for (unsigned i = 0; i < width; i++) {
		unsigned k = e->msb ? width - 1 - i : i;
		e->d[off + k] = (uint8_t)(v >> (8 * i));
	}
}

unsigned field_width(const struct elfbuf *e, const struct field *f)
{
	return e->is64 ? f->w64 : f->w32;
}

uint64_t eb_field(const struct elfbuf *e, uint64_t base, const struct field *f)
{
	return eb_get(e, base + (e->is64 ? f->off64 : f->off32), field_width(e, f));
}

void eb_set_field(struct elfbuf *e, uint64_t base, const struct field *f, uint64_t v)
{
	eb_put(e, base + (e->is64 ? f->off64 : f->off32), field_width(e, f), v);
}

/* Values that matter whatever the field. */
static const uint64_t fixed[] = {
        0,
        1,
        2,
        3,
        7,
        8,
        0x10,
        0x3f,
        0x40,
        0x7f,
        0x80,
        0xff,
        0x100,
        0xfeff,
        0xff00,
        0xfffe,
        0xffff,
        0x10000,
        0x7fffffff,
        0x80000000,
        0xfffffffe,
        0xffffffff,
        0x100000000,
        0x7fffffffffffffff,
        0x8000000000000000,
        0xffffffffffffffff,
        0x6ffffffb,
        0x70000000,
        0x70000001,
        0x6474e550,
        0x6474e551,
};

static uint64_t mask(unsigned width)
{
	return width >= 8 ? UINT64_MAX : ((uint64_t)1 << (8 * width)) - 1;
}

uint64_t interesting(struct rng *r, const struct elfbuf *e, uint64_t cur, unsigned width)
{
	uint64_t v;
	uint64_t size = e->size;
	switch (rng_below(r, 12)) {
	case 0:
		v = fixed[rng_below(r, sizeof(fixed) / sizeof(fixed[0]))];
		break;
	case 1:
		v = cur + 1;
		break;
	case 2:
		v = cur - 1;
		break;
	case 3:
		v = size + rng_below(r, 3) - 1; /* size - 1, size, size + 1 */
		break;
	case 4:
		v = size - cur + rng_below(r, 3) - 1; /* cur + v lands at the end */
		break;
	case 5:
		v = (uint64_t)0 - cur; /* cur + v wraps to 0 */
		break;
	case 6:
		v = rng_below(r, size + 1);
		break;
	case 7:
		v = eb_field(e, 0, rng_below(r, 2) ? &F_SHOFF : &F_PHOFF);
		break;
	case 8:
		v = cur ^ ((uint64_t)1 << rng_below(r, 8 * width));
		break;
	case 9:
		v = rng_below(r, 64);
		break;
	case 10:
		v = mask(width) - rng_below(r, 2); /* all ones, or one less */
		break;
	default:
		v = cur * 2;
		break;
	}
	return v & mask(width);
}

/* How many entries of n, entsize bytes each from off, fit in the buffer. */
static uint64_t fitting(const struct elfbuf *e, uint64_t off, uint64_t entsize, uint64_t n)
{
	if (entsize == 0 || off >= e->size)
		return 0;
	uint64_t room = (e->size - off) / entsize;
	return n < room ? n : room;
}

void find_tables(const struct elfbuf *e, struct tables *t)
{
	t->shoff = eb_field(e, 0, &F_SHOFF);
	t->shentsize = eb_field(e, 0, &F_SHENTSIZE);
	uint64_t shnum = eb_field(e, 0, &F_SHNUM);
	if (shnum == 0 && t->shoff != 0)
		shnum = eb_field(e, t->shoff, &S_SIZE);
	t->shnum = fitting(e, t->shoff, t->shentsize, shnum);
	t->phoff = eb_field(e, 0, &F_PHOFF);
	t->phentsize = eb_field(e, 0, &F_PHENTSIZE);
	uint64_t phnum = eb_field(e, 0, &F_PHNUM);
	if (phnum == 0xffff && t->shoff != 0)
		phnum = eb_field(e, t->shoff, &S_INFO);
	t->phnum = fitting(e, t->phoff, t->phentsize, phnum);
}
