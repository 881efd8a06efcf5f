/* Name lookup in the dynamic symbols through DT_GNU_HASH (bloom filter,
 * buckets, chains) or DT_HASH, both copied and checked on first use; every
 * chain walk is bounded by the number of symbols. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

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
	ret = pfelf_vaddr_to_offset(f, addr, PFELF__GNU_HASH_HDR, off);
	return ret == -EFAULT ? -EINVAL : ret;
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
	if ((ret = pfelf__read_words(f, off, 4, &hdr)) < 0)
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
	off += PFELF__GNU_HASH_HDR;
	if ((ret = load_bloom(f, h, off)) < 0)
		return ret;
	off += (uint64_t)bs * (bits / 8);
	if ((ret = pfelf__read_words(f, off, h->gnu_nbuckets, &h->gnu_buckets)) < 0)
		return ret;
	off += (uint64_t)h->gnu_nbuckets * 4;
	h->gnu_nchain = t->count - h->gnu_symoffset;
	if ((ret = pfelf__read_words(f, off, h->gnu_nchain, &h->gnu_chain)) < 0)
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
	if ((ret = pfelf__read_words(f, off, 2, &hdr)) < 0)
		return ret;
	h->sysv_nbucket = hdr[0];
	h->sysv_nchain = hdr[1];
	free(hdr);
	if ((ret = pfelf__read_words(f, off + 8, h->sysv_nbucket, &h->sysv_bucket)) < 0)
		return ret;
	if ((ret = pfelf__read_words(f, off + 8 + (uint64_t)h->sysv_nbucket * 4, h->sysv_nchain,
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
