/*
 * Listings looked at ahead of the walk. A tool that walks a tree (find,
 * du, tar, a build check) lists a directory, then each subdirectory in
 * turn, depth first, in the order the directory gives them; their entries
 * are classified (probe.h) only when it gets there, one directory after
 * the other, each with the few reads its own files give (about 12 in
 * /usr/share), and FUSE makes it wait for each. Here one thread walks the
 * same tree in the same order ahead of it, without FUSE: it reads each
 * directory, and classifies the entries of several directories together
 * (AHEAD_BATCH at a time, their reads in flight together: neighbouring
 * blocks merge), so that the tool's listings find their answers kept
 * (probe_cache.c's table).
 *
 * When it starts, where, and bounds (docs/architecture.md, security.md):
 *  - it starts at a listed directory when it is idle, and goes depth
 *    first below it, in find's order (a subdirectory entered where it
 *    stands among its directory's entries), AHEAD_DEPTH levels at most,
 *    one descriptor each;
 *  - a window, as the kernel's readahead: each listing lets it classify
 *    AHEAD_WINDOW more entries, at most AHEAD_CREDIT ahead; an `ls` of
 *    one directory costs at most AHEAD_WINDOW entries nobody asked about,
 *    a walk keeps it going; without credit for PROBE_IDLE_S it stops;
 *  - listings of directories it has not been to tell it the walk is
 *    elsewhere: after AHEAD_MISSES in a row it starts again at the latest;
 *  - it enters only a subdirectory on the same device as its directory,
 *    not a mount point (nothing below SOURCE that may hang), whose mode
 *    lets everyone list it (r and x for others): what it learns is no
 *    more than any local user may list;
 *  - it leaves files of other devices unread (probe_batch_alone; the
 *    probe's helpers join its batches as any); its answers are only the
 *    cache's.
 * ELFFS_PROBE_AHEAD=0 in the daemon's environment turns it off (a knob of
 * bench/m_walk.py's lever).
 */
#ifndef ELFFS_AHEAD_H
#define ELFFS_AHEAD_H

#include <sys/stat.h>

#define AHEAD_DEPTH  32    /* levels below the start */
#define AHEAD_BATCH  256   /* entries classified together */
#define AHEAD_WINDOW 2048  /* entries a listing lets it classify */
#define AHEAD_CREDIT 16384 /* ... at most, all listings together */
#define AHEAD_MISSES 64    /* listings elsewhere before it starts again */
#define AHEAD_SEEN   8192  /* directories remembered as looked at */

/* Directory fd of SOURCE (its fstat st) is being listed: more credit, and
 * a start there when the look ahead is idle or elsewhere (opened again
 * from fd, which is not used after the call). */
void ahead_listed(int fd, const struct stat *st);

#endif /* ELFFS_AHEAD_H */
