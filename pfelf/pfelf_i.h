/* pfelf private header: the handle, the backend ops table, the registry. */
#ifndef PFELF_I_H
#define PFELF_I_H

#include "pfelf.h"
#include "nameset.h"

#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define PFELF_HIDDEN __attribute__((visibility("hidden")))

/* ELF constants: glibc's <elf.h>, included above. The few it lacks: */
#define NT_GO_BUILDID 4      /* note "Go": the Go toolchain's build id */
#define VERSYM_HIDDEN 0x8000 /* .gnu.version entry: hidden (not default) */
#define VERSYM_INDEX  0x7fff /* .gnu.version entry: the version index */

/* ------------------------------------------------------------ byte access */

/* The one range check: [off, off+len) inside [0, size). Size-0 ranges
 * inside or at the end always pass. */
static inline bool pfelf__range_ok(uint64_t size, uint64_t off, uint64_t len)
{
	return len == 0 || (off <= size && len <= size - off);
}

/*
 * Decode fields of untrusted bytes, unaligned, in the file's byte order.
 * Inline: decoding section headers is the hot loop of every open. The
 * bytes are copied out with memcpy (no cast of file bytes to a wider type)
 * and swapped when the file's order is not the host's.
 */
static inline bool pfelf__host_msb(void)
{
	return __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
}

static inline uint16_t pfelf__u16(const uint8_t *p, bool msb)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return msb == pfelf__host_msb() ? v : __builtin_bswap16(v);
}

static inline uint32_t pfelf__u32(const uint8_t *p, bool msb)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return msb == pfelf__host_msb() ? v : __builtin_bswap32(v);
}

static inline uint64_t pfelf__u64(const uint8_t *p, bool msb)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return msb == pfelf__host_msb() ? v : __builtin_bswap64(v);
}

/* A byte cursor over a buffer that fails closed: once a read runs past the
 * end, every later read yields 0 and ok turns false for good. */
struct pfelf_cursor {
	const uint8_t *p;
	size_t len;
	size_t pos;
	bool msb;
	bool ok;
};

static inline void pfelf__cursor_init(struct pfelf_cursor *c, const void *p, size_t len, bool msb)
{
	c->p = p;
	c->len = len;
	c->pos = 0;
	c->msb = msb;
	c->ok = true;
}

/* Claim n bytes; NULL (and the cursor failed for good) when they are not there. */
static inline const uint8_t *pfelf__take(struct pfelf_cursor *c, size_t n)
{
	if (!c->ok || !pfelf__range_ok(c->len, c->pos, n)) {
		c->ok = false;
		return NULL;
	}
	const uint8_t *p = c->p + c->pos;
	c->pos += n;
	return p;
}

static inline uint8_t pfelf__get8(struct pfelf_cursor *c)
{
	const uint8_t *p = pfelf__take(c, 1);
	return p ? p[0] : 0;
}

static inline uint16_t pfelf__get16(struct pfelf_cursor *c)
{
	const uint8_t *p = pfelf__take(c, 2);
	return p ? pfelf__u16(p, c->msb) : 0;
}

static inline uint32_t pfelf__get32(struct pfelf_cursor *c)
{
	const uint8_t *p = pfelf__take(c, 4);
	return p ? pfelf__u32(p, c->msb) : 0;
}

static inline uint64_t pfelf__get64(struct pfelf_cursor *c)
{
	const uint8_t *p = pfelf__take(c, 8);
	return p ? pfelf__u64(p, c->msb) : 0;
}

/* A class-sized word: 32 bits for ELFCLASS32, 64 for ELFCLASS64. */
static inline uint64_t pfelf__getw(struct pfelf_cursor *c, bool is64)
{
	return is64 ? pfelf__get64(c) : pfelf__get32(c);
}

static inline void pfelf__skip(struct pfelf_cursor *c, size_t n)
{
	(void)pfelf__take(c, n);
}

/* snprintf into buf: the length, or -ENOSPC when cut (buf then holds a cut
 * string), -EINVAL on a format error. The names functions' one formatter. */
int pfelf__fmt(char *buf, size_t len, const char *fmt, ...)
        __attribute__((format(printf, 3, 4))) PFELF_HIDDEN;

/* Copy len bytes from src, which may be a file mapping whose pages can
 * vanish, to dst. The kernel does the copy, so a vanished page gives
 * -EFAULT instead of SIGBUS. */
int pfelf__safe_copy(void *dst, const void *src, size_t len) PFELF_HIDDEN;
/* pfelf__safe_copy of n ranges (iov_len alike in dst[i] and src[i]), in one
 * process_vm_readv when it takes them all: 0, -EFAULT, -EIO. */
int pfelf__safe_copyv(const struct iovec *dst, const struct iovec *src, unsigned n) PFELF_HIDDEN;

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
/* The mapping of id if one exists (a counted reference), else -ENOENT. */
int pfelf__registry_find(const pfelf_identity *id, struct pfelf_mapping **out) PFELF_HIDDEN;
void pfelf__registry_hold(struct pfelf_mapping *m) PFELF_HIDDEN;
void pfelf__registry_put(struct pfelf_mapping *m) PFELF_HIDDEN;
void pfelf__registry_handles(int delta) PFELF_HIDDEN;

/* Test hook: make every later mmap in the registry fail with ENODEV, to
 * exercise the silent fallback to pread. */
void pfelf__test_fail_mmap(bool fail);
bool pfelf__mmap_should_fail(void) PFELF_HIDDEN;

/* --------------------------------------------------------------- backends */

/* A range of a file to copy into buf (pfelf__read_spans). */
struct pfelf__span {
	uint64_t off;
	void *buf;
	size_t len;
};

struct pfelf_ops {
	enum pfelf_backend kind;
	/* Copy [off, off+len) (already range-checked against size) into buf:
	 * 0, or -EIO when the bytes are gone. */
	int (*read)(pfelf_file *f, uint64_t off, void *buf, size_t len);
	/* Copy n checked ranges (spans) at once: 0, -EIO. NULL: read each. */
	int (*read_spans)(pfelf_file *f, const struct pfelf__span *s, unsigned n);
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
	int fd;                    /* pread backend, a mapping to come, else -1 */
	pfelf_identity id;
	/* Descriptors in the process-wide budget (fdbudget.c), guarded by its
	 * lock: a PFELF_OPEN_REOPEN pread handle may have its descriptor
	 * closed ("parked") and reopened from dirfd/path; an mmap handle not
	 * mapped yet (lazy) has it "parked" by mapping the file and closing
	 * the descriptor. A handle is in the budget when reopen or lazy. */
	bool reopen;
	bool lazy;               /* mmap backend, mapped on first zero-copy use */
	_Atomic bool mapped;     /* lazy: map and base are set (release) */
	_Atomic bool map_failed; /* lazy: mmap failed, pread serves for good */
	int dirfd;
	char *path;
	unsigned fd_users;
	TAILQ_ENTRY(pfelf_file) fd_link;
	bool has_id;

	pfelf_ehdr eh;
	bool is64;
	bool msb;
	int refused; /* PFELF_OPEN_RAW: the refusal of its header, or 0 */
	/* pfelf_header_why() only: where pfelf__parse_header writes why it
	 * refuses the header (why_len bytes), else NULL. */
	char *why;
	size_t why_len;

	pthread_mutex_t lock; /* guards loading of the tables below */
	_Atomic int sh_state;
	pfelf_shdr *sh;   /* shnum entries */
	char *shstr;      /* copy of the name table */
	size_t shstr_len; /* up to its last NUL: names starting before it are whole */
	_Atomic int byname_state;
	_Atomic unsigned byname_calls; /* the first lookup scans instead of indexing */
	struct nameset byname;         /* section index + 1 by name (sections.c) */
	_Atomic int ph_state;
	pfelf_phdr *ph; /* phnum entries */

	/* The other tables (symbols, versions, hash, notes, dynamic; tables_i.h),
	 * allocated on first use through tables_state; tables_free, set with
	 * them (tables.c), frees them and is called by pfelf__free. */
	_Atomic int tables_state;
	struct pfelf_tables *tables;
	void (*tables_free)(pfelf_file *f);

	/* A member of an archive (archive.c): ar is held until the handle is
	 * freed. Under pread the descriptor is ar's (not closed here) and
	 * file offsets are relative to origin; mmap and memory handles have
	 * base moved to the member's first byte instead. */
	struct pfelf_archive *ar;
	/* Drops ar: set with it (archive.c), called by pfelf__free. */
	void (*archive_put)(struct pfelf_archive *a);
	uint64_t origin;
};

/* Header decoding and validation (header.c). */
int pfelf__parse_header(pfelf_file *f) PFELF_HIDDEN;
/* Decode section header index from the file into *sh (no name). */
int pfelf__read_shdr(pfelf_file *f, uint32_t index, pfelf_shdr *sh) PFELF_HIDDEN;
/* Decode one section header from its raw bytes (SHDR32 or SHDR64 size,
 * the caller holds them): the fields at their fixed offsets, no name.
 * Inline so that the table loop of every open is specialised on the
 * class and byte order (sections.c). */
static inline void pfelf__decode_shdr(const uint8_t *b, uint32_t index, bool is64, bool m,
                                      pfelf_shdr *sh)
{
	sh->index = index;
	sh->name_off = pfelf__u32(b, m);
	sh->type = pfelf__u32(b + 4, m);
	sh->name = NULL;
	sh->status = 0;
	if (is64) {
		sh->flags = pfelf__u64(b + 8, m);
		sh->addr = pfelf__u64(b + 16, m);
		sh->offset = pfelf__u64(b + 24, m);
		sh->size = pfelf__u64(b + 32, m);
		sh->link = pfelf__u32(b + 40, m);
		sh->info = pfelf__u32(b + 44, m);
		sh->addralign = pfelf__u64(b + 48, m);
		sh->entsize = pfelf__u64(b + 56, m);
	} else {
		sh->flags = pfelf__u32(b + 8, m);
		sh->addr = pfelf__u32(b + 12, m);
		sh->offset = pfelf__u32(b + 16, m);
		sh->size = pfelf__u32(b + 20, m);
		sh->link = pfelf__u32(b + 24, m);
		sh->info = pfelf__u32(b + 28, m);
		sh->addralign = pfelf__u32(b + 32, m);
		sh->entsize = pfelf__u32(b + 36, m);
	}
}

/* The process-wide budget of parkable descriptors (fdbudget.c). */
int pfelf__fd_register(pfelf_file *f) PFELF_HIDDEN;
void pfelf__fd_unregister(pfelf_file *f) PFELF_HIDDEN;
/* Park every idle descriptor of the budget (the process ran out of them). */
void pfelf__fd_shed(void) PFELF_HIDDEN;
/* openat(2) that, on EMFILE or ENFILE, gives back the idle descriptors of
 * the budget and tries once more: a descriptor or -errno. */
int pfelf__open_retry(int dirfd, const char *path, int flags) PFELF_HIDDEN;
/* Open path (relative to dirfd) for reading as every pfelf open does:
 * O_RDONLY|O_CLOEXEC|O_NONBLOCK|O_NOCTTY, O_NOFOLLOW with
 * PFELF_OPEN_NOFOLLOW in pflags, through pfelf__open_retry; fd or -errno. */
int pfelf__open_input(int dirfd, const char *path, unsigned pflags) PFELF_HIDDEN;
/* Pin f's descriptor open (reopening it if parked): 0 and *fd, 1 when a
 * lazy handle got mapped (read through f->base then), or -errno. */
int pfelf__fd_acquire(pfelf_file *f, int *fd) PFELF_HIDDEN;
void pfelf__fd_release(pfelf_file *f) PFELF_HIDDEN;
/* pread through f's budgeted descriptor (pinned for the call): 0, -EMFILE,
 * -EIO, or 1 when a lazy handle got mapped (nothing read: use f->base). */
int pfelf__fd_pread(pfelf_file *f, uint64_t off, void *buf, size_t len) PFELF_HIDDEN;
/* Map a lazy handle now (its descriptor is closed once no read uses it):
 * 0, or -errno of mmap, after which it is served by pread for good. */
int pfelf__fd_map(pfelf_file *f) PFELF_HIDDEN;
/* An mmap handle's mapping, made now if it is lazy: 0 (f->base and f->map
 * are set), or -errno when the file cannot be mapped. */
int pfelf__mmap_ensure(pfelf_file *f) PFELF_HIDDEN;
/* Read all of [off, off+len) with pread: 0, or -EIO on a short read (io.c). */
int pfelf__pread_all(int fd, uint64_t off, void *buf, size_t len) PFELF_HIDDEN;

/* Common end of every open (header.c): parse the header (a refused one
 * kept as bytes only with PFELF_OPEN_RAW in flags); 0 and f in *out, or
 * -errno with f freed. */
int pfelf__finish_open(pfelf_file *f, unsigned flags, pfelf_file **out) PFELF_HIDDEN;
/* A blank handle (no backend, fd -1), or NULL (handle.c). */
pfelf_file *pfelf__alloc(void) PFELF_HIDDEN;
/* Free f and all it holds: backend, archive, tables, headers (handle.c). */
void pfelf__free(pfelf_file *f) PFELF_HIDDEN;

/* Lazy table loading (once.c). A loader fills one table of f: 0 or -errno; ctx is
 * what its caller passed (which table, for loaders of several). */
typedef int (*pfelf__loader)(pfelf_file *f, void *ctx);
/* Run load(f, ctx) once under lock (state: 0 not yet, 1 done, or the
 * error kept): 0, or the error. Success and -EINVAL (a property of the
 * file) are kept; -EIO and -ENOMEM are not, the next call tries again. */
int pfelf__once(pfelf_file *f, pthread_mutex_t *lock, _Atomic int *state, pfelf__loader load,
                void *ctx) PFELF_HIDDEN;
/* pfelf__once under the handle's lock: the section and program header
 * tables, the by-name index, the block of other tables (tables_i.h). */
static inline int pfelf__load_once(pfelf_file *f, _Atomic int *state, pfelf__loader load)
{
	return pfelf__once(f, &f->lock, state, load, NULL);
}

/* ------------------------------------------------------------------- io.c */

/* Largest table (symbols, strings, hash, versions, notes) copied out. */
#define PFELF__MAX_TABLE ((size_t)256 << 20)

/* Raw read of a checked or unchecked range: -EINVAL outside the file. */
int pfelf__read_range(pfelf_file *f, uint64_t off, void *buf, size_t len) PFELF_HIDDEN;
/* pfelf__read_range of n spans (at most PFELF__SPANS_MAX), in one system
 * call where the backend can (a mapping: process_vm_readv): 0, -EINVAL
 * (a span outside the file), -EIO. */
#define PFELF__SPANS_MAX 8
int pfelf__read_spans(pfelf_file *f, const struct pfelf__span *s, unsigned n) PFELF_HIDDEN;
/* Copy [off, off+len) into a new buffer of len + 1 bytes, the last one
 * NUL: 0, -EINVAL (outside the file or larger than PFELF__MAX_TABLE),
 * -EIO or -ENOMEM. */
int pfelf__copy_table(pfelf_file *f, uint64_t off, uint64_t len, uint8_t **out) PFELF_HIDDEN;

#endif /* PFELF_I_H */
