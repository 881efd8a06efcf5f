/* What the hash tables tell before the dynamic symbols are loaded: their
 * count, for files without section headers (DT_SYMTAB has no size), the
 * way readelf finds it; and the word reader of both hash table formats. */
#include "tables/tables_i.h"

#include <stdlib.h>

#define CHUNK_WORDS 4096u

int pfelf__read_words(pfelf_file *f, uint64_t off, uint64_t n, uint32_t **out)
{
	uint8_t *raw;
	if (n > PFELF__MAX_TABLE / 4)
		return -EINVAL;
	int ret = pfelf__copy_table(f, off, n * 4, &raw);
	if (ret < 0)
		return ret;
	uint32_t *w = malloc(n ? (size_t)n * 4 : 1);
	if (!w) {
		free(raw);
		return -ENOMEM;
	}
	for (uint64_t i = 0; i < n; i++)
		w[i] = pfelf__u32(raw + i * 4, f->msb);
	free(raw);
	*out = w;
	return 0;
}

/* The symbol count a GNU hash table implies: past the last chain's end. */
static int gnu_count(pfelf_file *f, uint64_t off, uint32_t *count)
{
	uint32_t *hdr, *buckets, *chunk;
	int ret = pfelf__read_words(f, off, 4, &hdr);
	if (ret < 0)
		return ret;
	uint32_t nb = hdr[0], symoff = hdr[1];
	uint64_t at = off + PFELF__GNU_HASH_HDR + (uint64_t)hdr[2] * (f->is64 ? 8 : 4);
	free(hdr);
	if ((ret = pfelf__read_words(f, at, nb, &buckets)) < 0)
		return ret;
	uint32_t max = 0;
	for (uint32_t i = 0; i < nb; i++)
		max = buckets[i] > max ? buckets[i] : max;
	free(buckets);
	if (max < symoff) {
		*count = symoff;
		return 0;
	}
	at += (uint64_t)nb * 4 + (uint64_t)(max - symoff) * 4;
	for (uint64_t i = max; i <= UINT32_MAX; i += CHUNK_WORDS, at += CHUNK_WORDS * 4) {
		uint64_t n = f->size > at ? (f->size - at) / 4 : 0;
		if (n > CHUNK_WORDS)
			n = CHUNK_WORDS;
		if (n == 0 || (ret = pfelf__read_words(f, at, n, &chunk)) < 0)
			return n == 0 ? -EINVAL : ret;
		for (uint32_t k = 0; k < n; k++) {
			if (chunk[k] & 1) {
				free(chunk);
				*count = (uint32_t)(i + k + 1);
				return i + k + 1 > UINT32_MAX ? -EINVAL : 0;
			}
		}
		free(chunk);
	}
	return -EINVAL;
}

int pfelf__dynsym_count_from_hash(pfelf_file *f, const struct pfelf__dyn *d, uint32_t *count)
{
	uint64_t addr, off;
	uint32_t *hdr;
	if (pfelf__dyn_find(d, DT_HASH, &addr) && pfelf_vaddr_to_offset(f, addr, 8, &off) == 0) {
		int ret = pfelf__read_words(f, off, 2, &hdr);
		if (ret < 0)
			return ret;
		*count = hdr[1];
		free(hdr);
		return 0;
	}
	if (pfelf__dyn_find(d, DT_GNU_HASH, &addr) && pfelf_vaddr_to_offset(f, addr, 16, &off) == 0)
		return gnu_count(f, off, count);
	*count = 0;
	return 0;
}
