/*
 * Relocations: the entries of SHT_REL, SHT_RELA and SHT_RELR sections and
 * the names of relocation types.
 * Part of pfelf's public API: include "pfelf.h" (conventions there).
 */
#ifndef PFELF_RELOC_H
#define PFELF_RELOC_H

#include "pfelf_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------- relocations */
/*
 * The entries of SHT_REL, SHT_RELA and SHT_RELR sections, read lazily from
 * the file a few at a time (nothing is copied whole, nothing allocated):
 * each offset, size and count is checked against the section and the file
 * first. A SHT_RELR section's address and bitmap words are expanded into
 * one entry per relocated address as the iterator goes.
 */

#define PFELF_SHT_RELA 4  /* SHT_RELA: r_offset, r_info, r_addend */
#define PFELF_SHT_REL  9  /* SHT_REL: r_offset, r_info */
#define PFELF_SHT_RELR 19 /* SHT_RELR: address words and bitmaps */

/** A relocation section, as pfelf_reloc_section() describes it. */
typedef struct pfelf_relsec {
	uint32_t index;   /* section index */
	uint32_t type;    /* PFELF_SHT_REL, PFELF_SHT_RELA or PFELF_SHT_RELR */
	uint64_t offset;  /* sh_offset */
	uint64_t count;   /* entries as stored (RELR: words), sh_size / entry size */
	uint64_t entsize; /* bytes of one entry: the class's (8/16/4 or 12/24/8 for REL, RELA,
	                     RELR); sh_entsize is not used, as readelf does not */
	uint32_t symtab;  /* sh_link: the symbol table its symbol indexes refer to */
} pfelf_relsec;

/** One relocation, decoded to host order (a copy: the caller owns it). */
typedef struct pfelf_reloc {
	uint64_t offset; /* r_offset; for RELR the address relocated */
	uint64_t info;   /* r_info as readelf shows it (MIPS64 little endian: reordered, see
	                    below); 0 for RELR */
	uint32_t type;   /* ELF32: r_info & 0xff; ELF64: r_info & 0xffffffff; MIPS64: r_type;
	                    ELF64 EM_SPARCV9: r_info & 0xff (readelf's ELF64_R_TYPE_ID: bits
	                    8..31 are R_SPARC_OLO10's second addend, see pfelf_reloc_type_data) */
	uint32_t sym;    /* ELF32: r_info >> 8; ELF64: r_info >> 32; 0 for RELR */
	int64_t addend;  /* r_addend, sign-extended for ELF32; 0 for REL and RELR */
	bool has_addend; /* a SHT_RELA entry */
	/* ELF64 MIPS only (else 0): r_info is r_sym (32 bits), r_ssym, r_type3,
	 * r_type2, r_type (8 bits each), and a little-endian file stores r_sym
	 * first then the four bytes; info holds them in readelf's order
	 * (sym << 32 | ssym << 24 | type3 << 16 | type2 << 8 | type). */
	uint8_t type2, type3, ssym;
} pfelf_reloc;

/**
 * Describe section index as a relocation section. Errors: -ENODATA (not
 * SHT_REL, SHT_RELA or SHT_RELR), -EINVAL (its bytes lie outside the
 * file), those of pfelf_section. A partial entry at the end is not counted.
 */
PFELF_API int pfelf_reloc_section(pfelf_file *f, uint32_t index, pfelf_relsec *out);

/**
 * Entry i of SHT_REL or SHT_RELA section index (one read of one entry).
 * Errors: -ENOENT (i >= count), -ENODATA (not REL or RELA), -EIO, and
 * those of pfelf_reloc_section.
 */
PFELF_API int pfelf_reloc_get(pfelf_file *f, uint32_t index, uint64_t i, pfelf_reloc *out);

/* Where an iterator stands: copy it out (pfelf_reloc_tell) and back
 * (pfelf_reloc_seek) to resume there later. Fields are internal. */
typedef struct pfelf_reloc_pos {
	uint64_t entry;  /* next entry (word) to read */
	uint64_t where;  /* RELR: address after the last address word */
	uint64_t bitmap; /* RELR: bits of the current bitmap still to expand */
	uint64_t base;   /* RELR: address of the bitmap's next bit */
} pfelf_reloc_pos;

/* An iterator over the relocations of one section. The caller owns it
 * (no allocation, nothing to free); it holds f, which must stay open. */
typedef struct pfelf_reloc_iter {
	pfelf_file *f;
	pfelf_relsec sec;
	pfelf_reloc_pos pos;
	uint64_t buf_first; /* entry of buf[0] */
	uint32_t buf_n;     /* entries in buf */
	uint8_t buf[512];   /* entries read ahead */
} pfelf_reloc_iter;

/**
 * Start it at the first relocation of section index. Errors: those of
 * pfelf_reloc_section.
 */
PFELF_API int pfelf_reloc_iter_init(pfelf_file *f, uint32_t index, pfelf_reloc_iter *it);

/**
 * The next relocation into *out: 1, 0 at the end, -EIO (bytes gone since
 * open). A SHT_RELR section gives one relocation per address: an address
 * word, then one per set bit of each bitmap word after it (a bitmap before
 * any address word counts from address 0, as readelf does).
 */
PFELF_API int pfelf_reloc_next(pfelf_reloc_iter *it, pfelf_reloc *out);

/** Where it stands (never fails). */
PFELF_API void pfelf_reloc_tell(const pfelf_reloc_iter *it, pfelf_reloc_pos *pos);

/** Resume at pos, taken by pfelf_reloc_tell from an iterator of the same section. */
PFELF_API void pfelf_reloc_seek(pfelf_reloc_iter *it, const pfelf_reloc_pos *pos);

/**
 * The relocation type name readelf -r prints for e_machine machine
 * ("R_X86_64_JUMP_SLOT"), for every machine binutils 2.40's readelf names
 * types of (x86-64, i386, AArch64, ARM, RISC-V, PPC64, PPC, MIPS, S/390,
 * SPARC, IA-64, Alpha, ARC, C-SKY, M68K, BPF, LoongArch, SH, PA-RISC and
 * 58 more tables). A static string, or NULL for a type without a name or
 * a machine without a table (readelf then prints "unrecognized: %-7lx").
 * Two machines have two tables, chosen by the ELF header: this takes
 * e_flags 0 and OS/ABI 0 (MSP430: MSP430X names; NFP: NFP-6xxx names);
 * pfelf_reloc_type_string_hdr() chooses as readelf does.
 */
PFELF_API const char *pfelf_reloc_type_string(uint16_t machine, uint32_t type);

/**
 * The same for a file with header eh (its e_machine, e_flags and
 * EI_OSABI): EM_MSP430 has MSP430X names when (e_flags & 0xff) is 45 or
 * the OS/ABI is 0, the old MSP430 names otherwise; EM_NFP has NFP-32xx
 * names when (e_flags >> 8) & 0xffff is 0x3200. NULL as above, or when
 * eh is NULL.
 */
PFELF_API const char *pfelf_reloc_type_string_hdr(const pfelf_ehdr *eh, uint32_t type);

/**
 * R_SPARC_OLO10's second addend, which readelf -r prints as " + %lx"
 * after the entry (as an unsigned 64-bit value) when e_machine is
 * EM_SPARCV9 (43) and the type is R_SPARC_OLO10: bits 8..31 of r_info,
 * sign-extended from 24 bits (readelf's ELF64_R_TYPE_DATA; in an ELF32
 * file those are r_sym's bits, and readelf prints them so).
 */
PFELF_API int64_t pfelf_reloc_type_data(const pfelf_reloc *r);

/**
 * The same written into buf: the name, or "unrecognized: %x" as readelf
 * spells an unknown type (without its padding). Returns the length,
 * -ENOSPC (buf holds a cut string).
 */
PFELF_API int pfelf_reloc_type_name(uint16_t machine, uint32_t type, char *buf, size_t buflen);

#ifdef __cplusplus
}
#endif

#endif /* PFELF_RELOC_H */
