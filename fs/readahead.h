/* -o readahead=KB: the mount's readahead window (readahead.c). */
#ifndef ELFFS_READAHEAD_H
#define ELFFS_READAHEAD_H

/* Set the window of the mount at mountpoint once its INIT is done, from a
 * detached thread (failures are logged): 0, or -errno if it cannot start. */
int readahead_start(const char *mountpoint, unsigned kb);

#endif /* ELFFS_READAHEAD_H */
