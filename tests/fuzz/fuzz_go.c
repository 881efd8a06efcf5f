/*
 * libFuzzer target: Go's pclntab. An input that is an ELF file is opened
 * as it is (the Go fixtures, replayed); any other is a pclntab: its first
 * byte chooses the file around it (bit 0: ELF32, else ELF64; bit 1: big
 * endian; bit 2: no section headers; bit 3: an ET_DYN whose table is in
 * the PT_GNU_RELRO part of a writable segment), the rest is the table, put
 * in a file with 64 KiB of text at 0x401000 (where gotab.py's tables
 * start) and a first writable segment holding build info (so that the file
 * is a Go binary to pfelf_is_go, which lets a table without section be
 * found by scanning). Then the Go walk (walk_go.c). Mutator: mutate_go.c.
 */
#include "fuzz.h"
#include "walk.h"
#include "walk_go.h"

#include <stdlib.h>
#include <string.h>

#define TEXT_VADDR 0x401000u
#define TEXT_SIZE  (64u << 10)
#define TAB_VADDR  0x500000u
#define TEXT_OFF   0x1000u
#define TAB_OFF    (TEXT_OFF + TEXT_SIZE)
#define DATA_VADDR 0x600000u
#define DATA_SIZE  64u

struct out {
	uint8_t *p;
	bool msb, e64;
};

static void put(struct out *o, size_t at, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++)
		o->p[at + (o->msb ? width - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

/* A word of the class: 4 or 8 bytes. */
static size_t word(struct out *o, size_t at, uint64_t v)
{
	unsigned w = o->e64 ? 8 : 4;
	put(o, at, w, v);
	return at + w;
}

static void phdr(struct out *o, size_t at, uint32_t type, uint32_t flags, uint64_t off,
                 uint64_t vaddr, uint64_t size)
{
	put(o, at, 4, type);
	if (o->e64) {
		put(o, at + 4, 4, flags);
		at += 8;
	} else {
		put(o, at + 24, 4, flags);
		at += 4;
	}
	at = word(o, at, off);
	at = word(o, at, vaddr);
	at = word(o, at, vaddr);
	at = word(o, at, size);
	at = word(o, at, size);
	word(o, o->e64 ? at : at + 4, 0x1000);
}

static void shdr(struct out *o, size_t at, uint32_t name, uint32_t type, uint64_t flags,
                 uint64_t addr, uint64_t off, uint64_t size)
{
	put(o, at, 4, name);
	put(o, at + 4, 4, type);
	at = word(o, at + 8, flags);
	at = word(o, at, addr);
	at = word(o, at, off);
	at = word(o, at, size);
	word(o, at + 8, 1); /* sh_addralign, after sh_link and sh_info */
}

static const char names[] = "\0.text\0.gopclntab\0.data.rel.ro\0.shstrtab";

/* The ELF file around table (n bytes): *len bytes, malloc'd. */
static uint8_t *wrap(uint8_t flags, const uint8_t *table, size_t n, size_t *len)
{
	struct out o = {NULL, flags & 2, !(flags & 1)};
	bool relro = flags & 8, shdrs = !(flags & 4);
	size_t eh = o.e64 ? 64 : 52, ph = o.e64 ? 56 : 32, sh = o.e64 ? 64 : 40;
	size_t data = (TAB_OFF + n + 15) & ~(size_t)15, str = data + DATA_SIZE;
	size_t shoff = (str + sizeof(names) + 7) & ~(size_t)7;
	*len = shdrs ? shoff + 5 * sh : str;
	o.p = calloc(1, *len);
	if (!o.p)
		return NULL;
	memcpy(o.p, "\177ELF", 4);
	o.p[4] = o.e64 ? 2 : 1;
	o.p[5] = o.msb ? 2 : 1;
	o.p[6] = 1;
	put(&o, 16, 2, relro ? 3 : 2);
	put(&o, 18, 2, o.e64 ? 62 : 3);
	put(&o, 20, 4, 1);
	size_t at = word(&o, 24, TEXT_VADDR);
	at = word(&o, at, eh);
	word(&o, at, shdrs ? shoff : 0);
	put(&o, eh - 12, 2, (uint16_t)eh);
	put(&o, eh - 10, 2, (uint16_t)ph);
	put(&o, eh - 8, 2, relro ? 4 : 3);
	put(&o, eh - 6, 2, (uint16_t)sh);
	put(&o, eh - 4, 2, shdrs ? 5 : 0);
	put(&o, eh - 2, 2, shdrs ? 4 : 0);
	phdr(&o, eh, 1, 5, TEXT_OFF, TEXT_VADDR, TEXT_SIZE);
	phdr(&o, eh + ph, 1, 6, data, DATA_VADDR, DATA_SIZE);
	phdr(&o, eh + 2 * ph, 1, relro ? 6 : 4, TAB_OFF, TAB_VADDR, n);
	if (relro)
		phdr(&o, eh + 3 * ph, 0x6474e552, 4, TAB_OFF, TAB_VADDR, n);
	memcpy(o.p + TAB_OFF, table, n);
	/* build info, 1.18+ inline: the version, no module text */
	memcpy(o.p + data, "\xff Go buildinf:", 14);
	o.p[data + 14] = o.e64 ? 8 : 4;
	o.p[data + 15] = (uint8_t)(2 | o.msb);
	memcpy(o.p + data + 32, "\x06go1.99", 7);
	if (shdrs) {
		memcpy(o.p + str, names, sizeof(names));
		shdr(&o, shoff + sh, 1, 1, 6, TEXT_VADDR, TEXT_OFF, TEXT_SIZE);
		shdr(&o, shoff + 2 * sh, relro ? 18 : 7, 1, relro ? 3 : 2, TAB_VADDR, TAB_OFF, n);
		shdr(&o, shoff + 4 * sh, 31, 3, 0, 0, str, sizeof(names));
	}
	return o.p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	pfelf_file *f = NULL;
	if (size >= 4 && memcmp(data, "\177ELF", 4) == 0) {
		if (pfelf_open_memory(data, size, 0, &f) == 0) {
			walk_go(f);
			pfelf_close(f);
		}
		return 0;
	}
	size_t len;
	uint8_t *file = wrap(data[0], data + 1, size - 1, &len);
	WALK_CHECK(file != NULL);
	WALK_CHECK(pfelf_open_memory(file, len, 0, &f) == 0);
	walk_go(f);
	pfelf_close(f);
	free(file);
	return 0;
}
