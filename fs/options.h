/* The command line: elffs [options] SOURCE MOUNTPOINT. */
#ifndef ELFFS_OPTIONS_H
#define ELFFS_OPTIONS_H

#include "elffs.h"

/* The mount's readahead window when running as root (docs/benchmarks.md:
 * cold sequential reads 1.14x-1.25x faster than the kernel's 128 KiB). */
#define ELFFS_READAHEAD_KB 1024

struct elffs_opts {
	char *source;  /* SOURCE made absolute (realpath) */
	int nommap;    /* -o nommap */
	char *timeout; /* -o timeout=SECS as given */
	double timeout_s;
	char *readahead;       /* -o readahead=KB as given */
	unsigned readahead_kb; /* 0: the kernel's window */
	int help;
	int version;
	int nonopts; /* positional arguments seen */
	int has_fsname;
	int has_subtype;
	struct fuse_cmdline_opts cmd; /* -f -d -s, mountpoint, threads */
};

/*
 * Parse the command line into o; args keeps what fuse_session_new() must
 * see. Also accepts the mount(8) helper convention (argv[0] "mount.*":
 * SOURCE MOUNTPOINT [-nsfv] [-t TYPE] [-o OPTS]). Returns 0 to go on, 1
 * when help or version was printed (exit 0), -1 after printing an error.
 */
int options_parse(int argc, char **argv, struct fuse_args *args, struct elffs_opts *o);

/* Free what options_parse allocated in o. */
void options_free(struct elffs_opts *o);

#endif /* ELFFS_OPTIONS_H */
