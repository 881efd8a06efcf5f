/* A parsed view of one binary: its pfelf handle, file names and text views. */
#ifndef ELFFS_VIEW_H
#define ELFFS_VIEW_H

#include "nameset.h"

#include <pfelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

struct binary;
struct src_handle;
struct symview;
struct textstate;
struct infoplan;
struct arview;
struct reloctext;
struct node;

/* What a parse found, immutable once built: the same in a core and in
 * each of its aliases (one field list for struct vparse and the fields of
 * struct bview that name its members). */
#define VIEW_PARSE_FIELDS                                                                          \
	pfelf_ehdr eh;           /* copy of the decoded header */                                  \
	uint64_t fsize;          /* file size at open */                                           \
	uint32_t nsec;           /* section headers, index 0 included (0: none or unreadable) */   \
	int sec_err;             /* pfelf_section_count's error, or 0 */                           \
	char **secname;          /* [nsec]: file names in sections/; [0] NULL */                   \
	struct nameset secindex; /* section index by secname */                                    \
	uint32_t nseg;           /* program headers */                                             \
	int seg_err;             /* pfelf_segment_count's error, or 0 */                           \
	char **segname;          /* [nseg]: file names in segments/ */                             \
	char *buildid; /* build-id text (hex and a newline), NULL when none (entries.c) */         \
	size_t buildid_len;                                                                        \
	uint32_t *comp; /* indexes of the compressed sections (entries.c) */                       \
	uint32_t ncomp;                                                                            \
	pfelf_identity id;     /* identity of the file the view was built from */                  \
	struct src_handle *fh; /* the handle of the file of id (mapped views), or NULL */          \
	struct arview *ar;     /* an archive's members and texts (arview.h), or NULL */            \
	uint64_t base;         /* a member's view: offset of its bytes in the source */

struct vparse {
	VIEW_PARSE_FIELDS
};

/*
 * A view is either a *core* (core == itself): one parse of one file
 * identity, shared by every binary node of that identity (hard links), or
 * an *alias* (core != itself): what one binary node at one generation
 * holds, with a copy of its core's parse (struct vparse), so that code
 * given an alias reads v->nsec, v->secname, ... directly. What is built on first
 * use (symbol names, text indexes) lives in the core only: go through
 * view_core(). A core's whole lifecycle (build, alias, free) is the binary
 * cache's (cache/core.h), which hands out aliases only.
 */
struct bview {
	struct bview *core; /* the parse this view shows: itself for a core */
	/* An alias's own: its generation and, while pinned, its core's handle. */
	uint64_t gen;        /* alias: generation of its binary (core: 0) */
	pfelf_file *f;       /* core: the handle (owned), NULL while closed; alias: the
	                        core's while pinned (else NULL or that) */
	pfelf_archive *arch; /* an ar archive's handle instead of f, the same way */
	struct bview *outer; /* a member's alias: the archive's alias whose references
	                        and pins it stands for (arview.h) */
	uint32_t member;     /* a member's core: its index in the archive */
	union {
		struct vparse parse; /* the whole: an alias's is a copy of its core's */
		struct {
			VIEW_PARSE_FIELDS
		}; /* the same by name: v->nsec, v->secname, ... */
	};
	/* Core only: built on first use, under lazy_lock (symview.h, textview.h, info.h). */
	pthread_mutex_t lazy_lock;
	struct symview *sym;       /* symview.h */
	struct textstate *text;    /* [TEXT_NKINDS] info, symbols, ...: generators
	                              and indexes (textview.h) */
	struct infoplan *infoplan; /* what the info lines need */
	struct reloctext *reloc;   /* what the relocations lines need (reloctext.h) */
	uint64_t cost;             /* bytes reserved in the budget (membudget.h) */
	bool meta_charged;         /* pfelf's metadata tables are in cost */
	uint64_t serial;           /* unique per parse (keys decompressed sections) */
	char label[48];            /* the binary it was parsed for (log lines) */
	/* Cache state, under the bincache lock (bincache.h). */
	struct node *root;       /* alias: its binary's node, to open f again (alive while
	                            referenced) */
	unsigned refs;           /* alias: all references, the owner's included; core: aliases */
	unsigned pins;           /* references that need f open (core: its aliases' sum) */
	unsigned busy;           /* core: references of its aliases but their owners' */
	bool fd_backed;          /* core: f holds a descriptor (pread backend) */
	struct binary *owner;    /* alias: binary whose current view this is, or NULL */
	struct bview *sibling;   /* alias: the next alias of its core */
	struct bview *aliases;   /* core: its aliases */
	struct bview *hash_next; /* core: next core in the identity table's bucket */
	uint64_t stamp;          /* core: when it was last unpinned (the budget's LRU age) */
	/* core: in the LRU of open handles nobody pins (oldest first); any
	 * view: in a graveyard once it goes (bincache.c) */
	TAILQ_ENTRY(bview) lru;
	bool in_lru;
};

/* The open handle of a core: an ELF file's or an ar archive's. */
struct vhandle {
	pfelf_file *f;
	pfelf_archive *arch;
};

/* Whether v's handle is open (pinned aliases: their core's). */
static inline bool view_is_open(const struct bview *v)
{
	return v->f || v->arch;
}

/* The backend that serves v's handle (open). */
static inline enum pfelf_backend view_backend(const struct bview *v)
{
	return v->f ? pfelf_backend(v->f) : pfelf_archive_backend(v->arch);
}

/* What holds the references of v: the archive's alias for a member's. */
static inline struct bview *view_outer(struct bview *v)
{
	return v->outer ? v->outer : v;
}

/* The core of v (v itself for a core). */
static inline struct bview *view_core(const struct bview *v)
{
	return v->core;
}

/*
 * A new core of an open handle with its section and segment names, what
 * they hold reserved in the memory budget (what: its name for the log);
 * on success it owns f. The content is the cache's to add (cache/core.h).
 * 0, -ENOMEM, -EFBIG (more than the whole budget).
 */
int view_parse(pfelf_file *f, const char *what, struct bview **out);

/* A new, empty core (what: its name for the log), owning no handle yet. NULL on ENOMEM. */
struct bview *view_new_core(const char *what);

/* A new alias of core c, for generation gen of binary node root (not yet
 * linked to c: bincache.c does that under its lock). NULL on ENOMEM. */
struct bview *view_alias(struct bview *c, uint64_t gen, struct node *root);

/* Free a view: an alias alone; a core with its names and its handle,
 * giving its bytes back to the memory budget (its content freed before:
 * cache/core.h). */
void view_free(struct bview *v);

/*
 * Reserve bytes more for core c (under its lazy_lock, or while nobody else
 * knows it): 0, -EFBIG (c would need more than the whole budget),
 * -ENOMEM (no room beside what is in use).
 */
int view_charge(struct bview *c, uint64_t bytes);

/*
 * What core v holds once built (viewcost.c): its names and indexes, pfelf's
 * section, name and program header tables, the notes its build id needs.
 * An upper bound, in bytes.
 */
uint64_t view_cost(const struct bview *v);

/*
 * An upper bound of pfelf's metadata tables of core v (symbol tables and
 * their indexes, the dynamic section, hash and version tables, the
 * interpreter and debug links), from its section and program headers.
 */
uint64_t view_meta_cost(const struct bview *v);

/*
 * Take the pages of core c's mapping that parsing touched out of the
 * daemon's resident set (they stay in the page cache): a cached view then
 * costs what the budget counts. Nothing under the pread backend.
 */
void view_drop_pages(struct bview *c);

/* Give back bytes of core c's charge (under its lazy_lock). */
void view_uncharge(struct bview *c, uint64_t bytes);

/*
 * Reserve, once per core, an upper bound of pfelf's metadata tables
 * (symbols, dynamic section, versions, hash tables) before they are first
 * used (under c's lazy_lock). 0, -EFBIG, -ENOMEM.
 */
int view_charge_meta(struct bview *c);

/* Index of the section whose file name is name, or -ENOENT. */
int view_find_section(const struct bview *v, const char *name);

/* Index of the segment whose file name is name, or -ENOENT. */
int view_find_segment(const struct bview *v, const char *name);

/* The byte range a section serves: empty for NOBITS and out-of-file ranges. */
void view_section_range(const pfelf_shdr *sh, uint64_t *off, uint64_t *len);

/*
 * Whether the bytes of the source of v (pinned) up to end (an offset in
 * v's file: a member's, for a member's view) may no longer be the ones v
 * was parsed from: the file is now shorter than end, or was written since
 * (another mtime: rewritten in place, appended to). Pages past a new end
 * fault (a reader gets EIO), but the bytes after the end inside its last
 * page read as zeros through a mapping, and a rewrite in place shows its
 * new bytes at the old offsets: wrong bytes all the same, so the reader
 * gets EIO. The file is the one v was parsed from, found by its handle
 * (renamed, moved or unlinked since: the same file), by path only where
 * handles are refused (a path that leads to another file now: v's own is
 * unchanged).
 */
bool view_changed(const struct bview *v, uint64_t end);

/* The byte range a segment serves: empty when out of the file. */
void view_segment_range(const pfelf_phdr *ph, uint64_t *off, uint64_t *len);

/* The byte range of `header`: e_ehsize bytes at 0, empty if past the end. */
void view_header_range(const struct bview *v, uint64_t *off, uint64_t *len);

#endif /* ELFFS_VIEW_H */
