/*
 * elffs: mount a tree of ELF files; every section and segment a file.
 * main() parses the command line, opens SOURCE, mounts, daemonizes (the
 * parent returns once the mount is live) and runs the session loop until
 * SIGINT, SIGTERM, SIGHUP (stop.h) or an unmount. Exit statuses: options.h.
 */
#include "source/access.h"
#include "buildid/buildid_index.h"
#include "buildid/debuginfod.h"
#include "cache/bincache.h"
#include "cache/dcache.h"
#include "content/entries.h"
#include "base/elffs.h"
#include "base/handles.h"
#include "ops/initext.h"
#include "base/inval.h"
#include "base/log.h"
#include "base/membudget.h"
#include "node/nodes.h"
#include "ops/ops.h"
#include "options.h"
#include "source/probe.h"
#include "ops/readahead.h"
#include "base/stall.h"
#include "stop.h"
#include "watch/watch.h"

#include <dlfcn.h>
#include <errno.h>
#include <wchar.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

/* SOURCE is one file: keep its directory open and its name. */
static int open_single(const char *source, struct stat *st)
{
	const char *slash = strrchr(source, '/');
	char *dir = slash == source ? strdup("/") : strndup(source, (size_t)(slash - source));
	elffs.single_name = strdup(slash + 1);
	if (!dir || !elffs.single_name) {
		free(dir);
		return -ENOMEM;
	}
	elffs.srcfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (elffs.srcfd < 0 || fstatat(elffs.srcfd, elffs.single_name, st, AT_SYMLINK_NOFOLLOW) < 0)
		return -errno;
	if (probe_classify(elffs.srcfd, elffs.single_name, st) != NK_BIN) {
		elog(LOG_ERR, "%s: not an ELF file (or not readable)", source);
		return -ENOEXEC;
	}
	return 0;
}

/* Open SOURCE (absolute); the kind and attributes of the mount's root. */
static int open_source(const char *source, enum node_kind *kind, struct stat *st)
{
	if (stat(source, st) < 0)
		return -errno;
	if (S_ISREG(st->st_mode)) {
		*kind = NK_BIN;
		return open_single(source, st);
	}
	if (!S_ISDIR(st->st_mode)) {
		elog(LOG_ERR, "%s: neither a directory nor a regular file", source);
		return -EINVAL;
	}
	*kind = NK_DIR;
	elffs.srcfd = open(source, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (elffs.srcfd < 0 || fstat(elffs.srcfd, st) < 0)
		return -errno;
	return 0;
}

/* Under -o nommap each cached handle holds a descriptor: allow many. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* The mount point relative to SOURCE when it lies inside SOURCE, or NULL. */
static char *mount_inside(const char *source, const char *mnt)
{
	size_t len = strcmp(source, "/") == 0 ? 0 : strlen(source);
	if (mnt[0] != '/' || strncmp(mnt, source, len) != 0 || mnt[len] != '/' || !mnt[len + 1])
		return NULL;
	return strdup(mnt + len + 1);
}

static void configure(const struct elffs_opts *o)
{
	elffs.mnt_rel = mount_inside(o->source, o->cmd.mountpoint);
	elffs.source = o->source;
	elffs.mountpoint = o->cmd.mountpoint;
	/* Map each binary when it is parsed: the daemon keeps many handles and
	 * must hold no descriptor per mapped binary (pfelf's lazy mapping would
	 * keep one until the first read of the binary's bytes). */
	elffs.pfelf_flags = o->nommap ? PFELF_OPEN_NOMMAP : PFELF_OPEN_MAP_NOW;
	elffs.timeout = o->timeout_s;
	elffs.timeout_ns = (uint64_t)(o->timeout_s * 1e9);
	elffs.watch = !o->watch || strcmp(o->watch, "auto") == 0;
	elffs.watch_timeout = o->watch_timeout_s;
	elffs.watch_timeout_ns = (uint64_t)(o->watch_timeout_s * 1e9);
	membudget_init(o->memory_mb << 20);
	elffs.memory = membudget_limit();
	elffs.buildid = !o->buildid                      ? ".build-id"
	                : strcmp(o->buildid, "off") == 0 ? NULL
	                                                 : o->buildid;
	/* The index names files and ids below directories other users may not
	 * read: with allow_other it is there only when asked for by name. */
	/* With allow_root too, libfuse lets only root and the owner in. */
	elffs.others = o->allow_other && !o->allow_root;
	if (!o->buildid && elffs.others) {
		elffs.buildid = NULL;
		elog(LOG_NOTICE, "build-id index off with allow_other "
		                 "(-o buildid=.build-id shows it to every user)");
	}
	access_init(o->allow_other || o->allow_root);
	dbgd_start();
}

/*
 * glibc's pthread_cancel() loads libgcc_s on its first use, and libfuse
 * cancels its workers when the session ends: under a tight address-space
 * limit (ulimit -v) that load fails, glibc aborts and the mount is left
 * stale. Loaded now, a failure is a clean error before anything is mounted.
 */
static int load_libgcc_s(void)
{
	void *h = dlopen("libgcc_s.so.1", RTLD_NOW | RTLD_NODELETE);
	if (!h) {
		elog(LOG_ERR, "cannot load libgcc_s.so.1 (pthread_cancel needs it): %s", dlerror());
		return -ENOMEM;
	}
	dlclose(h); /* RTLD_NODELETE: stays loaded */
	return 0;
}

/* The session loop: libfuse's multithreaded one unless -s. */
static int loop(struct fuse_session *se, const struct elffs_opts *o)
{
	if (o->cmd.singlethread)
		return fuse_session_loop(se);
	struct fuse_loop_config *cfg = fuse_loop_cfg_create();
	if (!cfg)
		return -ENOMEM;
	fuse_loop_cfg_set_clone_fd(cfg, (unsigned)o->cmd.clone_fd);
	/* fuse_parse_cmdline leaves UINT_MAX for "not given" */
	if (o->cmd.max_threads != UINT_MAX)
		fuse_loop_cfg_set_max_threads(cfg, o->cmd.max_threads);
	if (o->cmd.max_idle_threads != UINT_MAX)
		fuse_loop_cfg_set_idle_threads(cfg, o->cmd.max_idle_threads);
	int ret = fuse_session_loop_mt(se, cfg);
	fuse_loop_cfg_destroy(cfg);
	return ret;
}

static int serve(struct fuse_session *se, const struct elffs_opts *o)
{
	elffs.se = se;
	int ret = stop_start(se, o->cmd.mountpoint); /* first: its thread takes the signals */
	if (ret < 0) {
		elog(LOG_ERR, "stop thread: %s", strerror(-ret));
		elffs.se = NULL;
		return ELFFS_EXIT_SYSTEM;
	}
	ret = inval_start(se);
	if (ret < 0)
		elog(LOG_WARNING, "no invalidation thread (%s): caches expire by timeout only",
		     strerror(-ret));
	if (ret < 0)
		elffs.watch = false;
	else
		watch_start(); /* logs what it watches; nothing: -o timeout alone */
	/* The default window needs root (sysfs); without it the kernel's stays
	 * quietly. A window asked for warns when it cannot be set. */
	bool asked = o->readahead != NULL;
	if (o->readahead_kb && (asked || geteuid() == 0) &&
	    (ret = readahead_start(o->cmd.mountpoint, o->readahead_kb, asked)) < 0)
		elog(LOG_WARNING, "-o readahead: %s", strerror(-ret));
	/* libfuse's loop runs at most 10 workers unless told (FUSE_LOOP_MT_DEF_MAX_THREADS) */
	struct stat src;
	unsigned workers = o->cmd.singlethread              ? 1
	                   : o->cmd.max_threads != UINT_MAX ? o->cmd.max_threads
	                                                    : 10;
	stall_init(fstat(elffs.srcfd, &src) == 0 ? (uint64_t)src.st_dev : 0, workers);
	ret = loop(se, o);
	/* > 0: ended by that signal. ECONNABORTED: the connection went away
	 * under us (a lazy unmount, or an abort through /sys/fs/fuse). Both
	 * are ends of the mount, not errors of the daemon. */
	if (ret == -ECONNABORTED)
		ret = 0;
	stop_loop_over(ret < 0 ? ELFFS_EXIT_SYSTEM : ELFFS_EXIT_OK);
	stall_shutdown();
	watch_stop();
	inval_stop();
	elffs.se = NULL;
	if (ret < 0)
		elog(LOG_ERR, "session loop: %s", strerror(-ret));
	return ret < 0 ? ELFFS_EXIT_SYSTEM : ELFFS_EXIT_OK;
}

/* Mounted: daemonize (the parent exits 0, the mount being live) and serve. */
static int daemon_and_serve(struct fuse_session *se, const struct elffs_opts *o)
{
	if (fuse_daemonize(o->cmd.foreground) != 0)
		return ELFFS_EXIT_SYSTEM;
	if (!o->cmd.foreground)
		elog_use_syslog();
	return serve(se, o);
}

/*
 * SIGHUP, SIGINT and SIGTERM end the session whatever the disposition the
 * daemon inherited: a daemon started with & from a script inherits SIGINT
 * ignored, and libfuse's fuse_set_signal_handlers() keeps an ignored signal
 * ignored. The handlers are stop.c's; fuse_set_signal_handlers() then only
 * ignores SIGPIPE. Once the session serves, stop.c's thread takes them
 * (stop.h). The handlers stay until exit, doing nothing once the session
 * is over: a signal during the clean-up after the unmount must not turn
 * the exit status into a death by that signal.
 */
static int mount_and_serve(struct fuse_session *se, const struct elffs_opts *o)
{
	int ret = stop_signals_set(se);
	if (ret < 0 || fuse_set_signal_handlers(se) != 0) {
		elog(LOG_ERR, "signal handlers: %s", strerror(ret < 0 ? -ret : errno));
		stop_signals_unset();
		return ELFFS_EXIT_SYSTEM;
	}
	ret = ELFFS_EXIT_MOUNT; /* libfuse said why */
	if (fuse_session_mount(se, o->cmd.mountpoint) == 0) {
		/* without it: op_init warns if direct I/O was asked for */
		(void)initext_attach(se);
		ret = daemon_and_serve(se, o);
		stop_unmount(se);
	}
	fuse_remove_signal_handlers(se);
	stop_signals_unset();
	return ret;
}

static int run(struct fuse_args *args, const struct elffs_opts *o)
{
	enum node_kind kind = NK_DIR;
	struct stat st;
	configure(o);
	int ret = open_source(o->source, &kind, &st);
	if (ret < 0) {
		if (ret != -ENOEXEC && ret != -EINVAL)
			elog(LOG_ERR, "%s: %s", o->source, strerror(-ret));
		return ELFFS_EXIT_SOURCE;
	}
	static const struct node_binary_ops binaries = {binary_new, binary_destroy};
	entries_init();
	bincache_init();
	dcache_init();
	membudget_count_nodes(nodes_count);
	if ((ret = nodes_init(kind, &st, &binaries)) < 0) {
		elog(LOG_ERR, "%s: %s", o->source, strerror(-ret));
		return ELFFS_EXIT_SYSTEM;
	}
	if (load_libgcc_s() < 0)
		return ELFFS_EXIT_SYSTEM;
	if ((ret = ops_file_init()) < 0) {
		elog(LOG_ERR, "read buffers: %s", strerror(-ret));
		return ELFFS_EXIT_SYSTEM;
	}
	raise_nofile();
	/* NULL: an unknown option (libfuse names it), or out of memory. */
	struct fuse_session *se = fuse_session_new(args, &elffs_ops, sizeof(elffs_ops), NULL);
	if (!se)
		return ELFFS_EXIT_USAGE;
	ret = mount_and_serve(se, o);
	fuse_session_destroy(se);
	bidx_destroy(); /* the walk, if one runs, stops */
	dbgd_destroy();
	handles_free_all(); /* open files the kernel never released */
	nodes_destroy();
	watch_destroy();
	dcache_destroy();
	return ret;
}

int main(int argc, char *argv[])
{
	struct fuse_args args;
	struct elffs_opts o;
	/* libfuse's workers call perror() when the device read fails (a lazy
	 * unmount gives ECONNABORTED) and are then cancelled by the loop. On
	 * an unoriented stderr, glibc's perror writes through a FILE of its
	 * own from fdopen(dup(2)), and a cancel inside that write leaks it.
	 * A byte-oriented stderr makes perror write to stderr directly. */
	fwide(stderr, -1);
	int ret = options_parse(argc, argv, &args, &o);
	if (ret == ELFFS_OPTIONS_RUN)
		ret = run(&args, &o);
	if (elffs.srcfd >= 0)
		close(elffs.srcfd);
	free(elffs.single_name);
	free(elffs.mnt_rel);
	fuse_opt_free_args(&args);
	options_free(&o);
	stop_done();
	return ret;
}
