/*
 * The structure-aware ELF mutator: the parts shared by its files.
 *
 * An elfbuf is the input being mutated, read and written in its own class
 * and byte order; every access is bounds-checked (out of range reads give
 * 0, writes are dropped), so any bytes at all can be mutated safely.
 */
#ifndef MUTATE_H
#define MUTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rng {
	uint64_t s;
};

uint64_t rng_next(struct rng *r);
/* A number in [0, n) (0 when n is 0). */
uint64_t rng_below(struct rng *r, uint64_t n);

struct elfbuf {
	uint8_t *d;
	size_t size;
	size_t max;
	bool is64;
	bool msb;
};

/* A field: offset and width for ELFCLASS32, then for ELFCLASS64. */
struct field {
	uint8_t off32, w32, off64, w64;
};

uint64_t eb_get(const struct elfbuf *e, uint64_t off, unsigned width);
void eb_put(struct elfbuf *e, uint64_t off, unsigned width, uint64_t v);
uint64_t eb_field(const struct elfbuf *e, uint64_t base, const struct field *f);
void eb_set_field(struct elfbuf *e, uint64_t base, const struct field *f, uint64_t v);
unsigned field_width(const struct elfbuf *e, const struct field *f);

/* Header fields used by the mutator. */
extern const struct field F_PHOFF, F_SHOFF, F_PHENTSIZE, F_PHNUM, F_SHENTSIZE, F_SHNUM, F_SHSTRNDX;
/* Section header fields. */
extern const struct field S_NAME, S_TYPE, S_OFFSET, S_SIZE, S_LINK, S_INFO;

/*
 * A value near a boundary for a field of width bytes that holds cur: 0, 1,
 * cur±1, the file size ±1, 0xffff, 0xffffffff, 2^63, a value that makes
 * cur + value wrap, the offset of a table, a random offset in the file...
 */
uint64_t interesting(struct rng *r, const struct elfbuf *e, uint64_t cur, unsigned width);

/* Where the section and program header tables are, and how many of their
 * entries lie wholly inside the buffer. */
struct tables {
	uint64_t shoff, shentsize, shnum;
	uint64_t phoff, phentsize, phnum;
};
void find_tables(const struct elfbuf *e, struct tables *t);

/* Mutations of section contents (mutate_meta.c). */
void mut_symbol(struct rng *r, struct elfbuf *e, const struct tables *t);
void mut_dynamic(struct rng *r, struct elfbuf *e, const struct tables *t);
void mut_note(struct rng *r, struct elfbuf *e, const struct tables *t);
void mut_section_word(struct rng *r, struct elfbuf *e, const struct tables *t);

#endif /* MUTATE_H */
