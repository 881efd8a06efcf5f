/* Where the pclntab is, found as Go's tools and profilers find it: its
 * section (.gopclntab, or .data.rel.ro.gopclntab in an internally linked
 * PIE), the runtime.pclntab and runtime.epclntab symbols, else a header
 * that checks out at a 4-byte boundary of a read-only PT_LOAD, then of the
 * PT_GNU_RELRO bytes of an ET_DYN file (an externally linked PIE merges the
 * table into .data.rel.ro); scanned only when pfelf_is_go says the file is
 * a Go binary, 1 MiB at a time. */
#include "tables/go_i.h"

#include <stdlib.h>

#define SCAN_CHUNK ((size_t)1 << 20)

/* Words before funcnameOffset: nfunc, nfiles (1.16), and textStart (1.18+). */
static int first_offset_word(uint32_t magic)
{
	if (magic == PFELF__GO_MAGIC116)
		return 2;
	if (magic == PFELF__GO_MAGIC118 || magic == PFELF__GO_MAGIC120)
		return 3;
	return -1;
}

uint32_t pfelf__go_magic(const uint8_t *hdr, bool *msb)
{
	for (int m = 0; m < 2; m++) {
		uint32_t v = pfelf__u32(hdr, m);
		if (v == PFELF__GO_MAGIC12 || v == PFELF__GO_MAGIC116 || v == PFELF__GO_MAGIC118 ||
		    v == PFELF__GO_MAGIC120) {
			*msb = m;
			return v;
		}
	}
	return 0;
}

/* Whether a function table of nfunc entries (2 * nfunc + 1 fields of fs
 * bytes) and extra bytes after it fit in room bytes. */
static bool functab_fits(uint64_t room, uint64_t nfunc, unsigned fs, unsigned extra)
{
	return room >= extra + fs && nfunc <= ((room - extra) / fs - 1) / 2;
}

bool pfelf__go_header_ok(const pfelf_file *f, const uint8_t *p, uint64_t avail, bool scan)
{
	bool msb;
	uint32_t magic = avail >= PFELF__GO_HDR_MIN ? pfelf__go_magic(p, &msb) : 0;
	if (!magic)
		return false;
	unsigned q = p[6], ps = p[7];
	if (p[4] || p[5] || (q != 1 && q != 2 && q != 4) || (ps != 4 && ps != 8))
		return false;
	if (scan && ps != (f->is64 ? 8u : 4u))
		return false;
	uint64_t nfunc = pfelf__go_word(p + 8, ps, msb);
	if (magic == PFELF__GO_MAGIC12) /* the function table, then the file table's offset */
		return functab_fits(avail - 8 - ps, nfunc, ps, 4);
	int first = first_offset_word(magic);
	uint64_t prev = 8 + (uint64_t)(first + 5) * ps; /* the header's size */
	if (avail < prev)
		return false;
	for (int i = 0; i < 5; i++) {
		uint64_t o = pfelf__go_word(p + 8 + (size_t)(first + i) * ps, ps, msb);
		if (o < prev || o > avail)
			return false;
		prev = o;
	}
	return functab_fits(avail - prev, nfunc, magic == PFELF__GO_MAGIC116 ? ps : 4, 0);
}

/* The file range of the section named name: -ENOENT when there is none,
 * -EINVAL when it has no bytes in the file. */
static int section_range(pfelf_file *f, const char *name, uint64_t *off, uint64_t *len)
{
	const pfelf_shdr *s;
	if (pfelf_section_count(f) <= 0 || pfelf_section_by_name(f, name, &s) != 0)
		return -ENOENT;
	if (s->type == SHT_NOBITS || (s->status & PFELF_ST_OUT_OF_FILE))
		return -EINVAL;
	*off = s->offset;
	*len = s->size;
	return 0;
}

/* runtime.pclntab .. runtime.epclntab of .symtab, through the PT_LOADs. */
static int by_symbols(pfelf_file *f, uint64_t *off, uint64_t *len)
{
	pfelf_sym a, b;
	if (pfelf_symbol_count(f, PFELF_SYMTAB) <= 0 ||
	    pfelf_symbol_find(f, PFELF_SYMTAB, "runtime.pclntab", &a) != 0 ||
	    pfelf_symbol_find(f, PFELF_SYMTAB, "runtime.epclntab", &b) != 0)
		return -ENOENT;
	if (b.value <= a.value || pfelf_vaddr_to_offset(f, a.value, b.value - a.value, off) != 0)
		return -ENOENT;
	*len = b.value - a.value;
	return 0;
}

/* Scan [off, off+len) of the file for a header, chunk by chunk. */
static int scan_range(pfelf_file *f, uint64_t off, uint64_t len, struct pfelf__go_loc *loc)
{
	uint8_t *buf = malloc(SCAN_CHUNK + PFELF__GO_HDR_MAX);
	if (!buf)
		return -ENOMEM;
	int ret = -ENOENT;
	for (uint64_t at = 0; at + PFELF__GO_HDR_MIN <= len && ret == -ENOENT; at += SCAN_CHUNK) {
		uint64_t left = len - at;
		size_t n = left < SCAN_CHUNK + PFELF__GO_HDR_MAX ? (size_t)left
		                                                 : SCAN_CHUNK + PFELF__GO_HDR_MAX;
		int r = pfelf__read_range(f, off + at, buf, n);
		if (r < 0) {
			ret = r;
			break;
		}
		for (size_t i = 0; i < SCAN_CHUNK && i + PFELF__GO_HDR_MIN <= n; i += 4) {
			/* buf holds the whole header, or all that is left */
			if (buf[i + 1] != 0xff || buf[i + 2] != 0xff ||
			    !pfelf__go_header_ok(f, buf + i, left - i, true))
				continue;
			loc->off = off + at + i;
			loc->size = left - i;
			ret = 0;
			break;
		}
	}
	free(buf);
	return ret;
}

/* The file bytes of the PT_LOAD that holds segment p's start: [off, off+len)
 * of p clipped to them. */
static bool relro_range(pfelf_file *f, const pfelf_phdr *p, uint32_t n, uint64_t *off,
                        uint64_t *len)
{
	for (uint32_t i = 0; i < n; i++) {
		const pfelf_phdr *l = &f->ph[i];
		if (l->type != PT_LOAD || (l->status & PFELF_ST_OUT_OF_FILE) ||
		    p->vaddr < l->vaddr || p->vaddr - l->vaddr >= l->filesz)
			continue;
		uint64_t skip = p->vaddr - l->vaddr;
		*off = l->offset + skip;
		*len = l->filesz - skip < p->memsz ? l->filesz - skip : p->memsz;
		return true;
	}
	return false;
}

static int scan_segments(pfelf_file *f, struct pfelf__go_loc *loc)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_LOAD || (p->flags & (PF_W | PF_X)) || !(p->flags & PF_R) ||
		    (p->status & PFELF_ST_OUT_OF_FILE))
			continue;
		int ret = scan_range(f, p->offset, p->filesz, loc);
		if (ret != -ENOENT) {
			loc->where = PFELF_GO_SCAN;
			return ret;
		}
	}
	if (f->eh.type != ET_DYN)
		return -ENOENT;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		uint64_t off, len;
		if (f->ph[i].type != PT_GNU_RELRO ||
		    !relro_range(f, &f->ph[i], (uint32_t)n, &off, &len))
			continue;
		int ret = scan_range(f, off, len, loc);
		if (ret != -ENOENT) {
			loc->where = PFELF_GO_SCAN_RELRO;
			return ret;
		}
	}
	return -ENOENT;
}

int pfelf__go_find(pfelf_file *f, struct pfelf__go_loc *loc)
{
	static const char *const names[] = {".gopclntab", ".data.rel.ro.gopclntab"};
	for (int i = 0; i < 2; i++) {
		int ret = section_range(f, names[i], &loc->off, &loc->size);
		if (ret != -ENOENT) {
			loc->where = i == 0 ? PFELF_GO_SECTION : PFELF_GO_RELRO_SECTION;
			return ret;
		}
	}
	if (by_symbols(f, &loc->off, &loc->size) == 0) {
		loc->where = PFELF_GO_SYMBOLS;
		return 0;
	}
	/* the segments of a file that is no Go binary are not read */
	int go = pfelf_is_go(f);
	if (go <= 0)
		return go == 0 ? -ENOENT : go;
	return scan_segments(f, loc);
}

int pfelf__go_vaddr_of(pfelf_file *f, uint64_t off, uint64_t *vaddr)
{
	int n = pfelf_segment_count(f);
	for (uint32_t i = 0; n > 0 && i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type == PT_LOAD && !(p->status & PFELF_ST_OUT_OF_FILE) && off >= p->offset &&
		    off - p->offset < p->filesz && p->vaddr <= UINT64_MAX - (off - p->offset)) {
			*vaddr = p->vaddr + (off - p->offset);
			return 0;
		}
	}
	return -EFAULT;
}

PFELF_API int pfelf_go_pclntab(pfelf_file *f, uint64_t *offset, uint64_t *size)
{
	struct pfelf__go_loc loc;
	int ret = pfelf__go_find(f, &loc);
	if (ret == 0) {
		*offset = loc.off;
		*size = loc.size;
	}
	return ret;
}
