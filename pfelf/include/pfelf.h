/*
 * pfelf: a zero-copy ELF reader over one shared read-only mapping.
 *
 * The file is mapped once (MAP_SHARED, PROT_READ) and every handle of the
 * same file (same device, inode, size, mtime and ctime) shares that mapping
 * through a process-wide, thread-safe, refcounted registry. When mmap is
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
 *    backend); fd is owned by the handle and lives until pfelf_close().
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
 * With the mmap backend no descriptor stays open after return.
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

/** Which backend serves f. */
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
 * A size-0 range always succeeds. The kernel reports a page gone since
 * open as EFAULT when it reads through ref->ptr; pread reports a short
 * read.
 */
PFELF_API int pfelf_get_ref(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref);

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

/** Section flag letters as readelf's "Flg" column ("AX", "WA", "MS"...). */
PFELF_API int pfelf_section_flags_string(uint64_t flags, uint16_t machine, char *buf,
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

#ifdef __cplusplus
}
#endif

#endif /* PFELF_H */
