/*
 * flood: another user's churn on SOURCE's file system, the load of the
 * `watch` group (bench/m_watch.py): every change it makes is an event a
 * watching daemon hears of (fanotify marks the whole file system).
 *
 *   flood files DIR SECS [RATE [KEEP]]
 *       Creates DIR/f<N> (O_CREAT|O_EXCL), writes 64 bytes, closes it,
 *       and unlinks the file made KEEP files earlier (default 10000, so
 *       DIR holds at most KEEP files), as fast as it can or RATE files a
 *       second (0: as fast as it can), for SECS seconds or until SIGTERM;
 *       then deletes the files it left. Prints "files=N secs=S rate=R" (files made a second).
 *   flood rename DIR FILES SECS
 *       Makes DIR/d<I>/f<J> (FILES files, 1,000 a directory) where missing,
 *       then renames every file of the tree to g<J> and back, file by file
 *       (a tree of FILES files renamed, again and again), for SECS seconds
 *       or until SIGTERM. Prints "renames=N secs=S rate=R".
 *
 * Exit 1 on any failed call.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PER_DIR 1000

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int fail(const char *what, const char *path)
{
	fprintf(stderr, "flood: %s %s: %s\n", what, path, strerror(errno));
	return 1;
}

static int make_file(const char *path)
{
	static const char bytes[64] = "a file of the flood, 64 bytes long, never read by anyone.";
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		return -1;
	if (write(fd, bytes, sizeof(bytes)) != (ssize_t)sizeof(bytes)) {
		close(fd);
		return -1;
	}
	return close(fd);
}

/* Sleeps until file n is due at rate files a second from t0. */
static void pace(double t0, uint64_t n, double rate)
{
	double due = t0 + (double)n / rate, left = due - now();

	if (left > 0) {
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
		nanosleep(&ts, NULL);
	}
}

static int files(const char *dir, double secs, double rate, uint64_t keep)
{
	char path[4096];
	double t0 = now();
	uint64_t n = 0;

	while (!stop && now() - t0 < secs) {
		if (rate > 0)
			pace(t0, n, rate);
		snprintf(path, sizeof(path), "%s/f%llu", dir, (unsigned long long)n);
		if (make_file(path) < 0)
			return fail("create", path);
		if (n >= keep) {
			snprintf(path, sizeof(path), "%s/f%llu", dir,
			         (unsigned long long)(n - keep));
			if (unlink(path) < 0)
				return fail("unlink", path);
		}
		n++;
	}
	secs = now() - t0;
	for (uint64_t i = n > keep ? n - keep : 0; i < n; i++) { /* the next run starts at f0 */
		snprintf(path, sizeof(path), "%s/f%llu", dir, (unsigned long long)i);
		if (unlink(path) < 0)
			return fail("unlink", path);
	}
	printf("files=%llu secs=%.3f rate=%.0f\n", (unsigned long long)n, secs, (double)n / secs);
	return 0;
}

static void tree_path(char *buf, size_t len, const char *dir, uint64_t i, char c)
{
	snprintf(buf, len, "%s/d%03llu/%c%04llu", dir, (unsigned long long)(i / PER_DIR), c,
	         (unsigned long long)(i % PER_DIR));
}

static int make_tree(const char *dir, uint64_t n)
{
	char path[4096], other[4096];

	for (uint64_t i = 0; i < n; i++) {
		if (i % PER_DIR == 0) {
			snprintf(path, sizeof(path), "%s/d%03llu", dir,
			         (unsigned long long)(i / PER_DIR));
			if (mkdir(path, 0755) < 0 && errno != EEXIST)
				return fail("mkdir", path);
		}
		tree_path(path, sizeof(path), dir, i, 'f');
		tree_path(other, sizeof(other), dir, i, 'g');
		if (access(path, F_OK) == 0 || access(other, F_OK) == 0)
			continue;
		if (make_file(path) < 0)
			return fail("create", path);
	}
	return 0;
}

static int renames(const char *dir, uint64_t n, double secs)
{
	char from[4096], to[4096];
	uint64_t done = 0;
	double t0;

	if (make_tree(dir, n))
		return 1;
	t0 = now();
	while (!stop && now() - t0 < secs) {
		uint64_t i = done % n;
		int back = (done / n) % 2;

		tree_path(from, sizeof(from), dir, i, back ? 'g' : 'f');
		tree_path(to, sizeof(to), dir, i, back ? 'f' : 'g');
		/* a file left under its other name by an earlier run: take it as is */
		if (rename(from, to) < 0 && (errno != ENOENT || access(to, F_OK) < 0))
			return fail("rename", from);
		done++;
	}
	secs = now() - t0;
	printf("renames=%llu secs=%.3f rate=%.0f\n", (unsigned long long)done, secs,
	       (double)done / secs);
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc >= 4 && strcmp(argv[1], "files") == 0)
		return files(argv[2], atof(argv[3]), argc > 4 ? atof(argv[4]) : 0,
		             argc > 5 ? strtoull(argv[5], NULL, 10) : 10000);
	if (argc == 5 && strcmp(argv[1], "rename") == 0)
		return renames(argv[2], strtoull(argv[3], NULL, 10), atof(argv[4]));
	fprintf(stderr, "usage: flood files DIR SECS [RATE [KEEP]]\n"
	                "       flood rename DIR FILES SECS\n");
	return 2;
}
