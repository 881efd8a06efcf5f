/*
 * Concurrency: 8 threads read through one handle (random ranges through
 * every data call, verified against a pread copy, plus table lookups that
 * race on the first load) while other threads open and close handles of
 * the same file. Meant to run clean under ASan+UBSan (and TSan).
 */
#include "backends.h"
#include "readelf_parse.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READERS 8
#define OPENERS 3

struct shared {
	const char *path;
	enum tb_backend backend;
	pfelf_file *f;        /* the one handle the readers share */
	const uint8_t *bytes; /* pread copy of the file */
	size_t size;
	struct re_file rf; /* readelf's tables, for lookups */
	uint32_t *lowest;  /* lowest index per readelf section name */
	pthread_barrier_t start;
	atomic_bool stop;
	atomic_ulong ops, errors;
	double seconds;
};

static void error(struct shared *s, const char *what, long long ret)
{
	if (atomic_fetch_add(&s->errors, 1) < 20)
		printf("# %s: %s returned %lld (%s)\n", tb_backend_label(s->backend), what, ret,
		       tb_errname(ret));
}

static void read_ops(struct shared *s, uint64_t *seed, uint8_t *buf)
{
	uint64_t off = tb_rand(seed) % (s->size + 1);
	size_t len = (size_t)(tb_rand(seed) % (s->size - off + 1)) % 20000;
	pfelf_ref ref;
	pfelf_view v;
	ssize_t n;
	int ret;

	n = pfelf_read(s->f, off, buf, len);
	if (n != (ssize_t)len || memcmp(buf, s->bytes + off, len))
		error(s, "pfelf_read", n);
	ret = pfelf_get_ref(s->f, off, len, &ref);
	if (ret != 0 || ref.len != len) {
		error(s, "pfelf_get_ref", ret);
	} else if (ref.ptr) {
		if (memcmp(ref.ptr, s->bytes + off, len))
			error(s, "pfelf_get_ref bytes", 0);
	} else if (pread(ref.fd, buf, len, (off_t)ref.pos) != (ssize_t)len ||
	           memcmp(buf, s->bytes + off, len)) {
		error(s, "pfelf_get_ref pread", 0);
	}
	ret = pfelf_view_get(s->f, off, len, tb_rand(seed) & 1 ? PFELF_VIEW_COPY : 0, &v);
	if (ret != 0 || v.len != len || memcmp(v.data, s->bytes + off, len))
		error(s, "pfelf_view_get", ret);
	pfelf_view_release(&v);
}

static void table_ops(struct shared *s, uint64_t *seed)
{
	const pfelf_shdr *sh;
	const pfelf_phdr *ph;
	const char *name;
	uint8_t buf[64];

	if (s->rf.nsec) {
		size_t i = tb_rand(seed) % s->rf.nsec;
		const struct re_section *r = &s->rf.sec[i];
		int ret = pfelf_section(s->f, r->index, &sh);

		if (ret != 0 || sh->offset != r->off || strcmp(sh->name, r->name))
			error(s, "pfelf_section", ret);
		ret = pfelf_section_by_name(s->f, r->name, &sh);
		if (ret != 0 || sh->index != s->lowest[i])
			error(s, "pfelf_section_by_name", ret);
		ret = pfelf_section_name(s->f, r->index, &name);
		if (ret != 0 || strcmp(name, r->name))
			error(s, "pfelf_section_name", ret);
	}
	if (s->rf.nseg) {
		size_t i = tb_rand(seed) % s->rf.nseg;
		const struct re_segment *r = &s->rf.seg[i];
		int ret = pfelf_segment(s->f, (uint32_t)i, &ph);

		if (ret != 0 || ph->vaddr != r->vaddr || ph->filesz != r->filesz)
			error(s, "pfelf_segment", ret);
		if (!strcmp(r->type, "LOAD") && r->filesz) {
			uint64_t in = tb_rand(seed) % r->filesz;
			size_t len = (size_t)(r->filesz - in < sizeof(buf) ? r->filesz - in
			                                                   : sizeof(buf));
			ssize_t n = pfelf_read_vaddr(s->f, r->vaddr + in, buf, len);

			if (n != (ssize_t)len || memcmp(buf, s->bytes + r->off + in, len))
				error(s, "pfelf_read_vaddr", n);
		}
	}
}

static void *reader(void *arg)
{
	struct shared *s = arg;
	uint64_t seed = tb_seed() ^ (uint64_t)(uintptr_t)&seed;
	uint8_t *buf = malloc(20000);

	pthread_barrier_wait(&s->start);
	/* all readers hit the unloaded tables at once first */
	table_ops(s, &seed);
	while (!atomic_load(&s->stop)) {
		read_ops(s, &seed, buf);
		table_ops(s, &seed);
		if ((tb_rand(&seed) & 63) == 0)
			pfelf_advise(s->f, 0, 0, PFELF_ADVICE_WILLNEED);
		atomic_fetch_add(&s->ops, 1);
	}
	free(buf);
	return NULL;
}

static void *opener(void *arg)
{
	struct shared *s = arg;
	uint64_t seed = tb_seed() ^ (uint64_t)(uintptr_t)&seed;
	uint8_t buf[256];

	pthread_barrier_wait(&s->start);
	while (!atomic_load(&s->stop)) {
		struct tb_handle h;
		int ret = tb_open(s->path, (tb_rand(&seed) % 3 == 0) ? TB_PREAD : TB_MMAP, &h);
		pfelf_view v;

		if (ret != 0) {
			error(s, "open", ret);
			continue;
		}
		if (pfelf_section_count(h.f) != (int)s->rf.nsec)
			error(s, "pfelf_section_count (opener)", pfelf_section_count(h.f));
		if (pfelf_read(h.f, s->size - sizeof(buf), buf, sizeof(buf)) != sizeof(buf) ||
		    memcmp(buf, s->bytes + s->size - sizeof(buf), sizeof(buf)))
			error(s, "pfelf_read (opener)", 0);
		/* a view that outlives its handle, released later */
		ret = pfelf_view_get(h.f, 0, 64, 0, &v);
		tb_close(&h);
		if (ret != 0 || memcmp(v.data, s->bytes, 64))
			error(s, "pfelf_view_get (opener)", ret);
		pfelf_view_release(&v);
		atomic_fetch_add(&s->ops, 1);
	}
	return NULL;
}

static void run(enum tb_backend b, const char *name, double seconds)
{
	struct shared s = {0};
	pthread_t t[READERS + OPENERS];
	struct tb_handle h;
	size_t size;
	pfelf_registry_stats before, after;
	double t0;

	s.path = tb_fixture(name);
	s.backend = b;
	(void)tb_seed(); /* initialised here, before the threads read it */
	s.bytes = tb_slurp(s.path, &size);
	s.size = size;
	re_load(s.path, &s.rf);
	s.lowest = re_lowest_by_name(&s.rf);
	pfelf_registry_stats_get(&before);
	tb_open_ok(s.path, b, &h);
	s.f = h.f;
	pthread_barrier_init(&s.start, NULL, READERS + OPENERS + 1);
	for (int i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reader, &s), 0);
	for (int i = 0; i < OPENERS; i++)
		assert_int_equal(pthread_create(&t[READERS + i], NULL, opener, &s), 0);
	pthread_barrier_wait(&s.start);
	t0 = tb_now();
	while (tb_now() - t0 < seconds)
		usleep(20000);
	atomic_store(&s.stop, true);
	for (int i = 0; i < READERS + OPENERS; i++)
		pthread_join(t[i], NULL);
	tb_close(&h);
	pfelf_registry_stats_get(&after);
	printf("# %s on %s: %lu operations in %.1f s, %lu errors\n", tb_backend_label(b), name,
	       atomic_load(&s.ops), tb_now() - t0, atomic_load(&s.errors));
	assert_int_equal(atomic_load(&s.errors), 0);
	assert_true(atomic_load(&s.ops) > 100);
	assert_int_equal(after.mappings, before.mappings);
	assert_int_equal(after.handles, before.handles);
	pthread_barrier_destroy(&s.start);
	re_file_free(&s.rf);
	free(s.lowest);
	free((void *)s.bytes);
}

static void test_concurrency(void **state)
{
	enum tb_backend b = TB_STATE_BACKEND(state);

	run(b, "libshared.so", b == TB_MMAP ? 2.0 : 1.0);
	run(b, "armhf-libc.so.6", 0.5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        TB_BACKEND_TESTS(test_concurrency),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
