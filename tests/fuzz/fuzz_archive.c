/*
 * libFuzzer target: the input as an ar archive, opened three ways (the
 * caller's buffer, and a memfd through pfelf_archive_open of its path,
 * mmap, and pfelf_archive_open_fd with PFELF_OPEN_NOMMAP, pread). Checked:
 *  - the open: -ENOEXEC exactly without the magic;
 *  - members in file order, headers and bytes inside the input and not
 *    overlapping, names NUL-ended, bytes read back equal to the input;
 *    skipped headers with a reason; every backend lists the same;
 *  - the symbol index: every entry names the member whose header it gives
 *    (or PFELF_AR_NO_MEMBER exactly when no listed member starts there);
 *  - members opened as ELF (the first 8 that hold the magic): the same
 *    answer as pfelf_open_memory of their bytes; on the memory backend the
 *    whole walk (walk.c) over the member's bytes, on mmap and pread every
 *    section and segment header equal to the memory handle's and the bytes
 *    of each in-file section read back equal to the input, references
 *    inside the archive's;
 *  - afterwards the mapping registry is empty.
 */
#include "fuzz.h"
#include "walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELF_MEMBERS 8

static struct walk_memfd input = {.fd = -1};

static void setup(void)
{
	if (input.fd >= 0)
		return;
	walk_memfd_open(&input, "pfelf-fuzz-ar");
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setup();
	return 0;
}

/* The member starting at header offset off, by binary search. */
static int member_at(pfelf_archive *a, uint32_t n, uint64_t off)
{
	uint32_t lo = 0, hi = n;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		pfelf_ar_member m;
		WALK_CHECK(pfelf_archive_member(a, mid, &m) == 0);
		if (m.header_offset < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	pfelf_ar_member m;
	return lo < n && pfelf_archive_member(a, lo, &m) == 0 && m.header_offset == off ? (int)lo
	                                                                                : -1;
}

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = mix(h, (uint8_t)*s);
	return mix(h, 0);
}

/* A member on mmap or pread against the same member on memory. */
static uint64_t compare_member(pfelf_file *f, pfelf_file *g, pfelf_archive *a,
                               const pfelf_ar_member *m, const uint8_t *bytes)
{
	uint64_t h = 0;
	WALK_CHECK(pfelf_size(f) == m->size);
	int ns = pfelf_section_count(f);
	WALK_CHECK(ns == pfelf_section_count(g));
	h = mix(h, (uint64_t)ns);
	pfelf_ref whole;
	WALK_CHECK(pfelf_archive_get_ref(a, m->offset, m->size, &whole) == 0);
	uint8_t *buf = NULL;
	for (int i = 0; i < ns; i++) {
		const pfelf_shdr *s, *t;
		WALK_CHECK(pfelf_section(f, (uint32_t)i, &s) == 0);
		WALK_CHECK(pfelf_section(g, (uint32_t)i, &t) == 0);
		WALK_CHECK(s->offset == t->offset && s->size == t->size && s->type == t->type &&
		           s->status == t->status && strcmp(s->name, t->name) == 0);
		h = mix(mix(mix_str(h, s->name), s->offset), s->size);
		if (s->type == 8 || (s->status & PFELF_ST_OUT_OF_FILE) || s->size > (1u << 20))
			continue;
		uint8_t *nb = realloc(buf, s->size + 1);
		WALK_CHECK(nb != NULL);
		buf = nb;
		/* An empty range past the end is served at the end. */
		uint64_t o = s->offset > m->size ? m->size : s->offset;
		WALK_CHECK(pfelf_read(f, s->offset, buf, s->size) == (ssize_t)s->size);
		WALK_CHECK(memcmp(buf, bytes + o, s->size) == 0);
		pfelf_ref r;
		WALK_CHECK(pfelf_get_ref(f, s->offset, s->size, &r) == 0);
		if (r.ptr)
			WALK_CHECK(r.ptr == (const uint8_t *)whole.ptr + o);
		else
			WALK_CHECK(r.fd == whole.fd && r.pos == m->offset + o);
		pfelf_put_ref(f, &r);
	}
	free(buf);
	int np = pfelf_segment_count(f);
	WALK_CHECK(np == pfelf_segment_count(g));
	for (int i = 0; i < np; i++) {
		const pfelf_phdr *p, *q;
		WALK_CHECK(pfelf_segment(f, (uint32_t)i, &p) == 0);
		WALK_CHECK(pfelf_segment(g, (uint32_t)i, &q) == 0);
		WALK_CHECK(p->offset == q->offset && p->filesz == q->filesz &&
		           p->status == q->status);
	}
	return mix(h, (uint64_t)np);
}

/*
 * Check archive a (opened on the input) and fold its answers into a
 * digest. mem is the same input opened from memory, or NULL when a is.
 */
static uint64_t check(pfelf_archive *a, pfelf_archive *mem, const uint8_t *data, size_t size,
                      uint64_t *members_digest)
{
	uint64_t hm = 0; /* the member handles' answers */
	uint64_t h = mix(0, (uint64_t)pfelf_archive_is_thin(a));
	WALK_CHECK(pfelf_archive_size(a) == size);
	WALK_CHECK(pfelf_archive_is_thin(a) == (memcmp(data, "!<thin>\n", 8) == 0));
	int n = pfelf_archive_member_count(a);
	WALK_CHECK(n >= 0 && (uint64_t)n <= size / 60);
	uint64_t end = 8;
	int elf = 0;
	for (int i = 0; i < n; i++) {
		pfelf_ar_member m;
		WALK_CHECK(pfelf_archive_member(a, (uint32_t)i, &m) == 0);
		WALK_CHECK(m.index == (uint32_t)i && m.name != NULL &&
		           m.thin == pfelf_archive_is_thin(a));
		WALK_CHECK(m.header_offset >= end && m.header_offset <= size - 60);
		WALK_CHECK(strlen(m.name) < size);
		h = mix(mix(mix(mix_str(h, m.name), m.header_offset), m.offset), m.size);
		h = mix(mix(mix(mix(mix(h, m.position), m.date), m.uid), m.gid), m.mode);
		end = m.header_offset + 60;
		if (m.thin)
			continue;
		WALK_CHECK(m.offset >= end && m.offset <= size && m.size <= size - m.offset);
		end = m.offset + m.size;
		uint8_t probe[16];
		size_t plen = m.size < 16 ? (size_t)m.size : 16;
		WALK_CHECK(pfelf_archive_read(a, m.offset, probe, plen) == (ssize_t)plen);
		WALK_CHECK(memcmp(probe, data + m.offset, plen) == 0);
		if (elf >= MAX_ELF_MEMBERS || !pfelf_is_elf_magic(data + m.offset, (size_t)m.size))
			continue;
		elf++;
		pfelf_file *f = NULL, *g = NULL;
		int ret = pfelf_archive_open_member(a, (uint32_t)i, 0, &f);
		int want = pfelf_open_memory(data + m.offset, (size_t)m.size, 0, &g);
		WALK_CHECK(ret == want);
		h = mix(h, (uint64_t)ret);
		if (ret < 0) {
			WALK_CHECK(f == NULL);
			walk_check_open_error(ret, data + m.offset, (size_t)m.size);
			continue;
		}
		if (!mem) {
			pfelf_close(g);
			hm = mix(hm, walk_and_close(f, data + m.offset, (size_t)m.size));
			continue;
		}
		hm = mix(hm, compare_member(f, g, a, &m, data + m.offset));
		pfelf_close(g);
		pfelf_close(f);
	}
	int k = pfelf_archive_skipped_count(a);
	WALK_CHECK(k >= 0);
	for (int i = 0; i < k; i++) {
		pfelf_ar_skipped s;
		WALK_CHECK(pfelf_archive_skipped(a, (uint32_t)i, &s) == 0);
		WALK_CHECK(s.reason != NULL && (s.error == -EINVAL || s.error == -E2BIG));
		WALK_CHECK(s.header_offset >= 8 && s.header_offset < size);
		h = mix(mix(mix_str(h, s.reason), s.header_offset), s.position);
	}
	int ns = pfelf_archive_symbol_count(a);
	WALK_CHECK(ns >= 0 || ns == -EINVAL);
	h = mix(mix(h, (uint64_t)ns), pfelf_archive_index_kind(a));
	for (int i = 0; i < ns; i++) {
		pfelf_ar_symbol s;
		WALK_CHECK(pfelf_archive_symbol(a, (uint32_t)i, &s) == 0);
		WALK_CHECK(s.name != NULL && strlen(s.name) < size);
		int at = member_at(a, (uint32_t)n, s.header_offset);
		WALK_CHECK(at < 0 ? s.member == PFELF_AR_NO_MEMBER : s.member == (uint32_t)at);
		h = mix(mix_str(h, s.name), s.member);
	}
	pfelf_ar_symbol s;
	WALK_CHECK(pfelf_archive_symbol(a, ns < 0 ? 0 : (uint32_t)ns, &s) ==
	           (ns < 0 ? -EINVAL : -ENOENT));
	pfelf_ar_member m;
	WALK_CHECK(pfelf_archive_member(a, (uint32_t)n, &m) == -ENOENT);
	*members_digest = hm;
	return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	bool magic = size >= 8 &&
	             (memcmp(data, "!<arch>\n", 8) == 0 || memcmp(data, "!<thin>\n", 8) == 0);
	pfelf_archive *mem = NULL;
	int r_mem = pfelf_archive_open_memory(data, size, 0, &mem);
	WALK_CHECK(magic ? r_mem == 0 : r_mem == -ENOEXEC);
	if (r_mem < 0) {
		WALK_CHECK(mem == NULL);
		return 0;
	}
	uint64_t m_mem, m_mmap, m_pread;
	uint64_t d_mem = check(mem, NULL, data, size, &m_mem);
	walk_memfd_write(&input, data, size);
	pfelf_archive *a = NULL;
	WALK_CHECK(pfelf_archive_open(input.path, 0, &a) == 0);
	WALK_CHECK(pfelf_archive_backend(a) == PFELF_BACKEND_MMAP);
	uint64_t d_mmap = check(a, mem, data, size, &m_mmap);
	pfelf_archive_close(a);
	WALK_CHECK(pfelf_archive_open_fd(input.fd, PFELF_OPEN_NOMMAP, &a) == 0);
	WALK_CHECK(pfelf_archive_backend(a) == PFELF_BACKEND_PREAD);
	uint64_t d_pread = check(a, mem, data, size, &m_pread);
	pfelf_archive_close(a);
	pfelf_archive_close(mem);
	/* Every backend lists the same; mmap and pread members answer alike
	 * (the memory members were walked, the others compared with them). */
	WALK_CHECK(d_mem == d_mmap && d_mmap == d_pread && m_mmap == m_pread);
	pfelf_registry_stats st;
	pfelf_registry_stats_get(&st);
	WALK_CHECK(st.mappings == 0 && st.mapped_bytes == 0 && st.handles == 0);
	return 0;
}
