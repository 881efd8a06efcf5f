/* The command line: elffs [options] SOURCE MOUNTPOINT. */
#include "options.h"
#include "content/entries.h"
#include "tree/iopolicy.h"
#include "ops/passthrough.h"
#include "base/membudget.h"
#include "buildid/debuginfod.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

enum {
	KEY_HELP,
	KEY_VERSION,
	KEY_FSNAME,
	KEY_SUBTYPE,
	KEY_ALLOW_OTHER,
	KEY_ALLOW_ROOT,
	KEY_MAX_READ,
	KEY_MAX_THREADS,
};

#define ELFFS_OPT(t, field, v)                                                                     \
	{                                                                                          \
		t, offsetof(struct elffs_opts, field), v                                           \
	}

static const struct fuse_opt specs[] = {
        ELFFS_OPT("nommap", nommap, 1),
        ELFFS_OPT("timeout=%s", timeout, 0),
        ELFFS_OPT("watch=%s", watch, 0),
        ELFFS_OPT("watch_timeout=%s", watch_timeout, 0),
        ELFFS_OPT("readahead=%s", readahead, 0),
        ELFFS_OPT("memory=%s", memory, 0),
        ELFFS_OPT("direct_io=%s", direct_io, 0),
        ELFFS_OPT("iosize=%s", iosize, 0),
        ELFFS_OPT("passthrough=%s", passthrough, 0),
        ELFFS_OPT("buildid=%s", buildid, 0),
        ELFFS_OPT("debuginfod", debuginfod, 1),
        ELFFS_OPT("debuginfod=%s", debuginfod_urls, 0),
        FUSE_OPT_KEY("-h", KEY_HELP),
        FUSE_OPT_KEY("--help", KEY_HELP),
        FUSE_OPT_KEY("-V", KEY_VERSION),
        FUSE_OPT_KEY("--version", KEY_VERSION),
        FUSE_OPT_KEY("fsname=", KEY_FSNAME),
        FUSE_OPT_KEY("subtype=", KEY_SUBTYPE),
        FUSE_OPT_KEY("allow_other", KEY_ALLOW_OTHER),
        FUSE_OPT_KEY("allow_root", KEY_ALLOW_ROOT),
        FUSE_OPT_KEY("max_read=", KEY_MAX_READ),
        FUSE_OPT_KEY("max_threads=", KEY_MAX_THREADS),
        /* Options mount(8) and fstab pass that mean nothing here; rw is
         * dropped because the mount is always read-only. */
        FUSE_OPT_KEY("rw", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("defaults", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("user", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("users", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("nouser", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("auto", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("noauto", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("_netdev", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("nofail", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_KEY("comment=", FUSE_OPT_KEY_DISCARD),
        FUSE_OPT_END,
};

/* A plain decimal count (digits only: no space, sign or suffix) in *out:
 * 0, or -1. */
static int parse_count(const char *text, unsigned long long *out)
{
	char *end;
	errno = 0;
	*out = strtoull(text, &end, 10);
	return errno || end == text || *end || !isdigit((unsigned char)text[0]) ? -1 : 0;
}

/* -o max_threads=N: 1 to ELFFS_MAX_THREADS (libfuse takes 0 and -1
 * without a word); 1 keeps the option for libfuse, -1 refuses it. */
static int check_max_threads(const char *text)
{
	unsigned long long n;
	if (parse_count(text, &n) < 0 || n < 1 || n > ELFFS_MAX_THREADS) {
		fprintf(stderr, "elffs: bad max_threads '%s' (1 to %d)\n", text, ELFFS_MAX_THREADS);
		return -1;
	}
	return 1;
}

/* -o max_read=BYTES: the largest read request, 4096 to MAX_READ (the
 * kernel's largest max_pages, 65535 pages); 1 keeps the option for
 * libfuse, -1 refuses it. */
#define MAX_READ (65535ul * 4096)
static int parse_max_read(const char *text)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 10);
	if (errno || end == text || *end || !isdigit((unsigned char)text[0]) || v < 4096 ||
	    v > MAX_READ) {
		fprintf(stderr, "elffs: bad max_read '%s' (bytes, 4096 to %lu)\n", text, MAX_READ);
		return -1;
	}
	elffs.max_read = (unsigned)v;
	return 1;
}

/* The positional arguments, kept as given: checked once all are seen. */
static int take_nonopt(struct elffs_opts *o, const char *arg)
{
	char **slot = NULL;
	o->nonopts++;
	if (o->nonopts == 1)
		slot = &o->source_arg;
	else if (o->nonopts == 2)
		slot = &o->mountpoint_arg;
	if (!slot) {
		fprintf(stderr, "elffs: too many arguments: %s\n", arg);
		return -1;
	}
	*slot = strdup(arg);
	o->oom |= !*slot;
	/* drop SOURCE; keep MOUNTPOINT for fuse_parse_cmdline */
	return !*slot ? -1 : o->nonopts == 2;
}

static int opt_proc(void *data, const char *arg, int key, struct fuse_args *outargs)
{
	struct elffs_opts *o = data;
	switch (key) {
	case KEY_HELP:
		o->help = 1;
		return 0;
	case KEY_VERSION:
		o->version = 1;
		return 0;
	case KEY_FSNAME:
		o->has_fsname = 1;
		return 1;
	case KEY_SUBTYPE:
		o->has_subtype = 1;
		return 1;
	case KEY_ALLOW_OTHER: /* kept for libfuse; the build-id index looks at it */
		o->allow_other = 1;
		return 1;
	case KEY_ALLOW_ROOT: /* kept for libfuse; a shared mount too (access.h) */
		o->allow_root = 1;
		return 1;
	case KEY_MAX_READ: /* kept for libfuse; INIT must answer the same (ops.c) */
		return parse_max_read(arg + strlen("max_read="));
	case KEY_MAX_THREADS:
		return check_max_threads(arg + strlen("max_threads="));
	case FUSE_OPT_KEY_OPT:
		return strncmp(arg, "x-", 2) == 0 ? 0 : 1; /* x-systemd.* and friends */
	case FUSE_OPT_KEY_NONOPT:
		return take_nonopt(o, arg);
	}
	return 1;
}

static void usage(FILE *out)
{
	fputs("usage: elffs [options] SOURCE MOUNTPOINT\n\n"
	      "Shows every ELF file under SOURCE (a directory, or one ELF file or ar\n"
	      "archive) as a directory of its parts (read-only; formats in elffs(1)):\n",
	      out);
	for (size_t i = 0; i < entries_n; i++) /* the table of a binary's entries */
		fprintf(out, "    %s\n", entries[i].usage);
	fputs("and every ar archive (static library) as a directory of its members:\n", out);
	for (size_t i = 0; i < ar_entries_n; i++)
		fprintf(out, "    %s\n", ar_entries[i].usage);
	fputc('\n', out);
}

static void help(void)
{
	usage(stdout);
	printf("elffs options:\n"
	       "    -o nommap              serve reads with pread(2), not the shared mapping\n"
	       "    -o timeout=SECS        entry/attribute cache timeout and interval of\n"
	       "                           source re-checks, fractions allowed (default 1)\n"
	       "    -o watch=auto|off      hear of SOURCE's changes through fanotify where\n"
	       "                           its file systems allow (auto, the default; root)\n"
	       "    -o watch_timeout=SECS  the timeout of nodes on watched file systems\n"
	       "                           (default 86400)\n"
	       "    -o readahead=KB        the mount's readahead window in KiB (root only;\n"
	       "                           default 1024, 0 keeps the kernel's 128)\n"
	       "    -o memory=MB           memory budget of parsed views and decompressed\n"
	       "                           sections in MiB (default 256, less on small machines)\n"
	       "    -o direct_io=MODE      section and segment files through the page cache\n"
	       "                           (off, the default), or direct I/O: auto (files of\n"
	       "                           16 MiB or more) or on (all); shared mmap of those\n"
	       "                           files needs Linux 6.6 or later\n"
	       "    -o iosize=BYTES        largest st_blksize of those files (default 1048576)\n"
	       "    -o max_read=BYTES      largest read request, 4096 to 268431360 (default:\n"
	       "                           4194304 where the kernel's fs.fuse.max_pages_limit\n"
	       "                           allows it, else 1048576)\n"
	       "    -o passthrough=MODE    elf files read by the kernel from SOURCE (auto: where\n"
	       "                           the kernel and CAP_SYS_ADMIN allow it), or off\n"
	       "    -o buildid=off|NAME    name of the build-id index directory in the root\n"
	       "                           (default .build-id), or off\n"
	       "%s"
	       "    -o OPT[,OPT...]        FUSE mount options (allow_other, auto_unmount, ...);\n"
	       "                           ro and default_permissions are always on\n\n"
	       "session options:\n",
	       dbgd_built() ? "    -o debuginfod[=URLS]   ask debuginfod servers (DEBUGINFOD_URLS, "
	                      "or URLS:\n"
	                      "                           space-separated) for build ids SOURCE "
	                      "has not\n"
	                    : "    -o debuginfod[=URLS]   not in this build (built without "
	                      "libdebuginfod)\n");
	fflush(stdout);
	fuse_cmdline_help();
	printf("\nFUSE options:\n");
	fflush(stdout);
	fuse_lowlevel_help();
}

static void version(void)
{
	printf("elffs %s\n", ELFFS_PROJECT_VERSION);
	printf("FUSE library version %s\n", fuse_pkgversion());
	fflush(stdout);
	fuse_lowlevel_version();
}

/* SECS of option name (given as arg, NULL: dflt) into *out; 0 or -1. */
static int parse_seconds(const char *name, const char *arg, double dflt, double *out)
{
	*out = dflt;
	if (!arg)
		return 0;
	char *end;
	errno = 0;
	double t = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(t) || t < 0 || t > 31536000.0 ||
	    !(isdigit((unsigned char)arg[0]) || arg[0] == '.')) {
		fprintf(stderr, "elffs: bad %s '%s' (seconds, 0 to 31536000)\n", name, arg);
		return -1;
	}
	*out = t;
	return 0;
}

static int parse_timeout(struct elffs_opts *o)
{
	if (parse_seconds("timeout", o->timeout, 1.0, &o->timeout_s) < 0 ||
	    parse_seconds("watch_timeout", o->watch_timeout, 86400.0, &o->watch_timeout_s) < 0)
		return -1;
	if (o->watch && strcmp(o->watch, "auto") != 0 && strcmp(o->watch, "off") != 0) {
		fprintf(stderr, "elffs: bad watch '%s' (auto or off)\n", o->watch);
		return -1;
	}
	return 0;
}

static int parse_readahead(struct elffs_opts *o)
{
	o->readahead_kb = ELFFS_READAHEAD_KB;
	if (!o->readahead)
		return 0;
	unsigned long long kb;
	if (parse_count(o->readahead, &kb) < 0 || (kb != 0 && kb < 4) || kb > 1048576) {
		fprintf(stderr,
		        "elffs: bad readahead '%s' (KiB: 0 for the kernel's, or 4 to 1048576)\n",
		        o->readahead);
		return -1;
	}
	o->readahead_kb = (unsigned)kb;
	return 0;
}

static int parse_memory(struct elffs_opts *o)
{
	o->memory_mb = 0;
	if (!o->memory)
		return 0;
	unsigned long long mb;
	if (parse_count(o->memory, &mb) < 0 || mb < MEMBUDGET_MIN_MB || mb > MEMBUDGET_MAX_MB) {
		fprintf(stderr, "elffs: bad memory '%s' (MiB, %d to %d)\n", o->memory,
		        MEMBUDGET_MIN_MB, MEMBUDGET_MAX_MB);
		return -1;
	}
	o->memory_mb = mb;
	return 0;
}

/* -o buildid=NAME: one file name (off leaves the index out). */
static int parse_buildid(const struct elffs_opts *o)
{
	const char *s = o->buildid;
	if (!s || strcmp(s, "off") == 0 ||
	    (s[0] && strlen(s) <= NAME_MAX && !strchr(s, '/') && strcmp(s, ".") != 0 &&
	     strcmp(s, "..") != 0))
		return 0;
	fprintf(stderr, "elffs: bad buildid '%s' (off, or a file name)\n", s);
	return -1;
}

/* -o debuginfod[=URLS]: a build with libdebuginfod, some URL, the index on. */
static int parse_debuginfod(const struct elffs_opts *o)
{
	if (!o->debuginfod && !o->debuginfod_urls)
		return 0;
	if (o->buildid && strcmp(o->buildid, "off") == 0) {
		fprintf(stderr,
		        "elffs: -o debuginfod needs the build-id index (not -o buildid=off)\n");
		return -1;
	}
	int ret = dbgd_configure(o->debuginfod_urls);
	if (ret == -ENOTSUP)
		fprintf(stderr, "elffs: -o debuginfod: this elffs was built without libdebuginfod "
		                "(elfutils; meson -Ddebuginfod=enabled)\n");
	else if (ret == -EINVAL)
		fprintf(stderr, "elffs: -o debuginfod: no server (DEBUGINFOD_URLS is empty; "
		                "-o debuginfod=URLS sets it)\n");
	else if (ret < 0)
		fprintf(stderr, "elffs: -o debuginfod: %s\n", strerror(-ret));
	return ret < 0 ? -1 : 0;
}

/* The mount(8) helper convention, rewritten as an elffs command line. */
static char **helper_argv(int argc, char **argv, int *outc)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	if (!v)
		return NULL;
	int n = 0;
	for (int i = 0; i < argc; i++) {
		if (i >= 3 && strcmp(argv[i], "-t") == 0 && i + 1 < argc) {
			i++;
			continue;
		}
		if (i >= 3 && argv[i][0] == '-' && strchr("nsfvrw", argv[i][1]) && !argv[i][2])
			continue;
		v[n++] = argv[i];
	}
	*outc = n;
	return v;
}

static bool is_helper(const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	return strncmp(base ? base + 1 : argv0, "mount.", 6) == 0;
}

/* subtype and fsname unless given; ro, default_permissions always. */
static int add_mount_options(struct fuse_args *args, struct elffs_opts *o)
{
	char *def = NULL;
	char *fsname = NULL;
	int ret = 0;
	if (!o->has_subtype)
		ret |= fuse_opt_add_opt(&def, "subtype=elffs");
	if (!o->has_fsname && asprintf(&fsname, "fsname=%s", o->source) >= 0) {
		ret |= fuse_opt_add_opt_escaped(&def, fsname);
		free(fsname);
	}
	if (def) {
		char *arg = NULL;
		if (asprintf(&arg, "-o%s", def) < 0 || fuse_opt_insert_arg(args, 1, arg))
			ret = -1;
		free(arg);
		free(def);
	}
	ret |= fuse_opt_add_arg(args, "-oro,default_permissions,nosuid,nodev");
	return ret ? -1 : 0;
}

/* SOURCE made absolute; it must exist (what it is, main.c decides). */
static int resolve_source(struct elffs_opts *o)
{
	o->source = realpath(o->source_arg, NULL);
	if (!o->source) {
		fprintf(stderr, "elffs: %s: %s\n", o->source_arg, strerror(errno));
		return ELFFS_EXIT_SOURCE;
	}
	return ELFFS_OPTIONS_RUN;
}

bool options_is_fuse_fd(const char *mnt)
{
	int fd, end = 0;
	return sscanf(mnt, "/dev/fd/%d%n", &fd, &end) == 1 && end > 0 && !mnt[end] && fd >= 0;
}

/* Undo mountinfo's octal escapes (\040 for a space, ...) of s in place. */
static void unescape(char *s)
{
	char *w = s;
	for (const char *r = s; *r; w++)
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 4;
		} else {
			*w = *r++;
		}
	*w = '\0';
}

/* Whether the directory at absolute path mnt is the root of an elffs mount
 * already (a second daemon there would stack on the first without a word):
 * the source it shows into src (size bytes). */
static bool elffs_mounted_at(const char *mnt, char *src, size_t size)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return false;
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (!found && getline(&line, &cap, f) > 0) {
		char point[4096], type[64], from[4096];
		char *dash = strstr(line, " - ");
		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(dash + 3, "%63s %4095s", type, from) != 2)
			continue;
		unescape(point);
		unescape(from);
		if (strcmp(type, "fuse.elffs") == 0 && strcmp(point, mnt) == 0) {
			snprintf(src, size, "%s", from);
			found = true;
		}
	}
	free(line);
	fclose(f);
	return found;
}

/* The mount point must be a directory: on a regular file the kernel would
 * make a mount whose root (a directory) answers EIO to everything. */
static int check_mountpoint(const char *mnt)
{
	struct stat st;
	if (options_is_fuse_fd(mnt))
		return ELFFS_OPTIONS_RUN;
	if (stat(mnt, &st) < 0) {
		fprintf(stderr, "elffs: mount point %s: %s\n", mnt, strerror(errno));
		return ELFFS_EXIT_MOUNT;
	}
	if (!S_ISDIR(st.st_mode)) {
		fprintf(stderr, "elffs: mount point %s: not a directory\n", mnt);
		return ELFFS_EXIT_MOUNT;
	}
	char *abs = realpath(mnt, NULL), src[4096];
	bool stacked = abs && elffs_mounted_at(abs, src, sizeof(src));
	free(abs);
	if (stacked) {
		fprintf(stderr,
		        "elffs: mount point %s: already an elffs mount (of %s); unmount it first "
		        "(fusermount3 -u %s)\n",
		        mnt, src, mnt);
		return ELFFS_EXIT_MOUNT;
	}
	return ELFFS_OPTIONS_RUN;
}

static int check_arguments(struct elffs_opts *o)
{
	if (parse_timeout(o) < 0 || parse_readahead(o) < 0 || parse_memory(o) < 0 ||
	    iopolicy_parse(o->direct_io, o->iosize) < 0 || passthrough_parse(o->passthrough) < 0 ||
	    parse_buildid(o) < 0 || parse_debuginfod(o) < 0)
		return ELFFS_EXIT_USAGE;
	if (o->nonopts < 2) {
		usage(stderr);
		fprintf(stderr, "elffs: missing %s (see elffs --help)\n",
		        o->nonopts ? "MOUNTPOINT" : "SOURCE and MOUNTPOINT");
		return ELFFS_EXIT_USAGE;
	}
	int ret = resolve_source(o);
	return ret == ELFFS_OPTIONS_RUN ? check_mountpoint(o->mountpoint_arg) : ret;
}

static int finish(struct fuse_args *args, struct elffs_opts *o)
{
	int ret = check_arguments(o);
	if (ret != ELFFS_OPTIONS_RUN)
		return ret;
	if (add_mount_options(args, o) < 0) {
		fprintf(stderr, "elffs: out of memory\n");
		return ELFFS_EXIT_SYSTEM;
	}
	if (fuse_parse_cmdline(args, &o->cmd) != 0)
		return ELFFS_EXIT_USAGE;
	if (!o->cmd.mountpoint) {
		fprintf(stderr, "elffs: missing MOUNTPOINT\n");
		return ELFFS_EXIT_USAGE;
	}
	return ELFFS_OPTIONS_RUN;
}

int options_parse(int argc, char **argv, struct fuse_args *args, struct elffs_opts *o)
{
	memset(o, 0, sizeof(*o));
	char **v = argv;
	*args = (struct fuse_args)FUSE_ARGS_INIT(0, NULL);
	if (argc > 0 && is_helper(argv[0])) {
		v = helper_argv(argc, argv, &argc);
		if (!v)
			return ELFFS_EXIT_SYSTEM;
	}
	int ret = 0;
	for (int i = 0; i < argc && ret == 0; i++)
		ret = fuse_opt_add_arg(args, v[i]);
	if (v != argv)
		free(v);
	if (ret)
		return ELFFS_EXIT_SYSTEM;
	if (fuse_opt_parse(args, o, specs, opt_proc) != 0)
		return o->oom ? ELFFS_EXIT_SYSTEM : ELFFS_EXIT_USAGE;
	if (o->help) {
		help();
		return ELFFS_EXIT_OK;
	}
	if (o->version) {
		version();
		return ELFFS_EXIT_OK;
	}
	return finish(args, o);
}

void options_free(struct elffs_opts *o)
{
	free(o->source_arg);
	free(o->mountpoint_arg);
	free(o->source);
	free(o->timeout);
	free(o->watch);
	free(o->watch_timeout);
	free(o->readahead);
	free(o->memory);
	free(o->direct_io);
	free(o->iosize);
	free(o->passthrough);
	free(o->buildid);
	free(o->debuginfod_urls);
	free(o->cmd.mountpoint);
	memset(o, 0, sizeof(*o));
}
