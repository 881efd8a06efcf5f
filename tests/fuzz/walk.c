/*
 * The walk: header, every section (by index, by name, name), every segment,
 * the data of each, reads by virtual address, and the names of everything
 * found. See walk.h.
 */
#include "walk.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SHT_NOBITS 8
#define ET_DYN     3

void walk_fail(const char *file, int line, const char *what)
{
	fprintf(stderr, "walk: %s:%d: check failed: %s\n", file, line, what);
	fflush(stderr);
	abort();
}

bool walk_known_bug(const char *id)
{
	static const char *known;
	if (!known) {
		known = getenv("PFELF_FUZZ_KNOWN_BUGS");
		if (!known)
			known = "";
	}
	size_t n = strlen(id);
	for (const char *p = known; (p = strstr(p, id)) != NULL; p += n)
		if ((p == known || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
			return true;
	return false;
}

void walk_mix(struct walk *w, uint64_t v)
{
	uint64_t h = w->digest ^ v;
	h *= 0x9e3779b97f4a7c15ull;
	h ^= h >> 31;
	w->digest = h;
}

void walk_mix_str(struct walk *w, const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	walk_mix(w, h);
}

void walk_check_open_error(int ret, const uint8_t *data, size_t size)
{
	if (size < 16 || memcmp(data, "\177ELF", 4) != 0)
		WALK_CHECK(ret == -ENOEXEC);
	else
		WALK_CHECK(ret == -EINVAL);
}

static void walk_identity(struct walk *w)
{
	pfelf_identity id;
	memset(&id, 0xa5, sizeof(id));
	int ret = pfelf_get_identity(w->f, &id);
	if (w->backend == PFELF_BACKEND_MEMORY) {
		pfelf_identity zero;
		memset(&zero, 0, sizeof(zero));
		WALK_CHECK(ret == -EINVAL && memcmp(&id, &zero, sizeof(id)) == 0);
	} else {
		WALK_CHECK(ret == 0 && id.size == w->size);
	}
}

static void walk_header(struct walk *w)
{
	const pfelf_ehdr *h = pfelf_header(w->f);
	WALK_CHECK(h != NULL);
	WALK_CHECK(w->size >= 16 && memcmp(w->data, "\177ELF", 4) == 0);
	WALK_CHECK(memcmp(h->ident, w->data, 16) == 0);
	WALK_CHECK(h->elfclass == w->data[4] && (h->elfclass == 1 || h->elfclass == 2));
	WALK_CHECK(h->data == w->data[5] && (h->data == 1 || h->data == 2));
	WALK_CHECK(h->osabi == w->data[7] && h->abiversion == w->data[8]);
	/* any e_version, EI_VERSION and e_ehsize (readelf reads them) */
	size_t need = h->elfclass == 2 ? 64 : 52;
	WALK_CHECK(w->size >= need);
	if (h->shoff != 0 && h->raw_shnum != 0)
		WALK_CHECK(h->shnum == h->raw_shnum);
	if (h->shoff != 0 && h->raw_shstrndx != 0xffff)
		WALK_CHECK(h->shstrndx == h->raw_shstrndx);
	if (h->raw_phnum != 0xffff)
		WALK_CHECK(h->phnum == h->raw_phnum);
	WALK_CHECK(pfelf_size(w->f) == w->size);
	const char *bn = pfelf_backend_name(w->backend);
	WALK_CHECK(bn && (!strcmp(bn, "mmap") || !strcmp(bn, "pread") || !strcmp(bn, "memory")));
	w->machine = h->machine;
	w->osabi = h->osabi;
	uint64_t fields[] = {h->elfclass,  h->data,    h->osabi,        h->abiversion, h->type,
	                     h->machine,   h->version, h->entry,        h->phoff,      h->shoff,
	                     h->flags,     h->ehsize,  h->phentsize,    h->shentsize,  h->raw_phnum,
	                     h->raw_shnum, h->phnum,   h->raw_shstrndx, h->shnum,      h->shstrndx};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		walk_mix(w, fields[i]);
	walk_identity(w);
	walk_names_header(w);
}

/* Empty ranges are in the file wherever they start. */
static bool range_in_file(const struct walk *w, uint64_t off, uint64_t len)
{
	return len == 0 || (off <= w->size && len <= w->size - off);
}

/* The lowest-index section named like s (which has a good name). */
static void walk_by_name(struct walk *w, const pfelf_shdr *s)
{
	const pfelf_shdr *r = NULL;
	int ret = pfelf_section_by_name(w->f, s->name, &r);
	if (ret == -ENOENT && s->name[0] == '\0' && walk_known_bug("byname-empty"))
		return;
	WALK_CHECK(ret == 0 && r != NULL);
	WALK_CHECK(strcmp(r->name, s->name) == 0 && !(r->status & PFELF_ST_BAD_NAME));
	/* Every section of that name maps to one with an index no higher
	 * than its own, so r is the lowest. */
	WALK_CHECK(r->index <= s->index);
	walk_mix(w, r->index);
}

/* After the first walk: the table answers the same, at the same place. */
static void rewalk_section(struct walk *w, uint32_t i)
{
	const pfelf_shdr *s = NULL;
	WALK_CHECK(pfelf_section(w->f, i, &s) == 0 && s != NULL && s->index == i);
	walk_mix(w, s->offset ^ s->size ^ s->status);
	const char *name = NULL;
	int ret = pfelf_section_name(w->f, i, &name);
	WALK_CHECK(ret == 0 ? name == s->name : ret == -EINVAL);
}

static void walk_section(struct walk *w, uint32_t i)
{
	const pfelf_shdr *s = NULL;
	WALK_CHECK(pfelf_section(w->f, i, &s) == 0 && s != NULL);
	WALK_CHECK(s->index == i && s->name != NULL);
	uint64_t fields[] = {s->name_off, s->type, s->flags,     s->addr,    s->offset, s->size,
	                     s->link,     s->info, s->addralign, s->entsize, s->status};
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
		walk_mix(w, fields[k]);
	walk_mix_str(w, s->name);
	WALK_CHECK((s->status & ~(uint32_t)(PFELF_ST_OUT_OF_FILE | PFELF_ST_BAD_NAME)) == 0);

	const char *name = NULL;
	int ret = pfelf_section_name(w->f, i, &name);
	if (s->status & PFELF_ST_BAD_NAME) {
		WALK_CHECK(ret == -EINVAL && s->name[0] == '\0');
	} else {
		WALK_CHECK(ret == 0 && name == s->name);
		walk_by_name(w, s);
	}

	bool inside = range_in_file(w, s->offset, s->size);
	if (s->status & PFELF_ST_OUT_OF_FILE)
		WALK_CHECK(!inside);
	else if (s->type != SHT_NOBITS)
		WALK_CHECK(inside);
	if (inside)
		walk_range(w, s->offset, s->size);
	else
		walk_bad_range(w, s->offset, s->size);
	walk_names_section(w, s);
}

static void walk_sections(struct walk *w, bool again)
{
	int n = pfelf_section_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || n == -EINVAL);
	WALK_CHECK(pfelf_section_count(w->f) == n); /* the answer is kept */
	const pfelf_shdr *s = NULL;
	const char *name = NULL;
	if (n < 0) {
		WALK_CHECK(pfelf_section(w->f, 0, &s) == n);
		WALK_CHECK(pfelf_section_name(w->f, 0, &name) == n);
		WALK_CHECK(pfelf_section_by_name(w->f, ".text", &s) == n);
		return;
	}
	WALK_CHECK((uint32_t)n == pfelf_header(w->f)->shnum);
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		if (again)
			rewalk_section(w, i);
		else
			walk_section(w, i);
	}
	WALK_CHECK(pfelf_section(w->f, (uint32_t)n, &s) == -ENOENT);
	WALK_CHECK(pfelf_section(w->f, UINT32_MAX, &s) == -ENOENT);
	WALK_CHECK(pfelf_section_name(w->f, (uint32_t)n, &name) == -ENOENT);
	WALK_CHECK(pfelf_section_by_name(w->f, NULL, &s) == -EINVAL);
	static const char *const probes[] = {"", ".text", ".shstrtab", "\x01no such section"};
	for (size_t k = 0; k < sizeof(probes) / sizeof(probes[0]); k++) {
		int ret = pfelf_section_by_name(w->f, probes[k], &s);
		WALK_CHECK(ret == 0 || ret == -ENOENT);
		if (ret == 0)
			WALK_CHECK(strcmp(s->name, probes[k]) == 0 &&
			           !(s->status & PFELF_ST_BAD_NAME));
		walk_mix(w, ret == 0 ? s->index : (uint64_t)(int64_t)ret);
	}
}

static void walk_segment(struct walk *w, uint32_t i)
{
	const pfelf_phdr *p = NULL;
	WALK_CHECK(pfelf_segment(w->f, i, &p) == 0 && p != NULL);
	WALK_CHECK(p->index == i);
	uint64_t fields[] = {p->type,   p->flags, p->offset, p->vaddr, p->paddr,
	                     p->filesz, p->memsz, p->align,  p->status};
	for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++)
		walk_mix(w, fields[k]);
	WALK_CHECK((p->status & ~(uint32_t)PFELF_ST_OUT_OF_FILE) == 0);
	bool inside = range_in_file(w, p->offset, p->filesz);
	WALK_CHECK(inside == !(p->status & PFELF_ST_OUT_OF_FILE));
	if (inside)
		walk_range(w, p->offset, p->filesz);
	else
		walk_bad_range(w, p->offset, p->filesz);
	walk_names_segment(w, p);
}

static void walk_segments(struct walk *w)
{
	int n = pfelf_segment_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || n == -EINVAL);
	WALK_CHECK(pfelf_segment_count(w->f) == n);
	const pfelf_phdr *p = NULL;
	if (n < 0) {
		WALK_CHECK(pfelf_segment(w->f, 0, &p) == n);
		uint8_t b;
		WALK_CHECK(pfelf_read_vaddr(w->f, 0, &b, 1) == n);
		return;
	}
	WALK_CHECK((uint32_t)n == pfelf_header(w->f)->phnum);
	for (uint32_t i = 0; i < (uint32_t)n; i++)
		walk_segment(w, i);
	WALK_CHECK(pfelf_segment(w->f, (uint32_t)n, &p) == -ENOENT);
	WALK_CHECK(pfelf_segment(w->f, UINT32_MAX, &p) == -ENOENT);
	walk_vaddr(w);
}

static void walk_pie(struct walk *w)
{
	int pie = pfelf_is_pie(w->f);
	walk_mix(w, (uint64_t)(int64_t)pie);
	WALK_CHECK(pie == 0 || pie == 1 || pie == -EINVAL);
	if (pfelf_header(w->f)->type != ET_DYN)
		WALK_CHECK(pie == 0);
	WALK_CHECK(pfelf_is_pie(w->f) == pie);
	char a[128], b[128];
	int n = pfelf_file_type_name(w->f, a, sizeof(a));
	WALK_CHECK(n > 0 && (size_t)n == strlen(a));
	walk_mix_str(w, a);
	if (pie == 1) {
		WALK_CHECK(strcmp(a, "DYN (Position-Independent Executable file)") == 0);
	} else {
		WALK_CHECK(pfelf_type_name(pfelf_header(w->f)->type, b, sizeof(b)) == n);
		WALK_CHECK(strcmp(a, b) == 0);
	}
	WALK_CHECK(pfelf_file_type_name(w->f, a, (size_t)n) == -ENOSPC);
}

static void walk_advise(struct walk *w)
{
	WALK_CHECK(pfelf_advise(w->f, 0, 0, PFELF_ADVICE_WILLNEED) == 0);
	WALK_CHECK(pfelf_advise(w->f, w->size / 2, 1, PFELF_ADVICE_RANDOM) == 0);
	WALK_CHECK(pfelf_advise(w->f, w->size, 0, PFELF_ADVICE_NORMAL) == 0);
	WALK_CHECK(pfelf_advise(w->f, w->size + 1, 0, PFELF_ADVICE_NORMAL) == -EINVAL);
	WALK_CHECK(pfelf_advise(w->f, 0, 0, (enum pfelf_advice)99) == -EINVAL);
	WALK_CHECK(pfelf_drop_pages(w->f) == 0);
}

uint64_t walk_and_close(pfelf_file *f, const uint8_t *data, size_t size)
{
	struct walk w = {
	        .names_seen = {0},
	        .f = f,
	        .data = data,
	        .size = size,
	        .backend = pfelf_backend(f),
	        .digest = 0x6a09e667f3bcc908ull,
	        .budget = WALK_BUDGET,
	        .scratch = malloc(WALK_SCRATCH),
	};
	WALK_CHECK(w.scratch != NULL);
	/* The suite's proof that a broken promise fails the replay. */
	WALK_CHECK(getenv("PFELF_FUZZ_SELFTEST_FAIL") == NULL);
	walk_header(&w);
	walk_advise(&w);
	walk_data_bounds(&w);
	walk_sections(&w, false);
	walk_segments(&w);
	walk_pie(&w);
	walk_symbols(&w);
	walk_notes(&w);
	walk_dynamic(&w);
	walk_links_go(&w);
	walk_compressed(&w);
	walk_relocs(&w);
	/* Tables answer the same once loaded and after pages were dropped. */
	WALK_CHECK(pfelf_drop_pages(f) == 0);
	walk_sections(&w, true);
	free(w.scratch);
	walk_views_after_close(f, data, size);
	return w.digest;
}

int walk_memory_input(const uint8_t *data, size_t size, uint64_t *digest)
{
	pfelf_file *f = NULL;
	int ret = pfelf_open_memory(data, size, 0, &f);
	if (ret < 0) {
		WALK_CHECK(f == NULL);
		walk_check_open_error(ret, data, size);
		return ret;
	}
	WALK_CHECK(ret == 0 && f != NULL && pfelf_backend(f) == PFELF_BACKEND_MEMORY);
	*digest = walk_and_close(f, data, size);
	return 0;
}

void walk_memfd_open(struct walk_memfd *m, const char *name)
{
	m->fd = memfd_create(name, MFD_CLOEXEC);
	WALK_CHECK(m->fd >= 0);
	snprintf(m->path, sizeof(m->path), "/proc/self/fd/%d", m->fd);
}

void walk_memfd_write(const struct walk_memfd *m, const uint8_t *data, size_t size)
{
	WALK_CHECK(ftruncate(m->fd, 0) == 0);
	size_t done = 0;
	while (done < size) {
		ssize_t n = pwrite(m->fd, data + done, size - done, (off_t)done);
		WALK_CHECK(n > 0);
		done += (size_t)n;
	}
}
