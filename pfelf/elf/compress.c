/* Compressed sections: SHF_COMPRESSED (an Elf32/Elf64 Chdr before the
 * stream), legacy ".zdebug*" sections ("ZLIB" and an 8-byte big-endian
 * size) and .gnu_debugdata (an xz stream whose index gives the size:
 * xz.c). Decompression with zlib, libzstd or liblzma straight into the
 * caller's buffer, which bounds the output; the compressed bytes are
 * copied out of the file first (at most 256 MiB), so a truncated file is
 * an error, not a crash. The stream must produce exactly ch_size bytes. */
#include "pfelf_i.h"
#include "elf/xz_i.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#define CHDR32_SIZE 12
#define CHDR64_SIZE 24
#define ZDEBUG_HDR  12

static int legacy_chdr(pfelf_file *f, const pfelf_shdr *s, pfelf_chdr *out)
{
	uint8_t h[ZDEBUG_HDR];
	if (s->size < ZDEBUG_HDR)
		return -ENODATA;
	int ret = pfelf__read_range(f, s->offset, h, sizeof(h));
	if (ret < 0)
		return ret;
	if (memcmp(h, "ZLIB", 4) != 0)
		return -ENODATA;
	*out = (pfelf_chdr){
	        .type = PFELF_COMPRESS_ZLIB,
	        .size = pfelf__u64(h + 4, true),
	        .align = s->addralign,
	        .data_offset = s->offset + ZDEBUG_HDR,
	        .data_size = s->size - ZDEBUG_HDR,
	        .legacy = true,
	};
	return 0;
}

PFELF_API int pfelf_section_chdr(pfelf_file *f, uint32_t index, pfelf_chdr *out)
{
	const pfelf_shdr *s;
	int ret = pfelf_section(f, index, &s);
	if (ret < 0)
		return ret;
	if (!out)
		return -EINVAL;
	if (s->type == SHT_NOBITS)
		return -ENODATA;
	if (s->status & PFELF_ST_OUT_OF_FILE)
		return -EINVAL;
	if (!(s->flags & SHF_COMPRESSED)) {
		if (strcmp(s->name, PFELF_GNU_DEBUGDATA) == 0)
			return pfelf__xz_chdr(f, s, out);
		if (strncmp(s->name, ".zdebug", 7) != 0)
			return -ENODATA;
		return legacy_chdr(f, s, out);
	}
	size_t hsz = f->is64 ? CHDR64_SIZE : CHDR32_SIZE;
	uint8_t h[CHDR64_SIZE];
	if (s->size < hsz)
		return -EINVAL;
	if ((ret = pfelf__read_range(f, s->offset, h, hsz)) < 0)
		return ret;
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, h, hsz, f->msb);
	memset(out, 0, sizeof(*out));
	out->type = pfelf__get32(&c);
	if (f->is64)
		pfelf__get32(&c); /* ch_reserved */
	out->size = pfelf__getw(&c, f->is64);
	out->align = pfelf__getw(&c, f->is64);
	out->data_offset = s->offset + hsz;
	out->data_size = s->size - hsz;
	return 0;
}

/* Inflate src (at most 256 MiB, so its length fits a uInt) into exactly
 * want bytes of dst; one byte of scratch reveals a stream that is longer. */
static int inflate_exact(const uint8_t *src, size_t srclen, uint8_t *dst, size_t want)
{
	z_stream z;
	memset(&z, 0, sizeof(z));
	if (inflateInit(&z) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)src;
	z.avail_in = (uInt)srclen;
	uint8_t extra;
	size_t done = 0;
	int zr = Z_OK;
	while (zr == Z_OK) {
		bool full = done == want;
		size_t room = full ? 1 : want - done;
		z.next_out = full ? &extra : dst + done;
		z.avail_out = room > UINT32_MAX ? UINT32_MAX : (uInt)room;
		uInt before = z.avail_out;
		zr = inflate(&z, Z_NO_FLUSH);
		size_t made = before - z.avail_out;
		if (full && made > 0)
			zr = Z_DATA_ERROR; /* more than ch_size */
		done += full ? 0 : made;
		if (zr == Z_OK && made == 0 && z.avail_in == 0)
			zr = Z_BUF_ERROR; /* the stream ends early */
	}
	inflateEnd(&z);
	if (zr == Z_STREAM_END && done == want)
		return 0;
	return zr == Z_MEM_ERROR ? -ENOMEM : -EINVAL;
}

/* Decompress every zstd frame of src into exactly want bytes of dst: a
 * longer stream fails with dstSize_tooSmall, a shorter one returns less. */
static int zstd_exact(const uint8_t *src, size_t srclen, uint8_t *dst, size_t want)
{
	ZSTD_DCtx *d = ZSTD_createDCtx();
	if (!d)
		return -ENOMEM;
	size_t r = ZSTD_decompressDCtx(d, dst, want, src, srclen);
	ZSTD_freeDCtx(d);
	if (!ZSTD_isError(r))
		return r == want ? 0 : -EINVAL;
	return ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation ? -ENOMEM : -EINVAL;
}

PFELF_API ssize_t pfelf_section_decompress(pfelf_file *f, uint32_t index, void *buf, size_t buflen)
{
	pfelf_chdr ch;
	int ret = pfelf_section_chdr(f, index, &ch);
	if (ret < 0)
		return ret;
	if (ch.type != PFELF_COMPRESS_ZLIB && ch.type != PFELF_COMPRESS_ZSTD &&
	    ch.type != PFELF_COMPRESS_XZ)
		return -ENOTSUP;
	if (ch.size > buflen || ch.size > SSIZE_MAX)
		return -E2BIG;
	if (ch.size > 0 && !buf)
		return -EINVAL;
	uint8_t *src;
	if ((ret = pfelf__copy_table(f, ch.data_offset, ch.data_size, &src)) < 0)
		return ret;
	if (ch.type == PFELF_COMPRESS_ZLIB)
		ret = inflate_exact(src, (size_t)ch.data_size, buf, (size_t)ch.size);
	else if (ch.type == PFELF_COMPRESS_ZSTD)
		ret = zstd_exact(src, (size_t)ch.data_size, buf, (size_t)ch.size);
	else
		ret = pfelf__xz_decode(src, (size_t)ch.data_size, buf, (size_t)ch.size);
	free(src);
	return ret < 0 ? ret : (ssize_t)ch.size;
}

PFELF_API int pfelf_gnu_debugdata(pfelf_file *f, uint32_t *index, pfelf_chdr *out)
{
	const pfelf_shdr *s;
	int ret = pfelf_section_by_name(f, PFELF_GNU_DEBUGDATA, &s);
	if (ret < 0)
		return ret;
	ret = pfelf_section_chdr(f, s->index, out);
	if (ret == -ENODATA)
		return -ENOENT; /* NOBITS */
	if (ret == 0 && out->type != PFELF_COMPRESS_XZ)
		return -EINVAL; /* SHF_COMPRESSED: not MiniDebugInfo */
	if (ret == 0)
		*index = s->index;
	return ret;
}

PFELF_API int pfelf_compress_type_name(uint32_t type, char *buf, size_t buflen)
{
	int n;
	if (type == PFELF_COMPRESS_ZLIB)
		n = snprintf(buf, buflen, "ZLIB");
	else if (type == PFELF_COMPRESS_ZSTD)
		n = snprintf(buf, buflen, "ZSTD");
	else if (type == PFELF_COMPRESS_XZ)
		n = snprintf(buf, buflen, "XZ");
	else
		n = snprintf(buf, buflen, "0x%x", type);
	return n < 0 ? -EINVAL : (size_t)n >= buflen ? -ENOSPC : n;
}
