/*
 * The one naming engine of the daemon: file names of sections
 * and of symbols (symbol/) follow the same rules (docs/elffs.1),
 * made here; pure functions.
 */
#ifndef ELFFS_NAMING_H
#define ELFFS_NAMING_H

#include <stdbool.h>
#include <stdint.h>

/* Longest part of a name kept in its file name. */
#define NAMING_MAX 200

/* One name to make. In: name, a malloc'ed copy of the raw name (a copy of
 * its first NAMING_MAX + 1 bytes is enough), and index, the number its
 * "~<index>" takes. Out: name, the file name (still malloc'ed, the
 * caller's; NULL after -ENOMEM), made (it got a "~<index>") and dropped
 * (left out by same(), below). */
struct naming_item {
	char *name;
	uint32_t index;
	bool made;
	bool dropped;
};

/* Whether item dup, whose name item keeper kept, is the same thing as the
 * keeper and is to be left out (no file); keeper and dup are positions. */
typedef bool (*naming_same_fn)(void *ctx, uint32_t keeper, uint32_t dup);

/*
 * Make the file names of items[0..n), in that order of precedence:
 *  1. a name that is empty, "." or "..", or holds '/', gets every '/'
 *     replaced by '_' and "~<index>" appended; a name longer than
 *     NAMING_MAX bytes is cut to NAMING_MAX bytes and gets "~<index>";
 *  2. among the names left as they are, the first item keeps a name that
 *     several share and each later one becomes "<name>~<index>", unless
 *     same (may be NULL) says it is the keeper's twin: it is dropped;
 *  3. names made by 1 and 2 never take a name that rules 1 and 2 left to an
 *     item as it is (one literally called "x~7"): such a made name gets
 *     "~<index>" appended again until it is free.
 * The names of the items not dropped are then distinct, of at most
 * NAMING_MAX + 11 bytes per "~<index>", none empty, ".", ".." or holding
 * '/'. Returns 0 or -ENOMEM (the caller frees the names either way).
 */
int naming_resolve(struct naming_item *items, uint32_t n, naming_same_fn same, void *ctx);

/* Whether rule 1 applies to name s (empty, ".", "..", '/', too long). */
bool naming_is_odd(const char *s);

/*
 * File names of sections 1 to n-1 by the rules above (index: the section
 * index; none dropped). raw[i] is the name of section i (NULL counts as
 * empty: use it for a name pfelf could not read). On success out[0] is
 * NULL and out[i] a malloc'ed name for each i in [1, n); returns 0, or
 * -ENOMEM with nothing left allocated.
 */
int naming_sections(const char *const *raw, uint32_t n, char **out);

/* Free the names of naming_sections (out[0..n)); out itself stays. */
void naming_free(char **out, uint32_t n);

#endif /* ELFFS_NAMING_H */
