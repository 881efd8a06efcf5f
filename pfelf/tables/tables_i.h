/*
 * Private header of pfelf's lazily loaded tables beyond the section and
 * program headers: symbol tables and their indexes, versions, hash tables,
 * notes, the dynamic section, debug links (tables.c and their modules).
 *
 * Every table lives in one struct pfelf_tables hanging off the handle,
 * allocated on first use. Each table is loaded once under the tables' lock
 * (pfelf__tables_once, recursive) from bytes copied out of the file with
 * pfelf__read_range, so nothing here ever touches the mapping directly, and
 * each is freed by pfelf__tables_free() at pfelf_close().
 */
#ifndef PFELF_TABLES_I_H
#define PFELF_TABLES_I_H

#include "pfelf_i.h"

/* One symbol table: raw entries and the string table, both copies. */
struct pfelf__symtab {
	uint32_t section; /* its section index; 0 when found through PT_DYNAMIC */
	uint32_t count;   /* entries */
	size_t stride;    /* bytes from one entry to the next */
	uint8_t *raw;     /* count * stride bytes as in the file */
	char *str;        /* string table copy + one guard NUL (str[str_len] == 0) */
	size_t str_len;   /* string table bytes, guard excluded */
	uint8_t *xndx;    /* SHT_SYMTAB_SHNDX words, raw; NULL if none */
	uint32_t xndx_count;
	_Atomic int byname_state;
	uint32_t *byname; /* entry indexes sorted by (name, index) */
	_Atomic int addr_state;
	struct pfelf__addr_ent *addr; /* address index, sorted */
	uint32_t addr_count;
};

/* One entry of the address index: a defined symbol with a size. */
struct pfelf__addr_ent {
	uint64_t start;
	uint64_t end;    /* last address, inclusive (start + size - 1, saturated) */
	uint64_t maxend; /* largest end of this and every earlier entry */
	uint32_t index;
};

/* A version definition or requirement, by version index. */
struct pfelf__verdef {
	uint16_t ndx;   /* vd_ndx */
	uint16_t flags; /* vd_flags */
	uint32_t name;  /* vda_name of the first aux; UINT32_MAX when none */
};
struct pfelf__vernaux {
	uint16_t other; /* vna_other */
	uint32_t name;  /* vna_name */
};

struct pfelf__versions {
	uint8_t *versym; /* raw .gnu.version words, one per dynsym entry; NULL if none */
	uint32_t versym_count;
	bool msb;                   /* byte order of the words */
	struct pfelf__verdef *defs; /* in file order */
	uint32_t ndefs;
	bool has_defs;
	struct pfelf__vernaux *needs; /* every vernaux, in file order */
	uint32_t nneeds;
	bool has_needs;
};

/* The hash tables of the dynamic symbol table. */
struct pfelf__hash {
	/* DT_GNU_HASH, decoded to host order */
	bool has_gnu;
	uint32_t gnu_nbuckets, gnu_symoffset, gnu_bloom_size, gnu_shift;
	uint64_t *gnu_bloom; /* bloom words (class-sized, widened) */
	uint32_t *gnu_buckets;
	uint32_t *gnu_chain; /* chain values of symbols symoffset .. nsyms-1 */
	uint32_t gnu_nchain;
	/* DT_HASH */
	bool has_sysv;
	uint32_t sysv_nbucket, sysv_nchain;
	uint32_t *sysv_bucket;
	uint32_t *sysv_chain;
};

/* The dynamic section, decoded. */
struct pfelf__dynent {
	uint64_t tag;
	uint64_t val;
};
struct pfelf__dyn {
	struct pfelf__dynent *ents; /* before DT_NULL */
	uint32_t count;
	char *str; /* dynamic string table + guard NUL; NULL if none */
	size_t str_len;
	char *interp; /* PT_INTERP contents, NUL-ended; NULL if none or bad */
	uint32_t needed_count;
	bool bad; /* PT_DYNAMIC outside the file: entries are -EINVAL */
};

/* A note, its name and descriptor copied into notes->data. */
struct pfelf__note {
	uint32_t type;
	uint32_t namesz;
	uint32_t descsz;
	size_t name_at; /* offsets into the data buffer */
	size_t desc_at;
	uint64_t desc_offset; /* file offset of the descriptor */
	uint32_t source;      /* section or segment index */
	bool in_segment;
	uint8_t align;
};
struct pfelf__notes {
	struct pfelf__note *notes;
	uint32_t count;
	uint8_t *data; /* names (each NUL-ended) and descriptors */
	size_t data_len;
};

struct pfelf_tables {
	pthread_mutex_t lock;     /* recursive: guards loading of the tables below */
	_Atomic int sym_state[2]; /* [PFELF_SYMTAB], [PFELF_DYNSYM] */
	struct pfelf__symtab sym[2];
	_Atomic int dyn_state;
	struct pfelf__dyn dyn;
	_Atomic int ver_state;
	struct pfelf__versions ver;
	_Atomic int hash_state;
	struct pfelf__hash hash;
	_Atomic int notes_state;
	struct pfelf__notes notes;
	_Atomic int link_state;
	uint8_t *debuglink; /* .gnu_debuglink copy + NUL; NULL if none */
	size_t debuglink_len;
	uint8_t *altlink; /* .gnu_debugaltlink copy + NUL; NULL if none */
	size_t altlink_len;
	_Atomic int go_state;
	struct pfelf__go *go; /* the pclntab (go_i.h); present false when none */
	void (*go_free)(struct pfelf__go *g); /* set with go by its loader (gopclntab.c) */
	_Atomic int gobi_state;
	char *gobi; /* the build info as go version -m prints it; NULL if none */
	size_t gobi_len;
};

struct pfelf__go;

/* The handle's metadata block, allocated on first use: 0 or -ENOMEM. */
int pfelf__tables(pfelf_file *f) PFELF_HIDDEN;
/* pfelf__once under the metadata lock: recursive, because one table's
 * loader loads the tables it needs; taken before f->lock (which loaders may
 * take through pfelf_section_count), never after it. Needs pfelf__tables. */
static inline int pfelf__tables_once(pfelf_file *f, _Atomic int *state, pfelf__loader load,
                                     void *ctx)
{
	return pfelf__once(f, &f->tables->lock, state, load, ctx);
}
/* Free every metadata table of f (idempotent). */
void pfelf__tables_free(pfelf_file *f) PFELF_HIDDEN;

/* Load a symbol table (0 = .symtab, 1 = .dynsym): 0 or -errno. */
int pfelf__symtab_get(pfelf_file *f, int which, struct pfelf__symtab **out) PFELF_HIDDEN;
/* Decode entry index of t into *out (name, section index; no version). */
void pfelf__sym_decode(const pfelf_file *f, const struct pfelf__symtab *t, uint32_t index,
                       pfelf_sym *out) PFELF_HIDDEN;
/* The symbol name at st_name off of t, or NULL when not a NUL-ended string. */
const char *pfelf__sym_str(const struct pfelf__symtab *t, uint32_t off) PFELF_HIDDEN;

/* The decoded dynamic section (count 0 when none): 0 or -errno. */
int pfelf__dyn_get(pfelf_file *f, const struct pfelf__dyn **out) PFELF_HIDDEN;
/* The value of the first dynamic entry tagged tag: true when found. */
bool pfelf__dyn_find(const struct pfelf__dyn *d, uint64_t tag, uint64_t *val) PFELF_HIDDEN;
/* The first section of that type (and, when link_to != UINT32_MAX, whose
 * sh_link is link_to), or NULL. Needs the section table loaded. */
const pfelf_shdr *pfelf__section_of_type(pfelf_file *f, uint32_t type,
                                         uint32_t link_to) PFELF_HIDDEN;

/* The fixed header of a DT_GNU_HASH table: nbuckets, symoffset,
 * bloom_size, bloom_shift. */
#define PFELF__GNU_HASH_HDR 16
/* Read n 32-bit words at off into a new host-order array: 0 or -errno
 * (hashcount.c). */
int pfelf__read_words(pfelf_file *f, uint64_t off, uint64_t n, uint32_t **out) PFELF_HIDDEN;
/* The number of dynamic symbols the hash table of d implies (DT_HASH's
 * nchain, else past the last DT_GNU_HASH chain), 0 when d has neither:
 * 0 or -errno (hashcount.c). */
int pfelf__dynsym_count_from_hash(pfelf_file *f, const struct pfelf__dyn *d,
                                  uint32_t *count) PFELF_HIDDEN;

/* Versions of the dynamic symbols (loaded on first use). */
int pfelf__versions_get(pfelf_file *f, const struct pfelf__versions **out) PFELF_HIDDEN;
/* Fill the version fields of dynamic symbol s. */
void pfelf__sym_version(const struct pfelf__versions *v, const struct pfelf__symtab *t,
                        pfelf_sym *s) PFELF_HIDDEN;

/* Notes (loaded on first use). */
int pfelf__notes_get(pfelf_file *f, const struct pfelf__notes **out) PFELF_HIDDEN;

#endif /* PFELF_TABLES_I_H */
