/*
 * readbench: the read loads of the benchmark suite, timed in-process so that
 * no process start-up is measured.
 *
 *   readbench seq FILE OFF LEN BS
 *       pread(2) [OFF, OFF+LEN) of FILE in BS-byte requests, in order.
 *       Prints "bytes=N secs=S mbps=M".
 *   readbench rand FILE OFF LEN BS THREADS COUNT SEED [direct]
 *       THREADS threads each pread COUNT random BS-aligned blocks of
 *       [OFF, OFF+LEN) (O_DIRECT with "direct"). Prints per-read latency
 *       percentiles over all reads and the aggregate rate:
 *       "reads=N secs=S p50_us=A p99_us=B iops=I mbps=M".
 *   readbench resident FILE
 *       Percent of FILE's pages in the page cache (mincore). "resident_pct=P".
 *   readbench evict FILE
 *       posix_fadvise(POSIX_FADV_DONTNEED) on all of FILE (drops its clean
 *       pages from the page cache where the file system allows it).
 *   readbench heads THREADS
 *       Reads records "TYPE SIZE PATH\0" from stdin (find's -printf
 *       '%y %s %p\0', so find has taken an lstat of each entry) and, for
 *       every regular file, opens it, reads its first 64 bytes (after
 *       POSIX_FADV_RANDOM: one page, no readahead) and closes it, THREADS
 *       at a time while find still lists: the I/O a first walk of elffs
 *       cannot avoid (SPEC: a regular file that is not ELF is left out, so
 *       each is read), outside FUSE. "entries=N files=F unreadable=U
 *       secs=S" (F counts the U files that could not be opened or read:
 *       not fatal); exit 1 when stdin could not be read to its end.
 *
 * Every read is checked: a short read or an error fails the run (exit 1).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

struct rand_job {
	int fd;
	uint64_t off;
	uint64_t blocks;
	size_t bs;
	uint64_t count;
	uint64_t seed;
	uint64_t *lat_ns; /* count entries */
	int err;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	if (*end == 'K' || *end == 'k')
		v <<= 10;
	else if (*end == 'M' || *end == 'm')
		v <<= 20;
	else if (*end == 'G' || *end == 'g')
		v <<= 30;
	return v;
}

static void *xalloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 1) != 0) {
		fprintf(stderr, "readbench: out of memory\n");
		exit(1);
	}
	memset(p, 0, len);
	return p;
}

static int open_or_die(const char *path, int flags)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | flags);

	if (fd < 0) {
		fprintf(stderr, "readbench: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static int full_pread(int fd, char *buf, size_t len, uint64_t off)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(fd, buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		done += (size_t)n;
	}
	return 0;
}

static int cmd_seq(char **av)
{
	uint64_t off = num(av[1]), len = num(av[2]), pos, t0, t1;
	size_t bs = (size_t)num(av[3]);
	int fd = open_or_die(av[0], 0);
	char *buf = xalloc(bs);

	if (bs == 0)
		return 2;
	t0 = now_ns();
	for (pos = 0; pos < len; pos += bs) {
		size_t n = len - pos < bs ? (size_t)(len - pos) : bs;
		int ret = full_pread(fd, buf, n, off + pos);
		if (ret < 0) {
			fprintf(stderr, "readbench: read at %" PRIu64 ": %s\n", off + pos,
			        strerror(-ret));
			return 1;
		}
	}
	t1 = now_ns();
	printf("bytes=%" PRIu64 " secs=%.6f mbps=%.1f\n", len, (t1 - t0) / 1e9,
	       len / ((t1 - t0) / 1e9) / 1e6);
	close(fd);
	free(buf);
	return 0;
}

/* splitmix64: a fast, seedable, well-spread generator for block numbers. */
static uint64_t next_rand(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15u);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
	return z ^ (z >> 31);
}

static void *rand_worker(void *arg)
{
	struct rand_job *j = arg;
	char *buf = xalloc(j->bs);
	uint64_t i;

	for (i = 0; i < j->count; i++) {
		uint64_t blk = next_rand(&j->seed) % j->blocks;
		uint64_t t0 = now_ns();
		int ret = full_pread(j->fd, buf, j->bs, j->off + blk * j->bs);

		j->lat_ns[i] = now_ns() - t0;
		if (ret < 0) {
			j->err = -ret;
			break;
		}
	}
	free(buf);
	return NULL;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int rand_report(struct rand_job *jobs, unsigned threads, uint64_t elapsed)
{
	uint64_t total = jobs[0].count * threads, i, k = 0;
	uint64_t *all = malloc(total * sizeof(*all));
	unsigned t;

	if (!all)
		return 1;
	for (t = 0; t < threads; t++) {
		if (jobs[t].err) {
			fprintf(stderr, "readbench: random read: %s\n", strerror(jobs[t].err));
			return 1;
		}
		for (i = 0; i < jobs[t].count; i++)
			all[k++] = jobs[t].lat_ns[i];
	}
	qsort(all, total, sizeof(*all), cmp_u64);
	printf("reads=%" PRIu64 " secs=%.6f p50_us=%.2f p99_us=%.2f iops=%.0f mbps=%.1f\n", total,
	       elapsed / 1e9, all[total / 2] / 1e3, all[total * 99 / 100] / 1e3,
	       total / (elapsed / 1e9), total * jobs[0].bs / (elapsed / 1e9) / 1e6);
	free(all);
	return 0;
}

static int cmd_rand(char **av, int ac)
{
	uint64_t off = num(av[1]), len = num(av[2]), t0, elapsed;
	size_t bs = (size_t)num(av[3]);
	unsigned threads = (unsigned)num(av[4]), t;
	uint64_t count = num(av[5]), seed = num(av[6]);
	int direct = ac > 7 && strcmp(av[7], "direct") == 0;
	int fd = open_or_die(av[0], direct ? O_DIRECT : 0);
	struct rand_job *jobs = calloc(threads, sizeof(*jobs));
	pthread_t *tids = calloc(threads, sizeof(*tids));
	int ret;

	if (!jobs || !tids || bs == 0 || len < bs || threads == 0)
		return 2;
	for (t = 0; t < threads; t++) {
		jobs[t] = (struct rand_job){fd, off, len / bs, bs, count, seed * 1000 + t, NULL, 0};
		jobs[t].lat_ns = xalloc(count * sizeof(uint64_t));
	}
	t0 = now_ns();
	for (t = 0; t < threads; t++)
		pthread_create(&tids[t], NULL, rand_worker, &jobs[t]);
	for (t = 0; t < threads; t++)
		pthread_join(tids[t], NULL);
	elapsed = now_ns() - t0;
	ret = rand_report(jobs, threads, elapsed);
	for (t = 0; t < threads; t++)
		free(jobs[t].lat_ns);
	free(jobs);
	free(tids);
	close(fd);
	return ret;
}

static int cmd_resident(const char *path)
{
	int fd = open_or_die(path, 0);
	struct stat st;
	long page = sysconf(_SC_PAGESIZE);
	size_t pages, i, in = 0;
	unsigned char *vec;
	void *m;

	if (fstat(fd, &st) != 0 || st.st_size == 0) {
		printf("resident_pct=0\n");
		return 0;
	}
	pages = ((size_t)st.st_size + (size_t)page - 1) / (size_t)page;
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	vec = malloc(pages);
	if (m == MAP_FAILED || !vec || mincore(m, (size_t)st.st_size, vec) != 0) {
		fprintf(stderr, "readbench: mincore %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 0; i < pages; i++)
		in += vec[i] & 1;
	printf("resident_pct=%.1f\n", 100.0 * (double)in / (double)pages);
	munmap(m, (size_t)st.st_size);
	free(vec);
	close(fd);
	return 0;
}

static int cmd_evict(const char *path)
{
	int fd = open_or_die(path, 0);
	int ret = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);

	close(fd);
	if (ret != 0)
		fprintf(stderr, "readbench: fadvise %s: %s\n", path, strerror(ret));
	return ret ? 1 : 0;
}

/* ---------------------------------------------------------------- heads */

struct heads_queue {
	pthread_mutex_t lock;
	pthread_cond_t nonempty; /* a path queued, or done */
	pthread_cond_t nonfull;  /* a place freed */
	char **paths;            /* ring of cap */
	size_t cap, head, count;
	bool done;
	uint64_t files, unreadable;
};

static void *heads_worker(void *arg)
{
	struct heads_queue *q = arg;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		while (q->count == 0 && !q->done)
			pthread_cond_wait(&q->nonempty, &q->lock);
		if (q->count == 0) {
			pthread_mutex_unlock(&q->lock);
			return NULL;
		}
		char *path = q->paths[q->head];
		q->head = (q->head + 1) % q->cap;
		q->count--;
		pthread_cond_signal(&q->nonfull);
		pthread_mutex_unlock(&q->lock);
		char buf[64];
		int fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
		bool ok = false;
		if (fd >= 0) {
			posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM);
			ok = pread(fd, buf, sizeof(buf), 0) >= 0;
			close(fd);
		}
		free(path);
		pthread_mutex_lock(&q->lock);
		q->files++;
		q->unreadable += !ok;
		pthread_mutex_unlock(&q->lock);
	}
}

static void heads_push(struct heads_queue *q, char *path)
{
	pthread_mutex_lock(&q->lock);
	while (q->count == q->cap)
		pthread_cond_wait(&q->nonfull, &q->lock);
	q->paths[(q->head + q->count) % q->cap] = path;
	q->count++;
	pthread_cond_signal(&q->nonempty);
	pthread_mutex_unlock(&q->lock);
}

static int cmd_heads(const char *threads_arg)
{
	unsigned threads = (unsigned)num(threads_arg);
	if (threads == 0 || threads > 1024) {
		fprintf(stderr, "readbench: THREADS must be 1..1024\n");
		return 2;
	}
	struct heads_queue q = {.lock = PTHREAD_MUTEX_INITIALIZER,
	                        .nonempty = PTHREAD_COND_INITIALIZER,
	                        .nonfull = PTHREAD_COND_INITIALIZER,
	                        .cap = 4096};
	q.paths = xalloc(q.cap * sizeof(*q.paths));
	pthread_t *tids = xalloc(threads * sizeof(*tids));
	uint64_t t0 = now_ns(), entries = 0;
	bool failed = false;
	for (unsigned i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, heads_worker, &q) != 0) {
			fprintf(stderr, "readbench: pthread_create failed\n");
			return 1;
		}
	char *rec = NULL;
	size_t cap = 0;
	ssize_t len;
	while ((len = getdelim(&rec, &cap, '\0', stdin)) > 0) {
		entries++;
		char *sp = len > 2 && rec[1] == ' ' ? strchr(rec + 2, ' ') : NULL;
		char *path = rec[0] == 'f' && sp ? strdup(sp + 1) : NULL;
		if (path)
			heads_push(&q, path);
		else if (rec[0] == 'f' && sp)
			failed = true; /* no memory */
	}
	failed |= ferror(stdin) != 0;
	free(rec);
	pthread_mutex_lock(&q.lock);
	q.done = true;
	pthread_cond_broadcast(&q.nonempty);
	pthread_mutex_unlock(&q.lock);
	for (unsigned i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	printf("entries=%" PRIu64 " files=%" PRIu64 " unreadable=%" PRIu64 " secs=%.6f\n", entries,
	       q.files, q.unreadable, (double)(now_ns() - t0) / 1e9);
	free(tids);
	free(q.paths);
	if (failed)
		fprintf(stderr, "readbench: reading the records failed\n");
	return failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 6 && strcmp(argv[1], "seq") == 0)
		return cmd_seq(argv + 2);
	if (argc >= 9 && strcmp(argv[1], "rand") == 0)
		return cmd_rand(argv + 2, argc - 2);
	if (argc == 3 && strcmp(argv[1], "resident") == 0)
		return cmd_resident(argv[2]);
	if (argc == 3 && strcmp(argv[1], "evict") == 0)
		return cmd_evict(argv[2]);
	if (argc == 3 && strcmp(argv[1], "heads") == 0)
		return cmd_heads(argv[2]);
	fprintf(stderr, "usage: readbench seq FILE OFF LEN BS\n"
	                "       readbench rand FILE OFF LEN BS THREADS COUNT SEED [direct]\n"
	                "       readbench resident FILE | evict FILE\n"
	                "       readbench heads THREADS < find-printf-records\n");
	return 2;
}
