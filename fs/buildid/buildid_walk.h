/* The walk of SOURCE that fills the build-id index (buildid_walk.c). */
#ifndef ELFFS_BUILDID_WALK_H
#define ELFFS_BUILDID_WALK_H

/* Look at SOURCE: the whole walk the first time, what changed after
 * (ix.mu held; released across every system call). */
void bidx_look(void);

#endif /* ELFFS_BUILDID_WALK_H */
