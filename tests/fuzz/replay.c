/*
 * Replay runner: runs one fuzz target's LLVMFuzzerTestOneInput over files
 * without libFuzzer, so that `meson test --suite fuzz` replays the corpus,
 * the regressions, the test fixtures and a few system ELF files in every
 * build (gcc, release and ASan+UBSan).
 *
 *   replay [--mutants N] PATH...
 *
 * PATH is a file or a directory (walked recursively, dot files and README*
 * left out). The directory named by $ELFFS_FIXTURES, when set, is added.
 * With --mutants N and a target that has a custom mutator (fuzz_structure),
 * each input of at most 64 KiB is also mutated N times (seeded by its name,
 * so every run replays the same mutants) and each mutant is run as well.
 *
 * Exits 0 when every input ran, 1 when a path is missing or nothing ran, 2
 * on bad usage; a finding aborts (the sanitizers' or walk.c's report), after
 * naming the input and saving a crashing mutant as replay-crash-mutant in
 * the working directory. An input that runs longer than $ELFFS_REPLAY_LIMIT
 * seconds (default 60; a hang) aborts the same way.
 */
#include "fuzz.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define REPLAY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REPLAY_SANITIZED 1
#endif
#endif
#ifdef REPLAY_SANITIZED
#include <sanitizer/common_interface_defs.h>
#endif

/* Defined only by some targets. */
extern int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
extern size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
                                      unsigned int seed) __attribute__((weak));

#define REPLAY_MAX_INPUT ((size_t)256 << 20)
#define MUTANT_MAX       ((size_t)64 << 10) /* as scripts/fuzz's -max_len */
#define CHAIN            4                  /* mutants mutated further before restarting */
#define REPLAY_LIMIT     60                 /* default seconds per input ($ELFFS_REPLAY_LIMIT) */

static struct {
	unsigned long files, mutants;
	unsigned mutants_per_input;
	unsigned limit; /* seconds one input may take */
	/* What runs now, for the crash report. */
	char current[4096];
	const uint8_t *mutant;
	size_t mutant_len;
} run;

static uint64_t mut_state = 1;

/* libFuzzer's byte-level mutator is not here: a small stand-in. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	mut_state ^= mut_state << 13;
	mut_state ^= mut_state >> 7;
	mut_state ^= mut_state << 17;
	uint64_t r = mut_state;
	if (size == 0)
		return 0;
	switch (r % 4) {
	case 0: /* flip a bit */
		data[(r >> 8) % size] ^= (uint8_t)(1u << ((r >> 4) % 8));
		return size;
	case 1: /* set a byte */
		data[(r >> 8) % size] = (uint8_t)(r >> 40);
		return size;
	case 2: /* cut */
		return (size_t)((r >> 8) % size);
	default: /* copy a run of bytes elsewhere */
	{
		size_t from = (r >> 8) % size, to = (r >> 24) % size;
		size_t n = (size_t)((r >> 40) % 64);
		if (n > size - from)
			n = size - from;
		if (n > size - to)
			n = size - to;
		memmove(data + to, data + from, n);
		return size;
	}
	}
}

static void say(const char *s)
{
	ssize_t r = write(2, s, strlen(s));
	(void)r;
}

/* Name the input that failed; keep a mutant that did (async-signal-safe). */
static void report_crash(void)
{
	static volatile sig_atomic_t reported;
	if (reported)
		return;
	reported = 1;
	say("replay: FAILED on input: ");
	say(run.current);
	say("\n");
	if (!run.mutant)
		return;
	int fd = open("replay-crash-mutant", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t r = write(fd, run.mutant, run.mutant_len);
		(void)r;
		close(fd);
		say("replay: the mutant is saved as replay-crash-mutant in the working "
		    "directory\n");
	}
}

/* An input that runs this long is a hang: name it and abort. */
static void on_alarm(int sig)
{
	say("replay: input still running after the per-input limit: a hang\n");
	report_crash();
	signal(SIGABRT, SIG_DFL);
	abort();
}

static void on_signal(int sig)
{
	report_crash();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void install_reporting(void)
{
	signal(SIGALRM, on_alarm);
#ifdef REPLAY_SANITIZED
	/* The sanitizers handle SIGSEGV and friends themselves. */
	__sanitizer_set_death_callback(report_crash);
	signal(SIGABRT, on_signal);
#else
	int sigs[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL};
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], on_signal);
#endif
}

static uint8_t *read_file(const char *path, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0 || (size_t)st.st_size > REPLAY_MAX_INPUT) {
		fprintf(stderr, "replay: %s: cannot read (%s)\n", path, strerror(errno));
		exit(1);
	}
	/* Exactly the file's size, so that the sanitizers see any overread. */
	uint8_t *buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	size_t done = 0;
	while (buf && done < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);
		if (n <= 0) {
			fprintf(stderr, "replay: %s: short read\n", path);
			exit(1);
		}
		done += (size_t)n;
	}
	close(fd);
	if (!buf)
		exit(1);
	*len = done;
	return buf;
}

static unsigned name_seed(const char *path)
{
	const char *base = strrchr(path, '/');
	uint32_t h = 2166136261u;
	for (const char *s = base ? base + 1 : path; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static void run_mutants(const char *path, const uint8_t *data, size_t len)
{
	uint8_t *buf = malloc(MUTANT_MAX);
	if (!buf)
		exit(1);
	unsigned seed = name_seed(path);
	size_t cur = 0;
	for (unsigned k = 0; k < run.mutants_per_input; k++) {
		if (k % CHAIN == 0) {
			memcpy(buf, data, len);
			cur = len;
		}
		mut_state = (uint64_t)seed * 2654435761u + k + 1;
		cur = LLVMFuzzerCustomMutator(buf, cur, MUTANT_MAX, seed + k);
		uint8_t *exact = malloc(cur ? cur : 1);
		if (!exact)
			exit(1);
		memcpy(exact, buf, cur);
		snprintf(run.current, sizeof(run.current), "%s (mutant %u)", path, k);
		run.mutant = exact;
		run.mutant_len = cur;
		alarm(run.limit);
		LLVMFuzzerTestOneInput(exact, cur);
		alarm(0);
		run.mutant = NULL;
		free(exact);
		run.mutants++;
	}
	free(buf);
}

static void run_file(const char *path)
{
	size_t len;
	uint8_t *data = read_file(path, &len);
	snprintf(run.current, sizeof(run.current), "%s", path);
	alarm(run.limit);
	LLVMFuzzerTestOneInput(data, len);
	alarm(0);
	run.files++;
	if (run.mutants_per_input && LLVMFuzzerCustomMutator && len <= MUTANT_MAX)
		run_mutants(path, data, len);
	free(data);
}

static int skip_name(const char *name)
{
	return name[0] == '.' || strncmp(name, "README", 6) == 0;
}

static void run_path(const char *path);

static void run_dir(const char *path)
{
	struct dirent **ents;
	int n = scandir(path, &ents, NULL, alphasort);
	if (n < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	for (int i = 0; i < n; i++) {
		if (!skip_name(ents[i]->d_name)) {
			char sub[4096];
			snprintf(sub, sizeof(sub), "%s/%s", path, ents[i]->d_name);
			run_path(sub);
		}
		free(ents[i]);
	}
	free(ents);
}

static void run_path(const char *path)
{
	struct stat st;
	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	if (S_ISDIR(st.st_mode))
		run_dir(path);
	else if (S_ISREG(st.st_mode))
		run_file(path);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void run_top(const char *path)
{
	unsigned long before = run.files, mbefore = run.mutants;
	double t0 = now();
	run_path(path);
	printf("replay: %-60s %5lu files %6lu mutants %7.2f s\n", path, run.files - before,
	       run.mutants - mbefore, now() - t0);
	if (run.files == before) {
		fprintf(stderr, "replay: %s: no input in it\n", path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	int i = 1;
	if (i + 1 < argc && strcmp(argv[i], "--mutants") == 0) {
		run.mutants_per_input = (unsigned)strtoul(argv[i + 1], NULL, 10);
		i += 2;
	}
	if (i >= argc && !getenv("ELFFS_FIXTURES")) {
		fprintf(stderr, "usage: %s [--mutants N] PATH...\n", argv[0]);
		return 2;
	}
	const char *lim = getenv("ELFFS_REPLAY_LIMIT");
	run.limit = lim && *lim ? (unsigned)strtoul(lim, NULL, 10) : REPLAY_LIMIT;
	setvbuf(stdout, NULL, _IOLBF, 0);
	install_reporting();
	if (LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
	double t0 = now();
	for (; i < argc; i++)
		run_top(argv[i]);
	const char *fx = getenv("ELFFS_FIXTURES");
	if (fx && *fx)
		run_top(fx);
	printf("replay: %lu files and %lu mutants run, no finding, %.2f s\n", run.files,
	       run.mutants, now() - t0);
	return 0;
}
