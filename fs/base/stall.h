/*
 * Calls into file systems mounted below SOURCE (docs/architecture.md,
 * "Mounts below SOURCE that stop answering"). A FUSE or network file
 * system there can stop answering (its daemon stopped, its server gone):
 * a system call into it then blocks its thread, and nothing can take it
 * back. So calls into such a device are counted: a FUSE request that goes
 * into one (by the device of its node) runs at once while fewer than
 * STALL_DEV_SHARE of the workers are in that device and fewer than
 * STALL_ALL_SHARE in all of them together; otherwise it is queued, without
 * a worker, and run by the next worker that comes back from such a
 * device. However many readers wait on a hung mount below SOURCE, the
 * other workers serve the rest of the mount. Requests for SOURCE's own
 * device (and the index, and the root) never queue and take no lock here.
 * A worker that waits for a call another thread makes into such a device
 * (a listing for the probe's helper that reads a file bind-mounted from
 * it) counts in the same shares (stall_wait_enter); a worker counts once
 * in the total however many devices it is in.
 */
#ifndef ELFFS_STALL_H
#define ELFFS_STALL_H

#include "base/elffs.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

/* A call in flight for this long makes its device "stalled" (the index
 * walk stops waiting for it and leaves that subtree out). */
#define STALL_NS (3ULL * 1000000000ULL)

/* How many workers may be in calls into one device below SOURCE, and into
 * all of them, of the loop's max_threads (at least 1 each). */
#define STALL_DEV_SHARE(t) ((t)*3 / 10 ? (t)*3 / 10 : 1)
#define STALL_ALL_SHARE(t) ((t) / 2 ? (t) / 2 : 1)

/* A device no file system has: requests that wait on debuginfod servers
 * (buildid/debuginfod.h), queued by the same shares and named so in the log. */
#define STALL_DEV_NETWORK ((uint64_t)-2)

/* Say which device is SOURCE's and how many workers the loop may run. */
void stall_init(uint64_t srcdev, unsigned workers);

/* Whether dev is a file system below SOURCE (not 0, not SOURCE's). */
bool stall_foreign(uint64_t dev);

/* A call in flight into a device (held by the caller until stall_leave). */
struct stall_call {
	uint64_t dev;
	uint64_t start_ns;
	bool worker; /* a FUSE worker's: counts in its device's share */
	bool in_all; /* ... and in the total (its thread's first call in flight) */
	TAILQ_ENTRY(stall_call) link;
};

/* Note a call of a thread that is not a FUSE worker (the index walk's
 * helper) into dev: it counts for stall_stalled, not in the shares. */
void stall_enter(struct stall_call *c, uint64_t dev);

/*
 * A FUSE worker is about to wait for a call into dev that another thread
 * makes (a listing for the probe's helper): true when the shares have
 * room (then c is entered, counting as a worker in dev, until
 * stall_leave), or when dev is not below SOURCE or the worker is in a call
 * into dev already (nothing counted); false when they have none: the
 * worker must not wait (nothing entered).
 * What was queued meanwhile runs once the worker's request is answered
 * (stall_run).
 */
bool stall_wait_enter(struct stall_call *c, uint64_t dev);

/* The call of stall_enter or stall_wait_enter is over. */
void stall_leave(struct stall_call *c);

/* Whether a call into dev has been in flight for STALL_NS or more. */
bool stall_stalled(uint64_t dev);

/*
 * A FUSE request into device dev: run(j) now, or later from another
 * worker (j is copied then, with its name). j->req must be answered by
 * run. A queued request that the kernel interrupts (its caller got a
 * signal) is answered EINTR; one that finds the queue full, EIO.
 */
struct stall_job {
	void (*run)(const struct stall_job *j);
	fuse_req_t req;
	fuse_ino_t ino;
	const char *name; /* lookup and getxattr */
	size_t size;
	off_t off;
	struct fuse_file_info fi;
	bool has_fi;
};

void stall_run(uint64_t dev, const struct stall_job *j);

/* At exit: answer EIO to what still waits (the session is ending). */
void stall_shutdown(void);

#endif /* ELFFS_STALL_H */
