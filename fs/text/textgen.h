/*
 * Texts made of lines, generated for the range a read asks for instead of
 * being kept whole. A generator says how many lines its text has and
 * writes line i (at most TEXT_LINE_MAX bytes, textline.h) on demand; one
 * pass over every line sums their lengths without keeping them (the size
 * is then exact for stat) and keeps the offset of every TEXT_MARK_EVERY-th
 * line. A read at offset X finds the last mark at or before X and writes
 * lines from there: at most TEXT_MARK_EVERY - 1 lines are made and thrown
 * away per read, and the memory of a text is 8 bytes per TEXT_MARK_EVERY
 * lines whatever the lines hold.
 */
#ifndef ELFFS_TEXTGEN_H
#define ELFFS_TEXTGEN_H

#include <stddef.h>
#include <stdint.h>

/* Lines between two marks of an index. */
#define TEXT_MARK_EVERY 32

/*
 * A text of nlines lines. line(ctx, i, buf) writes line i, its newline
 * included, into buf (TEXT_LINE_MAX bytes) and returns its length, or
 * -errno. It must write the same bytes every time it is asked for a line
 * (a read compares what it makes with the index: -EIO when it differs).
 */
struct textgen {
	uint64_t nlines;
	int (*line)(void *ctx, uint64_t i, char *buf);
	void *ctx;
};

/* Where the lines of a text start. */
struct textindex {
	uint64_t size;   /* bytes of the whole text */
	uint64_t nlines; /* lines of the text */
	uint64_t *mark;  /* [nmark]: offset of line k * TEXT_MARK_EVERY */
	uint64_t nmark;
};

/* Index the text of g (one pass over every line). 0, -ENOMEM, errors of g->line. */
int textindex_build(const struct textgen *g, struct textindex *x);

/*
 * Write the len bytes at off of the text of g, indexed by x, into dst (the
 * caller keeps off + len within x->size). 0; -EIO when the lines are not
 * those that were indexed; other errors of g->line.
 */
int textindex_read(const struct textindex *x, const struct textgen *g, uint64_t off, char *dst,
                   size_t len);

/* Free what x holds (x is left empty). */
void textindex_free(struct textindex *x);

#endif /* ELFFS_TEXTGEN_H */
