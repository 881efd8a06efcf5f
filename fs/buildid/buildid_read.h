/*
 * The build id of one file from a few preads (no mapping, no handle):
 * pfelf_scan_build_id (pfelf.h), which also tells a separate debug file,
 * with the index's bounds and a pread of a descriptor.
 */
#ifndef ELFFS_BUILDID_READ_H
#define ELFFS_BUILDID_READ_H

#include "pfelf.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Build ids from 2 to 64 bytes are indexed (8 to 20 bytes in practice;
 * 64 bytes keep <rest>.debug within NAME_MAX): pfelf's scan's bounds. */
#define BID_MIN PFELF_SCAN_ID_MIN
#define BID_MAX PFELF_SCAN_ID_MAX

struct bid_file {
	uint8_t id[BID_MAX];
	uint8_t len;
	bool debug;      /* a separate debug file */
	unsigned preads; /* preads done (statistics) */
	bool badsize;    /* -EINVAL for the length of the note: ... */
	uint64_t badlen; /* ... its descsz */
};

/*
 * The build id of the regular file open as fd, of size bytes. 1 and *out
 * when it has one of BID_MIN to BID_MAX bytes (the first GNU build id
 * note); 0 for an ELF file without one; -ENOEXEC for a file that is not
 * ELF; -EINVAL when its first build id note is malformed or of another
 * length (left out of the index); -EIO or -ENOMEM.
 */
int bid_read(int fd, uint64_t size, struct bid_file *out);

/* How bid_read_with reads: like pread (len bytes at off of src into buf),
 * the bytes read (0 past the end) or -errno. */
typedef pfelf_read_fn bid_reader_fn;

/* bid_read through read(src, ...) instead of a descriptor (the same rule:
 * info tells a malformed note with it, through a view's handle). When
 * -EINVAL comes from the length of the note, out->badsize is set and
 * out->badlen is that length. */
int bid_read_with(bid_reader_fn read, void *src, uint64_t size, struct bid_file *out);

/* bid_read_with over the bytes of an open pfelf handle (a view's: info's
 * malformed-note line, the debug link's build id). */
int bid_read_handle(pfelf_file *f, struct bid_file *out);

/* The lowercase hex of id[0..len) into out (2 * len + 1 bytes). */
void bid_hex(const uint8_t *id, unsigned len, char *out);

#endif /* ELFFS_BUILDID_READ_H */
