/*
 * elfcmp: pfelf against elfutils libelf, same process, same files.
 *
 *   elfcmp LISTFILE PASSES
 *       LISTFILE holds one ELF path a line. Each pass opens every file, reads
 *       every section header with its name, finds ".text" by name and
 *       closes, once with pfelf and once with libelf (alternating which goes
 *       first). Prints one line per pass and library, then the medians:
 *       "median_pfelf=S median_libelf=S speedup=X files=N sections=N".
 *   elfcmp --nommap ...
 *       The same with pfelf's pread backend (PFELF_OPEN_NOMMAP).
 *   elfcmp --one FILE NAME REPS
 *       The same work on one file, REPS times each; prints the medians in
 *       milliseconds: "one_pfelf_ms=A one_libelf_ms=B".
 *
 * Both libraries must agree on the number of sections and the sum of their
 * sizes; a disagreement is printed and fails the run, so a "fast" library
 * that skipped work cannot win.
 */
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pfelf.h"

struct tally {
	uint64_t sections;
	uint64_t bytes;
	uint64_t found; /* files where the name lookup succeeded */
	uint64_t failed;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned pfelf_flags; /* PFELF_OPEN_NOMMAP with --nommap */

static void walk_pfelf(const char *path, const char *want, struct tally *t)
{
	pfelf_file *f;
	const pfelf_shdr *sh;
	int n, i;

	if (pfelf_open(path, pfelf_flags, &f) != 0) {
		t->failed++;
		return;
	}
	n = pfelf_section_count(f);
	for (i = 1; i < n; i++) {
		if (pfelf_section(f, (uint32_t)i, &sh) == 0) {
			t->sections++;
			t->bytes += sh->size + (uint8_t)sh->name[0];
		}
	}
	if (pfelf_section_by_name(f, want, &sh) == 0)
		t->found++;
	pfelf_close(f);
}

static int libelf_find(Elf *e, size_t strndx, const char *want)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, strndx, sh.sh_name);
		if (name && strcmp(name, want) == 0)
			return 1;
	}
	return 0;
}

static void walk_libelf(const char *path, const char *want, struct tally *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	Elf_Scn *scn = NULL;
	size_t strndx;
	GElf_Shdr sh;
	Elf *e;

	e = fd < 0 ? NULL : elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &strndx) != 0) {
		t->failed++;
		goto out;
	}
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		const char *name;
		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(e, strndx, sh.sh_name);
		t->sections++;
		t->bytes += sh.sh_size + (uint8_t)(name ? name[0] : 0);
	}
	t->found += (uint64_t)libelf_find(e, strndx, want);
out:
	elf_end(e);
	if (fd >= 0)
		close(fd);
}

typedef void (*walker)(const char *, const char *, struct tally *);

static double pass(walker w, char **paths, size_t n, const char *want, struct tally *t)
{
	double t0 = now_s();
	size_t i;

	memset(t, 0, sizeof(*t));
	for (i = 0; i < n; i++)
		w(paths[i], want, t);
	return now_s() - t0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static char **read_list(const char *file, size_t *n)
{
	FILE *fp = fopen(file, "r");
	char **v = NULL, *line = NULL;
	size_t cap = 0, len = 0;
	ssize_t got;

	if (!fp)
		return NULL;
	while ((got = getline(&line, &len, fp)) > 0) {
		if (line[got - 1] == '\n')
			line[got - 1] = '\0';
		if (*n == cap) {
			cap = cap ? cap * 2 : 1024;
			v = realloc(v, cap * sizeof(*v));
			if (!v)
				exit(1);
		}
		v[(*n)++] = strdup(line);
	}
	free(line);
	fclose(fp);
	return v;
}

static int agree(const struct tally *a, const struct tally *b)
{
	if (a->sections == b->sections && a->bytes == b->bytes && a->found == b->found)
		return 1;
	fprintf(stderr,
	        "elfcmp: libraries disagree: pfelf %" PRIu64 " sections %" PRIu64 " bytes %" PRIu64
	        " found, libelf %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
	        a->sections, a->bytes, a->found, b->sections, b->bytes, b->found);
	return 0;
}

static int run_passes(char **paths, size_t n, int passes, const char *want)
{
	double *tp = calloc((size_t)passes, sizeof(double));
	double *tl = calloc((size_t)passes, sizeof(double));
	struct tally a, b;
	int i, ok = 1;

	for (i = 0; i < passes; i++) {
		if (i % 2 == 0) {
			tp[i] = pass(walk_pfelf, paths, n, want, &a);
			tl[i] = pass(walk_libelf, paths, n, want, &b);
		} else {
			tl[i] = pass(walk_libelf, paths, n, want, &b);
			tp[i] = pass(walk_pfelf, paths, n, want, &a);
		}
		printf("pass=%d pfelf=%.6f libelf=%.6f\n", i, tp[i], tl[i]);
		ok &= agree(&a, &b);
	}
	double mp = median(tp, passes), ml = median(tl, passes);
	printf("median_pfelf=%.6f median_libelf=%.6f speedup=%.3f files=%zu sections=%" PRIu64
	       " found=%" PRIu64 " failed_pfelf=%" PRIu64 " failed_libelf=%" PRIu64 "\n",
	       mp, ml, ml / mp, n, a.sections, a.found, a.failed, b.failed);
	free(tp);
	free(tl);
	return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
	char **paths;
	size_t n = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 1;
	if (argc > 1 && strcmp(argv[1], "--nommap") == 0) {
		pfelf_flags = PFELF_OPEN_NOMMAP;
		argc--;
		argv++;
	}
	if (argc == 5 && strcmp(argv[1], "--one") == 0) {
		int reps = atoi(argv[4]), i;
		double *tp = calloc((size_t)reps, sizeof(double));
		double *tl = calloc((size_t)reps, sizeof(double));
		struct tally a, b;

		for (i = 0; i < reps; i++) {
			tp[i] = pass(walk_pfelf, argv + 2, 1, argv[3], &a);
			tl[i] = pass(walk_libelf, argv + 2, 1, argv[3], &b);
		}
		printf("one_pfelf_ms=%.3f one_libelf_ms=%.3f sections=%" PRIu64 " found=%" PRIu64
		       "\n",
		       median(tp, reps) * 1e3, median(tl, reps) * 1e3, a.sections, a.found);
		return agree(&a, &b) ? 0 : 1;
	}
	if (argc != 3) {
		fprintf(stderr, "usage: elfcmp [--nommap] LISTFILE PASSES\n"
		                "       elfcmp [--nommap] --one FILE NAME REPS\n");
		return 2;
	}
	paths = read_list(argv[1], &n);
	if (!paths || n == 0 || atoi(argv[2]) < 1)
		return 2;
	return run_passes(paths, n, atoi(argv[2]), ".text");
}
