/*
 * pfelf: a zero-copy ELF reader over one shared read-only mapping.
 *
 * The file is mapped once (MAP_SHARED, PROT_READ) and every handle of the
 * same file (same device, inode, size, mtime and ctime) shares that mapping
 * through a process-wide, thread-safe, refcounted registry. The mapping is
 * made on a handle's first zero-copy use (pfelf_get_ref, a view, advice);
 * until then the handle reads its headers and tables with pread(2) from a
 * descriptor of its own, so opening a file to read its section headers
 * costs no mmap/munmap. When mmap is
 * impossible, or PFELF_OPEN_NOMMAP is given, the same API is served with
 * pread(2); a caller's memory buffer is a third backend. Callers cannot tell
 * the backends apart except by asking pfelf_backend().
 *
 * Conventions
 *  - Functions return 0 or a count on success and a negative errno on
 *    failure: -ENOEXEC (not ELF), -EINVAL (malformed or bad argument),
 *    -EIO (bytes that were there at open are gone: the file shrank),
 *    -EFAULT (a virtual address no PT_LOAD covers), -ENOMEM, -ENOENT
 *    (no such section), or the errno of a failed system call.
 *  - There is no global error state. A handle may be used by many threads
 *    at once; tables are parsed on first use under the handle's lock.
 *  - Lifetimes: every pointer a function returns says how long it lives.
 *    Pointers "owned by the handle" live until pfelf_close() of that handle.
 *  - pfelf itself never dereferences a mapping in a way that a file
 *    truncated after open can turn into SIGBUS: tables are copied out of
 *    the mapping by the kernel (which reports EFAULT, not a signal).
 *    Pointers into the mapping that pfelf hands to the caller (pfelf_ref,
 *    zero-copy views) are the caller's to dereference: hand them to the
 *    kernel (write, writev, vmsplice) to stay safe, or ask for a copy.
 */
#ifndef PFELF_H
#define PFELF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(PFELF_BUILD)
#define PFELF_API __attribute__((visibility("default")))
#else
#define PFELF_API
#endif

#define PFELF_VERSION_STRING "0.1.0"

/** An open ELF file. Opaque. */
typedef struct pfelf_file pfelf_file;

/** Which backend serves a handle. */
enum pfelf_backend {
	PFELF_BACKEND_MMAP = 1,   /* shared read-only mapping */
	PFELF_BACKEND_PREAD = 2,  /* pread(2) on a descriptor the handle owns */
	PFELF_BACKEND_MEMORY = 3, /* a caller's memory buffer */
};

/* Flags of the pfelf_open* functions. */
#define PFELF_OPEN_NOMMAP   (1u << 0) /* serve through pread, never mmap */
#define PFELF_OPEN_NOFOLLOW (1u << 1) /* refuse a symlink as last component */
/* pfelf_open/pfelf_openat with the pread backend: the descriptor counts
 * against a process-wide budget (pfelf_set_fd_budget) and may be closed
 * while idle, then reopened from the same dirfd and path (O_NOFOLLOW) on
 * next use; a file whose identity changed since gives -EIO. dirfd must
 * stay open until pfelf_close(). Ignored by the mmap backend (it holds no
 * descriptor). */
#define PFELF_OPEN_REOPEN (1u << 2)
/* mmap backend: map the file at open instead of at the first zero-copy use,
 * so that no descriptor stays open after return (a file that cannot be
 * mapped is served by pread, as without the flag). For a process that keeps
 * many handles of files it will read (the elffs daemon). */
#define PFELF_OPEN_MAP_NOW (1u << 3)

/* Status bits of a section or segment (pfelf_shdr.status, pfelf_phdr.status). */
#define PFELF_ST_OUT_OF_FILE (1u << 0) /* its file range lies outside the file */
#define PFELF_ST_BAD_NAME    (1u << 1) /* sh_name not a NUL-ended string */

/** The ELF header, decoded to host order, extended numbering resolved. */
typedef struct pfelf_ehdr {
	uint8_t ident[16];
	uint8_t elfclass; /* 1 = ELFCLASS32, 2 = ELFCLASS64 */
	uint8_t data;     /* 1 = ELFDATA2LSB, 2 = ELFDATA2MSB */
	uint8_t osabi;
	uint8_t abiversion;
	uint16_t type;    /* e_type */
	uint16_t machine; /* e_machine */
	uint32_t version; /* e_version */
	uint64_t entry;
	uint64_t phoff;
	uint64_t shoff;
	uint32_t flags;
	uint16_t ehsize;
	uint16_t phentsize;
	uint16_t shentsize;
	uint16_t raw_phnum;    /* e_phnum as stored (0xffff = PN_XNUM) */
	uint16_t raw_shnum;    /* e_shnum as stored (0 = extended) */
	uint16_t raw_shstrndx; /* e_shstrndx as stored (0xffff = SHN_XINDEX) */
	uint32_t phnum;        /* real number of program headers */
	uint32_t shnum;        /* real number of section headers, index 0 included */
	uint32_t shstrndx;     /* real index of the section name table, 0 if none */
} pfelf_ehdr;

/** A section header in host order. */
typedef struct pfelf_shdr {
	uint32_t index;
	uint32_t name_off; /* sh_name */
	const char *name;  /* owned by the handle; "" when PFELF_ST_BAD_NAME */
	uint32_t type;
	uint64_t flags;
	uint64_t addr;
	uint64_t offset;
	uint64_t size;
	uint32_t link;
	uint32_t info;
	uint64_t addralign;
	uint64_t entsize;
	uint32_t status; /* PFELF_ST_* bits */
} pfelf_shdr;

/** A program header in host order. */
typedef struct pfelf_phdr {
	uint32_t index;
	uint32_t type;
	uint32_t flags;
	uint64_t offset;
	uint64_t vaddr;
	uint64_t paddr;
	uint64_t filesz;
	uint64_t memsz;
	uint64_t align;
	uint32_t status; /* PFELF_ST_OUT_OF_FILE when [offset, offset+filesz) is not in the file */
} pfelf_phdr;

/** The identity of a file: what the shared-mapping registry keys on. */
typedef struct pfelf_identity {
	uint64_t dev;
	uint64_t ino;
	uint64_t size;
	int64_t mtime_sec;
	int64_t mtime_nsec;
	int64_t ctime_sec;
	int64_t ctime_nsec;
} pfelf_identity;

/*
 * A zero-copy reference to a byte range, for a consumer that hands bytes to
 * the kernel. Exactly one of the two forms is set:
 *  - ptr != NULL: the bytes are at ptr (in the shared mapping or the
 *    caller's buffer); fd is -1. ptr lives until pfelf_close() of the handle.
 *  - ptr == NULL: the bytes are at position pos of descriptor fd (pread
 *    backend); fd is owned by the handle and lives until pfelf_close(), or
 *    for a PFELF_OPEN_REOPEN handle until pfelf_put_ref().
 * Pair every pfelf_get_ref() with pfelf_put_ref(); it is a no-op except for
 * PFELF_OPEN_REOPEN handles, whose descriptor stays pinned until then.
 */
typedef struct pfelf_ref {
	const void *ptr;
	int fd;
	uint64_t pos;
	size_t len;
} pfelf_ref;

/*
 * A view: a pointer to a range that lives until pfelf_view_release(), even
 * after the handle is closed. Zero-copy on the mmap and memory backends
 * (it holds a reference on the shared mapping), a heap copy of at most
 * PFELF_VIEW_MAX_COPY bytes otherwise or when PFELF_VIEW_COPY is asked.
 */
typedef struct pfelf_view {
	const void *data;
	size_t len;
	bool copied; /* true when data is a private heap copy */
	void *priv_; /* internal; do not touch */
} pfelf_view;

#define PFELF_VIEW_COPY     (1u << 0)          /* always copy (truncation-proof) */
#define PFELF_VIEW_MAX_COPY ((size_t)64 << 20) /* largest heap copy a view makes */

/* Advice for pfelf_advise(). */
enum pfelf_advice {
	PFELF_ADVICE_NORMAL = 0,
	PFELF_ADVICE_SEQUENTIAL = 1,
	PFELF_ADVICE_RANDOM = 2,
	PFELF_ADVICE_WILLNEED = 3,
	PFELF_ADVICE_DONTNEED = 4, /* drop resident pages; the data stays readable */
};

/** Process-wide figures of the shared-mapping registry. */
typedef struct pfelf_registry_stats {
	uint64_t mappings;     /* live shared mappings */
	uint64_t mapped_bytes; /* sum of their lengths */
	uint64_t handles;      /* handles that hold one of them */
} pfelf_registry_stats;

/* ---------------------------------------------------------------- open */

/**
 * Open the ELF file at path. On success *out is a new handle (close it with
 * pfelf_close) and 0 is returned. Errors: -ENOEXEC (not ELF), -EINVAL
 * (malformed header, or not a regular file), -EISDIR, -ELOOP (symlink with
 * PFELF_OPEN_NOFOLLOW), -ENOMEM, or the errno of open(2)/fstat(2).
 * The file is opened O_RDONLY|O_CLOEXEC|O_NONBLOCK, so a FIFO never blocks.
 * With the mmap backend a descriptor stays open only until the file is
 * mapped (at the first zero-copy use, or at open when another handle has
 * mapped that file already); such descriptors count in the budget of
 * pfelf_set_fd_budget(), past which the oldest idle handles are mapped and
 * their descriptors closed.
 */
PFELF_API int pfelf_open(const char *path, unsigned flags, pfelf_file **out);

/** As pfelf_open, relative to directory descriptor dirfd (openat(2)). */
PFELF_API int pfelf_openat(int dirfd, const char *path, unsigned flags, pfelf_file **out);

/**
 * Open from a descriptor the caller keeps: fd is neither taken nor closed;
 * the pread backend works on a private duplicate. Errors as pfelf_open.
 */
PFELF_API int pfelf_open_fd(int fd, unsigned flags, pfelf_file **out);

/**
 * Open a caller's buffer of len bytes. The buffer must stay valid and
 * unchanged until pfelf_close() and every view made from it is released.
 * flags is ignored. Errors: -ENOEXEC, -EINVAL, -ENOMEM.
 */
PFELF_API int pfelf_open_memory(const void *buf, size_t len, unsigned flags, pfelf_file **out);

/** Close a handle; NULL is fine. Views made from it stay valid. */
PFELF_API void pfelf_close(pfelf_file *f);

/** Which backend serves f: PFELF_BACKEND_MMAP for a file to be mapped on
 * first zero-copy use, PFELF_BACKEND_PREAD from then on if it could not be. */
PFELF_API enum pfelf_backend pfelf_backend(const pfelf_file *f);

/** "mmap", "pread" or "memory"; a static string. */
PFELF_API const char *pfelf_backend_name(enum pfelf_backend b);

/** The size of the file at open, in bytes. */
PFELF_API uint64_t pfelf_size(const pfelf_file *f);

/**
 * The identity of the file at open. Returns 0, or -EINVAL for the memory
 * backend (which has none; *id is zeroed).
 */
PFELF_API int pfelf_get_identity(const pfelf_file *f, pfelf_identity *id);

/** Figures of the shared-mapping registry of this process (never fails). */
PFELF_API void pfelf_registry_stats_get(pfelf_registry_stats *st);

/**
 * Quick magic check of the first len bytes of a file: 1 when they start
 * with "\x7fELF", 0 otherwise (also when len < 4).
 */
PFELF_API int pfelf_is_elf_magic(const void *buf, size_t len);

/* ------------------------------------------------------------- headers */

/** The decoded ELF header, owned by the handle. Never NULL for an open f. */
PFELF_API const pfelf_ehdr *pfelf_header(const pfelf_file *f);

/**
 * Number of section headers, index 0 included (0 when the file has none).
 * Loads the section table on first use. Errors: -EINVAL (table outside the
 * file, bad e_shentsize), -EIO (table gone since open), -ENOMEM.
 */
PFELF_API int pfelf_section_count(pfelf_file *f);

/**
 * Section header number index. *out is owned by the handle. Errors:
 * -ENOENT (index >= count), and those of pfelf_section_count.
 */
PFELF_API int pfelf_section(pfelf_file *f, uint32_t index, const pfelf_shdr **out);

/**
 * The section with that name and the lowest index. Errors: -ENOENT, and
 * those of pfelf_section_count.
 */
PFELF_API int pfelf_section_by_name(pfelf_file *f, const char *name, const pfelf_shdr **out);

/**
 * The name of section index, owned by the handle. Errors: -ENOENT (no such
 * section), -EINVAL (no name table, sh_name past it, or no NUL before its
 * end), and those of pfelf_section_count.
 */
PFELF_API int pfelf_section_name(pfelf_file *f, uint32_t index, const char **name);

/**
 * Number of program headers. Errors: -EINVAL (table outside the file, bad
 * e_phentsize), -EIO, -ENOMEM.
 */
PFELF_API int pfelf_segment_count(pfelf_file *f);

/** Program header number index, owned by the handle. -ENOENT past the end. */
PFELF_API int pfelf_segment(pfelf_file *f, uint32_t index, const pfelf_phdr **out);

/**
 * 1 when f is a position-independent executable (ET_DYN whose PT_DYNAMIC
 * has DT_FLAGS_1 with DF_1_PIE, readelf's rule), 0 otherwise. Errors:
 * those of pfelf_segment_count, -EIO, -ENOMEM.
 */
PFELF_API int pfelf_is_pie(pfelf_file *f);

/* ---------------------------------------------------------------- data */

/**
 * A zero-copy reference to [off, off+len) of the file (see pfelf_ref).
 * Returns 0; -EINVAL when the range is not inside the file as opened.
 * A size-0 range always succeeds. -EMFILE or -EIO when a parked descriptor
 * of a PFELF_OPEN_REOPEN handle cannot be reopened. The kernel reports a page gone since
 * open as EFAULT when it reads through ref->ptr; pread reports a short
 * read.
 */
PFELF_API int pfelf_get_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref);

/** Release a reference from pfelf_get_ref(); zeroes *ref. NULL is fine. */
PFELF_API void pfelf_put_ref(pfelf_file *f, pfelf_ref *ref);

/**
 * Budget of descriptors of the process's PFELF_OPEN_REOPEN pread handles and
 * mmap handles not mapped yet (default 256, at least 1): past it, the least
 * recently used idle descriptor is closed (an mmap handle's file is mapped
 * first). Never fails.
 */
PFELF_API void pfelf_set_fd_budget(unsigned n);

/**
 * Copy [off, off+len) of the file into buf. Returns len, -EINVAL when the
 * range is not inside the file as opened, -EIO when bytes are gone since.
 * Safe against truncation on every backend (no SIGBUS).
 */
PFELF_API ssize_t pfelf_read(pfelf_file *f, uint64_t off, void *buf, size_t len);

/**
 * Copy len bytes at virtual address vaddr, through the PT_LOAD segments
 * (zeros between p_filesz and p_memsz; a range may span adjacent
 * segments). Returns len; -EFAULT when some address is in no PT_LOAD,
 * -EINVAL for a PT_LOAD whose bytes are outside the file, -EIO as
 * pfelf_read.
 */
PFELF_API ssize_t pfelf_read_vaddr(pfelf_file *f, uint64_t vaddr, void *buf, size_t len);

/**
 * Make a view of [off, off+len) (see pfelf_view). Returns 0; -EINVAL for a
 * range outside the file, -EIO when its last byte is already gone,
 * -E2BIG when a copy would exceed PFELF_VIEW_MAX_COPY, -ENOMEM.
 * A zero-copy view can still fault if the file shrinks after this call:
 * ask PFELF_VIEW_COPY where the file may change under you.
 */
PFELF_API int pfelf_view_get(pfelf_file *f, uint64_t off, size_t len, unsigned flags,
                             pfelf_view *v);

/** Release a view; a zeroed or already released view is fine. */
PFELF_API void pfelf_view_release(pfelf_view *v);

/**
 * Advise the kernel about [off, off+len) (len 0: to the end of the file):
 * madvise(2) on the mapping, posix_fadvise(2) on a descriptor, nothing
 * for memory. PFELF_ADVICE_DONTNEED drops resident pages of the mapping
 * (RssFile) without changing what reads return. Returns 0 or -EINVAL.
 */
PFELF_API int pfelf_advise(pfelf_file *f, uint64_t off, uint64_t len, enum pfelf_advice advice);

/** Drop every resident page of f's mapping (pfelf_advise DONTNEED, all). */
PFELF_API int pfelf_drop_pages(pfelf_file *f);

/* --------------------------------------------------------------- names */
/*
 * Names spelled as binutils' readelf spells them. Each writes a NUL-ended
 * string of at most buflen bytes into buf and returns its length, or
 * -ENOSPC when buf is too small (then buf holds a cut string).
 */

/** Section type ("PROGBITS", "NOBITS", "GNU_HASH", "ARM_EXIDX", ...). */
PFELF_API int pfelf_section_type_name(uint32_t type, uint16_t machine, char *buf, size_t buflen);

/**
 * Section flag letters as readelf's "Flg" column ("AX", "WA", "MS"...).
 * osabi (EI_OSABI) matters as for readelf: SHF_GNU_RETAIN is "R" only for
 * GNU and FreeBSD files, an OS-specific "o" otherwise.
 */
PFELF_API int pfelf_section_flags_string(uint64_t flags, uint16_t machine, uint8_t osabi, char *buf,
                                         size_t buflen);

/**
 * Segment type without "PT_" ("LOAD", "GNU_EH_FRAME", "ARM_EXIDX",
 * "MIPS_ABIFLAGS", ...), or "0x%08x" of type when it has no name.
 */
PFELF_API int pfelf_segment_type_name(uint32_t type, uint16_t machine, char *buf, size_t buflen);

/** Segment flag letters among R, W, E ("RE", "RW", "" for none). */
PFELF_API int pfelf_segment_flags_string(uint32_t flags, char *buf, size_t buflen);

/** Machine as readelf -h names it ("Advanced Micro Devices X86-64"). */
PFELF_API int pfelf_machine_name(uint16_t machine, char *buf, size_t buflen);

/** File type as readelf -h ("EXEC (Executable file)", "DYN (...)"...). */
PFELF_API int pfelf_type_name(uint16_t type, char *buf, size_t buflen);

/**
 * The file type of f as readelf -h prints it, PIE included ("DYN
 * (Position-Independent Executable file)"); as pfelf_type_name otherwise.
 */
PFELF_API int pfelf_file_type_name(pfelf_file *f, char *buf, size_t buflen);

/** OS/ABI as readelf -h ("UNIX - System V", "UNIX - GNU", ...). */
PFELF_API int pfelf_osabi_name(uint8_t osabi, char *buf, size_t buflen);

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

#endif /* PFELF_H */
