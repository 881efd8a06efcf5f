/*
 * FUSE passthrough for whole-file views (fs/ops/passthrough.c): an open of
 * the `elf` file of an ELF binary hands the kernel the source file itself,
 * and the kernel reads and maps it without asking the daemon.
 */
#ifndef ELFFS_PASSTHROUGH_H
#define ELFFS_PASSTHROUGH_H

#include "node/nodes.h"
#include "view/view.h"

#include <stdbool.h>
#include <stdint.h>

/* -o passthrough=auto|off (NULL: auto). 0, or -1 after printing what is
 * wrong on stderr. Called once, before the session starts. */
int passthrough_parse(const char *mode);

/* In the init handler: ask for FUSE_PASSTHROUGH where it can be had, and
 * log one line saying whether it is on and, if not, why. */
void passthrough_init(void);

/* What an open file of an `elf` node holds of passthrough: its inode and
 * the mode it counted in (0: none, not an `elf` of passthrough's). */
enum { PT_NONE, PT_CACHED, PT_PASS };
struct ptopen {
	uint64_t ino;
	int8_t mode; /* PT_NONE, PT_CACHED (the daemon's path) or PT_PASS */
};

/*
 * The open of file node n (view v, NULL if none) with fi as iopolicy_open
 * made it. An `elf` of an ELF binary opens the way every other open of its
 * inode does now (the kernel refuses to mix them), the first one in
 * passthrough when a backing file can be had: the source file, opened
 * again and checked to be the file v was built from. For a passthrough
 * open it clears fi's cache and direct I/O flags and tells initext the
 * backing id (the caller replies at once, then calls
 * passthrough_replied). 0: a first open that cannot pass through takes the
 * daemon's path. -ESTALE: the open would join a passthrough open whose
 * source is not the file v was built from any more (nothing counted; the
 * caller answers as for an open of an older generation, check.h).
 * *p is what passthrough_release needs.
 */
int passthrough_open(struct node *n, const struct bview *v, struct fuse_file_info *fi,
                     struct ptopen *p);

/* After the reply to an open that passthrough_open saw. */
void passthrough_replied(void);

/* The release of an open file (or a failed reply to its open). */
void passthrough_release(struct ptopen *p);

/* Whether passthrough_open is turned on (negotiated at INIT). */
bool passthrough_on(void);

#endif /* ELFFS_PASSTHROUGH_H */
