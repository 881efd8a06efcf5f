/*
 * ar archives: their members, symbol index, and member handles.
 * Part of pfelf's public API: include "pfelf.h" (conventions there).
 */
#ifndef PFELF_ARCHIVE_H
#define PFELF_ARCHIVE_H

#include "pfelf_file.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ============================================================ archives */
/*
 * ar archives (static libraries): "!<arch>\n" and thin "!<thin>\n", in the
 * GNU/SysV variant (symbol index "/" or "/SYM64/", long names in "//"
 * referenced as "/123", short names "name/") and the BSD one (symbol index
 * "__.SYMDEF" or "__.SYMDEF_64" [" SORTED"], names "#1/LEN" stored before
 * the member's bytes, short names padded with spaces); members start on
 * even offsets. Short names follow binutils: they end at the first NUL, else
 * the first '/', else the first space of the 16-byte field.
 *
 * An archive handle is opened like a pfelf_file (mmap, pread or a caller's
 * buffer) and parsed whole at open, in one pass over the member headers
 * (linear in their number; at most PFELF_AR_MAX_MEMBERS). Every string and
 * table it returns is owned by the handle and lives until
 * pfelf_archive_close(). The handle is immutable after open: any number
 * of threads may use it at once.
 *
 * A member that cannot be listed (a name that points outside the long-name
 * table, a "#1/LEN" longer than the member, a bad numeric field, bytes
 * past the end of the file, a special member out of place) is left out of
 * the members and listed with pfelf_archive_skipped(); the others stay
 * readable. A header whose size field cannot be read ends the walk (there
 * is no telling where the next one starts): it is listed the same way.
 *
 * Member handles (pfelf_archive_open_member) are ordinary pfelf_file
 * handles over the range of the member's bytes: offset 0 is the member's
 * first byte and pfelf_size() its size. They share the archive's mapping
 * (mmap), its descriptor (pread) or the caller's buffer (memory): nothing
 * is copied or opened again. Each holds a reference on the archive handle,
 * so pfelf_archive_close() may come before pfelf_close() of its members;
 * the archive's resources go with the last of them.
 */

/** An open ar archive. Opaque. */
typedef struct pfelf_archive pfelf_archive;

/* Most members an archive handle lists; the headers after are one skipped entry (-E2BIG). */
#define PFELF_AR_MAX_MEMBERS (1u << 22)

/* pfelf_ar_symbol.member of a symbol whose offset is the header of no listed member. */
#define PFELF_AR_NO_MEMBER UINT32_MAX

/* Kinds of symbol index (pfelf_archive_index_kind). */
enum pfelf_ar_index {
	PFELF_AR_INDEX_NONE = 0,  /* no symbol index */
	PFELF_AR_INDEX_GNU = 1,   /* "/": 32-bit big-endian count and offsets */
	PFELF_AR_INDEX_GNU64 = 2, /* "/SYM64/": 64-bit big-endian */
	PFELF_AR_INDEX_BSD = 3,   /* "__.SYMDEF": ranlib entries, 32-bit */
	PFELF_AR_INDEX_BSD64 = 4, /* "__.SYMDEF_64": ranlib entries, 64-bit */
};

/** One member of an archive (a copy: the caller owns the struct). */
typedef struct pfelf_ar_member {
	uint32_t index;         /* in the list of members, from 0 */
	uint32_t position;      /* among the member headers after the special members at
	                           the start (symbol index, "//"), skipped ones included,
	                           from 0 */
	const char *name;       /* as ar t prints it, owned by the archive handle; for a
	                           thin member the path as written in the archive */
	uint64_t header_offset; /* offset of its 60-byte header */
	uint64_t offset;        /* offset of its bytes in the archive (after a BSD name);
	                           for a thin member where they would be (not in the file) */
	uint64_t size;          /* number of its bytes (ar_size less a BSD name) */
	uint64_t date;          /* ar_date, decimal */
	uint32_t uid;           /* ar_uid, decimal */
	uint32_t gid;           /* ar_gid, decimal */
	uint32_t mode;          /* ar_mode, octal */
	bool thin;              /* its bytes are in the file at name, not in the archive */
} pfelf_ar_member;

/** A member header that was not listed, and why. */
typedef struct pfelf_ar_skipped {
	uint64_t header_offset; /* offset of its header */
	uint32_t position;      /* as pfelf_ar_member.position; UINT32_MAX for a special
	                           member before the first regular one */
	int error;              /* -EINVAL (malformed), -E2BIG (past PFELF_AR_MAX_MEMBERS) */
	const char *reason;     /* a static string ("long name outside the // table", ...) */
} pfelf_ar_skipped;

/** One entry of the symbol index. */
typedef struct pfelf_ar_symbol {
	const char *name;       /* owned by the archive handle */
	uint64_t header_offset; /* the member header offset the index gives */
	uint32_t member;        /* index of that member, or PFELF_AR_NO_MEMBER */
} pfelf_ar_symbol;

/**
 * Open the ar archive at path. flags: PFELF_OPEN_NOMMAP (pread backend),
 * PFELF_OPEN_NOFOLLOW; others are ignored (the mmap backend maps the file
 * at open and closes its descriptor). On success *out is a new handle
 * (close it with pfelf_archive_close) and 0 is returned. Errors: -ENOEXEC
 * (no archive magic), -EINVAL (not a regular file), -EISDIR, -ELOOP,
 * -ENOMEM, -EIO, or the errno of open(2)/fstat(2). A malformed archive
 * opens: its bad parts are in pfelf_archive_skipped().
 */
PFELF_API int pfelf_archive_open(const char *path, unsigned flags, pfelf_archive **out);

/**
 * Quick magic check of the first len bytes of a file: 1 when they start
 * with "!<arch>\n" or "!<thin>\n", 0 otherwise (also when len < 8).
 */
PFELF_API int pfelf_is_archive_magic(const void *buf, size_t len);

/** As pfelf_archive_open, relative to directory descriptor dirfd (openat(2)). */
PFELF_API int pfelf_archive_openat(int dirfd, const char *path, unsigned flags,
                                   pfelf_archive **out);

/**
 * Open from a descriptor the caller keeps: fd is neither taken nor closed
 * (the pread backend works on a private duplicate). Errors as
 * pfelf_archive_open.
 */
PFELF_API int pfelf_archive_open_fd(int fd, unsigned flags, pfelf_archive **out);

/**
 * Why the open of fd fails, in words: its header is read again (pread on a
 * private duplicate of fd, nothing kept) through the checks of every open,
 * and the first one that refuses it writes one line naming the field and
 * its value into why (len bytes, NUL-ended, cut to fit; why may be NULL),
 * e.g. "EI_CLASS 3: neither ELFCLASS32 nor ELFCLASS64". Returns what
 * pfelf_open_fd(fd) returns for the header: 0 when it is accepted (why is
 * then ""), -ENOEXEC, -EINVAL, -EIO or the errno of fstat(2). Like every
 * open, it accepts any e_version, EI_VERSION and e_ehsize (readelf reads
 * such files): only the fields that give the layout of the rest count.
 */
PFELF_API int pfelf_header_why(int fd, char *why, size_t len);

/**
 * Open a caller's buffer of len bytes. The buffer must stay valid and
 * unchanged until the archive handle, every member handle opened from it
 * and every view made from those are closed or released. flags is ignored.
 * Errors: -ENOEXEC, -EINVAL (buf NULL), -ENOMEM.
 */
PFELF_API int pfelf_archive_open_memory(const void *buf, size_t len, unsigned flags,
                                        pfelf_archive **out);

/**
 * Drop the caller's reference; NULL is fine. Member handles still open keep
 * what they read from (mapping, descriptor) until their pfelf_close(); the
 * strings of this handle are gone at once.
 */
PFELF_API void pfelf_archive_close(pfelf_archive *a);

/** Which backend serves a (as pfelf_backend). */
PFELF_API enum pfelf_backend pfelf_archive_backend(const pfelf_archive *a);

/** The size of the archive file at open, in bytes. */
PFELF_API uint64_t pfelf_archive_size(const pfelf_archive *a);

/** 1 for a thin archive ("!<thin>\n"), 0 otherwise. */
PFELF_API int pfelf_archive_is_thin(const pfelf_archive *a);

/** Number of members listed (special members and skipped ones left out). */
PFELF_API int pfelf_archive_member_count(const pfelf_archive *a);

/** Member number index (a copy into *out); -ENOENT past the end. */
PFELF_API int pfelf_archive_member(const pfelf_archive *a, uint32_t index, pfelf_ar_member *out);

/** Number of member headers that were not listed (see pfelf_ar_skipped). */
PFELF_API int pfelf_archive_skipped_count(const pfelf_archive *a);

/** Skipped header number index (a copy into *out); -ENOENT past the end. */
PFELF_API int pfelf_archive_skipped(const pfelf_archive *a, uint32_t index, pfelf_ar_skipped *out);

/** The kind of symbol index of a (PFELF_AR_INDEX_NONE when it has none). */
PFELF_API enum pfelf_ar_index pfelf_archive_index_kind(const pfelf_archive *a);

/**
 * Number of entries of the symbol index (0 when there is none). Errors:
 * -EINVAL when the index is malformed (a count past its end, fewer names
 * than entries, a string offset past the string table): it is then
 * ignored as a whole, and also listed by pfelf_archive_skipped().
 */
PFELF_API int pfelf_archive_symbol_count(const pfelf_archive *a);

/** Symbol index entry number index, in the order of the index (a copy into
 *  *out); -ENOENT past the end, -EINVAL as pfelf_archive_symbol_count. */
PFELF_API int pfelf_archive_symbol(const pfelf_archive *a, uint32_t index, pfelf_ar_symbol *out);

/**
 * Open member index as an ELF handle over its bytes (see above), sharing the
 * archive's mapping, descriptor or buffer; it holds a reference on a until
 * pfelf_close(). pfelf_get_identity() of it gives the archive file's
 * identity. flags is ignored. Errors: -ENOENT (no such member), -EXDEV (a
 * thin member: its bytes are in another file, which pfelf never opens),
 * -ENOEXEC (not ELF: read its bytes with pfelf_archive_read), and the
 * errors of pfelf_open_memory for a malformed ELF member.
 */
PFELF_API int pfelf_archive_open_member(pfelf_archive *a, uint32_t index, unsigned flags,
                                        pfelf_file **out);

/**
 * Copy [off, off+len) of the archive file into buf (a member's bytes are
 * at its offset). Returns len, -EINVAL when the range is not inside the
 * file as opened, -EIO when bytes are gone since. No SIGBUS on any backend.
 */
PFELF_API ssize_t pfelf_archive_read(pfelf_archive *a, uint64_t off, void *buf, size_t len);

/**
 * A zero-copy reference to [off, off+len) of the archive file (see
 * pfelf_ref): a pointer into the mapping or the caller's buffer, or the
 * archive's descriptor and a position (pread backend). It lives until
 * pfelf_archive_close(); no put is needed. Returns 0, -EINVAL when the range
 * is not inside the file.
 */
PFELF_API int pfelf_archive_get_ref(pfelf_archive *a, uint64_t off, size_t len, pfelf_ref *ref);

#ifdef __cplusplus
}
#endif

#endif /* PFELF_ARCHIVE_H */
