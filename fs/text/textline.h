/*
 * One line of a generated text view (info, symbols): a bounded buffer and
 * the writers that fill it. A string taken from the file is a *field*: it
 * is shown up to TEXT_FIELD_MAX bytes, newlines as '?', and a longer one
 * is cut there and followed by "...[cut, N bytes]" (N its full length).
 * So no line is longer than TEXT_LINE_MAX, whatever the file holds.
 */
#ifndef ELFFS_TEXTLINE_H
#define ELFFS_TEXTLINE_H

#include <stddef.h>

/* Bytes of a string of the file shown in a text view before it is cut. */
#define TEXT_FIELD_MAX 4096

/* Bytes of the longest line a generator writes, its newline included. */
#define TEXT_LINE_MAX 8192

/* A line being written: at most TEXT_LINE_MAX bytes at p. */
struct linebuf {
	char *p;
	size_t len;
};

/* Append printf-style text; what would pass TEXT_LINE_MAX - 1 is dropped. */
void lb_printf(struct linebuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Append the field s (NUL-ended), cut at TEXT_FIELD_MAX bytes with the marker. */
void lb_field(struct linebuf *b, const char *s);

/*
 * Append a field of which the caller holds the first shown bytes (at most
 * TEXT_FIELD_MAX) and knows the full length full: the marker follows when
 * full > shown.
 */
void lb_field_cut(struct linebuf *b, const char *s, size_t shown, size_t full);

/*
 * A field made of pieces (a name, "@@", its version, ...): its first
 * TEXT_FIELD_MAX bytes and its full length; written with lb_fieldbuf.
 * Start it empty: struct fieldbuf x = {.shown = 0, .full = 0}.
 */
struct fieldbuf {
	char buf[TEXT_FIELD_MAX];
	size_t shown;
	size_t full;
};

/* Append piece s (NUL-ended) to field x: kept up to TEXT_FIELD_MAX bytes, counted whole. */
void fb_add(struct fieldbuf *x, const char *s);

/*
 * Append name s (NUL-ended) to field x as readelf's print_symbol writes
 * symbol and section names: a control character c (below 0x20, and DEL)
 * as '^' and c + 0x40 ("\002" as "^B", a newline as "^J", DEL as '^' and
 * 0xbf), other bytes as they are. The rule of the names of `symbols` and
 * `relocations`. Returns the bytes it wrote (counted whole, as fb_add).
 */
size_t fb_add_shown(struct fieldbuf *x, const char *s);

/* Append field x to the line, cut with the marker when longer than it shows. */
void lb_fieldbuf(struct linebuf *b, const struct fieldbuf *x);

/* End the line with its newline; its length. */
int lb_end(struct linebuf *b);

#endif /* ELFFS_TEXTLINE_H */
