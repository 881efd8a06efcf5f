/*
 * Reads by virtual address: pieces of each PT_LOAD and around it, each
 * checked against a model of the PT_LOAD table that does not depend on how
 * the library resolves overlapping segments:
 *  - a read that succeeds gave, for every byte, what some PT_LOAD covering
 *    that address holds (the file byte, or 0 past p_filesz);
 *  - -EFAULT means some address is covered by no PT_LOAD (or wrapped);
 *  - -EINVAL means some address falls in the file part of a PT_LOAD whose
 *    bytes are outside the file.
 */
#include "walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define PT_LOAD    1
#define MAX_CHECK  256  /* reads up to this long are checked byte by byte */
#define END_CHECK  64   /* longer ones at both ends */
#define WHOLE_READ 1024 /* longest read made */

struct load {
	uint64_t vaddr, memsz, filesz, offset;
	bool out;
};

struct loads {
	struct load *v;
	uint32_t n;
};

static bool covers(const struct load *l, uint64_t addr)
{
	return addr >= l->vaddr && addr - l->vaddr < l->memsz;
}

/* Could some PT_LOAD at addr have produced byte b? */
static bool byte_ok(const struct walk *w, const struct loads *L, uint64_t addr, uint8_t b)
{
	for (uint32_t i = 0; i < L->n; i++) {
		const struct load *l = &L->v[i];
		if (!covers(l, addr))
			continue;
		uint64_t in = addr - l->vaddr;
		if (in >= l->filesz && b == 0)
			return true;
		if (in < l->filesz && !l->out && w->data[l->offset + in] == b)
			return true;
	}
	return false;
}

static bool uncovered(const struct loads *L, uint64_t addr)
{
	for (uint32_t i = 0; i < L->n; i++)
		if (covers(&L->v[i], addr))
			return false;
	return true;
}

static bool in_bad_file_part(const struct loads *L, uint64_t addr)
{
	for (uint32_t i = 0; i < L->n; i++) {
		const struct load *l = &L->v[i];
		if (covers(l, addr) && l->out && addr - l->vaddr < l->filesz)
			return true;
	}
	return false;
}

static void check_success(struct walk *w, const struct loads *L, uint64_t vaddr, size_t len)
{
	for (size_t j = 0; j < len; j++) {
		if (len > MAX_CHECK && j == END_CHECK)
			j = len - END_CHECK;
		if (vaddr + j < vaddr && walk_known_bug("vaddr-wrap"))
			return;
		WALK_CHECK(vaddr + j >= vaddr); /* no wrap */
		WALK_CHECK(byte_ok(w, L, vaddr + j, w->scratch[j]));
	}
}

static void check_read(struct walk *w, const struct loads *L, uint64_t vaddr, size_t len)
{
	ssize_t ret = pfelf_read_vaddr(w->f, vaddr, w->scratch, len);
	walk_mix(w, (uint64_t)ret);
	if (ret == (ssize_t)len) {
		check_success(w, L, vaddr, len);
		return;
	}
	bool found = false;
	for (size_t j = 0; j < len && !found; j++) {
		uint64_t a = vaddr + j;
		if (ret == -EFAULT)
			found = a < vaddr || uncovered(L, a);
		else if (ret == -EINVAL)
			found = a >= vaddr && in_bad_file_part(L, a);
	}
	WALK_CHECK(found);
}

static void read_around(struct walk *w, const struct loads *L, const struct load *l)
{
	uint64_t m = l->memsz;
	if (l->vaddr > 0)
		check_read(w, L, l->vaddr - 1, 2);
	check_read(w, L, l->vaddr, m < 64 ? (size_t)m : 64);
	check_read(w, L, l->vaddr + m / 2, 1);
	if (l->filesz > 0 && l->filesz < m)
		check_read(w, L, l->vaddr + l->filesz - 1, 2);
	check_read(w, L, l->vaddr + m - 1, 2);
	if (m > 64)
		check_read(w, L, l->vaddr, m < WHOLE_READ ? (size_t)m : WHOLE_READ);
}

static void collect(struct walk *w, struct loads *L)
{
	int n = pfelf_segment_count(w->f);
	WALK_CHECK(n >= 0);
	L->v = calloc(n > 0 ? (size_t)n : 1, sizeof(*L->v));
	WALK_CHECK(L->v != NULL);
	L->n = 0;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p;
		WALK_CHECK(pfelf_segment(w->f, i, &p) == 0);
		if (p->type != PT_LOAD)
			continue;
		struct load *l = &L->v[L->n++];
		l->vaddr = p->vaddr;
		l->memsz = p->memsz;
		l->filesz = p->filesz;
		l->offset = p->offset;
		l->out = (p->status & PFELF_ST_OUT_OF_FILE) != 0;
	}
}

void walk_vaddr(struct walk *w)
{
	struct loads L;
	collect(w, &L);
	WALK_CHECK(pfelf_read_vaddr(w->f, 0, w->scratch, 0) == 0);
	WALK_CHECK(pfelf_read_vaddr(w->f, 0, NULL, 1) == -EINVAL);
	WALK_CHECK(pfelf_read_vaddr(w->f, 0, w->scratch, SIZE_MAX) == -EINVAL);
	check_read(w, &L, UINT64_MAX, 2);
	check_read(w, &L, pfelf_header(w->f)->entry, 16);
	uint32_t done = 0;
	for (uint32_t i = 0; i < L.n && done < WALK_MAX_LOADS; i++) {
		const struct load *l = &L.v[i];
		if (l->memsz == 0)
			continue;
		read_around(w, &L, l);
		if (i + 1 < L.n) /* across the end, toward the next one */
			check_read(w, &L, l->vaddr + l->memsz - 8, 16);
		done++;
	}
	free(L.v);
}
