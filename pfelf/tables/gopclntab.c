/* The pclntab's header and function table, checked once and kept by the
 * handle: the regions of the table (each inside it, in the order the
 * linker writes them), the text start (gotext.c), the function table
 * decoded into entries (8 bytes each) read 64 KiB at a time, then the
 * records it points to and the file tables (gorecords.c). The count,
 * the words for where things were found, the cost. Layouts, as Go's
 * debug/gosym reads them:
 *
 *   Go 1.2   magic, 0, 0, quantum, ptrsize, nfunc (word), then nfunc
 *            (entry, record offset) word pairs and the end word, then a
 *            uint32 offset of the file table (a uint32 count, then the
 *            offsets of the file names); every other offset counts from
 *            the table's start.
 *   Go 1.16  magic, 0, 0, quantum, ptrsize, then words nfunc, nfiles and
 *            the offsets of funcnametab, cutab, filetab, pctab and the
 *            function table, whose pairs are words (entries are addresses).
 *   Go 1.18+ the same with textStart after nfiles; the pairs are uint32,
 *            entries offsets from the text start.
 */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

#define FUNCTAB_CHUNK ((size_t)64 << 10)

static uint16_t version_of(uint32_t magic)
{
	switch (magic) {
	case PFELF__GO_MAGIC12:
		return PFELF_GO_V12;
	case PFELF__GO_MAGIC116:
		return PFELF_GO_V116;
	case PFELF__GO_MAGIC118:
		return PFELF_GO_V118;
	}
	return PFELF_GO_V120;
}

/* The regions of a 1.16+ table, from its header hdr. */
static void regions_116(struct pfelf__go *g, const uint8_t *hdr)
{
	unsigned ps = g->pub.ptrsize;
	bool m = g->pub.big_endian;
	int first = g->pub.version == PFELF_GO_V116 ? 2 : 3;
	uint64_t o[5];
	for (int i = 0; i < 5; i++)
		o[i] = g->pub.offset + pfelf__go_word(hdr + 8 + (size_t)(first + i) * ps, ps, m);
	g->name_at = o[0];
	g->name_end = g->cu_at = o[1];
	g->cu_end = g->file_at = o[2];
	g->file_end = g->pc_at = o[3];
	g->pc_end = g->func_at = o[4];
	g->func_end = g->end;
	g->entry_size = g->pub.version == PFELF_GO_V116 ? (uint8_t)ps : 4;
	g->rec_size = (uint8_t)(g->entry_size + 32);
}

/* The regions of a 1.2 table: all of it, but the file table. */
static int regions_12(pfelf_file *f, struct pfelf__go *g)
{
	unsigned ps = g->pub.ptrsize;
	bool m = g->pub.big_endian;
	uint64_t t = g->pub.offset;
	g->name_at = g->file_at = g->pc_at = g->func_at = t;
	g->name_end = g->file_end = g->pc_end = g->func_end = g->end;
	g->entry_size = (uint8_t)ps;
	g->rec_size = (uint8_t)(ps + 28);
	uint8_t w[4];
	uint64_t at = t + 8 + ps + (2 * (uint64_t)g->pub.nfunc + 1) * ps;
	int ret = pfelf__read_range(f, at, w, 4); /* inside: the header checked it */
	if (ret < 0)
		return ret;
	uint64_t fileoff = pfelf__u32(w, m);
	if (fileoff > g->pub.size - 4)
		return -EINVAL;
	if ((ret = pfelf__read_range(f, t + fileoff, w, 4)) < 0)
		return ret;
	uint64_t n = pfelf__u32(w, m);
	if (n > (g->pub.size - fileoff) / 4)
		return -EINVAL;
	g->pub.nfiles = (uint32_t)n;
	g->cu_at = t + fileoff;
	g->cu_end = g->cu_at + 4 * n;
	return 0;
}

/* The header at loc: version, sizes, counts, regions, text start. */
static int read_header(pfelf_file *f, const struct pfelf__go_loc *loc, struct pfelf__go *g)
{
	uint8_t hdr[PFELF__GO_HDR_MAX] = {0};
	size_t n = loc->size < sizeof(hdr) ? (size_t)loc->size : sizeof(hdr);
	if (!pfelf__range_ok(f->size, loc->off, loc->size))
		return -EINVAL;
	int ret = pfelf__read_range(f, loc->off, hdr, n);
	if (ret < 0)
		return ret;
	if (!pfelf__go_header_ok(f, hdr, loc->size, loc->where >= PFELF_GO_SCAN))
		return -EINVAL;
	pfelf_go_table *p = &g->pub;
	p->magic = pfelf__go_magic(hdr, &p->big_endian);
	p->version = version_of(p->magic);
	p->quantum = hdr[6];
	p->ptrsize = hdr[7];
	p->offset = loc->off;
	p->size = loc->size;
	p->where = loc->where;
	g->end = loc->off + loc->size;
	if (pfelf__go_vaddr_of(f, loc->off, &p->vaddr) != 0)
		p->vaddr = 0;
	uint64_t nfunc = pfelf__go_word(hdr + 8, p->ptrsize, p->big_endian);
	uint64_t nfiles = pfelf__go_word(hdr + 8 + p->ptrsize, p->ptrsize, p->big_endian);
	if (nfunc >= UINT32_MAX || (p->version != PFELF_GO_V12 && nfiles > UINT32_MAX))
		return -EINVAL;
	p->nfunc = (uint32_t)nfunc;
	if (p->version == PFELF_GO_V12)
		return regions_12(f, g);
	p->nfiles = (uint32_t)nfiles;
	regions_116(g, hdr);
	if (p->version == PFELF_GO_V116)
		return 0;
	return pfelf__go_text(f, g, hdr);
}

/* Decode pairs [first, first + n) of the function table from buf. */
static int decode_pairs(struct pfelf__go *g, uint32_t *fos, const uint8_t *buf, unsigned fs,
                        uint64_t first, size_t n)
{
	bool m = g->pub.big_endian;
	uint64_t room = g->func_end - g->func_at;
	for (size_t k = 0; k < n; k++) {
		uint64_t i = first + k;
		uint64_t pc = pfelf__go_word(buf + 2 * k * fs, fs, m);
		if (g->pub.version >= PFELF_GO_V118) {
			if (g->pub.text > UINT64_MAX - pc)
				return -EINVAL;
			pc += g->pub.text;
		}
		if (i > 0 && pc < g->pc[i - 1])
			return -EINVAL; /* functions out of order: they would overlap */
		g->pc[i] = pc;
		if (i == g->pub.nfunc)
			break;
		uint64_t fo = pfelf__go_word(buf + (2 * k + 1) * fs, fs, m);
		if (fo > room || room - fo < g->rec_size || fo > UINT32_MAX)
			return -EINVAL;
		fos[i] = (uint32_t)fo;
	}
	return 0;
}

/* Read and decode the function table: nfunc pairs and the end entry, the
 * record offsets into *fos (the caller frees it). */
static int read_functab(pfelf_file *f, struct pfelf__go *g, uint32_t **fos)
{
	uint32_t nf = g->pub.nfunc;
	unsigned fs = g->pub.version >= PFELF_GO_V118 ? 4 : g->pub.ptrsize;
	uint64_t at =
	        g->pub.version == PFELF_GO_V12 ? g->pub.offset + 8 + g->pub.ptrsize : g->func_at;
	if ((uint64_t)nf * (sizeof(*g->pc) + sizeof(*g->rec)) > PFELF__MAX_TABLE)
		return -EINVAL;
	g->pc = malloc(((size_t)nf + 1) * sizeof(*g->pc));
	*fos = malloc(((size_t)nf + 1) * sizeof(**fos));
	uint8_t *buf = malloc(FUNCTAB_CHUNK);
	int ret = g->pc && *fos && buf ? 0 : -ENOMEM;
	size_t per = FUNCTAB_CHUNK / (2 * fs);
	for (uint64_t i = 0; ret == 0 && i <= nf; i += per) {
		size_t n = nf + 1 - i < per ? (size_t)(nf + 1 - i) : per;
		size_t len = (i + n > nf ? 2 * n - 1 : 2 * n) * fs;
		ret = pfelf__read_range(f, at + 2 * i * fs, buf, len);
		if (ret == 0)
			ret = decode_pairs(g, *fos, buf, fs, i, n);
	}
	free(buf);
	return ret;
}

/* Every entry and the last end inside one PT_LOAD's file bytes: what is
 * decoded per function is then bounded by the file. */
static int text_in_segment(pfelf_file *f, const struct pfelf__go *g)
{
	uint64_t lo = g->pc[0], hi = g->pc[g->pub.nfunc];
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type == PT_LOAD && !(p->status & PFELF_ST_OUT_OF_FILE) && lo >= p->vaddr &&
		    hi - p->vaddr <= p->filesz)
			return 0;
	}
	return -EINVAL;
}

static int load_go(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf_tables *m = f->tables;
	struct pfelf__go *g = calloc(1, sizeof(*g));
	if (!g)
		return -ENOMEM;
	struct pfelf__go_loc loc;
	int ret = pfelf__go_find(f, &loc);
	m->go_free = pfelf__go_free;
	if (ret == -ENOENT) {
		m->go = g; /* remembered: no pclntab */
		return 0;
	}
	uint32_t *fos = NULL;
	if (ret == 0)
		ret = read_header(f, &loc, g);
	if (ret == 0)
		ret = read_functab(f, g, &fos);
	if (ret == 0 && g->pub.nfunc > 0)
		ret = text_in_segment(f, g);
	if (ret == 0)
		ret = pfelf__go_load_records(f, g, fos);
	if (ret == 0)
		ret = pfelf__go_buckets(g);
	free(fos);
	if (ret < 0) {
		pfelf__go_free(g);
		return ret;
	}
	g->pub.min_pc = g->pc[0];
	g->pub.max_pc = g->pc[g->pub.nfunc];
	g->present = true;
	m->go = g;
	return 0;
}

void pfelf__go_free(struct pfelf__go *g)
{
	if (!g)
		return;
	free(g->pc);
	free(g->bucket);
	free(g->rec);
	free(g->cutab);
	free(g->files);
	free(g->cu);
	free(g);
}

int pfelf__go_get(pfelf_file *f, struct pfelf__go **out)
{
	int ret = pfelf__tables(f);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->go_state, load_go, NULL);
	if (ret < 0)
		return ret;
	*out = f->tables->go;
	return (*out)->present ? 0 : -ENOENT;
}

PFELF_API int pfelf_go_table_get(pfelf_file *f, pfelf_go_table *out)
{
	struct pfelf__go *g;
	int ret = pfelf__go_get(f, &g);
	if (ret == 0)
		*out = g->pub;
	return ret;
}

PFELF_API int pfelf_go_func_count(pfelf_file *f)
{
	struct pfelf__go *g;
	int ret = pfelf__go_get(f, &g);
	return ret < 0 ? ret : (int)g->pub.nfunc;
}

PFELF_API const char *pfelf_go_where_name(unsigned where)
{
	static const char *const names[] = {
	        [PFELF_GO_SECTION] = ".gopclntab",
	        [PFELF_GO_RELRO_SECTION] = ".data.rel.ro.gopclntab",
	        [PFELF_GO_SYMBOLS] = "runtime.pclntab",
	        [PFELF_GO_SCAN] = "read-only segment",
	        [PFELF_GO_SCAN_RELRO] = "PT_GNU_RELRO",
	};
	return where < sizeof(names) / sizeof(names[0]) && names[where] ? names[where] : "?";
}

PFELF_API const char *pfelf_go_text_name(unsigned text_from)
{
	static const char *const names[] = {
	        [PFELF_GO_TEXT_ABSOLUTE] = "entries",
	        [PFELF_GO_TEXT_HEADER] = "textStart",
	        [PFELF_GO_TEXT_HEADER_RELOC] = "textStart relocation",
	        [PFELF_GO_TEXT_MODULE] = "module data",
	        [PFELF_GO_TEXT_MODULE_RELOC] = "module data relocation",
	        [PFELF_GO_TEXT_SYMBOL] = "runtime.text",
	};
	return text_from < sizeof(names) / sizeof(names[0]) ? names[text_from] : "?";
}

PFELF_API int pfelf_cost_go(pfelf_file *f, pfelf_go_cost *out)
{
	if (!f || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	struct pfelf__go *g;
	if (pfelf__go_get(f, &g) == 0) {
		uint64_t n = g->pub.nfunc;
		out->functions = (n + 1) * sizeof(*g->pc) + (n + 1) * sizeof(*g->rec) +
		                 (uint64_t)g->nbucket * sizeof(*g->bucket);
		out->files = (g->cu_end - g->cu_at) + (g->files ? g->file_end - g->file_at + 1 : 0);
		out->units = atomic_load(&g->cu_state) > 0 ? (uint64_t)g->ncu * 4 : n * 4;
		out->reader = sizeof(struct pfelf_go_reader);
	}
	const char *text;
	size_t len;
	if (pfelf_go_buildinfo(f, &text, &len) == 0)
		out->buildinfo = len + 1;
	return 0;
}
