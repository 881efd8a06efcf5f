/*
 * The walk shared by every fuzz target: call everything pfelf offers on an
 * open handle, check each answer against the input bytes and against the
 * contract of pfelf.h, and fold every answer into a digest.
 *
 * The digest only holds what every backend must answer alike (return codes,
 * header fields, names, bytes), so that fuzz_open_file can require the same
 * digest from the mmap, pread and memory backends.
 *
 * A broken promise aborts (WALK_CHECK) with the file and line of the check,
 * which libFuzzer and the replay runner report as a crash.
 */
#ifndef WALK_H
#define WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pfelf.h>

/* Bytes compared in full per walk; past it only the ends of each range are. */
#define WALK_BUDGET ((size_t)4 << 20)
/* Most PT_LOAD segments read by virtual address per walk. */
#define WALK_MAX_LOADS 16
/* Entries of the cache of name calls already checked. */
#define WALK_NAME_CACHE 256
/* Size of the scratch buffer reads go through. */
#define WALK_SCRATCH ((size_t)64 << 10)

struct walk {
	pfelf_file *f;
	const uint8_t *data; /* the input: what every read must return */
	size_t size;
	enum pfelf_backend backend;
	uint16_t machine;
	uint8_t osabi;
	uint64_t digest;
	size_t budget; /* bytes left to compare in full */
	uint8_t *scratch;
	/* Name calls already checked in this walk (kind, value, machine). */
	uint64_t names_seen[WALK_NAME_CACHE];
};

/* Abort with a message when cond is false (also in release builds). */
#define WALK_CHECK(cond)                                                                           \
	do {                                                                                       \
		if (!(cond))                                                                       \
			walk_fail(__FILE__, __LINE__, #cond);                                      \
	} while (0)

__attribute__((noreturn)) void walk_fail(const char *file, int line, const char *what);

/*
 * True when id is listed in $PFELF_FUZZ_KNOWN_BUGS (comma separated): the
 * check of that already reported library bug is relaxed, so that a long
 * fuzzing run goes past it while the fix is pending. Ids: see README.md.
 */
bool walk_known_bug(const char *id);

/* Fold a value into w's digest. */
void walk_mix(struct walk *w, uint64_t v);
/* Fold a string into w's digest. */
void walk_mix_str(struct walk *w, const char *s);

/*
 * Walk f, which was opened on the size bytes at data, then close it (views
 * taken before the close are checked after it). Returns the digest.
 */
uint64_t walk_and_close(pfelf_file *f, const uint8_t *data, size_t size);

/* Check the result of a failed open: the error the contract allows. */
void walk_check_open_error(int ret, const uint8_t *data, size_t size);

/* A memfd that holds each input in turn (file targets), and its /proc path. */
struct walk_memfd {
	int fd;
	char path[64];
};

/* Create m's memfd, named name (m->fd was -1). */
void walk_memfd_open(struct walk_memfd *m, const char *name);

/* Make the size bytes at data the whole content of m's memfd. */
void walk_memfd_write(const struct walk_memfd *m, const uint8_t *data, size_t size);

/* Open the input with pfelf_open_memory and walk it (or check the error).
 * Returns the open's result, and the digest in *digest on success. */
int walk_memory_input(const uint8_t *data, size_t size, uint64_t *digest);

/* Parts of the walk (walk_data.c, walk_vaddr.c, walk_names.c). */
void walk_range(struct walk *w, uint64_t off, uint64_t len);
void walk_bad_range(struct walk *w, uint64_t off, uint64_t len);
void walk_data_bounds(struct walk *w);
void walk_views_after_close(pfelf_file *f, const uint8_t *data, size_t size);
void walk_vaddr(struct walk *w);
void walk_names_header(struct walk *w);
void walk_names_section(struct walk *w, const pfelf_shdr *s);
void walk_names_segment(struct walk *w, const pfelf_phdr *p);
void walk_names_symbol(struct walk *w, const pfelf_sym *s);
void walk_names_compress(struct walk *w, uint32_t type);
void walk_symbols(struct walk *w);
void walk_notes(struct walk *w);
void walk_dynamic(struct walk *w);
void walk_links_go(struct walk *w);
void walk_compressed(struct walk *w);
void walk_relocs(struct walk *w); /* walk_reloc.c */

#endif /* WALK_H */
