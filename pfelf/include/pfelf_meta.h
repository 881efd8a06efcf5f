/*
 * The tables of an ELF file, loaded on first use: symbols, notes, the
 * dynamic section, debug links, Go, compressed sections; the build id of
 * a file without a handle; the bounds of what the tables cost.
 * Part of pfelf's public API: include "pfelf.h" (conventions there).
 */
#ifndef PFELF_META_H
#define PFELF_META_H

#include "pfelf_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================ metadata */
/*
 * Symbols, versions, notes, the dynamic section, debug links, Go and
 * compressed sections. Every table behind these functions is copied out of
 * the file on first use (under the handle's lock, bounded in size) and
 * kept by the handle: the strings and bytes they return are owned by the
 * handle, live until pfelf_close(), and stay valid and NUL-ended even if
 * the file is truncated after they were loaded. "Absent" answers are
 * -ENOENT; a malformed table is -EINVAL; tables over 256 MiB are -EINVAL.
 */

/* Which symbol table. */
enum pfelf_symtab_kind {
	PFELF_SYMTAB = 0, /* .symtab (SHT_SYMTAB) */
	PFELF_DYNSYM = 1, /* .dynsym (SHT_DYNSYM), else DT_SYMTAB of PT_DYNAMIC */
};

/* Status bits of a symbol (pfelf_sym.status). */
#define PFELF_SYM_BAD_NAME  (1u << 0) /* st_name not a NUL-ended string: name is "" */
#define PFELF_SYM_BAD_SHNDX (1u << 1) /* SHN_XINDEX without a SHT_SYMTAB_SHNDX entry */

/* How a dynamic symbol's version reads (readelf -s's name suffix). */
enum pfelf_version_kind {
	PFELF_VER_NONE = 0,    /* no version shown */
	PFELF_VER_DEFAULT = 1, /* defined, default version: "name@@VER" */
	PFELF_VER_HIDDEN = 2,  /* defined, hidden version: "name@VER" */
	PFELF_VER_NEEDED = 3,  /* required from another object: "name@VER (versym)" */
	PFELF_VER_BAD = 4,     /* index in no definition or requirement: "name@<corrupt>" */
};

/** One symbol, decoded to host order (a copy: the caller owns the struct). */
typedef struct pfelf_sym {
	uint32_t index;     /* index in its table */
	uint32_t name_off;  /* st_name */
	const char *name;   /* owned by the handle; "" when PFELF_SYM_BAD_NAME */
	uint64_t value;     /* st_value */
	uint64_t size;      /* st_size */
	uint8_t info;       /* st_info */
	uint8_t type;       /* STT_* (st_info & 0xf) */
	uint8_t bind;       /* STB_* (st_info >> 4) */
	uint8_t other;      /* st_other */
	uint8_t visibility; /* STV_* (st_other & 3) */
	uint16_t raw_shndx; /* st_shndx as stored */
	uint32_t shndx;   /* section index, SHN_XINDEX resolved; reserved values (>= 0xff00) kept */
	uint32_t status;  /* PFELF_SYM_* bits */
	uint16_t versym;  /* .gnu.version entry (dynsym only; 0 when none) */
	uint8_t ver_kind; /* enum pfelf_version_kind */
	const char
	        *version; /* version name, owned by the handle; NULL unless DEFAULT/HIDDEN/NEEDED */
} pfelf_sym;

/**
 * Number of entries of symbol table t (index 0 included), 0 when the file
 * has none. The table and its string table are copied on first use; for
 * PFELF_DYNSYM without a SHT_DYNSYM section, DT_SYMTAB/DT_STRTAB are used
 * and the count comes from DT_HASH or DT_GNU_HASH. Errors: -EINVAL
 * (malformed table or bad t), -EIO, -ENOMEM, those of pfelf_section_count.
 */
PFELF_API int pfelf_symbol_count(pfelf_file *f, enum pfelf_symtab_kind t);

/**
 * Copy symbol index of table t into *out (versions filled for
 * PFELF_DYNSYM). Pointers in *out are owned by the handle. Errors:
 * -ENOENT (index >= count), those of pfelf_symbol_count.
 */
PFELF_API int pfelf_symbol(pfelf_file *f, enum pfelf_symtab_kind t, uint32_t index, pfelf_sym *out);

/**
 * The section index of table t, 0 when it came from PT_DYNAMIC; -ENOENT
 * when the file has no such table; errors of pfelf_symbol_count.
 */
PFELF_API int pfelf_symbol_table_section(pfelf_file *f, enum pfelf_symtab_kind t);

/**
 * Look name up in the dynamic symbols through DT_GNU_HASH (bloom filter,
 * bucket, chain), else DT_HASH (or the SHT_GNU_HASH / SHT_HASH sections).
 * Finds defined, non-local symbols only (st_shndx != SHN_UNDEF, binding
 * not STB_LOCAL: what a dynamic linker can bind to); among several with
 * that name, the lowest index whose version is not hidden, else the
 * lowest index. name is matched without any "@VER". Errors: -ENOENT (no
 * such symbol), -ENODATA (no hash table), -EINVAL (malformed table: a
 * chain that loops or runs past the symbols), those of pfelf_symbol_count.
 */
PFELF_API int pfelf_symbol_lookup(pfelf_file *f, const char *name, pfelf_sym *out);

/**
 * Look name up in table t through an index sorted by name, built on first
 * use (4 bytes per symbol). Same choice among several symbols as
 * pfelf_symbol_lookup, except that undefined symbols are found when no
 * defined one has that name. Errors: -ENOENT, those of pfelf_symbol_count.
 */
PFELF_API int pfelf_symbol_find(pfelf_file *f, enum pfelf_symtab_kind t, const char *name,
                                pfelf_sym *out);

/**
 * The symbol of table t whose [value, value+size) contains addr, through
 * an index sorted by address built on first use (28 bytes per indexed
 * symbol). Indexed: defined symbols (section index 1 .. 0xfeff or
 * resolved SHN_XINDEX) of size > 0 and type NOTYPE, OBJECT, FUNC, COMMON
 * or IFUNC. When several contain addr: the greatest value, then the
 * smallest size, then the lowest index. Values are used as stored (in
 * ET_REL files they are section offsets). Errors: -ENOENT, those of
 * pfelf_symbol_count.
 */
PFELF_API int pfelf_symbol_at(pfelf_file *f, enum pfelf_symtab_kind t, uint64_t addr,
                              pfelf_sym *out);

/**
 * The Name column of readelf -sW for s, a symbol of f: the name (for an
 * STT_SECTION symbol with st_name 0, its section's name), then
 * "@@VER", "@VER", "@VER (N)" or "@<corrupt>" as s->ver_kind says.
 * Returns the length, -ENOSPC (buf holds a cut string).
 */
PFELF_API int pfelf_symbol_display_name(pfelf_file *f, const pfelf_sym *s, char *buf,
                                        size_t buflen);

/** Symbol type as readelf -s ("FUNC", "IFUNC", "<OS specific>: 11", ...). */
PFELF_API int pfelf_symbol_type_name(pfelf_file *f, uint8_t type, char *buf, size_t buflen);
/** Symbol binding as readelf -s ("LOCAL", "GLOBAL", "WEAK", "UNIQUE", ...). */
PFELF_API int pfelf_symbol_bind_name(pfelf_file *f, uint8_t bind, char *buf, size_t buflen);
/** Symbol visibility as readelf -s ("DEFAULT", "INTERNAL", "HIDDEN", "PROTECTED"). */
PFELF_API int pfelf_symbol_visibility_name(uint8_t visibility, char *buf, size_t buflen);
/**
 * What readelf -sW (binutils 2.40) prints for st_other other of a symbol of
 * f between the binding and the section index, blanks folded to one: the
 * visibility, then, when other bits are set, " [" readelf's words for them
 * "]": "DEFAULT [VARIANT_PCS]" (AArch64), "DEFAULT [<localentry>: 8]"
 * (PPC64), "HIDDEN [MIPS16]", "DEFAULT [STD GPLOAD]" (Alpha), "[CA STD]"
 * (OpenVMS on IA-64), "DEFAULT [VARIANT_CC]" (RISC-V), "DEFAULT [<other>:
 * 4]" for bits the machine does not name. For ELFOSABI_SOLARIS one name of
 * st_other whole ("EXPORTED", "SINGLETON", "ELIMINATE", "<unknown>").
 * Returns the length, -ENOSPC (cut); 64 bytes always suffice.
 */
PFELF_API int pfelf_symbol_vis_text(pfelf_file *f, uint8_t other, char *buf, size_t buflen);
/**
 * The section index of s as readelf -s's Ndx column ("UND", "ABS", "COM",
 * "  5", "PRC[0xff01]"; an index resolved through SHN_XINDEX is a number).
 */
PFELF_API int pfelf_symbol_shndx_name(pfelf_file *f, const pfelf_sym *s, char *buf, size_t buflen);

/* ---------------------------------------------------------------- notes */

/** One note. name and desc are owned by the handle. */
typedef struct pfelf_note {
	uint32_t type;        /* n_type */
	uint32_t namesz;      /* n_namesz as stored (NUL included) */
	uint32_t descsz;      /* n_descsz */
	const char *name;     /* the name, always NUL-ended ("" when namesz is 0) */
	const uint8_t *desc;  /* descsz bytes */
	uint64_t desc_offset; /* file offset of desc */
	uint32_t source;      /* index of the section or segment that holds it */
	bool in_segment;      /* source is a PT_NOTE segment, not a SHT_NOTE section */
	uint8_t align;        /* 4 or 8 */
} pfelf_note;

/**
 * Number of notes. Like readelf -n: the SHT_NOTE sections when the file is
 * not ET_CORE and has section headers, else the PT_NOTE segments; 4- or
 * 8-byte alignment from sh_addralign / p_align. A malformed note ends its
 * section or segment (the notes before it stay). At most 64 MiB of notes
 * are copied. Errors: -EIO, -ENOMEM, those of pfelf_section_count.
 */
PFELF_API int pfelf_note_count(pfelf_file *f);

/** Note number index (a copy into *out). -ENOENT past the end. */
PFELF_API int pfelf_note_get(pfelf_file *f, uint32_t index, pfelf_note *out);

/**
 * The GNU build id (note "GNU", NT_GNU_BUILD_ID): *id points to its bytes,
 * owned by the handle. Returns its length; -ENOENT when none.
 */
PFELF_API int pfelf_build_id(pfelf_file *f, const uint8_t **id);

/* ------------------------------------------------------------ table costs */

/*
 * Upper bounds of what pfelf allocates for the tables of a handle, for a
 * caller that keeps a memory budget: each in bytes of one allocation (the
 * caller adds its allocator's overhead), each defined beside the code that
 * makes that allocation. Pure functions of their arguments, no handle.
 */

/**
 * The copy of the section name table, of size bytes (sh_size of section
 * e_shstrndx). Returns size, or 0 when pfelf copies no table that large
 * (more than 64 MiB) or empty.
 */
PFELF_API uint64_t pfelf_cost_name_table(uint64_t size);

/** What pfelf_cost_notes() finds: bytes of one allocation each. */
typedef struct pfelf_notes_cost {
	uint64_t array; /* the decoded notes: an array grown by doubling from 16 */
	uint64_t data;  /* their names and descriptors: a buffer grown by doubling,
	                   from the bytes of their regions (at most 64 MiB) */
} pfelf_notes_cost;

/**
 * The notes of f (pfelf_note_count, which loads them when not done yet):
 * their array and their data, from the regions they come from (the
 * SHT_NOTE sections when there are some, else the PT_NOTE segments).
 * Returns 0, or -EINVAL for a NULL argument.
 */
PFELF_API int pfelf_cost_notes(pfelf_file *f, pfelf_notes_cost *out);

/**
 * The tables pfelf copies and decodes from section sh when asked for them:
 * a symbol table with its by-name index, a string table (none for
 * shstrndx, the section name table: see pfelf_cost_name_table), the
 * SHT_SYMTAB_SHNDX words, hash and version tables. Returns 0 for other
 * sections. The address index of pfelf_symbol_at() is not counted.
 */
PFELF_API uint64_t pfelf_cost_section_tables(const pfelf_shdr *sh, uint32_t shstrndx);

/** What pfelf_cost_dynamic() finds: bytes of one allocation each. */
typedef struct pfelf_dynamic_cost {
	uint64_t entries;        /* the decoded entries (0: no dynamic section) */
	uint64_t strings;        /* the copy of the dynamic string table */
	uint64_t symbols;        /* without a .dynsym section, the table of DT_SYMTAB
	                            with its index, hash and version tables (several
	                            allocations in all); else 0 */
	uint64_t symbol_strings; /* that table's copy of the strings; else 0 */
} pfelf_dynamic_cost;

/**
 * The tables pfelf makes from the dynamic entries of f (the first
 * PT_DYNAMIC in the file, else a SHT_DYNAMIC section): the entries read
 * here 4 KiB at a time, never loaded or kept, at most as many as pfelf
 * decodes. The string table is bounded by DT_STRSZ and by the largest
 * PT_LOAD. Returns 0 (*out all zero when f has no dynamic entries), or
 * -EINVAL for a NULL argument.
 */
PFELF_API int pfelf_cost_dynamic(pfelf_file *f, pfelf_dynamic_cost *out);

/* ------------------------------------------------ build id without a handle */

/** Shortest and longest GNU build id pfelf_scan_build_id() returns. */
#define PFELF_SCAN_ID_MIN 2
#define PFELF_SCAN_ID_MAX 64

/**
 * How pfelf_scan_build_id() reads the file: like pread(2), up to len bytes
 * at offset off of src into buf. Returns the bytes read (0 past the end) or
 * -errno (-EINTR: called again).
 */
typedef ssize_t (*pfelf_read_fn)(void *src, void *buf, size_t len, uint64_t off);

/** What pfelf_scan_build_id() found; the caller's memory, filled whole. */
typedef struct pfelf_build_id_scan {
	uint8_t id[PFELF_SCAN_ID_MAX]; /* the build id: len bytes */
	uint8_t len;
	bool debug;      /* a separate debug file: .debug_info (or .zdebug_info)
	                    with bytes and a .text of type SHT_NOBITS */
	unsigned reads;  /* calls of read made (statistics) */
	bool badsize;    /* the -EINVAL came from the note's length: ... */
	uint64_t badlen; /* ... its n_descsz */
} pfelf_build_id_scan;

/**
 * The GNU build id of a file of size bytes read through read(src, ...),
 * without a handle or a mapping: the first note "GNU" of type
 * NT_GNU_BUILD_ID among the note sections (the note segments when the file
 * has no section headers or is ET_CORE, as readelf -n), and whether the
 * file is a separate debug file (out->debug, looked at only when an id is
 * found). The first 4 KiB and the section header table with the 4 KiB
 * before it are read at once (one or two reads for most files); a note or
 * name table elsewhere (at most 64 KiB) costs one more read each, and one
 * that cannot be read counts as absent. Nothing is kept after the call:
 * src is used only during it.
 *
 * Returns 1 with out->id and out->len (PFELF_SCAN_ID_MIN to
 * PFELF_SCAN_ID_MAX bytes); 0 for an ELF file without a build id note;
 * -ENOEXEC when the file is not ELF; -EINVAL when the header is bad, the
 * first 4 KiB come back short (the file is shorter than size), or the
 * first build id note is of another length (then out->badsize is set and
 * out->badlen is that length); -EIO when a read of the head fails or the
 * section header table cannot be read; -ENOMEM. out->reads is set in
 * every case.
 */
PFELF_API int pfelf_scan_build_id(pfelf_read_fn read, void *src, uint64_t size,
                                  pfelf_build_id_scan *out);

/**
 * The Go build id (note "Go", type 4, NUL-less string) copied NUL-ended
 * into buf. Returns its length; -ENOENT when none; -ENOSPC.
 */
PFELF_API int pfelf_go_build_id(pfelf_file *f, char *buf, size_t buflen);

/** One property of NT_GNU_PROPERTY_TYPE_0. data is owned by the handle. */
typedef struct pfelf_gnu_property {
	uint32_t type;   /* pr_type (GNU_PROPERTY_X86_FEATURE_1_AND = 0xc0000002, ...) */
	uint32_t datasz; /* pr_datasz */
	const uint8_t *data;
	uint64_t value; /* data as a number when datasz is 4 or 8, else 0 */
} pfelf_gnu_property;

/**
 * Number of properties in the NT_GNU_PROPERTY_TYPE_0 notes (all of them,
 * in order). A malformed property ends its note. Errors as pfelf_note_count.
 */
PFELF_API int pfelf_gnu_property_count(pfelf_file *f);
/** Property number index (a copy into *out); -ENOENT past the end. */
PFELF_API int pfelf_gnu_property_get(pfelf_file *f, uint32_t index, pfelf_gnu_property *out);

/** Number of NT_PRSTATUS notes (threads) of a core file (0 when none). */
PFELF_API int pfelf_core_thread_count(pfelf_file *f);

/** One NT_FILE mapping of a core file. path is owned by the handle. */
typedef struct pfelf_core_file {
	uint64_t start;
	uint64_t end;
	uint64_t offset; /* file offset: page offset times page size */
	uint64_t page_size;
	const char *path;
} pfelf_core_file;

/**
 * Number of mappings of the first NT_FILE note (0 when none); -EINVAL
 * when that note is malformed (count past its end, a missing NUL).
 */
PFELF_API int pfelf_core_file_count(pfelf_file *f);
/** NT_FILE mapping number index; -ENOENT past the end. */
PFELF_API int pfelf_core_file_get(pfelf_file *f, uint32_t index, pfelf_core_file *out);

/* -------------------------------------------------------------- dynamic */

/**
 * Number of dynamic entries before DT_NULL (0 without PT_DYNAMIC or
 * SHT_DYNAMIC; at most 65,536 looked at). Errors: -EINVAL, -EIO, -ENOMEM.
 */
PFELF_API int pfelf_dynamic_count(pfelf_file *f);
/** Dynamic entry number index; -ENOENT past the end. */
PFELF_API int pfelf_dynamic_entry(pfelf_file *f, uint32_t index, uint64_t *tag, uint64_t *val);
/**
 * The string at offset off of the dynamic string table (DT_STRTAB and
 * DT_STRSZ through PT_LOAD, else the section the dynamic section links
 * to), owned by the handle. -ENOENT without a string table, -EINVAL when
 * off is past it or the string has no NUL.
 */
PFELF_API int pfelf_dynamic_string(pfelf_file *f, uint64_t off, const char **s);
/** Number of DT_NEEDED entries. */
PFELF_API int pfelf_needed_count(pfelf_file *f);
/** The DT_NEEDED name number index (owned by the handle); -ENOENT past the end. */
PFELF_API int pfelf_needed(pfelf_file *f, uint32_t index, const char **name);
/** DT_SONAME (owned by the handle); -ENOENT when none. */
PFELF_API int pfelf_soname(pfelf_file *f, const char **name);
/** DT_RPATH (owned by the handle); -ENOENT when none. */
PFELF_API int pfelf_rpath(pfelf_file *f, const char **path);
/** DT_RUNPATH (owned by the handle); -ENOENT when none. */
PFELF_API int pfelf_runpath(pfelf_file *f, const char **path);
/** DT_FLAGS_1 into *flags (DF_1_PIE = 0x08000000, ...); -ENOENT when none. */
PFELF_API int pfelf_dynamic_flags_1(pfelf_file *f, uint64_t *flags);
/**
 * The PT_INTERP path (owned by the handle); -ENOENT when none, -EINVAL
 * when it is outside the file or not NUL-ended.
 */
PFELF_API int pfelf_interpreter(pfelf_file *f, const char **path);

/* ----------------------------------------------------------- debug links */

/**
 * .gnu_debuglink: *name (owned by the handle) and *crc (the CRC-32 of the
 * debug file, in the file's byte order). -ENOENT when none, -EINVAL when
 * malformed (no NUL, no room for the CRC).
 */
PFELF_API int pfelf_debuglink(pfelf_file *f, const char **name, uint32_t *crc);
/**
 * .gnu_debugaltlink: *name and the build id after it (*id, returned
 * length), both owned by the handle. -ENOENT when none, -EINVAL.
 */
PFELF_API int pfelf_debugaltlink(pfelf_file *f, const char **name, const uint8_t **id);
/**
 * The CRC-32 that .gnu_debuglink stores, of the whole file f, into *crc.
 * Errors: -EIO, -ENOMEM.
 */
PFELF_API int pfelf_file_crc32(pfelf_file *f, uint32_t *crc);

/* ------------------------------------------------------------------- Go */

/**
 * 1 when f is a Go binary (a .go.buildinfo section, a "Go" build id note,
 * a .gopclntab section, or the build info magic in the first writable
 * PT_LOAD), 0 otherwise. Errors: -EIO, -ENOMEM.
 */
PFELF_API int pfelf_is_go(pfelf_file *f);
/**
 * The Go version from the build info ("go1.19.8"), copied NUL-ended into
 * buf: the 1.18+ inline format and the older pointer format (read through
 * PT_LOAD). Returns its length; -ENOENT (no build info), -EINVAL
 * (malformed), -ENOSPC.
 */
PFELF_API int pfelf_go_version(pfelf_file *f, char *buf, size_t buflen);
/**
 * The file range of .gopclntab: the section when there is one, else the
 * first header (magics of Go 1.2 to 1.20+, validated) found by scanning
 * the first read-only PT_LOAD, whose size is then the rest of that
 * segment's file bytes (an upper bound). -ENOENT when not found.
 */
PFELF_API int pfelf_go_pclntab(pfelf_file *f, uint64_t *offset, uint64_t *size);

/* ---------------------------------------------------- compressed sections */

#define PFELF_COMPRESS_ZLIB 1 /* ELFCOMPRESS_ZLIB */
#define PFELF_COMPRESS_ZSTD 2 /* ELFCOMPRESS_ZSTD */

/** How a section is compressed. */
typedef struct pfelf_chdr {
	uint32_t type;        /* ch_type: PFELF_COMPRESS_* or another value */
	uint64_t size;        /* ch_size: bytes once decompressed */
	uint64_t align;       /* ch_addralign */
	uint64_t data_offset; /* file offset of the compressed stream */
	uint64_t data_size;   /* its length */
	bool legacy;          /* a ".zdebug" section: "ZLIB" + 8-byte big-endian size */
} pfelf_chdr;

/**
 * The compression header of section index: SHF_COMPRESSED (Elf32/64_Chdr)
 * or a legacy .zdebug* section. Errors: -ENODATA (not compressed),
 * -EINVAL (header outside the section or the file), those of
 * pfelf_section.
 */
PFELF_API int pfelf_section_chdr(pfelf_file *f, uint32_t index, pfelf_chdr *out);

/**
 * Decompress section index into buf (zlib or zstd), streaming from the
 * file with bounded memory. Returns ch_size; -E2BIG when ch_size > buflen
 * (nothing decompressed), -EINVAL when the stream is corrupt or does not
 * produce exactly ch_size bytes, -ENOTSUP for another ch_type, and the
 * errors of pfelf_section_chdr.
 */
PFELF_API ssize_t pfelf_section_decompress(pfelf_file *f, uint32_t index, void *buf, size_t buflen);

/** ch_type as a name: "ZLIB", "ZSTD", or "0x%x". */
PFELF_API int pfelf_compress_type_name(uint32_t type, char *buf, size_t buflen);

#ifdef __cplusplus
}
#endif

#endif /* PFELF_META_H */
