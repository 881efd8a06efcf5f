/* The command line: elffs [options] SOURCE MOUNTPOINT. */
#ifndef ELFFS_OPTIONS_H
#define ELFFS_OPTIONS_H

#include "base/elffs.h"

/* The mount's readahead window when running as root (docs/benchmarks.md:
 * cold sequential reads 1.14x-1.25x faster than the kernel's 128 KiB). */
#define ELFFS_READAHEAD_KB 1024
#define ELFFS_MAX_THREADS  10000 /* -o max_threads= accepts 1 to this */

/*
 * Exit statuses (docs/elffs.1, EXIT STATUS). 1 and 32 are mount(8)'s
 * "incorrect invocation" and "mount failure", 2 its "system error", and a
 * SOURCE that cannot be used has a status of its own (sysexits.h's
 * EX_NOINPUT) that no mount(8) status shares: `mount -t fuse.elffs` passes
 * them through unchanged.
 */
enum elffs_exit {
	ELFFS_EXIT_OK = 0,
	ELFFS_EXIT_USAGE = 1,  /* bad or missing argument, unknown option */
	ELFFS_EXIT_SYSTEM = 2, /* out of memory, the session failed */
	ELFFS_EXIT_MOUNT = 32, /* MOUNTPOINT unusable, or the FUSE mount failed */
	ELFFS_EXIT_SOURCE = 66 /* SOURCE missing, unreadable, not a directory or ELF */
};

/* options_parse: a mount to make (any other value is an exit status). */
#define ELFFS_OPTIONS_RUN (-1)

struct elffs_opts {
	char *source_arg;     /* SOURCE as given */
	char *mountpoint_arg; /* MOUNTPOINT as given */
	char *source;         /* SOURCE made absolute (realpath) */
	int nommap;           /* -o nommap */
	char *timeout;        /* -o timeout=SECS as given */
	double timeout_s;
	char *watch;           /* -o watch=auto|off as given */
	char *watch_timeout;   /* -o watch_timeout=SECS as given */
	double watch_timeout_s;
	char *readahead;       /* -o readahead=KB as given */
	unsigned readahead_kb; /* 0: the kernel's window */
	char *memory;          /* -o memory=MB as given */
	uint64_t memory_mb;    /* 0: the default (membudget.h) */
	char *direct_io;       /* -o direct_io=MODE as given (iopolicy.c) */
	char *iosize;          /* -o iosize=BYTES as given (iopolicy.c) */
	char *passthrough;     /* -o passthrough=MODE as given (passthrough.c) */
	char *buildid;         /* -o buildid=off|NAME as given; NULL: ".build-id" */
	int debuginfod;        /* -o debuginfod */
	char *debuginfod_urls; /* -o debuginfod=URLS as given */
	int help;
	int version;
	int nonopts; /* positional arguments seen */
	int oom;     /* out of memory while parsing */
	int has_fsname;
	int has_subtype;
	int allow_other;              /* -o allow_other given */
	int allow_root;               /* -o allow_root given */
	struct fuse_cmdline_opts cmd; /* -f -d -s, mountpoint, threads */
};

/*
 * Parse the command line into o; args keeps what fuse_session_new() must
 * see. Also accepts the mount(8) helper convention (argv[0] "mount.*":
 * SOURCE MOUNTPOINT [-nsfv] [-t TYPE] [-o OPTS]). SOURCE must exist and
 * MOUNTPOINT be a directory. Returns ELFFS_OPTIONS_RUN to go on, or the
 * status to exit with: ELFFS_EXIT_OK once help or version was printed,
 * ELFFS_EXIT_USAGE, _SOURCE, _MOUNT or _SYSTEM after printing an error.
 */
int options_parse(int argc, char **argv, struct fuse_args *args, struct elffs_opts *o);

/* Free what options_parse allocated in o. */
void options_free(struct elffs_opts *o);

/* Whether the mount point is a descriptor of /dev/fuse passed as
 * /dev/fd/N (mount.fuse3's drop_privileges): libfuse takes it, there is no
 * path to check or to unmount. */
bool options_is_fuse_fd(const char *mnt);

#endif /* ELFFS_OPTIONS_H */
