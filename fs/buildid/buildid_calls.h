/*
 * The calls the build-id walk makes into SOURCE (buildid_walk.c): open,
 * stat, list a directory, read a file's build id. Each runs with ix.mu
 * released: here, or, when it goes into a file system mounted below
 * SOURCE (another device than SOURCE's), by a helper thread that the walk
 * waits for at most STALL_NS. A device that does not answer (a FUSE daemon
 * stopped, a server gone) is counted in user.elffs.stalled and logged,
 * and is not asked again while that call is in flight (stall.h); the
 * helper left waiting frees what it holds once the call returns.
 */
#ifndef ELFFS_BUILDID_CALLS_H
#define ELFFS_BUILDID_CALLS_H

#include "buildid/buildid_read.h"
#include "base/stall.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

enum wop { W_OPEN, W_STAT, W_FSTAT, W_LIST, W_READ };

struct wjob {
	enum wop op;
	int fd; /* a directory (the file for W_FSTAT) */
	const char *name;
	int flags;      /* W_OPEN */
	int ret;        /* the descriptor (W_OPEN), bid_read's answer (W_READ), or -errno */
	struct stat st; /* W_STAT, W_FSTAT, W_READ */
	struct bid_file b;
	char *list; /* W_LIST: records of a d_type byte and a NUL-ended name */
	size_t nlist;
	/* a helper's copy */
	struct stall_call call;
	bool done;
	char namebuf[];
};

/* Run j with ix.mu released: here, or by the helper when it goes into
 * device dev below SOURCE. 0 (j->ret says how it went) or -ETIMEDOUT. */
int walk_io(struct wjob *j, uint64_t dev);

/* The device of descriptor fd (name NULL), or of name in directory fd; 0
 * when unknown. */
uint64_t walk_dev_at(int fd, const char *name);

/* The device a call on name in directory fd (on device dev) goes into. */
uint64_t walk_target(int fd, uint64_t dev, const char *name);

/* At exit: the walk's idle helper thread ends. */
void bidx_walk_helper_stop(void);

#endif /* ELFFS_BUILDID_CALLS_H */
