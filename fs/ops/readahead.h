/* -o readahead=KB: the mount's readahead window (readahead.c). */
#ifndef ELFFS_READAHEAD_H
#define ELFFS_READAHEAD_H

#include <stdbool.h>

/* Set the window of the mount at mountpoint to kb once its INIT is done:
 * the next readahead_kick() does it (a failure is logged when warn). Called
 * before the session loop; 0 or -ENOMEM. */
int readahead_start(const char *mountpoint, unsigned kb, bool warn);

/* Called by the first requests after INIT (lookup, getattr): applies the
 * window of readahead_start once; afterwards an atomic load. */
void readahead_kick(void);

#endif /* ELFFS_READAHEAD_H */
