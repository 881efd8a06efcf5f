/*
 * A parsed view of one binary, in two types: the core (struct vcore), one
 * parse of one file identity with its handle and what is built on it, and
 * the alias (struct bview), what one binary generation holds of a core.
 */
#ifndef ELFFS_VIEW_H
#define ELFFS_VIEW_H

#include "nameset.h"
#include "source/source.h"

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
struct goview;
struct node;
struct dentry_data;

/* What a parse found, immutable once built: the same in a core and in
 * each of its aliases (one field list for struct vparse and the fields of
 * struct vcore and struct bview that name its members). */
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
	struct src_attr attr;  /* its mode, owner, link count and ctime then (not in a member's    \
	                          view: its outer's hold them, view_changed) */                    \
	struct src_handle *fh; /* the handle of the file of id (mapped views), or NULL */          \
	struct arview *ar;     /* an archive's members and texts (arview.h), or NULL */            \
	char *refused;         /* why pfelf refused the header, read raw (entries.c), or NULL */   \
	uint64_t base;         /* a member's view: offset of its bytes in the source */            \
	uint32_t ddata;        /* index of its .gnu_debugdata section, 0 when none (entries.c) */  \
	bool inner; /* the view of the file inside .gnu_debugdata: bytes the daemon owns */        \
	bool is_go; /* a Go binary: go/ (entries.c, content/gotables.h) */

struct vparse {
	VIEW_PARSE_FIELDS
};

/* The parse as a union of its whole and its fields by name: a core's, and
 * an alias's copy of its core's. */
#define VIEW_PARSE_UNION                                                                           \
	union {                                                                                    \
		struct vparse parse; /* the whole */                                               \
		struct {                                                                           \
			VIEW_PARSE_FIELDS                                                          \
		}; /* the same by name: v->nsec, v->secname, ... */                                \
	}

/*
 * A *core*: one parse of one file identity, shared by every binary node of
 * that identity (hard links), with what is built on first use and the
 * cache's state of it. Its whole lifecycle (build, alias, free) is the
 * binary cache's (cache/core.h), which hands out aliases only.
 */
struct vcore {
	pfelf_file *f;       /* the handle (owned), NULL while closed */
	pfelf_archive *arch; /* an ar archive's handle instead of f, the same way */
	uint32_t member;     /* a member's core: its index in the archive */
	VIEW_PARSE_UNION;
	/* Built on first use, under lazy_lock (symview.h, textview.h, info.h). */
	pthread_mutex_t lazy_lock;
	struct symview *sym;        /* symview.h */
	struct textstate *text;     /* [TEXT_NKINDS] info, symbols, ...: generators
	                               and indexes (textview.h) */
	struct infoplan *infoplan;  /* what the info lines need */
	struct reloctext *reloc;    /* what the relocations lines need (reloctext.h) */
	struct vcore *ddcore;       /* the view of its MiniDebugInfo, made on use
	                               (cache/debugdata.h); its users in its refs */
	struct dentry_data *ddhold; /* the decompressed bytes ddcore's handle reads */
	struct goview *gov;         /* what go/ needs (content/gotables.h) */
	int minidbg_err;            /* minidebuginfo.debug from this file (minidbg.h):
	                               -EIO cannot be made, 1 its stream decodes */
	uint64_t cost;              /* bytes reserved in the budget (membudget.h) */
	bool meta_charged;          /* pfelf's metadata tables are in cost */
	uint64_t serial;            /* unique per parse (keys decompressed sections) */
	char label[48];             /* the binary it was parsed for (log lines) */
	/* Cache state, under the bincache lock (bincache.h); a member's core:
	 * refs and lru under its archive core's lazy_lock (members.c). */
	unsigned refs;           /* its aliases (a member's core: its users) */
	unsigned pins;           /* its aliases' pins, summed */
	unsigned busy;           /* references of its aliases but their owners' */
	bool fd_backed;          /* f holds a descriptor (pread backend) */
	struct bview *aliases;   /* its aliases, through their sibling */
	struct vcore *hash_next; /* next core in the identity table's bucket */
	uint64_t stamp;          /* when it was last unpinned (the budget's LRU age) */
	/* In the LRU of open handles nobody pins (oldest first), in a
	 * graveyard once it goes (bincache.c); a member's core: in its
	 * archive's idle list (members.c). */
	TAILQ_ENTRY(vcore) lru;
	bool in_lru;
};

/*
 * An *alias*: what one binary node at one generation holds of its core
 * (core), with a copy of the core's parse (struct vparse, made once by
 * view_alias): the code given an alias (lookups, reads, listings,
 * attributes) reads v->nsec, v->secname, v->id, ... in the alias itself,
 * without a load of the core on every access; on x86-64 the copy is 296
 * of an alias's 456 bytes. What is built on first use and the budget are
 * the core's only (view_core()): the compiler refuses them on an alias.
 */
struct bview {
	struct vcore *core;  /* the parse this alias shows */
	uint64_t gen;        /* generation of its binary */
	pfelf_file *f;       /* while pinned, its core's handle (else NULL or that) */
	pfelf_archive *arch; /* an ar archive's handle instead of f, the same way */
	struct bview *outer; /* a member's alias: the archive's alias whose references
	                        and pins it stands for (arview.h) */
	VIEW_PARSE_UNION;    /* a copy of its core's */
	/* Cache state, under the bincache lock (bincache.h). */
	struct node *root;     /* its binary's node, to open f again (alive while
	                          referenced) */
	unsigned refs;         /* all references, the owner's included */
	unsigned pins;         /* references that need f open */
	struct binary *owner;  /* binary whose current view this is, or NULL */
	struct bview *sibling; /* the next alias of its core */
	struct bview *grave;   /* the next alias in a graveyard once it goes (bincache.c) */
	/* The last state of its file (change time and attributes) that reads
	 * found to keep the parse's bytes (view_stale): at first the parse's
	 * (attr); one whose mode, owner or link count moved since the state
	 * before; one whose change time alone moved while root's path named
	 * another file or none (SOURCE reaches the file by that path no more:
	 * the path is looked at again only once the change time moves again).
	 * Under seen_lock, with seen_moves, how many times it moved. */
	pthread_mutex_t seen_lock;
	struct src_attr seen;
	uint64_t seen_moves;
};

/* The open handle of a core: an ELF file's or an ar archive's. */
struct vhandle {
	pfelf_file *f;
	pfelf_archive *arch;
};

/* Whether core c's handle is open. */
static inline bool vcore_is_open(const struct vcore *c)
{
	return c->f || c->arch;
}

/* The backend that serves pinned alias v's handle (open). */
static inline enum pfelf_backend view_backend(const struct bview *v)
{
	return v->f ? pfelf_backend(v->f) : pfelf_archive_backend(v->arch);
}

/* The backend that serves core c's handle (open). */
static inline enum pfelf_backend vcore_backend(const struct vcore *c)
{
	return c->f ? pfelf_backend(c->f) : pfelf_archive_backend(c->arch);
}

/* What holds the references of v: the archive's alias for a member's. */
static inline struct bview *view_outer(struct bview *v)
{
	return v->outer ? v->outer : v;
}

/* The core of alias v. */
static inline struct vcore *view_core(const struct bview *v)
{
	return v->core;
}

/*
 * A new core of an open handle with its section and segment names, what
 * they hold reserved in the memory budget (what: its name for the log);
 * on success it owns f. The content is the cache's to add (cache/core.h).
 * 0, -ENOMEM, -EFBIG (more than the whole budget).
 */
int view_parse(pfelf_file *f, const char *what, struct vcore **out);

/* A new, empty core (what: its name for the log), owning no handle yet. NULL on ENOMEM. */
struct vcore *view_new_core(const char *what);

/* A new alias of core c, for generation gen of binary node root (not yet
 * linked to c: bincache.c does that under its lock). NULL on ENOMEM. */
struct bview *view_alias(struct vcore *c, uint64_t gen, struct node *root);

/* Free alias a (the rest is its core's; NULL is allowed). */
void view_free(struct bview *a);

/* Free core c with its names and its handle, giving its bytes back to the
 * memory budget (its content freed before: cache/core.h; NULL is allowed). */
void vcore_free(struct vcore *c);

/*
 * Reserve bytes more for core c (under its lazy_lock, or while nobody else
 * knows it): 0, -EFBIG (c would need more than the whole budget),
 * -ENOMEM (no room beside what is in use).
 */
int view_charge(struct vcore *c, uint64_t bytes);

/*
 * What core v holds once built (viewcost.c): its names and indexes, pfelf's
 * section, name and program header tables, the notes its build id needs.
 * An upper bound, in bytes.
 */
uint64_t view_cost(const struct vcore *v);

/*
 * An upper bound of pfelf's metadata tables of core v (symbol tables and
 * their indexes, the dynamic section, hash and version tables, the
 * interpreter and debug links), from its section and program headers.
 */
uint64_t view_meta_cost(const struct vcore *v);

/*
 * Take the pages of core c's mapping that parsing touched out of the
 * daemon's resident set (they stay in the page cache): a cached view then
 * costs what the budget counts. Nothing under the pread backend.
 */
void view_drop_pages(struct vcore *c);

/* Give back bytes of core c's charge (under its lazy_lock). */
void view_uncharge(struct vcore *c, uint64_t bytes);

/*
 * Reserve, once per core, an upper bound of pfelf's metadata tables
 * (symbols, dynamic section, versions, hash tables) before they are first
 * used (under c's lazy_lock). 0, -EFBIG, -ENOMEM.
 */
int view_charge_meta(struct vcore *c);

/* Index of the section whose file name is name, or -ENOENT. */
int view_find_section(const struct bview *v, const char *name);

/* Index of the segment whose file name is name, or -ENOENT. */
int view_find_segment(const struct bview *v, const char *name);

/* The byte range a section serves: empty for NOBITS and out-of-file ranges. */
void view_section_range(const pfelf_shdr *sh, uint64_t *off, uint64_t *len);

/*
 * Whether the source of v (pinned), whose stat is st now (the file v was
 * parsed from: the same dev and ino), may no longer hold the bytes v was
 * parsed from up to end (an offset in v's file: a member's, for a member's
 * view), so that a reader of them gets EIO: the file is now shorter than
 * end, or was written since (another size or mtime: rewritten in place,
 * appended to, cut; pages past a new end fault, but the bytes after it in
 * its last page read as zeros through a mapping, and a rewrite in place
 * shows its new bytes at the old offsets), or its change time moved with
 * nothing else stat shows while the path of v's binary still names it
 * (rewritten in place with its times put back: stat cannot tell it from
 * a chmod to the mode it had). Its old bytes stay when the change time
 * moved with its mode, owner or link count (a chmod, chown, link, unlink,
 * a rename over it), or when the binary's path names another file or none
 * (a rename over it or of it, an unlink): SOURCE reaches the file by that
 * path no more. Either state is kept in v as the one seen last, and a
 * later change is told against it: a change time that moves again alone
 * (a rewrite after a chmod, a rename back) goes to the path again. A hard
 * link elsewhere, or a writer that holds the file open, can still write it
 * unseen, as can a rewrite in the same breath as an attribute change (no
 * read between them). A remote
 * view's file (src_is_foreign: the debuginfod cache's, which removes a
 * file that fails its check) is stale at any other change time.
 * Never for the view of a file inside .gnu_debugdata (inner): its bytes
 * are the daemon's own.
 */
bool view_stale(struct bview *v, const struct stat *st, uint64_t end);

/*
 * Whether the file of alias a (an outer one: view_outer), whose stat is st
 * (the same dev and ino), holds a's bytes without a look at a's path: its
 * bytes and change time as seen last, or an attribute change since (kept
 * as the state seen last), as view_stale tells them.
 */
bool view_holds(struct bview *a, const struct stat *st);

/*
 * The same for the file v was parsed from as it is now, found by its
 * handle (renamed, moved or unlinked since: the same file), by path only
 * where handles are refused (a path that leads to another file now, or to
 * none: v's own is unchanged, no check). A file that cannot be looked at
 * otherwise (by its handle, or a remote view's by its locator) has changed.
 */
bool view_changed(struct bview *v, uint64_t end);

/* The byte range a segment serves: empty when out of the file. */
void view_segment_range(const pfelf_phdr *ph, uint64_t *off, uint64_t *len);

/* The byte range of `header`: e_ehsize bytes at 0, empty if past the end. */
void view_header_range(const struct bview *v, uint64_t *off, uint64_t *len);

#endif /* ELFFS_VIEW_H */
