/* pfelf private header of the archive reader (archive*.c). */
#ifndef PFELF_ARCHIVE_I_H
#define PFELF_ARCHIVE_I_H

#include "pfelf_i.h"

#define AR_MAGIC_LEN 8
#define AR_HDR_LEN   60
/* Largest symbol index copied out of an archive. */
#define AR_INDEX_MAX ((uint64_t)256 << 20)

/* One entry of the decoded symbol index. */
struct ar_sym {
	uint64_t header_offset;
	uint32_t name_off; /* in pfelf_archive.symstr */
	uint32_t member;
};

struct pfelf_archive {
	_Atomic unsigned long refs; /* the caller's, and one per open member handle */
	enum pfelf_backend kind;
	uint64_t size;
	const uint8_t *base;       /* mmap, memory */
	struct pfelf_mapping *map; /* mmap */
	int fd;                    /* pread, else -1 */
	pfelf_identity id;
	bool has_id;
	bool thin;

	pfelf_ar_member *members; /* sorted by header_offset (archive order) */
	uint32_t nmembers;
	pfelf_ar_skipped *skipped;
	uint32_t nskipped;
	char *longnames; /* the "//" table, NUL-ended names (as binutils cuts them) */
	char *names;     /* short and BSD names */

	enum pfelf_ar_index index_kind;
	int index_error; /* 0 or -EINVAL */
	uint8_t *index;  /* copy of the symbol index member */
	char *symstr;    /* its names, NUL-ended (points into index) */
	struct ar_sym *syms;
	uint32_t nsyms;
};

/* Drop a reference on an archive handle; the last frees it (archive.c). */
void pfelf__archive_put(pfelf_archive *a) PFELF_HIDDEN;

/* Copy [off, off+len) (already checked) of the archive file into buf
 * (archive_read.c):
 * 0, or -EIO when the bytes are gone. */
int pfelf__ar_read(pfelf_archive *a, uint64_t off, void *buf, size_t len) PFELF_HIDDEN;

/* Parse the member headers (archive_walk.c): 0, or -ENOMEM / -EIO. */
int pfelf__ar_walk(pfelf_archive *a) PFELF_HIDDEN;

/* Decode the symbol index member at [off, off+len) of kind k (archive_index.c):
 * 0 (a->syms set), -EINVAL (malformed: a->index_error set), -ENOMEM, -EIO. */
int pfelf__ar_index(pfelf_archive *a, enum pfelf_ar_index k, uint64_t off,
                    uint64_t len) PFELF_HIDDEN;

/* Note a skipped header: 0 or -ENOMEM. */
int pfelf__ar_skip(pfelf_archive *a, uint64_t header_offset, uint32_t position, int error,
                   const char *reason) PFELF_HIDDEN;

/* Work done by the opens of this process (tests): headers walked, bytes
 * copied out of archives, steps of the symbol-to-member searches. */
uint64_t pfelf__ar_work(void);
void pfelf__ar_count(uint64_t n) PFELF_HIDDEN;

#endif /* PFELF_ARCHIVE_I_H */
