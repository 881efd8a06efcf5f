/* What the tests of the debug-file writer share (dbgw_helpers.h). */
#include "dbgw_helpers.h"
#include "backends.h"
#include "synth.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

const struct dbgw_target dbgw_targets[DBGW_NTARGETS] = {
        {"ELF64 LSB x86-64", ELFCLASS64, false, EM_X86_64},
        {"ELF32 LSB i386", ELFCLASS32, false, EM_386},
        {"ELF64 MSB s390x", ELFCLASS64, true, EM_S390},
        {"ELF32 MSB PowerPC", ELFCLASS32, true, EM_PPC},
};

pfelf_ehdr dbgw_target_ehdr(const struct dbgw_target *t, uint16_t type)
{
	pfelf_ehdr e = {.elfclass = (uint8_t)t->elfclass,
	                .data = t->be ? ELFDATA2MSB : ELFDATA2LSB,
	                .type = type,
	                .machine = t->machine};
	return e;
}

#define NOTE_OFF  TB_SYNTH_PAYLOAD
#define NOTE_SIZE 36
const uint8_t dbgw_build_id[20] = {0xde, 0xad, 0xbe, 0xef, 1,  2,  3,  4,  5,  6,
                                   7,    8,    9,    10,   11, 12, 13, 14, 15, 16};
static const struct tb_synth_sec synth_secs[] = {
        {".note.gnu.build-id", SHT_NOTE, SHF_ALLOC, DBGW_NOTE_ADDR, NOTE_OFF, NOTE_SIZE},
        {".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x401000, NOTE_OFF + 0x40, 0x3000},
        {".rodata", SHT_PROGBITS, SHF_ALLOC, 0x405000, NOTE_OFF + 0x40, 0x100},
        {".tbss", SHT_NOBITS, SHF_ALLOC | SHF_WRITE | SHF_TLS, 0x406000, 0, 0x100},
        {".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x406000, NOTE_OFF + 0x40, 0x200},
        {".rela.plt", SHT_RELA, SHF_ALLOC | SHF_INFO_LINK, 0x407000, NOTE_OFF + 0x40, 0x30},
        {".comment", SHT_PROGBITS, 0, 0, NOTE_OFF + 0x40, 0x10},
};
static const struct tb_synth_seg synth_segs[] = {
        {PT_LOAD, PF_R, 0, 0x400000, 0x1000, 0x1000, 0x1000},
        {PT_LOAD, PF_R | PF_X, 0x1000, 0x401000, 0x3000, 0x3000, 0x1000},
        {PT_LOAD, PF_R | PF_W, 0x1000, 0x406000, 0x100, 0x1100, 0x200000},
        {PT_NOTE, PF_R, NOTE_OFF, DBGW_NOTE_ADDR, NOTE_SIZE, NOTE_SIZE, 4},
        {PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16},
};

/* Clear e_shoff, e_shnum and e_shstrndx. */
static void drop_section_headers(uint8_t *p, const struct dbgw_target *t)
{
	bool is64 = t->elfclass == ELFCLASS64;
	tb_put(p + (is64 ? 0x28 : 0x20), is64 ? 8 : 4, t->be, 0);
	tb_put(p + (is64 ? 0x3c : 0x30), 2, t->be, 0);
	tb_put(p + (is64 ? 0x3e : 0x32), 2, t->be, 0);
}

uint8_t *dbgw_synth_binary(const struct dbgw_target *t, bool shdrs, size_t *len)
{
	struct tb_synth s = {.elfclass = t->elfclass,
	                     .big_endian = t->be,
	                     .machine = t->machine,
	                     .type = ET_EXEC,
	                     .osabi = ELFOSABI_GNU,
	                     .payload = 0x100,
	                     .nsec = sizeof(synth_secs) / sizeof(synth_secs[0]),
	                     .sec = synth_secs,
	                     .nseg = sizeof(synth_segs) / sizeof(synth_segs[0]),
	                     .seg = synth_segs};
	uint8_t *p = tb_synth_build(&s, len);
	tb_put(p + NOTE_OFF, 4, t->be, 4);
	tb_put(p + NOTE_OFF + 4, 4, t->be, sizeof(dbgw_build_id));
	tb_put(p + NOTE_OFF + 8, 4, t->be, NT_GNU_BUILD_ID);
	memcpy(p + NOTE_OFF + 12, "GNU", 4);
	memcpy(p + NOTE_OFF + 16, dbgw_build_id, sizeof(dbgw_build_id));
	if (!shdrs)
		drop_section_headers(p, t);
	return p;
}

uint8_t *dbgw_section_bytes(pfelf_file *f, const char *name, size_t *len)
{
	const pfelf_shdr *s;
	assert_ret(pfelf_section_by_name(f, name, &s), 0);
	uint8_t *p = malloc(s->size + 1);
	assert_non_null(p);
	assert_ret(pfelf_read(f, s->offset, p, s->size), (ssize_t)s->size);
	p[s->size] = 0;
	*len = s->size;
	return p;
}
