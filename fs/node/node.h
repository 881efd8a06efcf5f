/* What a node of the node table is: its kinds, its 64 bytes, a source node's data. */
#ifndef ELFFS_NODE_H
#define ELFFS_NODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	NK_DDATA,     /* <binary>/gnu_debugdata: the view of the ELF file inside
	                 .gnu_debugdata, a binary's directory (cache/debugdata.h) */
	NK_DEBUG,     /* <binary>/debug: a symlink to its best debug information */
	NK_MINIDBG,   /* <binary>/minidebuginfo.debug (content/minidbg.h) */
	NK_GODIR,     /* <binary>/go: Go's tables (content/gotables.h) */
	NK_GOINFO,    /* <binary>/go/buildinfo (the handle's text) */
	NK_GOFUNCS,   /* <binary>/go/functions (a generated text) */
	NK_GODEBUG,   /* <binary>/go/debug (a debug file made whole: cache/dcache.h) */
	NK_NKINDS,
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
	void *watch;         /* its file handle in watch/wmap.c, or NULL (that map's lock) */
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
	bool partial : 1;    /* NK_DIR: its last listing left a file out (table lock) */
	bool fixed : 1;      /* a binary's directory: its last listing is its view's alone
	                        (debug_fixed), for its generation (table lock) */
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

/* The binary a node of a view belongs to (itself for NK_BIN); NULL for
 * NK_DIR and NK_LINK. Inner nodes are at most two levels below it, three
 * below gnu_debugdata/, four in an archive. */
static inline struct node *node_broot(struct node *n)
{
	while (n && n->kind != NK_BIN)
		n = node_is_source(n) ? NULL : n->parent;
	return n;
}

/* The node whose view serves n: its binary, the ELF member of an archive
 * it is part of (NK_MEMBER), or its binary's gnu_debugdata/ (NK_DDATA);
 * NULL for NK_DIR and NK_LINK. */
static inline struct node *node_vroot(struct node *n)
{
	while (n && n->kind != NK_BIN && n->kind != NK_MEMBER && n->kind != NK_DDATA)
		n = node_is_source(n) ? NULL : n->parent;
	return n;
}

#endif /* ELFFS_NODE_H */
