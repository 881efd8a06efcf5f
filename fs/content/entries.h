/*
 * The entries of a binary's directory, in one table (entries.c): info,
 * header, sections/, segments/, symbols, symbol/, build-id, decompressed/,
 * relocations, gnu_debugdata/, minidebuginfo.debug, debug, go/.
 * A row says what the entry is called, the kind of its node, whether it is
 * a file or a directory, when a binary has it, how its node is made (size
 * and aux, nodes.h) and where its bytes come from; a directory's row also
 * says how its files are found by name and listed. Lookup (ops_lookup.c),
 * readdir (dirlist.c), invalidation (check.c), attributes (attr.c), node
 * names (nodes.c) and open (ops_file.c) all read it: adding a view file is
 * one row here plus the function that makes its bytes
 * (docs/architecture.md, "How to add a view file").
 */
#ifndef ELFFS_ENTRIES_H
#define ELFFS_ENTRIES_H

#include "node/nodes.h"
#include "content/textview.h"
#include "view/view.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Where the bytes of a file come from. */
enum entry_bytes {
	EB_DIR,     /* none: a directory */
	EB_RANGE,   /* a range of the source, from the mapping (node aux: offset) */
	EB_INDEXED, /* a range of the source whose header is read again by index
	               at open (section and segment files; node aux: index) */
	EB_TEXT,    /* a generated text (textview.h): its size from its index,
	               its bytes made at each read */
	EB_COPY,    /* a short text the view keeps, copied at open */
	EB_DECOMP,  /* a compressed section's bytes, decompressed at open (dcache.h) */
	EB_LINK,    /* none: a symlink (a thin archive's member) */
	EB_VIEW,    /* none: a directory that is a view of its own, with the rows
	               of a binary (gnu_debugdata/: cache/debugdata.h) */
	EB_MADE,    /* a file the daemon makes whole from the view (the row's make:
	               minidebuginfo.debug, go/debug), kept in the cache of made
	               bytes (dcache.h), its size that of what was made */
};

struct infotail;

/* What the node of a file inside one of the directories shows. */
struct entry_file {
	uint64_t size;       /* st_size */
	uint64_t aux;        /* nodes.h: index or offset */
	bool compressed;     /* a section with a compression header (its xattrs) */
	enum node_kind kind; /* its kind when not the row's file_kind (NK_DIR: the row's) */
};

/* One entry of a binary's directory. */
struct bin_entry {
	const char *name;
	const char *usage;   /* its line in elffs -h: the name as listed, what it holds */
	enum node_kind kind; /* of its node (one kind per row) */
	enum entry_bytes bytes;
	enum text_kind text; /* EB_TEXT: which text */
	/* EB_TEXT: lines after the text that belong to binary node bin, not to
	 * the parse its links share (info's "same build id" lines, info.h);
	 * made at lookup (the node's size grows by their length, its aux is
	 * their hash) and again at open (kept by the open file). NULL: none. */
	int (*tail)(struct node *bin, struct bview *v, struct infotail *t);
	/* Whether view v has it; NULL: every binary, even one whose parse
	 * failed (readdir lists it, lookup answers the parse's error). */
	bool (*present)(const struct bview *v);
	/* Size and aux of its node in v (present); NULL for EB_TEXT (the
	 * size of its text). 0 or -errno. */
	int (*shape)(const struct bview *v, uint64_t *size, uint64_t *aux);
	/* EB_COPY: the text copied at open and its length. */
	const char *(*copy)(const struct bview *v, size_t *len);
	/* EB_LINK: the target of the link of binary node bin in its view v
	 * (pinned), decided by its lookup (present only says whether a
	 * listing shows it); its length, -ENOENT when it has none. */
	int (*link)(struct node *bin, struct bview *v, char *buf, size_t size);
	/* Its node is made by a lookup only: a listing gives it no attributes
	 * (its lookup may ask a server or read whole files). */
	bool lookup_only;
	/* EB_MADE: make the bytes of the file of v (pinned) into *bytes
	 * (malloc'ed, the caller's) of *size, holding never more than max
	 * bytes at once: 0, -EFBIG past max, other -errno; and a first guess
	 * of the max that suffices (the cache grows it after -EFBIG). The
	 * same view makes the same bytes every time. */
	int (*make)(struct bview *v, uint64_t max, void **bytes, uint64_t *size);
	uint64_t (*make_guess)(struct bview *v);
	/* EB_DIR: the kind and bytes of its files, the file named name (0,
	 * -ENOENT, or the errors of what it needs), and how many files it
	 * lists and the name of file i (after count said 0). A file_kind of
	 * NK_DIR: its files are rows of their own (entry_file.kind names the
	 * row, entries_init indexes them: go/). */
	enum node_kind file_kind;
	enum entry_bytes file_bytes;
	int (*lookup)(struct bview *v, const char *name, struct entry_file *out);
	int (*count)(struct bview *v, size_t *n);
	const char *(*name_at)(struct bview *v, size_t i);
	unsigned char (*type_at)(struct bview *v, size_t i); /* its d_type; NULL: DT_REG */
	/* EB_INDEXED files: the range of file index of v, read again from its
	 * header; 0 or -EIO. */
	int (*file_range)(const struct bview *v, uint64_t index, uint64_t *off, uint64_t *len);
};

/* The rows of an ELF file, in listing order, and how many there are. */
extern const struct bin_entry entries[];
extern const size_t entries_n;

/* The rows of an ar archive (arview.c). */
extern const struct bin_entry ar_entries[];
extern const size_t ar_entries_n;

/* The files of go/ (go_rows.c), rows of their own: buildinfo, functions,
 * debug; and go/ itself: its row's lookup, count and name_at. */
extern const struct bin_entry go_entries[];
extern const size_t go_entries_n;
int go_dir_lookup(struct bview *v, const char *name, struct entry_file *out);
int go_dir_count(struct bview *v, size_t *n);
const char *go_dir_name_at(struct bview *v, size_t i);

/* The rows of view v: an archive's or an ELF file's (v NULL: a binary
 * whose parse failed), and how many. */
const struct bin_entry *entry_rows(const struct bview *v, size_t *n);

/* The row named name in any table (before a parse says which), or NULL. */
const struct bin_entry *entry_named(const char *name);

/* The row named name among the rows of v, or NULL. */
const struct bin_entry *entry_in(const struct bview *v, const char *name);

/* Index the rows by kind, and tell the node table the facts of each kind
 * (node/kinds.h); once, at start, before any lookup. */
void entries_init(void);

/* The row whose node is of kind k, or NULL (source nodes, and files
 * inside the directories). */
const struct bin_entry *entry_of_kind(enum node_kind k);

/* The row of the directory that holds files of kind k, or NULL. */
const struct bin_entry *entry_holding(enum node_kind k);

/* Where the bytes of a file node of kind k come from (EB_DIR for
 * directories and source nodes, EB_VIEW for those that show a view). */
enum entry_bytes entry_bytes_of(enum node_kind k);

/* Size and aux of the node of entry e of binary node bin in its view v
 * (pinned): 0, -ENOENT when v does not have it, or the errors of its
 * shape (textview_size, its tail). A link's: its target's length, and its
 * hash as aux. */
int entry_shape(const struct bin_entry *e, struct node *bin, struct bview *v, uint64_t *size,
                uint64_t *aux);

/* What a parse gives the entries (core_build, cache/core.h): the build-id
 * text, the list of compressed sections, the .gnu_debugdata section; 0 or
 * -ENOMEM (a missing or bad note is no error). */
int entries_build(struct vcore *c);

/* Core v is of a file whose header pfelf refused, opened as its bytes only
 * (PFELF_OPEN_RAW): keep why (pfelf's words, user.elffs.refused), charged
 * in the budget; its rows are then elf, header (e_ehsize bytes when they
 * lie in the file) and info (one line saying why). 0, -ENOMEM, -EFBIG. */
int entries_refused(struct vcore *v, const char *why);

/* Free what entries_build and entries_refused made. */
void entries_free(struct vcore *c);

/* Whether section index of v is compressed (its header then in *ch). */
bool entry_compressed(const struct bview *v, uint32_t index, pfelf_chdr *ch);

#endif /* ELFFS_ENTRIES_H */
