/*
 * The build id of a file from a few reads, without a handle or a mapping
 * (pfelf_scan_build_id, pfelf.h): the ELF header, the notes (SHT_NOTE
 * sections, or PT_NOTE segments when the file has no section headers or is
 * a core file, as readelf -n), and the section names that tell a separate
 * debug file. The first 4 KiB and the section header table with the 4 KiB
 * before it (where linkers put the section name table) are read at once:
 * one read for a small file, two for most others, a few more only when
 * notes or names lie elsewhere. Every offset and size is checked against
 * the file size.
 */
#include "pfelf_i.h"

#include <stdlib.h>

#define HEAD        4096u       /* first read: header, program headers, early notes */
#define TAIL_BEFORE 4096u       /* read before the section header table */
#define TABLE_MAX   (1u << 20)  /* section header table read at most (16,384 entries) */
#define PIECE_MAX   (64u << 10) /* a note section or the name table read elsewhere */
#define ENT_MAX     256u        /* largest e_shentsize or e_phentsize taken */

/* What was read of the file: the head, the tail, and one piece elsewhere. */
struct rd {
	pfelf_read_fn read; /* pread-like: bytes read, or -errno */
	void *src;
	uint64_t size;
	bool be, is64;
	uint8_t head[HEAD];
	uint64_t nhead;
	uint8_t *tail;
	uint64_t toff, ntail;
	uint8_t *piece[2];
	unsigned preads; /* calls of read */
};

/* A field of n (2, 4 or 8) bytes at p in the file's byte order. */
static uint64_t get(const struct rd *r, const uint8_t *p, unsigned n)
{
	if (n == 2)
		return pfelf__u16(p, r->be);
	return n == 4 ? pfelf__u32(p, r->be) : pfelf__u64(p, r->be);
}

static int read_at(struct rd *r, uint8_t *buf, uint64_t off, uint64_t len)
{
	uint64_t done = 0;
	while (done < len) {
		ssize_t n = r->read(r->src, buf + done, len - done, off + done);
		r->preads++;
		if (n == -EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -EIO : -EINVAL; /* a file shorter than its fstat */
		done += (uint64_t)n;
	}
	return 0;
}

/* The bytes [off, off + len) of the file, from what was read or read into
 * piece slot (valid until the next call with that slot); NULL
 * when out of the file or too big. */
static const uint8_t *bytes(struct rd *r, uint64_t off, uint64_t len, int slot)
{
	if (!pfelf__range_ok(r->size, off, len))
		return NULL;
	if (off + len <= r->nhead)
		return r->head + off;
	if (r->tail && off >= r->toff && off - r->toff <= r->ntail &&
	    len <= r->ntail - (off - r->toff))
		return r->tail + (off - r->toff);
	if (len > PIECE_MAX)
		return NULL;
	free(r->piece[slot]);
	r->piece[slot] = malloc(len ? len : 1);
	if (!r->piece[slot] || read_at(r, r->piece[slot], off, len) < 0)
		return NULL;
	return r->piece[slot];
}

/* The first GNU build id note in [p, p + len) with alignment al (the
 * offsets readelf uses: desc at 12 + namesz and the next note at the end
 * of desc, each rounded up to al): 1 and *id and *idlen, 0 when none (a
 * malformed note ends the walk, as readelf). */
static int find_note(const struct rd *r, const uint8_t *p, uint64_t len, uint64_t al,
                     const uint8_t **id, uint64_t *idlen)
{
	uint64_t off = 0;
	while (len - off >= 12) {
		uint64_t namesz = get(r, p + off, 4), descsz = get(r, p + off + 4, 4);
		uint64_t type = get(r, p + off + 8, 4);
		uint64_t rest = len - off;
		uint64_t descoff = (12 + namesz + al - 1) & ~(al - 1);
		if (descoff > rest || descsz > rest - descoff)
			return 0;
		const uint8_t *name = p + off + 12;
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(name, "GNU", 4) == 0) {
			*id = p + off + descoff;
			*idlen = descsz;
			return 1;
		}
		uint64_t next = (descoff + descsz + al - 1) & ~(al - 1);
		if (next > rest)
			return 0;
		off += next;
	}
	return 0;
}

static int take(const uint8_t *id, uint64_t len, pfelf_build_id_scan *out)
{
	if (len < PFELF_SCAN_ID_MIN || len > PFELF_SCAN_ID_MAX) {
		out->badsize = true;
		out->badlen = len;
		return -EINVAL;
	}
	memcpy(out->id, id, len);
	out->len = (uint8_t)len;
	return 1;
}

/* Notes of one note section or segment at [off, off + len). */
static int notes_at(struct rd *r, uint64_t off, uint64_t len, uint64_t align,
                    pfelf_build_id_scan *out)
{
	const uint8_t *p = bytes(r, off, len, 0);
	const uint8_t *id;
	uint64_t idlen;
	if (!p || find_note(r, p, len, align == 8 ? 8 : 4, &id, &idlen) == 0)
		return 0;
	return take(id, idlen, out);
}

struct shtab {
	const uint8_t *p; /* the table */
	uint64_t n, ent;
	uint64_t stroff, strsize; /* the section name table */
};

/* The name of section i is s (NUL-ended in the name table piece). */
static bool named(struct rd *r, const struct shtab *t, const uint8_t *names, uint64_t i,
                  const char *s)
{
	uint64_t at = get(r, t->p + i * t->ent, 4), len = strlen(s) + 1;
	return names && at <= t->strsize && len <= t->strsize - at &&
	       memcmp(names + at, s, len) == 0;
}

/* A separate debug file: .debug_info (or .zdebug_info) with bytes and a
 * .text of type NOBITS. */
static bool is_debug_file(struct rd *r, const struct shtab *t)
{
	const uint8_t *names = bytes(r, t->stroff, t->strsize, 1);
	bool info = false, nobits_text = false;
	for (uint64_t i = 1; names && i < t->n; i++) {
		const uint8_t *sh = t->p + i * t->ent;
		uint64_t type = get(r, sh + 4, 4);
		uint64_t size = r->is64 ? get(r, sh + 32, 8) : get(r, sh + 20, 4);
		if ((named(r, t, names, i, ".debug_info") ||
		     named(r, t, names, i, ".zdebug_info")) &&
		    type != SHT_NOBITS && size > 0)
			info = true;
		if (named(r, t, names, i, ".text") && type == SHT_NOBITS)
			nobits_text = true;
	}
	return info && nobits_text;
}

/* Section i: type, offset, size, alignment. */
static void shdr(const struct rd *r, const struct shtab *t, uint64_t i, uint64_t f[4])
{
	const uint8_t *sh = t->p + i * t->ent;
	f[0] = get(r, sh + 4, 4);
	f[1] = r->is64 ? get(r, sh + 24, 8) : get(r, sh + 16, 4);
	f[2] = r->is64 ? get(r, sh + 32, 8) : get(r, sh + 20, 4);
	f[3] = r->is64 ? get(r, sh + 48, 8) : get(r, sh + 32, 4);
}

/* Bring [from, shoff + tablen) into the tail unless the head has it. */
static int load_tail(struct rd *r, uint64_t shoff, uint64_t tablen)
{
	uint64_t from = shoff > TAIL_BEFORE ? shoff - TAIL_BEFORE : 0;
	uint64_t len = shoff + tablen - from;
	if (shoff + tablen <= r->nhead)
		return 0;
	free(r->tail);
	r->tail = malloc(len);
	r->ntail = 0;
	if (!r->tail)
		return -ENOMEM;
	if (read_at(r, r->tail, from, len) < 0)
		return -EIO;
	r->toff = from;
	r->ntail = len;
	return 0;
}

/* The section header table (read with the 4 KiB before it); 0, or -EINVAL
 * when the file has none or it cannot be read. */
static int read_shtab(struct rd *r, const uint8_t *eh, struct shtab *t)
{
	uint64_t shoff = r->is64 ? get(r, eh + 40, 8) : get(r, eh + 32, 4);
	uint64_t ent = get(r, eh + (r->is64 ? 58 : 46), 2);
	uint64_t n = get(r, eh + (r->is64 ? 60 : 48), 2);
	uint64_t strndx = get(r, eh + (r->is64 ? 62 : 50), 2);
	if (shoff == 0 || ent < (r->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
	    ent > ENT_MAX)
		return -EINVAL;
	uint64_t want = n ? n : 1;
	if (want > TABLE_MAX / ent || !pfelf__range_ok(r->size, shoff, want * ent))
		return -EINVAL;
	int ret = load_tail(r, shoff, want * ent);
	const uint8_t *sh0 = ret < 0 ? NULL : bytes(r, shoff, ent, 0);
	if (!sh0)
		return ret < 0 ? ret : -EINVAL;
	if (n == 0) { /* extended numbering: the count in section 0's sh_size */
		n = r->is64 ? get(r, sh0 + 32, 8) : get(r, sh0 + 20, 4);
		if (n == 0 || n > TABLE_MAX / ent || !pfelf__range_ok(r->size, shoff, n * ent))
			return -EINVAL;
		if ((ret = load_tail(r, shoff, n * ent)) < 0)
			return ret;
	}
	if (strndx == SHN_XINDEX) /* in section 0's sh_link */
		strndx = get(r, sh0 + (r->is64 ? 40 : 24), 4);
	t->p = bytes(r, shoff, n * ent, 0); /* in the head or the tail */
	t->n = n;
	t->ent = ent;
	t->stroff = t->strsize = 0;
	if (t->p && strndx < n) {
		uint64_t f[4];
		shdr(r, t, strndx, f);
		t->stroff = f[1];
		t->strsize = f[0] == SHT_NOBITS ? 0 : f[2];
	}
	return t->p ? 0 : -EINVAL;
}

/* The note sections; -ENOENT when there is none (readelf then reads the
 * note segments). */
static int from_sections(struct rd *r, const struct shtab *t, pfelf_build_id_scan *out)
{
	bool any = false;
	for (uint64_t i = 1; i < t->n; i++) {
		uint64_t f[4];
		shdr(r, t, i, f);
		if (f[0] != SHT_NOTE)
			continue;
		any = true;
		int ret = notes_at(r, f[1], f[2], f[3], out);
		if (ret != 0)
			return ret;
	}
	return any ? 0 : -ENOENT;
}

static int from_segments(struct rd *r, const uint8_t *eh, pfelf_build_id_scan *out)
{
	uint64_t phoff = r->is64 ? get(r, eh + 32, 8) : get(r, eh + 28, 4);
	uint64_t ent = get(r, eh + (r->is64 ? 54 : 42), 2);
	uint64_t n = get(r, eh + (r->is64 ? 56 : 44), 2);
	if (phoff == 0 || n == 0 || n == PN_XNUM ||
	    ent < (r->is64 ? sizeof(Elf64_Phdr) : sizeof(Elf32_Phdr)) || ent > ENT_MAX)
		return 0;
	const uint8_t *tab = bytes(r, phoff, n * ent, 1);
	for (uint64_t i = 0; tab && i < n; i++) {
		const uint8_t *ph = tab + i * ent;
		if (get(r, ph, 4) != PT_NOTE)
			continue;
		uint64_t off = r->is64 ? get(r, ph + 8, 8) : get(r, ph + 4, 4);
		uint64_t len = r->is64 ? get(r, ph + 32, 8) : get(r, ph + 16, 4);
		uint64_t al = r->is64 ? get(r, ph + 48, 8) : get(r, ph + 28, 4);
		int ret = notes_at(r, off, len, al, out);
		if (ret != 0)
			return ret;
	}
	return 0;
}

static int parse(struct rd *r, pfelf_build_id_scan *out)
{
	const uint8_t *eh = r->head;
	if (r->nhead < sizeof(Elf32_Ehdr) || memcmp(eh, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;
	if ((eh[EI_CLASS] != ELFCLASS32 && eh[EI_CLASS] != ELFCLASS64) ||
	    (eh[EI_DATA] != ELFDATA2LSB && eh[EI_DATA] != ELFDATA2MSB))
		return -EINVAL;
	r->is64 = eh[EI_CLASS] == ELFCLASS64;
	r->be = eh[EI_DATA] == ELFDATA2MSB;
	if (r->is64 && r->nhead < sizeof(Elf64_Ehdr))
		return -EINVAL;
	struct shtab t = {0};
	int ret = read_shtab(r, eh, &t);
	if (ret == -ENOMEM || ret == -EIO)
		return ret;
	/* readelf -n: the note sections of a file that has some (not a core
	 * file), else the note segments */
	bool core = get(r, eh + 16, 2) == ET_CORE;
	if (ret == 0 && !core) {
		int found = from_sections(r, &t, out);
		if (found == 1)
			out->debug = is_debug_file(r, &t);
		if (found != -ENOENT)
			return found;
	}
	return from_segments(r, eh, out);
}

PFELF_API int pfelf_scan_build_id(pfelf_read_fn read, void *src, uint64_t size,
                                  pfelf_build_id_scan *out)
{
	memset(out, 0, sizeof(*out));
	struct rd *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->read = read;
	r->src = src;
	r->size = size;
	r->nhead = size < HEAD ? size : HEAD;
	int ret = read_at(r, r->head, 0, r->nhead);
	if (ret == 0)
		ret = parse(r, out);
	out->reads = r->preads;
	free(r->tail);
	free(r->piece[0]);
	free(r->piece[1]);
	free(r);
	return ret;
}
