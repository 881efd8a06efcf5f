/* The functions' records and the file tables of a pclntab, loaded with its
 * function table: from each record the fields a lookup uses (name,
 * pc-file and pc-line table offsets, compile unit: 16 bytes), its entry
 * checked against the function table's; the compile unit table and the
 * file names copied (a few bytes a function in real tables; at most
 * PFELF__GO_FILES_MAX). Records are read 64 KiB ahead while their offsets
 * go up, one at a time when they go back: what is read is bounded by the
 * region and the number of records. */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK ((size_t)64 << 10)

struct chunk {
	uint8_t *buf;
	uint64_t off; /* file offset of buf[0] */
	size_t len;
	uint8_t one[PFELF__GO_HDR_MAX]; /* a record read alone */
};

/* The rec_size bytes of the record at file offset at. */
static int record_bytes(pfelf_file *f, const struct pfelf__go *g, struct chunk *c, uint64_t at,
                        const uint8_t **p)
{
	if (c->len >= g->rec_size && at >= c->off && at - c->off <= c->len - g->rec_size) {
		*p = c->buf + (at - c->off);
		return 0;
	}
	if (c->len && at < c->off) { /* going back: this record only */
		*p = c->one;
		return pfelf__read_range(f, at, c->one, g->rec_size);
	}
	uint64_t left = g->func_end - at; /* >= rec_size: checked with the offsets */
	c->len = left < CHUNK ? (size_t)left : CHUNK;
	c->off = at;
	*p = c->buf;
	int ret = pfelf__read_range(f, at, c->buf, c->len);
	if (ret < 0)
		c->len = 0;
	return ret;
}

static int read_records(pfelf_file *f, struct pfelf__go *g, const uint32_t *fo)
{
	struct chunk c = {.buf = malloc(CHUNK)};
	g->rec = malloc(((size_t)g->pub.nfunc + 1) * sizeof(*g->rec));
	int ret = c.buf && g->rec ? 0 : -ENOMEM;
	bool m = g->pub.big_endian;
	unsigned e = g->entry_size;
	for (uint32_t i = 0; ret == 0 && i < g->pub.nfunc; i++) {
		const uint8_t *p;
		if ((ret = record_bytes(f, g, &c, g->func_at + fo[i], &p)) < 0)
			break;
		uint64_t entry = pfelf__go_word(p, e, m);
		if (g->pub.version >= PFELF_GO_V118)
			entry += g->pub.text; /* a wrap fails the check below */
		if (entry != g->pc[i])
			ret = -EINVAL; /* debug/gosym decodes from the record's entry */
		g->rec[i].nameoff = pfelf__u32(p + e, m);
		g->rec[i].pcfile = pfelf__u32(p + e + 16, m);
		g->rec[i].pcln = pfelf__u32(p + e + 20, m);
		g->rec[i].cuoff = g->pub.version == PFELF_GO_V12 ? 0 : pfelf__u32(p + e + 28, m);
	}
	free(c.buf);
	return ret;
}

/* The compile unit table and (1.16+) the file names, copied. */
static int copy_files(pfelf_file *f, struct pfelf__go *g)
{
	uint64_t cu = g->cu_end - g->cu_at;
	uint64_t names = g->pub.version == PFELF_GO_V12 ? 0 : g->file_end - g->file_at;
	if (cu > PFELF__GO_FILES_MAX || names > PFELF__GO_FILES_MAX - cu)
		return -EINVAL;
	int ret = pfelf__copy_table(f, g->cu_at, cu, &g->cutab);
	if (ret == 0 && g->pub.version != PFELF_GO_V12)
		ret = pfelf__copy_table(f, g->file_at, names, (uint8_t **)&g->files);
	return ret;
}

int pfelf__go_load_records(pfelf_file *f, struct pfelf__go *g, const uint32_t *fo)
{
	int ret = read_records(f, g, fo);
	return ret < 0 ? ret : copy_files(f, g);
}
