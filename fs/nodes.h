/* The node table: every inode the kernel knows, by number and by name. */
#ifndef ELFFS_NODES_H
#define ELFFS_NODES_H

#include "elffs.h"

#include <pfelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

enum node_kind {
	NK_DIR,      /* a directory of SOURCE */
	NK_LINK,     /* a symlink of SOURCE */
	NK_BIN,      /* an ELF file of SOURCE, shown as a directory */
	NK_SECTIONS, /* <binary>/sections */
	NK_SEGMENTS, /* <binary>/segments */
	NK_INFO,     /* <binary>/info */
	NK_HEADER,   /* <binary>/header */
	NK_SECTION,  /* <binary>/sections/<name> */
	NK_SEGMENT,  /* <binary>/segments/<NN>-<TYPE> */
	NK_SYMBOLS,  /* <binary>/symbols (text kept by the view) */
	NK_SYMDIR,   /* <binary>/symbol */
	NK_SYMBOL,   /* <binary>/symbol/<name> */
	NK_BUILDID,  /* <binary>/build-id (text) */
	NK_DECDIR,   /* <binary>/decompressed */
	NK_DECOMP,   /* <binary>/decompressed/<name> */
};

struct binary;

/* What a file node inside a binary serves. Immutable once attached. */
struct nfile {
	uint64_t off;     /* byte range of the source file */
	uint64_t len;     /* served length (0 for NOBITS and out-of-file ranges) */
	uint16_t machine; /* e_machine, for the names of types and flags */
	uint8_t osabi;    /* EI_OSABI, for the flag letters */
	union {
		pfelf_shdr sh; /* NK_SECTION: its header (sh.name is NULL) */
		pfelf_phdr ph; /* NK_SEGMENT: its header */
	};
	char *text;       /* NK_INFO, NK_BUILDID: the text (len bytes) */
	uint32_t index;   /* NK_DECOMP: section index */
	bool compressed;  /* NK_SECTION, NK_DECOMP: ch_type and ch_size are set */
	uint32_t ch_type; /* compression header (pfelf_section_chdr) */
	uint64_t ch_size;
};

struct node {
	uint64_t ino;
	uint64_t refs;       /* kernel lookups + internal references (table lock) */
	struct node *parent; /* holds a reference; NULL for the root */
	char *name;          /* name in parent; "" for the root */
	struct node *ino_next;
	struct node *name_next;
	enum node_kind kind;
	bool hashed; /* findable by (parent, name) (table lock) */
	bool stale;  /* source gone or now of another kind (table lock) */
	bool absent; /* file-mode root: SOURCE gone or not ELF (table lock) */
	/* Source nodes (NK_DIR, NK_LINK, NK_BIN); table lock. */
	struct stat *st;     /* last lstat of the source (NULL for other nodes) */
	uint64_t checked_ns; /* when it was taken; 0 forces a re-check */
	/* Nodes of a binary's view. */
	struct node *broot; /* NK_BIN: itself; inner nodes: their binary (ref via parent) */
	uint64_t gen;       /* NK_BIN: current generation (table lock); inner: theirs */
	uint64_t size;      /* inner nodes: st_size served */
	struct binary *bin; /* NK_BIN: parsed-view cache */
	struct nfile *file; /* NK_INFO, NK_HEADER, NK_SECTION, NK_SEGMENT */
};

static inline bool node_is_source(const struct node *n)
{
	return n->kind == NK_DIR || n->kind == NK_LINK || n->kind == NK_BIN;
}

static inline bool node_is_dir(const struct node *n)
{
	return n->kind == NK_DIR || n->kind == NK_BIN || n->kind == NK_SECTIONS ||
	       n->kind == NK_SEGMENTS || n->kind == NK_SYMDIR || n->kind == NK_DECDIR;
}

/* Create the root (inode 1) of the given kind; 0 or -ENOMEM. */
int nodes_init(enum node_kind root_kind, const struct stat *st);

/* Free every node (at exit, after the session is gone). */
void nodes_destroy(void);

/* The table lock, for reading and updating the fields marked "table lock". */
void nodes_lock(void);
void nodes_unlock(void);

/* A new unattached node (refs 0, no inode number yet); NULL on ENOMEM. */
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

/* Take or drop internal references. */
void node_ref(struct node *n);
void node_put(struct node *n);

/* The kernel forgets nlookup lookups of ino. */
void node_forget(fuse_ino_t ino, uint64_t nlookup);

/* Inode number of child name of parent if such a node exists, else 0. */
uint64_t node_child_ino(uint64_t parent, const char *name);

/* Make n unreachable by name and stale (table lock held). */
void node_unhash_locked(struct node *n);

/* Number of nodes alive (for statistics). */
uint64_t nodes_count(void);

#endif /* ELFFS_NODES_H */
