/* The command line: elffs [options] SOURCE MOUNTPOINT. */
#include "options.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { KEY_HELP, KEY_VERSION, KEY_FSNAME, KEY_SUBTYPE };

#define ELFFS_OPT(t, field, v)                                                                     \
	{                                                                                          \
		t, offsetof(struct elffs_opts, field), v                                           \
	}

static const struct fuse_opt specs[] = {
        ELFFS_OPT("nommap", nommap, 1),
        ELFFS_OPT("timeout=%s", timeout, 0),
        ELFFS_OPT("readahead=%s", readahead, 0),
        FUSE_OPT_KEY("-h", KEY_HELP),
        FUSE_OPT_KEY("--help", KEY_HELP),
        FUSE_OPT_KEY("-V", KEY_VERSION),
        FUSE_OPT_KEY("--version", KEY_VERSION),
        FUSE_OPT_KEY("fsname=", KEY_FSNAME),
        FUSE_OPT_KEY("subtype=", KEY_SUBTYPE),
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

static int take_source(struct elffs_opts *o, const char *arg)
{
	o->source = realpath(arg, NULL);
	if (!o->source) {
		fprintf(stderr, "elffs: %s: %s\n", arg, strerror(errno));
		return -1;
	}
	return 0;
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
	case FUSE_OPT_KEY_OPT:
		return strncmp(arg, "x-", 2) == 0 ? 0 : 1; /* x-systemd.* and friends */
	case FUSE_OPT_KEY_NONOPT:
		o->nonopts++;
		if (o->nonopts == 1)
			return take_source(o, arg) < 0 ? -1 : 0;
		if (o->nonopts == 2)
			return 1; /* the mount point, for fuse_parse_cmdline */
		fprintf(stderr, "elffs: too many arguments: %s\n", arg);
		return -1;
	}
	return 1;
}

static void usage(FILE *out)
{
	fputs("usage: elffs [options] SOURCE MOUNTPOINT\n\n"
	      "Shows every ELF file under SOURCE (a directory, or one ELF file) as a\n"
	      "directory: info, header, sections/<name>, segments/<NN>-<TYPE>. Read-only.\n\n",
	      out);
}

static void help(void)
{
	usage(stdout);
	printf("elffs options:\n"
	       "    -o nommap              serve reads with pread(2), not the shared mapping\n"
	       "    -o timeout=SECS        entry/attribute cache timeout and interval of\n"
	       "                           source re-checks, fractions allowed (default 1)\n"
	       "    -o readahead=KB        the mount's readahead window in KiB (root only;\n"
	       "                           default 1024, 0 keeps the kernel's 128)\n"
	       "    -o OPT[,OPT...]        FUSE mount options (allow_other, auto_unmount, ...);\n"
	       "                           ro and default_permissions are always on\n\n"
	       "session options:\n");
	fflush(stdout);
	fuse_cmdline_help();
	printf("\nFUSE options:\n");
	fflush(stdout);
	fuse_lowlevel_help();
}

static void version(void)
{
	printf("elffs %s\n", ELFFS_VERSION);
	printf("FUSE library version %s\n", fuse_pkgversion());
	fflush(stdout);
	fuse_lowlevel_version();
}

static int parse_timeout(struct elffs_opts *o)
{
	o->timeout_s = 1.0;
	if (!o->timeout)
		return 0;
	char *end;
	errno = 0;
	double t = strtod(o->timeout, &end);
	if (errno || end == o->timeout || *end || !isfinite(t) || t < 0 || t > 31536000.0) {
		fprintf(stderr, "elffs: bad timeout '%s' (seconds, 0 to 31536000)\n", o->timeout);
		return -1;
	}
	o->timeout_s = t;
	return 0;
}

static int parse_readahead(struct elffs_opts *o)
{
	o->readahead_kb = ELFFS_READAHEAD_KB;
	if (!o->readahead)
		return 0;
	char *end;
	errno = 0;
	unsigned long kb = strtoul(o->readahead, &end, 10);
	if (errno || end == o->readahead || *end || o->readahead[0] == '-' || (kb != 0 && kb < 4) ||
	    kb > 1048576) {
		fprintf(stderr,
		        "elffs: bad readahead '%s' (KiB: 0 for the kernel's, or 4 to 1048576)\n",
		        o->readahead);
		return -1;
	}
	o->readahead_kb = (unsigned)kb;
	return 0;
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

static int finish(struct fuse_args *args, struct elffs_opts *o)
{
	if (parse_timeout(o) < 0 || parse_readahead(o) < 0)
		return -1;
	if (!o->source || o->nonopts < 2) {
		usage(stderr);
		fprintf(stderr, "elffs: missing %s (see elffs --help)\n",
		        o->source ? "MOUNTPOINT" : "SOURCE and MOUNTPOINT");
		return -1;
	}
	if (add_mount_options(args, o) < 0) {
		fprintf(stderr, "elffs: out of memory\n");
		return -1;
	}
	if (fuse_parse_cmdline(args, &o->cmd) != 0)
		return -1;
	if (!o->cmd.mountpoint) {
		fprintf(stderr, "elffs: missing MOUNTPOINT\n");
		return -1;
	}
	return 0;
}

int options_parse(int argc, char **argv, struct fuse_args *args, struct elffs_opts *o)
{
	memset(o, 0, sizeof(*o));
	char **v = argv;
	if (argc > 0 && is_helper(argv[0])) {
		v = helper_argv(argc, argv, &argc);
		if (!v)
			return -1;
	}
	*args = (struct fuse_args)FUSE_ARGS_INIT(0, NULL);
	int ret = 0;
	for (int i = 0; i < argc && ret == 0; i++)
		ret = fuse_opt_add_arg(args, v[i]);
	if (v != argv)
		free(v);
	if (ret || fuse_opt_parse(args, o, specs, opt_proc) != 0)
		return -1;
	if (o->help) {
		help();
		return 1;
	}
	if (o->version) {
		version();
		return 1;
	}
	return finish(args, o);
}

void options_free(struct elffs_opts *o)
{
	free(o->source);
	free(o->timeout);
	free(o->readahead);
	free(o->cmd.mountpoint);
	memset(o, 0, sizeof(*o));
}
