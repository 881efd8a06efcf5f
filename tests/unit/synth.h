/*
 * A small ELF writer for tests that need header values no compiler emits:
 * chosen section types and flags, segment types, adjacent PT_LOADs. It only
 * writes bytes; what they mean is checked with readelf or with the bytes.
 *
 * Layout: ELF header, program headers, zero padding up to TB_SYNTH_PAYLOAD,
 * payload bytes (byte i is tb_synth_byte(i)), .shstrtab, section headers.
 * Section 0 is SHT_NULL, the caller's sections follow, .shstrtab is last.
 */
#ifndef TB_SYNTH_H
#define TB_SYNTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TB_SYNTH_PAYLOAD 0x1000u

struct tb_synth_sec {
	const char *name;
	uint32_t type;
	uint64_t flags;
	uint64_t addr, offset, size; /* offset absolute in the file */
};

struct tb_synth_seg {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

struct tb_synth {
	int elfclass; /* 1 or 2 */
	bool big_endian;
	uint16_t machine;
	uint16_t type; /* e_type */
	uint8_t osabi;
	size_t payload; /* bytes of payload after TB_SYNTH_PAYLOAD */
	size_t nsec;
	const struct tb_synth_sec *sec;
	size_t nseg;
	const struct tb_synth_seg *seg;
};

/* The value of payload byte i (at file offset TB_SYNTH_PAYLOAD + i). */
uint8_t tb_synth_byte(size_t i);

/* Build the file; returns a malloc'd buffer of *len bytes. */
uint8_t *tb_synth_build(const struct tb_synth *s, size_t *len);

#endif
