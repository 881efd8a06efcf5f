/*
 * libFuzzer target: the .gnu_debugdata (MiniDebugInfo) path. An input that
 * starts with the xz magic is an xz stream, taken as it is (the fixtures'
 * streams, the hostile ones among them, replay so); else its first byte
 * says what the rest is:
 *   bit 0 clear: an xz stream, taken as it is;
 *   bit 0 set:   an inner file, compressed here by liblzma (xz, CRC32);
 *                bit 1 then appends a second copy of the stream, bits 2-7
 *                cut that many bytes off its end.
 * The stream becomes the .gnu_debugdata section of a small ELF file made
 * here, opened from memory: pfelf_gnu_debugdata, pfelf_section_decompress
 * (exact or -EINVAL, -E2BIG one byte short), and liblzma's own one-stream
 * decoder as the oracle both ways (what pfelf decodes it decodes to the
 * same bytes; a whole stream it decodes into 256 KiB, pfelf decodes too);
 * then the whole walk (walk.c) over the inner file.
 */
#include "fuzz.h"
#include "walk.h"

#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#define INNER_MAX  ((size_t)1 << 20)   /* inner files compressed here, at most */
#define DECODE_MAX ((size_t)4 << 20)   /* inner files decoded, at most */
#define ORACLE_MAX ((size_t)256 << 10) /* what a refused stream may decode to in liblzma */

static const char shstrtab[] = "\0.gnu_debugdata\0.shstrtab";

static void put16(uint8_t *p, uint16_t v)
{
	memcpy(p, &v, 2); /* the file is made little-endian on a little-endian host */
}

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/* A section header of ELF64 at p. */
static void shdr(uint8_t *p, uint32_t name, uint32_t type, uint64_t off, uint64_t size)
{
	put32(p, name);
	put32(p + 4, type);
	put64(p + 24, off);
	put64(p + 32, size);
	put64(p + 48, 1);
}

/* An ELF64 relocatable file with the stream as .gnu_debugdata (section 1). */
static uint8_t *wrap(const uint8_t *xz, size_t len, size_t *out)
{
	size_t off = 64, str = off + len, sh = (str + sizeof(shstrtab) + 7) & ~(size_t)7;
	uint8_t *f = calloc(1, sh + 3 * 64);
	if (!f)
		abort();
	memcpy(f, "\177ELF\2\1\1", 7);
	put16(f + 16, 1);  /* ET_REL */
	put16(f + 18, 62); /* EM_X86_64 */
	put32(f + 20, 1);
	put64(f + 40, sh);
	put16(f + 52, 64);
	put16(f + 58, 64);
	put16(f + 60, 3);
	put16(f + 62, 2);
	memcpy(f + off, xz, len);
	memcpy(f + str, shstrtab, sizeof(shstrtab));
	shdr(f + sh + 64, 1, 1 /* PROGBITS */, off, len);
	shdr(f + sh + 128, 16, 3 /* STRTAB */, str, sizeof(shstrtab));
	*out = sh + 3 * 64;
	return f;
}

/* The stream of the input (mode: its first byte), malloc'd. */
static uint8_t *stream_of(uint8_t mode, const uint8_t *rest, size_t n, size_t *len)
{
	if (!(mode & 1)) {
		uint8_t *s = malloc(n ? n : 1);
		if (!s)
			abort();
		memcpy(s, rest, n);
		*len = n;
		return s;
	}
	n = n < INNER_MAX ? n : INNER_MAX;
	size_t cap = lzma_stream_buffer_bound(n), pos = 0;
	uint8_t *s = malloc(2 * cap);
	if (!s ||
	    lzma_easy_buffer_encode(0, LZMA_CHECK_CRC32, NULL, rest, n, s, &pos, cap) != LZMA_OK)
		abort();
	if (mode & 2) {
		memcpy(s + pos, s, pos);
		pos *= 2;
	}
	size_t cut = mode >> 2;
	*len = pos > cut ? pos - cut : 0;
	return s;
}

/* liblzma decodes the one stream xz (all of it) to exactly out[size]. */
static bool oracle(const uint8_t *xz, size_t len, uint8_t *out, size_t size, size_t *made)
{
	uint64_t memlimit = PFELF_XZ_MEMLIMIT;
	size_t in = 0;
	*made = 0;
	lzma_ret r = lzma_stream_buffer_decode(&memlimit, 0, NULL, xz, &in, len, out, made, size);
	return r == LZMA_OK && in == len;
}

static void check_inner(pfelf_file *f, uint32_t index, const pfelf_chdr *ch, const uint8_t *xz,
                        size_t len)
{
	size_t size = (size_t)ch->size;
	uint8_t *got = malloc(size ? size : 1), *want = malloc(size + 1);
	WALK_CHECK(got && want);
	ssize_t d = pfelf_section_decompress(f, index, got, size);
	WALK_CHECK(d == (ssize_t)size || d == -EINVAL);
	size_t made;
	bool whole = oracle(xz, len, want, size + 1, &made); /* one byte more: a longer stream */
	if (d >= 0) {
		WALK_CHECK(whole && made == size && memcmp(got, want, size) == 0);
		if (size)
			WALK_CHECK(pfelf_section_decompress(f, index, got, size - 1) == -E2BIG);
		uint64_t digest;
		(void)walk_memory_input(got, size, &digest);
	} else {
		WALK_CHECK(!whole || made != size);
	}
	free(got);
	free(want);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t magic[6] = {0xfd, '7', 'z', 'X', 'Z', 0};
	if (size < 1)
		return 0;
	bool raw = size >= sizeof(magic) && memcmp(data, magic, sizeof(magic)) == 0;
	size_t len, flen;
	uint8_t *xz =
	        raw ? stream_of(0, data, size, &len) : stream_of(data[0], data + 1, size - 1, &len);
	uint8_t *elf = wrap(xz, len, &flen);
	pfelf_file *f;
	WALK_CHECK(pfelf_open_memory(elf, flen, 0, &f) == 0);
	uint32_t index = 0;
	pfelf_chdr ch;
	int ret = pfelf_gnu_debugdata(f, &index, &ch);
	WALK_CHECK(ret == 0 || ret == -EINVAL || (ret == -ENOENT && len == 0));
	if (ret == 0) {
		WALK_CHECK(index == 1 && ch.type == PFELF_COMPRESS_XZ && ch.legacy);
		WALK_CHECK(ch.data_offset == 64 && ch.data_size == len);
		if (ch.size <= DECODE_MAX)
			check_inner(f, index, &ch, xz, len);
	} else if (len < ((size_t)1 << 20)) { /* pfelf refuses only what xz refuses */
		uint8_t *out = malloc(ORACLE_MAX);
		size_t made;
		WALK_CHECK(out && !oracle(xz, len, out, ORACLE_MAX, &made));
		free(out);
	}
	pfelf_close(f);
	free(elf);
	free(xz);
	return 0;
}
