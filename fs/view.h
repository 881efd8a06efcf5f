/* A parsed view of one binary: its pfelf handle, file names and text views. */
#ifndef ELFFS_VIEW_H
#define ELFFS_VIEW_H

#include "symview.h"
#include "textview.h"

#include <pfelf.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct binary;
struct infoplan;
struct node;

struct bview {
	/* Immutable once built. */
	uint64_t gen;      /* generation of the binary it was built for */
	pfelf_file *f;     /* the one handle of this binary (owned); NULL while closed */
	pfelf_ehdr eh;     /* copy of the decoded header */
	uint64_t fsize;    /* file size at open */
	uint32_t nsec;     /* section headers, index 0 included (0 when none or unreadable) */
	int sec_err;       /* pfelf_section_count's error, or 0 */
	char **secname;    /* [nsec]: file names in sections/; [0] NULL */
	uint32_t *sechash; /* open-addressing index of secname (0 = empty slot) */
	size_t sechash_mask;
	uint32_t nseg;  /* program headers */
	int seg_err;    /* pfelf_segment_count's error, or 0 */
	char **segname; /* [nseg]: file names in segments/ */
	char *buildid;  /* build-id text (hex and a newline), NULL when none (meta.c) */
	size_t buildid_len;
	uint32_t *comp; /* indexes of the compressed sections (meta.c) */
	uint32_t ncomp;
	/* Built on first use, under lazy_lock (symview.h, textview.h, info.h). */
	pthread_mutex_t lazy_lock;
	struct symview sym;
	struct textstate text[TEXT_NKINDS]; /* info, symbols: generators and indexes */
	struct infoplan *infoplan;          /* what the info lines need */
	/* Cache state, under the bincache lock (bincache.h). */
	pfelf_identity id;    /* identity of the file the view was built from */
	struct node *root;    /* the binary's node, to open f again (alive while referenced) */
	unsigned refs;        /* all references, the owner's included */
	unsigned pins;        /* references that need f open */
	bool fd_backed;       /* f holds a descriptor (pread backend) */
	struct binary *owner; /* binary whose current view this is; NULL once replaced */
	struct bview *lru_prev;
	struct bview *lru_next;
	bool in_lru;
	/* The handle of the file of id (mapped views), or NULL (source.h). */
	struct src_handle *fh;
};

/* Build a view from an open handle; on success it owns f. 0 or -ENOMEM. */
int view_build(pfelf_file *f, uint64_t gen, struct bview **out);

/* Free a view and close its handle. */
void view_free(struct bview *v);

/* Index of the section whose file name is name, or -ENOENT. */
int view_find_section(const struct bview *v, const char *name);

/* Index of the segment whose file name is name, or -ENOENT. */
int view_find_segment(const struct bview *v, const char *name);

/* The byte range a section serves: empty for NOBITS and out-of-file ranges. */
void view_section_range(const pfelf_shdr *sh, uint64_t *off, uint64_t *len);

/* The byte range a segment serves: empty when out of the file. */
void view_segment_range(const pfelf_phdr *ph, uint64_t *off, uint64_t *len);

/* The byte range of `header`: e_ehsize bytes at 0, empty if past the end. */
void view_header_range(const struct bview *v, uint64_t *off, uint64_t *len);

#endif /* ELFFS_VIEW_H */
