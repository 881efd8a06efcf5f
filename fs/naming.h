/* File names of sections (SPEC section 3); a pure function. */
#ifndef ELFFS_NAMING_H
#define ELFFS_NAMING_H

#include <stdint.h>

/* Longest part of a section name kept in its file name. */
#define NAMING_MAX 200

/*
 * File names of sections 1 to n-1. raw[i] is the name of section i (NULL
 * counts as empty: use it for a name pfelf could not read). The rules:
 *  1. a name that is empty, "." or "..", or holds '/', gets every '/'
 *     replaced by '_' and "~<i>" appended; a name longer than NAMING_MAX
 *     bytes is cut to NAMING_MAX bytes and gets "~<i>";
 *  2. among the names left as they are, the lowest index keeps a name that
 *     several sections share and each other one becomes "<name>~<i>";
 *  3. names made by 1 and 2 never take a name that rules 1 and 2 left to a
 *     section as it is (a section literally called "x~7"): such a made name
 *     gets "~<i>" appended again until it is free.
 * The result is n distinct names of at most NAMING_MAX + 11 bytes, none
 * empty, ".", ".." or holding '/'. On success out[0] is NULL and out[i] a
 * malloc'ed name for each i in [1, n); returns 0, or -ENOMEM with nothing
 * left allocated.
 */
int naming_sections(const char *const *raw, uint32_t n, char **out);

/* Free the names of naming_sections (out[0..n)); out itself stays. */
void naming_free(char **out, uint32_t n);

#endif /* ELFFS_NAMING_H */
