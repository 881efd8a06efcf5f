/* The node table: every inode the kernel knows, by number and by name. */
#ifndef ELFFS_NODES_H
#define ELFFS_NODES_H

#include "base/elffs.h"

#include <pfelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* The kinds of nodes: three of SOURCE, and the entries of a binary's
 * directory and the files inside its directories (one row each in the
 * table of entries.c, which says what they show). */
enum node_kind {
	NK_DIR,       /* a directory of SOURCE */
	NK_LINK,      /* a symlink of SOURCE */
	NK_BIN,       /* an ELF file of SOURCE, shown as a directory */
	NK_SECTIONS,  /* <binary>/sections */
	NK_SEGMENTS,  /* <binary>/segments */
	NK_INFO,      /* <binary>/info */
	NK_HEADER,    /* <binary>/header */
	NK_SECTION,   /* <binary>/sections/<name> */
	NK_SEGMENT,   /* <binary>/segments/<NN>-<TYPE> */
	NK_SYMBOLS,   /* <binary>/symbols (a generated text) */
	NK_SYMDIR,    /* <binary>/symbol */
	NK_SYMBOL,    /* <binary>/symbol/<name> */
	NK_BUILDID,   /* <binary>/build-id (the view's text) */
	NK_DECDIR,    /* <binary>/decompressed */
	NK_DECOMP,    /* <binary>/decompressed/<name> */
	NK_RELOCS,    /* <binary>/relocations (text kept by the view) */
	NK_ELF,       /* <binary>/elf: the whole source file */
	NK_BIDROOT,   /* MOUNT/.build-id (buildid_fs.h) */
	NK_BIDDIR,    /* MOUNT/.build-id/<xx> */
	NK_BIDLINK,   /* MOUNT/.build-id/<xx>/<rest>[.debug] */
	NK_ARINFO,    /* <archive>/info (arview.h) */
	NK_ARMAP,     /* <archive>/armap */
	NK_ARMEMBERS, /* <archive>/members */
	NK_MEMBER,    /* <archive>/members/<name>: an ELF member, a binary's directory */
	NK_ARFILE,    /* <archive>/members/<name>: any other member, its bytes */
	NK_ARLINK,    /* <archive>/members/<name>: a thin archive's member, a symlink */
};

struct binary;

/*
 * What a source node keeps of its lstat: the identity the daemon compares
 * (dev, ino, size, mtime, ctime) and what attr.c shows (mode, owner, times).
 */
struct srcstat {
	uint64_t dev;
	uint64_t ino;
	int64_t size;
	int64_t atime, mtime, ctime;
	uint32_t atime_ns, mtime_ns, ctime_ns;
	uint32_t mode, uid, gid;
};

/* A source node's own data, allocated with its name. */
struct srcinfo {
	struct srcstat st;   /* last lstat of the source (table lock) */
	uint64_t checked_ns; /* when it was taken; 0 forces a re-check (table lock) */
	uint64_t gen;        /* NK_BIN: current generation (table lock) */
	char name[];         /* name in parent; "" for the root */
};

/*
 * A node: 64 bytes in a slab of the table (nodes.c). Inner nodes (the
 * parts of a binary's view) keep no name: they are found by the keyed
 * hash of their name and what they serve (check_reuse_inner), and the
 * view gives their headers again when they are opened or their extended
 * attributes read. Source nodes keep their name and lstat in a srcinfo.
 */
struct node {
	struct node *parent; /* holds a reference; NULL for the root */
	struct node *hnext;  /* next in its bucket of the name table */
	uint64_t ino;
	uint64_t key;     /* keyed hash of the name in parent */
	uint32_t refs_lo; /* kernel lookups + internal references (48 bits; table lock) */
	uint16_t refs_hi;
	uint8_t kind;        /* enum node_kind */
	bool hashed : 1;     /* findable by (parent, name) (table lock) */
	bool stale : 1;      /* source gone or now of another kind (table lock) */
	bool absent : 1;     /* file-mode root: SOURCE gone or not ELF (table lock) */
	bool attached : 1;   /* its number was given out */
	bool compressed : 1; /* NK_SECTION: SHF_COMPRESSED with a compression header */
	union {
		struct {               /* inner nodes */
			uint64_t gen;  /* generation of their binary they show */
			uint64_t size; /* st_size served */
			uint64_t aux;  /* NK_SECTION, NK_SEGMENT, NK_DECOMP, members/
			                  files: index;
			                  NK_SYMBOL, NK_HEADER: offset */
		};
		struct { /* source nodes (NK_DIR, NK_LINK, NK_BIN) */
			struct srcinfo *src;
			struct binary *bin; /* NK_BIN: parsed-view cache */
			const char *name;   /* src->name: source nodes only (node_name for any) */
		};
	};
};

static inline bool node_kind_is_source(enum node_kind k)
{
	return k == NK_DIR || k == NK_LINK || k == NK_BIN;
}

static inline bool node_is_source(const struct node *n)
{
	return node_kind_is_source((enum node_kind)n->kind);
}

/* Whether n is a directory: of SOURCE, a binary, or a directory entry of
 * a binary (entries.h). */
bool node_is_dir(const struct node *n);

/* The binary a node of a view belongs to (itself for NK_BIN); NULL for
 * NK_DIR and NK_LINK. Inner nodes are at most two levels below it, four in an archive. */
static inline struct node *node_broot(struct node *n)
{
	while (n && n->kind != NK_BIN)
		n = node_is_source(n) ? NULL : n->parent;
	return n;
}

/* The node whose view serves n: its binary, or the ELF member of an
 * archive it is part of (NK_MEMBER); NULL for NK_DIR and NK_LINK. */
static inline struct node *node_vroot(struct node *n)
{
	while (n && n->kind != NK_BIN && n->kind != NK_MEMBER)
		n = node_is_source(n) ? NULL : n->parent;
	return n;
}

/* Whether n's directory holds the entries of a binary (entries.h). */
static inline bool node_is_vroot(const struct node *n)
{
	return n->kind == NK_BIN || n->kind == NK_MEMBER;
}

/* The name of n: a source node's own, its row's for an entry of a
 * binary's directory (entries.h), "" for the root and for files inside a
 * binary's directories (not kept). */
const char *node_name(const struct node *n);

/* The path of source node n (a directory, file or link of SOURCE) from the
 * root, "dir/name" ("" for the root) into buf of size bytes: its length, or
 * -ENAMETOOLONG when it does not fit with its NUL. */
int node_source_path(const struct node *n, char *buf, size_t size);

/* Create the root (inode 1) of the given kind; 0 or -ENOMEM. */
int nodes_init(enum node_kind root_kind, const struct stat *st);

/* Free every node (at exit, after the session is gone). */
void nodes_destroy(void);

/* The table lock, for reading and updating the fields marked "table lock". */
void nodes_lock(void);
void nodes_unlock(void);

/* A new unattached node (refs 0, not findable yet); NULL on ENOMEM. A
 * source node gets its srcinfo (st zero); an NK_BIN node its binary and
 * a generation. */
struct node *node_new(enum node_kind kind, const char *name);

/* Free a node that was never attached. */
void node_discard(struct node *n);

/*
 * Decide whether the existing node old (same parent and name) still
 * stands for what cand describes; may update old from cand. Called with
 * the table lock held.
 */
typedef bool (*node_reuse_fn)(struct node *old, struct node *cand);

/*
 * Attach cand as the child name of parent, or reuse the existing child
 * when reuse() says so (cand is then freed). The node returned carries one
 * more lookup reference (the kernel's). An existing child not reused is
 * unhashed and marked stale.
 */
struct node *node_attach(struct node *parent, struct node *cand, node_reuse_fn reuse);

/* The node with that inode number plus an internal reference, or NULL. */
struct node *node_get(fuse_ino_t ino);

/* Drop an internal reference (node_get's); NULL is allowed. */
void node_put(struct node *n);

/* The kernel forgets nlookup lookups of ino. */
void node_forget(fuse_ino_t ino, uint64_t nlookup);

/* After a batch of forgets: give freed memory back to the system when
 * much was freed since the last time (malloc_trim). */
void nodes_trim(void);

/* Inode number of child name of parent if such a node exists, else 0. */
uint64_t node_child_ino(uint64_t parent, const char *name);

/* Make n unreachable by name and stale (table lock held). */
void node_unhash_locked(struct node *n);

/* A new generation number for a binary (table lock held): numbers are
 * never given twice, so (inode, generation) names one parse. */
uint64_t node_next_gen_locked(void);

/* The generation n shows: a binary's current one, an inner node's own
 * (table lock held). */
static inline uint64_t node_gen(const struct node *n)
{
	return n->kind == NK_BIN ? n->src->gen : node_is_source(n) ? 0 : n->gen;
}

/* The lstat of a source node as a struct stat (table lock held): the
 * fields of struct srcstat, the others 0. */
void node_stat_get(const struct node *n, struct stat *st);

/* Keep st as the lstat of source node n (table lock held unless n is
 * not attached yet). */
void node_stat_set(struct node *n, const struct stat *st);

/* What a source node keeps of lstat st (node_stat_set keeps this). */
struct srcstat node_srcstat(const struct stat *st);

/* Number of nodes alive (for statistics). */
uint64_t nodes_count(void);

#endif /* ELFFS_NODES_H */
