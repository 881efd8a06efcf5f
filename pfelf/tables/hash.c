/* Name lookup in the dynamic symbols through DT_GNU_HASH (bloom filter,
 * buckets, chains) or DT_HASH, both copied and checked on first use; every
 * chain walk is bounded by the number of symbols. Also counts DT_SYMTAB
 * entries for files without section headers, the way readelf does. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

#define GNU_HDR     16
#define CHUNK_WORDS 4096u

int pfelf__dynsym_count_from_hash(pfelf_file *f, const struct pfelf__dyn *d,
                                  uint32_t *count) PFELF_HIDDEN;

static uint32_t gnu_hash(const char *s)
{
	uint32_t h = 5381;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = h * 33 + *p;
	return h;
}

static uint32_t sysv_hash(const char *s)
{
	uint32_t h = 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		h = (h << 4) + *p;
		uint32_t g = h & 0xf0000000u;
		if (g)
			h ^= g >> 24;
		h &= ~g;
	}
	return h;
}

/* File offset of the table: its section (linked to the dynsym section),
 * else the DT tag's address. -ENOENT when there is none. */
static int table_offset(pfelf_file *f, const struct pfelf__symtab *t, uint32_t type, uint64_t tag,
                        uint64_t *off)
{
	const pfelf_shdr *s = t->section ? pfelf__section_of_type(f, type, t->section) : NULL;
	if (s) {
		*off = s->offset;
		return (s->status & PFELF_ST_OUT_OF_FILE) ? -EINVAL : 0;
	}
	const struct pfelf__dyn *d = NULL;
	uint64_t addr;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret == -EINVAL ? -ENOENT : ret;
	if (!pfelf__dyn_find(d, tag, &addr))
		return -ENOENT;
	ret = pfelf_vaddr_to_offset(f, addr, GNU_HDR, off);
	return ret == -EFAULT ? -EINVAL : ret;
}

/* Read n 32-bit words at off into a new host-order array. */
static int read_words(pfelf_file *f, uint64_t off, uint64_t n, uint32_t **out)
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

static int load_bloom(pfelf_file *f, struct pfelf__hash *h, uint64_t off)
{
	size_t wsz = f->is64 ? 8 : 4;
	uint8_t *raw;
	int ret = pfelf__copy_table(f, off, (uint64_t)h->gnu_bloom_size * wsz, &raw);
	if (ret < 0)
		return ret;
	h->gnu_bloom = malloc((size_t)h->gnu_bloom_size * 8);
	for (uint32_t i = 0; h->gnu_bloom && i < h->gnu_bloom_size; i++)
		h->gnu_bloom[i] = f->is64 ? pfelf__u64(raw + (size_t)i * 8, f->msb)
		                          : pfelf__u32(raw + (size_t)i * 4, f->msb);
	free(raw);
	return h->gnu_bloom ? 0 : -ENOMEM;
}

static int load_gnu(pfelf_file *f, struct pfelf__hash *h, const struct pfelf__symtab *t)
{
	uint64_t off;
	uint32_t *hdr;
	int ret = table_offset(f, t, SHT_GNU_HASH, DT_GNU_HASH, &off);
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;
	if ((ret = read_words(f, off, 4, &hdr)) < 0)
		return ret;
	h->gnu_nbuckets = hdr[0];
	h->gnu_symoffset = hdr[1];
	h->gnu_bloom_size = hdr[2];
	h->gnu_shift = hdr[3];
	free(hdr);
	uint32_t bits = f->is64 ? 64 : 32;
	uint32_t bs = h->gnu_bloom_size;
	if (bs == 0 || (bs & (bs - 1)) || h->gnu_shift >= bits || h->gnu_symoffset > t->count)
		return -EINVAL;
	off += GNU_HDR;
	if ((ret = load_bloom(f, h, off)) < 0)
		return ret;
	off += (uint64_t)bs * (bits / 8);
	if ((ret = read_words(f, off, h->gnu_nbuckets, &h->gnu_buckets)) < 0)
		return ret;
	off += (uint64_t)h->gnu_nbuckets * 4;
	h->gnu_nchain = t->count - h->gnu_symoffset;
	if ((ret = read_words(f, off, h->gnu_nchain, &h->gnu_chain)) < 0)
		return ret;
	h->has_gnu = true;
	return 0;
}

static int load_sysv(pfelf_file *f, struct pfelf__hash *h, const struct pfelf__symtab *t)
{
	uint64_t off;
	uint32_t *hdr;
	int ret = table_offset(f, t, SHT_HASH, DT_HASH, &off);
	if (ret < 0)
		return ret == -ENOENT ? 0 : ret;
	if ((ret = read_words(f, off, 2, &hdr)) < 0)
		return ret;
	h->sysv_nbucket = hdr[0];
	h->sysv_nchain = hdr[1];
	free(hdr);
	if ((ret = read_words(f, off + 8, h->sysv_nbucket, &h->sysv_bucket)) < 0)
		return ret;
	if ((ret = read_words(f, off + 8 + (uint64_t)h->sysv_nbucket * 4, h->sysv_nchain,
	                      &h->sysv_chain)) < 0)
		return ret;
	h->has_sysv = true;
	return 0;
}

static int load_hash(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf__hash *h = &f->tables->hash;
	struct pfelf__symtab *t = NULL;
	int ret = pfelf__symtab_get(f, PFELF_DYNSYM, &t);
	if (ret == 0)
		ret = load_gnu(f, h, t);
	if (ret == 0)
		ret = load_sysv(f, h, t);
	if (ret < 0) {
		free(h->gnu_bloom);
		free(h->gnu_buckets);
		free(h->gnu_chain);
		free(h->sysv_bucket);
		free(h->sysv_chain);
		memset(h, 0, sizeof(*h));
	}
	return ret;
}

/* The best match so far: defined, not a hidden version, lowest index. */
struct best {
	pfelf_sym sym;
	int rank; /* 0 none, 1 hidden version, 2 default */
};

static void consider(pfelf_file *f, struct pfelf__symtab *t, const struct pfelf__versions *v,
                     uint32_t i, const char *name, struct best *b)
{
	pfelf_sym s;
	pfelf__sym_decode(f, t, i, &s);
	if (s.shndx == SHN_UNDEF || s.bind == 0 /* STB_LOCAL */ ||
	    (s.status & PFELF_SYM_BAD_NAME) || strcmp(s.name, name) != 0)
		return;
	pfelf__sym_version(v, t, &s);
	int rank = (s.versym & 0x8000) ? 1 : 2;
	if (rank > b->rank || (rank == b->rank && s.index < b->sym.index)) {
		b->sym = s;
		b->rank = rank;
	}
}

static int walk_gnu(pfelf_file *f, struct pfelf__symtab *t, const struct pfelf__versions *v,
                    const char *name, struct best *b)
{
	const struct pfelf__hash *h = &f->tables->hash;
	uint32_t hv = gnu_hash(name), bits = f->is64 ? 64 : 32;
	uint64_t word = h->gnu_bloom[(hv / bits) & (h->gnu_bloom_size - 1)];
	uint64_t mask =
	        (uint64_t)1 << (hv % bits) | (uint64_t)1 << (((uint64_t)hv >> h->gnu_shift) % bits);
	if ((word & mask) != mask || h->gnu_nbuckets == 0)
		return 0;
	uint32_t i = h->gnu_buckets[hv % h->gnu_nbuckets];
	if (i == 0)
		return 0;
	if (i < h->gnu_symoffset)
		return -EINVAL;
	for (;; i++) {
		if (i >= t->count)
			return -EINVAL; /* the chain runs past the symbols */
		uint32_t ch = h->gnu_chain[i - h->gnu_symoffset];
		if ((ch | 1) == (hv | 1))
			consider(f, t, v, i, name, b);
		if (ch & 1)
			return 0;
	}
}

static int walk_sysv(pfelf_file *f, struct pfelf__symtab *t, const struct pfelf__versions *v,
                     const char *name, struct best *b)
{
	const struct pfelf__hash *h = &f->tables->hash;
	if (h->sysv_nbucket == 0)
		return 0;
	uint32_t i = h->sysv_bucket[sysv_hash(name) % h->sysv_nbucket];
	for (uint32_t steps = 0; i != 0; steps++) {
		if (i >= h->sysv_nchain || i >= t->count || steps >= h->sysv_nchain)
			return -EINVAL; /* past the end, or a loop */
		consider(f, t, v, i, name, b);
		i = h->sysv_chain[i];
	}
	return 0;
}

PFELF_API int pfelf_symbol_lookup(pfelf_file *f, const char *name, pfelf_sym *out)
{
	struct pfelf__symtab *t = NULL;
	const struct pfelf__versions *v = NULL;
	if (!name || !out)
		return -EINVAL;
	int ret = pfelf__symtab_get(f, PFELF_DYNSYM, &t);
	if (ret == 0)
		ret = pfelf__versions_get(f, &v);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->hash_state, load_hash, NULL);
	if (ret < 0)
		return ret;
	const struct pfelf__hash *h = &f->tables->hash;
	struct best b = {.rank = 0};
	if (h->has_gnu)
		ret = walk_gnu(f, t, v, name, &b);
	else if (h->has_sysv)
		ret = walk_sysv(f, t, v, name, &b);
	else
		return -ENODATA;
	if (ret < 0)
		return ret;
	if (b.rank == 0)
		return -ENOENT;
	*out = b.sym;
	return 0;
}

/* The symbol count a GNU hash table implies: past the last chain's end. */
static int gnu_count(pfelf_file *f, uint64_t off, uint32_t *count)
{
	uint32_t *hdr, *buckets, *chunk;
	int ret = read_words(f, off, 4, &hdr);
	if (ret < 0)
		return ret;
	uint32_t nb = hdr[0], symoff = hdr[1];
	uint64_t at = off + GNU_HDR + (uint64_t)hdr[2] * (f->is64 ? 8 : 4);
	free(hdr);
	if ((ret = read_words(f, at, nb, &buckets)) < 0)
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
		if (n == 0 || (ret = read_words(f, at, n, &chunk)) < 0)
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
		int ret = read_words(f, off, 2, &hdr);
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
