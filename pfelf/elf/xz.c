/* MiniDebugInfo: the .gnu_debugdata section, one xz stream holding an ELF
 * file. Its uncompressed size is read from the stream's index (the header,
 * the footer and the index, checked against each other and against the
 * section: exactly one stream, no padding) before anything is decoded;
 * decoding goes through liblzma with a memory limit into exactly that many
 * bytes. liblzma's stream decoder checks the index against the blocks it
 * decoded, so an index that lies about the sizes fails as a corrupt stream. */
#include "elf/xz_i.h"

#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#define XZ_HDR ((uint64_t)LZMA_STREAM_HEADER_SIZE) /* header and footer: 12 bytes each */

/* Larger indexes are refused: one record a block, 64 KiB are thousands of
 * blocks (xz -T makes a block of three dictionaries: a 64 MiB inner file
 * of xz -6 has three). */
#define XZ_INDEX_MAX ((uint64_t)64 << 10)

/* What liblzma may allocate to decode an index of XZ_INDEX_MAX bytes. */
#define XZ_INDEX_MEMLIMIT ((uint64_t)4 << 20)

/* Read the index of the xz stream at [off, off + len) of f and check it
 * against the stream's header and footer; on success *idx is the caller's
 * (lzma_index_end). */
static int read_index(pfelf_file *f, uint64_t off, uint64_t len, lzma_index **idx)
{
	uint8_t h[LZMA_STREAM_HEADER_SIZE], t[LZMA_STREAM_HEADER_SIZE];
	lzma_stream_flags hf, tf;
	if (len < 2 * XZ_HDR)
		return -EINVAL;
	int ret = pfelf__read_range(f, off, h, sizeof(h));
	if (ret == 0)
		ret = pfelf__read_range(f, off + len - XZ_HDR, t, sizeof(t));
	if (ret < 0)
		return ret;
	if (lzma_stream_header_decode(&hf, h) != LZMA_OK ||
	    lzma_stream_footer_decode(&tf, t) != LZMA_OK ||
	    lzma_stream_flags_compare(&hf, &tf) != LZMA_OK)
		return -EINVAL;
	if (tf.backward_size > XZ_INDEX_MAX || tf.backward_size > len - 2 * XZ_HDR)
		return -EINVAL;
	uint8_t *ib;
	ret = pfelf__copy_table(f, off + len - XZ_HDR - tf.backward_size, tf.backward_size, &ib);
	if (ret < 0)
		return ret;
	uint64_t memlimit = XZ_INDEX_MEMLIMIT;
	size_t pos = 0;
	*idx = NULL;
	lzma_ret lr = lzma_index_buffer_decode(idx, &memlimit, NULL, ib, &pos, tf.backward_size);
	free(ib);
	if (lr == LZMA_MEM_ERROR)
		return -ENOMEM;
	if (lr != LZMA_OK || pos != tf.backward_size) {
		if (lr == LZMA_OK)
			lzma_index_end(*idx, NULL);
		return -EINVAL;
	}
	/* one stream, filling the section: no padding, nothing after it */
	if (lzma_index_stream_size(*idx) != len) {
		lzma_index_end(*idx, NULL);
		return -EINVAL;
	}
	return 0;
}

int pfelf__xz_chdr(pfelf_file *f, const pfelf_shdr *s, pfelf_chdr *out)
{
	lzma_index *idx;
	int ret = read_index(f, s->offset, s->size, &idx);
	if (ret < 0)
		return ret;
	*out = (pfelf_chdr){
	        .type = PFELF_COMPRESS_XZ,
	        .size = lzma_index_uncompressed_size(idx),
	        .align = 1,
	        .data_offset = s->offset,
	        .data_size = s->size,
	        .legacy = true,
	};
	lzma_index_end(idx, NULL);
	return 0;
}

/* One step of the decoder into dst[want]: once want bytes are out, one
 * byte of scratch reveals a stream that holds more. */
static lzma_ret xz_step(lzma_stream *z, uint8_t *dst, size_t want, size_t *done)
{
	uint8_t extra;
	bool full = *done == want;
	z->next_out = full ? &extra : dst + *done;
	z->avail_out = full ? 1 : want - *done;
	size_t before = z->avail_out;
	lzma_ret r = lzma_code(z, LZMA_FINISH);
	size_t made = before - z->avail_out;
	if (full && made > 0)
		return LZMA_DATA_ERROR; /* more than the index says */
	*done += made;
	return r;
}

int pfelf__xz_decode(const uint8_t *src, size_t srclen, uint8_t *dst, size_t want)
{
	lzma_stream z = LZMA_STREAM_INIT;
	lzma_ret r = lzma_stream_decoder(&z, PFELF_XZ_MEMLIMIT, 0);
	if (r != LZMA_OK)
		return r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL;
	z.next_in = src;
	z.avail_in = srclen;
	size_t done = 0;
	/* LZMA_FINISH: without input left and no progress, liblzma answers
	 * LZMA_BUF_ERROR (a cut stream), so the loop ends */
	while (r == LZMA_OK)
		r = xz_step(&z, dst, want, &done);
	bool whole = r == LZMA_STREAM_END && done == want && z.avail_in == 0;
	lzma_end(&z);
	if (whole)
		return 0;
	return r == LZMA_MEM_ERROR ? -ENOMEM : -EINVAL; /* LZMA_MEMLIMIT_ERROR: the file's */
}
