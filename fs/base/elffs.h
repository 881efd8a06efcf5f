/*
 * elffs: the daemon's shared context and small helpers.
 *
 * One mount per process: the context is a process-wide singleton that the
 * option parser fills in before the session starts and that is read-only
 * afterwards.
 */
#ifndef ELFFS_H
#define ELFFS_H

/* 3.12: the loop configuration object and -o max_threads. */
#define FUSE_USE_VERSION 312
#include <fuse_lowlevel.h>

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

struct elffs_ctx {
	int srcfd;              /* SOURCE (directory mode) or SOURCE's parent (file mode) */
	char *single_name;      /* file mode: SOURCE's name inside srcfd; NULL otherwise */
	char *source;           /* SOURCE, absolute */
	const char *mountpoint; /* MOUNTPOINT, absolute */
	char *mnt_rel;          /* the mount point relative to SOURCE when inside it, or NULL */
	unsigned pfelf_flags;   /* PFELF_OPEN_NOMMAP under -o nommap */
	double timeout;         /* entry/attr cache timeout and re-check interval, seconds */
	uint64_t timeout_ns;    /* the same in nanoseconds */
	bool watch;             /* -o watch=auto: SOURCE's file systems watched where they can be */
	double watch_timeout;   /* the same timeout for nodes of watched file systems */
	uint64_t watch_timeout_ns;
	uint64_t memory;     /* memory budget in bytes (-o memory=MB; membudget.h) */
	const char *buildid; /* name of the build-id index directory; NULL: -o buildid=off */
	bool others;         /* -o allow_other (not allow_root): other users reach the mount */
	unsigned max_read;   /* -o max_read=BYTES, answered again at INIT; 0: not given */
	struct fuse_session *se;
};

extern struct elffs_ctx elffs;

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t elffs_now_ns(void);

#endif /* ELFFS_H */
