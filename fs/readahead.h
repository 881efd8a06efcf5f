/* -o readahead=KB: the mount's readahead window (readahead.c). */
#ifndef ELFFS_READAHEAD_H
#define ELFFS_READAHEAD_H

#include <stdbool.h>

/* Set the window of the mount at mountpoint once its INIT is done, from a
 * detached thread (a failure is logged when warn): 0, or -errno if the
 * thread cannot start. */
int readahead_start(const char *mountpoint, unsigned kb, bool warn);

#endif /* ELFFS_READAHEAD_H */
