/*
 * The I/O policy of section and segment files: page cache or direct I/O
 * per open, and st_blksize.
 *
 * Page cache (the default): the kernel reads ahead in 1 MiB requests
 * (readahead.c), a second read of the same bytes never reaches the daemon
 * (keep_cache: a node's bytes never change, a new source is a new node),
 * and every use of a file works, shared mmap included.
 *
 * Direct I/O (FOPEN_DIRECT_IO): each read(2) becomes requests of up to
 * 1 MiB that the daemon answers straight into the reader's buffer: one
 * copy instead of two, so a cold sequential read with large reads runs at
 * 1.5-2x the page cache's speed (docs/benchmarks.md). But nothing is cached
 * (a warm read costs what a cold one does) and every read is a round trip:
 * dd bs=4k 9-22x slower, tar 3-5x, a repeated 4 KiB read ~11x. Shared
 * mappings of such a file work where the kernel offers
 * FUSE_DIRECT_IO_ALLOW_MMAP (Linux 6.6+: initext.c answers it for libfuse
 * 3.14); before, the kernel refuses them with ENODEV. So direct I/O is
 * opt-in: -o direct_io=on, or =auto for large files only.
 *
 * A file open both ways at once (two opens under different policies, or
 * O_DIRECT beside a buffered open) reads the same bytes either way: they
 * never change, so no coherence is lost. A direct open leaves the page
 * cache of the file alone (keep_cache), so the buffered readers keep it.
 *
 * st_blksize: coreutils (cat, cp, install, ...) read max(128 KiB,
 * st_blksize) at once; stdio ignores a st_blksize above BUFSIZ. With 1 MiB
 * a cat makes 1 MiB reads: a quarter of the system calls through the page
 * cache, and 1 MiB requests instead of 128 KiB ones under direct I/O.
 * Small files show at most their size rounded up to a power of two (no
 * 1 MiB buffer for a 200-byte file). The same for every file of a source's
 * bytes (elf, an archive's plain members, decompressed/), though only
 * sections and segments follow -o direct_io; directories and text files
 * show 4096.
 */
#include "tree/iopolicy.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum iopolicy_dio dio_mode = IOPOLICY_DIO_OFF;
static blksize_t blksize_max = IOPOLICY_BLKSIZE;

static int parse_mode(const char *text)
{
	static const char *const names[] = {"off", "auto", "on"};
	for (int i = 0; i < 3; i++)
		if (strcmp(text, names[i]) == 0) {
			dio_mode = (enum iopolicy_dio)i;
			return 0;
		}
	fprintf(stderr, "elffs: bad direct_io '%s' (off, auto or on)\n", text);
	return -1;
}

static int parse_blksize(const char *text)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(text, &end, 10);
	if (errno || end == text || *end || !isdigit((unsigned char)text[0]) || v < 4096 ||
	    v > (16u << 20) || (v & (v - 1))) {
		fprintf(stderr,
		        "elffs: bad iosize '%s' (bytes, a power of two, 4096 to 16777216)\n", text);
		return -1;
	}
	blksize_max = (blksize_t)v;
	return 0;
}

int iopolicy_parse(const char *direct_io, const char *iosize)
{
	if (direct_io && parse_mode(direct_io) < 0)
		return -1;
	return iosize ? parse_blksize(iosize) : 0;
}

bool iopolicy_any_direct(void)
{
	return dio_mode != IOPOLICY_DIO_OFF;
}

static bool is_data(const struct node *n)
{
	return n->kind == NK_SECTION || n->kind == NK_SEGMENT;
}

void iopolicy_open(const struct node *n, struct fuse_file_info *fi)
{
	bool direct = is_data(n) && n->size > 0 &&
	              (dio_mode == IOPOLICY_DIO_ON ||
	               (dio_mode == IOPOLICY_DIO_AUTO && n->size >= IOPOLICY_AUTO_MIN));
	fi->direct_io = direct;
	fi->keep_cache = 1; /* a node's bytes never change: a new source is a new node */
}

/* Files of a source's bytes: sections, segments, the whole file (elf), an
 * archive's plain members, decompressed sections. */
static bool is_bytes(const struct node *n)
{
	return is_data(n) || n->kind == NK_ELF || n->kind == NK_ARFILE || n->kind == NK_DECOMP;
}

blksize_t iopolicy_blksize(const struct node *n)
{
	if (!is_bytes(n))
		return 4096;
	blksize_t b = 4096;
	while (b < blksize_max && (uint64_t)b < n->size)
		b *= 2;
	return b;
}
