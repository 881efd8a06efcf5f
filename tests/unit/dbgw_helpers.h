/*
 * What the tests of the debug-file writer (pfelf_dbgw_*) share: the four
 * targets (classes and byte orders), a binary written for them (tb_synth)
 * whose layout a debug file copies, and reading a section back.
 */
#ifndef TB_DBGW_HELPERS_H
#define TB_DBGW_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pfelf.h>

struct dbgw_target {
	const char *label;
	int elfclass;
	bool be;
	uint16_t machine;
};

/* ELF64 LSB x86-64, ELF32 LSB i386, ELF64 MSB s390x, ELF32 MSB PowerPC. */
extern const struct dbgw_target dbgw_targets[];
#define DBGW_NTARGETS 4

/* The header of a file of target t and e_type type (the rest zero). */
pfelf_ehdr dbgw_target_ehdr(const struct dbgw_target *t, uint16_t type);

/* The binary of dbgw_synth_binary: a build-id note (in .note.gnu.build-id
 * and a PT_NOTE at DBGW_NOTE_ADDR, its id dbgw_build_id), code, read-only
 * data, data and a TLS section over it, an allocated section with
 * SHF_INFO_LINK and one that is not allocated; PT_LOADs of R at 0x400000
 * (0x1000 bytes), R E at 0x401000 (0x3000) and RW at 0x406000 (0x1100). */
extern const uint8_t dbgw_build_id[20];
#define DBGW_NOTE_ADDR 0x400200u

/* The binary for target t: malloc'd, *len bytes. Without section headers
 * when shdrs is false (e_shoff, e_shnum and e_shstrndx 0). */
uint8_t *dbgw_synth_binary(const struct dbgw_target *t, bool shdrs, size_t *len);

/* The bytes of section name of f (malloc'd, a NUL after them), *len of
 * them; fails the test when f has none. */
uint8_t *dbgw_section_bytes(pfelf_file *f, const char *name, size_t *len);

#endif
