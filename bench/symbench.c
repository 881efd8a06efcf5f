/*
 * symbench: how fast is a dynamic-symbol lookup by name?
 *
 * For every file of a list (one path a line) that has dynamic symbols, the
 * names of its defined dynamic symbols (at most NAMES_PER_FILE of them) are
 * looked up three ways, in the same process, on the same names:
 *   hash:   pfelf_symbol_lookup (DT_GNU_HASH, else DT_HASH)
 *   scan:   a linear scan of pfelf_symbol over .dynsym, comparing names
 *   libelf: a linear scan with elfutils' gelf_getsym + elf_strptr, which is
 *           how a libelf user finds a symbol without a hash table of its own
 * Handles are opened once, outside the timing. Prints the median of PASSES
 * passes of each (ns per lookup) and the ratios; every way must find every
 * name (the run fails otherwise).
 * usage: symbench LISTFILE PASSES
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pfelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NAMES_PER_FILE 64
#define MAX_FILES      4096

struct target {
	pfelf_file *f;
	Elf *e;
	int fd;
	Elf_Scn *dynsym;
	size_t strndx, nsyms;
	char *names[NAMES_PER_FILE];
	unsigned nnames;
};

static struct target t[MAX_FILES];
static unsigned nt;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void pick_names(struct target *x)
{
	int n = pfelf_symbol_count(x->f, PFELF_DYNSYM);
	unsigned step = n > NAMES_PER_FILE ? (unsigned)n / NAMES_PER_FILE : 1;
	for (int i = 1; i < n && x->nnames < NAMES_PER_FILE; i += (int)step) {
		pfelf_sym s;
		if (pfelf_symbol(x->f, PFELF_DYNSYM, (uint32_t)i, &s) == 0 && s.name[0] &&
		    s.shndx != 0 && s.shndx < 0xff00)
			x->names[x->nnames++] = strdup(s.name);
	}
}

static int open_libelf(struct target *x, const char *path)
{
	x->fd = open(path, O_RDONLY | O_CLOEXEC);
	x->e = x->fd >= 0 ? elf_begin(x->fd, ELF_C_READ_MMAP, NULL) : NULL;
	Elf_Scn *scn = NULL;
	while (x->e && (scn = elf_nextscn(x->e, scn))) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNSYM && sh.sh_entsize) {
			x->dynsym = scn;
			x->strndx = sh.sh_link;
			x->nsyms = sh.sh_size / sh.sh_entsize;
			return 0;
		}
	}
	return -1;
}

static void load(const char *path)
{
	struct target *x = &t[nt];
	memset(x, 0, sizeof(*x));
	if (pfelf_open(path, 0, &x->f) < 0)
		return;
	pick_names(x);
	if (x->nnames == 0 || open_libelf(x, path) < 0) {
		pfelf_close(x->f);
		if (x->e)
			elf_end(x->e);
		if (x->fd >= 0)
			close(x->fd);
		for (unsigned i = 0; i < x->nnames; i++)
			free(x->names[i]);
		return;
	}
	nt++;
}

static int way_hash(struct target *x, const char *name)
{
	pfelf_sym s;
	return pfelf_symbol_lookup(x->f, name, &s) == 0;
}

static int way_scan(struct target *x, const char *name)
{
	int n = pfelf_symbol_count(x->f, PFELF_DYNSYM);
	for (int i = 1; i < n; i++) {
		pfelf_sym s;
		if (pfelf_symbol(x->f, PFELF_DYNSYM, (uint32_t)i, &s) == 0 &&
		    strcmp(s.name, name) == 0)
			return 1;
	}
	return 0;
}

static int way_libelf(struct target *x, const char *name)
{
	Elf_Data *d = elf_getdata(x->dynsym, NULL);
	for (size_t i = 1; d && i < x->nsyms; i++) {
		GElf_Sym s;
		const char *n;
		if (gelf_getsym(d, (int)i, &s) && (n = elf_strptr(x->e, x->strndx, s.st_name)) &&
		    strcmp(n, name) == 0)
			return 1;
	}
	return 0;
}

/* One pass of one way over every name: ns per lookup; exits when a name is missed. */
static double pass(int (*way)(struct target *, const char *), const char *label)
{
	unsigned long lookups = 0;
	double t0 = now();
	for (unsigned i = 0; i < nt; i++)
		for (unsigned k = 0; k < t[i].nnames; k++, lookups++)
			if (!way(&t[i], t[i].names[k])) {
				fprintf(stderr, "symbench: %s missed a name\n", label);
				exit(1);
			}
	return (now() - t0) * 1e9 / (double)lookups;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: symbench LISTFILE PASSES\n");
		return 2;
	}
	elf_version(EV_CURRENT);
	FILE *list = fopen(argv[1], "r");
	char line[4096];
	while (list && nt < MAX_FILES && fgets(line, sizeof(line), list)) {
		line[strcspn(line, "\n")] = 0;
		if (line[0])
			load(line);
	}
	int passes = atoi(argv[2]);
	if (!list || nt == 0 || passes < 1 || passes > 99) {
		fprintf(stderr, "symbench: no usable files or bad PASSES\n");
		return 2;
	}
	unsigned long names = 0;
	for (unsigned i = 0; i < nt; i++)
		names += t[i].nnames;
	double h[99], s[99], l[99];
	for (int p = 0; p < passes; p++) { /* interleaved, so load hits all alike */
		h[p] = pass(way_hash, "hash");
		s[p] = pass(way_scan, "scan");
		l[p] = pass(way_libelf, "libelf");
	}
	qsort(h, (size_t)passes, sizeof(double), cmp_double);
	qsort(s, (size_t)passes, sizeof(double), cmp_double);
	qsort(l, (size_t)passes, sizeof(double), cmp_double);
	double mh = h[passes / 2], ms = s[passes / 2], ml = l[passes / 2];
	printf("files=%u names=%lu passes=%d\n", nt, names, passes);
	printf("hash_ns=%.1f scan_ns=%.1f libelf_scan_ns=%.1f\n", mh, ms, ml);
	printf("speedup_vs_scan=%.1f speedup_vs_libelf=%.1f\n", ms / mh, ml / mh);
	return 0;
}
