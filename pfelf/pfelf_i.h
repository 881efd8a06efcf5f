/* pfelf private header: the handle, the backend ops table, the registry. */
#ifndef PFELF_I_H
#define PFELF_I_H

#include "pfelf.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define PFELF_HIDDEN __attribute__((visibility("hidden")))

/* ------------------------------------------------------------ byte access */

/* The one range check: [off, off+len) inside [0, size). Size-0 ranges
 * inside or at the end always pass. */
static inline bool pfelf__range_ok(uint64_t size, uint64_t off, uint64_t len)
{
	return len == 0 || (off <= size && len <= size - off);
}

/* Decode fields of untrusted bytes, unaligned, in the file's byte order. */
uint16_t pfelf__u16(const uint8_t *p, bool msb) PFELF_HIDDEN;
uint32_t pfelf__u32(const uint8_t *p, bool msb) PFELF_HIDDEN;
uint64_t pfelf__u64(const uint8_t *p, bool msb) PFELF_HIDDEN;

/* A byte cursor over a buffer that fails closed: once a read runs past the
 * end, every later read yields 0 and ok turns false for good. */
struct pfelf_cursor {
	const uint8_t *p;
	size_t len;
	size_t pos;
	bool msb;
	bool ok;
};
void pfelf__cursor_init(struct pfelf_cursor *c, const void *p, size_t len, bool msb) PFELF_HIDDEN;
uint8_t pfelf__get8(struct pfelf_cursor *c) PFELF_HIDDEN;
uint16_t pfelf__get16(struct pfelf_cursor *c) PFELF_HIDDEN;
uint32_t pfelf__get32(struct pfelf_cursor *c) PFELF_HIDDEN;
uint64_t pfelf__get64(struct pfelf_cursor *c) PFELF_HIDDEN;
/* A class-sized word: 32 bits for ELFCLASS32, 64 for ELFCLASS64. */
uint64_t pfelf__getw(struct pfelf_cursor *c, bool is64) PFELF_HIDDEN;
void pfelf__skip(struct pfelf_cursor *c, size_t n) PFELF_HIDDEN;

/* snprintf into buf: the length, or -ENOSPC when cut (buf then holds a cut
 * string), -EINVAL on a format error. The names functions' one formatter. */
int pfelf__fmt(char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4))) PFELF_HIDDEN;

/* Copy len bytes from src, which may be a file mapping whose pages can
 * vanish, to dst. The kernel does the copy, so a vanished page gives
 * -EFAULT instead of SIGBUS. */
int pfelf__safe_copy(void *dst, const void *src, size_t len) PFELF_HIDDEN;

/* ------------------------------------------------------------- registry */

/* One shared read-only mapping of one file identity. */
struct pfelf_mapping {
	pfelf_identity id;
	void *addr;
	size_t len;
	unsigned long refs; /* handles and views that hold it; guarded by registry lock */
	struct pfelf_mapping *next;
};

/* Get (creating it if needed) the mapping of fd, whose identity is id.
 * Returns 0 and a counted reference in *out, or -errno of mmap. */
int pfelf__registry_get(int fd, const pfelf_identity *id, struct pfelf_mapping **out) PFELF_HIDDEN;
void pfelf__registry_hold(struct pfelf_mapping *m) PFELF_HIDDEN;
void pfelf__registry_put(struct pfelf_mapping *m) PFELF_HIDDEN;
void pfelf__registry_handles(int delta) PFELF_HIDDEN;

/* Test hook: make every later mmap in the registry fail with ENODEV, to
 * exercise the silent fallback to pread. */
void pfelf__test_fail_mmap(bool fail);
bool pfelf__mmap_should_fail(void) PFELF_HIDDEN;

/* --------------------------------------------------------------- backends */

struct pfelf_ops {
	enum pfelf_backend kind;
	/* Copy [off, off+len) (already range-checked against size) into buf:
	 * 0, or -EIO when the bytes are gone. */
	int (*read)(pfelf_file *f, uint64_t off, void *buf, size_t len);
	/* Fill a zero-copy reference for a checked range. */
	int (*ref)(pfelf_file *f, uint64_t off, size_t len, pfelf_ref *ref);
	/* Advice for a checked range. */
	int (*advise)(pfelf_file *f, uint64_t off, uint64_t len, enum pfelf_advice a);
	/* Release what the backend holds (mapping reference, descriptor). */
	void (*release)(pfelf_file *f);
};

extern const struct pfelf_ops pfelf__mmap_ops PFELF_HIDDEN;
extern const struct pfelf_ops pfelf__pread_ops PFELF_HIDDEN;
extern const struct pfelf_ops pfelf__memory_ops PFELF_HIDDEN;

/* ------------------------------------------------------------------ handle */

/* A lazily loaded table: state 0 = not loaded, 1 = loaded, < 0 = a
 * permanent error (-EINVAL) cached so that every call agrees. */
struct pfelf_file {
	const struct pfelf_ops *ops;
	uint64_t size;
	const uint8_t *base;       /* mmap and memory backends */
	struct pfelf_mapping *map; /* mmap backend */
	int fd;                    /* pread backend, else -1 (or parked) */
	pfelf_identity id;
	/* PFELF_OPEN_REOPEN (pread backend): the descriptor may be parked
	 * (closed) and reopened from dirfd/path; guarded by the fd budget's
	 * lock in fdbudget.c. */
	bool reopen;
	int dirfd;
	char *path;
	unsigned fd_users;
	struct pfelf_file *fd_prev, *fd_next;
	bool has_id;

	pfelf_ehdr eh;
	bool is64;
	bool msb;

	pthread_mutex_t lock; /* guards loading of the tables below */
	_Atomic int sh_state;
	pfelf_shdr *sh; /* shnum entries */
	char *shstr;    /* copy of the name table, NUL-guarded */
	size_t shstr_len;
	_Atomic int byname_state;
	_Atomic unsigned byname_calls; /* the first lookup scans instead of sorting */
	uint32_t *byname;              /* section indexes sorted by (name, index) */
	_Atomic int ph_state;
	pfelf_phdr *ph; /* phnum entries */

	/* Metadata tables (symbols, versions, hash, notes, dynamic; meta_i.h),
	 * allocated on first use through meta_state and freed by
	 * pfelf__meta_free(), which pfelf__free() must call. */
	_Atomic int meta_state;
	struct pfelf_meta *meta;
};

/* Header decoding and validation (header.c). */
int pfelf__parse_header(pfelf_file *f) PFELF_HIDDEN;
/* Decode section header index from the file into *sh (no name). */
int pfelf__read_shdr(pfelf_file *f, uint32_t index, pfelf_shdr *sh) PFELF_HIDDEN;
/* Decode one section header from its raw bytes (at least the class's size). */
void pfelf__decode_shdr(const pfelf_file *f, const uint8_t *b, uint32_t index,
                        pfelf_shdr *sh) PFELF_HIDDEN;

/* The process-wide budget of parkable descriptors (fdbudget.c). */
int pfelf__fd_register(pfelf_file *f) PFELF_HIDDEN;
void pfelf__fd_unregister(pfelf_file *f) PFELF_HIDDEN;
/* Pin f's descriptor open (reopening it if parked): 0 and *fd, or -errno. */
int pfelf__fd_acquire(pfelf_file *f, int *fd) PFELF_HIDDEN;
void pfelf__fd_release(pfelf_file *f) PFELF_HIDDEN;

/* Common end of every open: parse the header, count the handle. */
int pfelf__finish_open(pfelf_file *f, pfelf_file **out) PFELF_HIDDEN;
pfelf_file *pfelf__alloc(void) PFELF_HIDDEN;
void pfelf__free(pfelf_file *f) PFELF_HIDDEN;

/* Lazy table loading (sections.c, segments.c). */
int pfelf__load_segments(pfelf_file *f) PFELF_HIDDEN;
/* Run load(f) once under f->lock; 0, or the error (a -EINVAL is kept). */
int pfelf__load_once(pfelf_file *f, _Atomic int *state, int (*load)(pfelf_file *)) PFELF_HIDDEN;

/* Raw read of a checked or unchecked range: -EINVAL outside the file. */
int pfelf__read_range(pfelf_file *f, uint64_t off, void *buf, size_t len) PFELF_HIDDEN;

#endif /* PFELF_I_H */
