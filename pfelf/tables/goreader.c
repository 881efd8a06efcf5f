/* A reader of one pclntab: windows of PFELF__GO_WIN bytes over the table,
 * one per kind of read (records, names, the two pc-value tables of a
 * function, the compile unit table, the file names), filled by the kernel
 * (pfelf__read_range) on a miss; the NUL-ended strings it copies out. */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

PFELF_API int pfelf_go_reader_open(pfelf_file *f, pfelf_go_reader **out)
{
	struct pfelf__go *g;
	int ret = pfelf__go_get(f, &g);
	if (ret < 0)
		return ret;
	pfelf_go_reader *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->f = f;
	r->g = g;
	*out = r;
	return 0;
}

PFELF_API void pfelf_go_reader_close(pfelf_go_reader *r)
{
	if (!r)
		return;
	free(r->name.buf);
	free(r->file.buf);
	free(r);
}

int pfelf__go_bytes(pfelf_go_reader *r, int w, uint64_t off, uint64_t lim, size_t need,
                    const uint8_t **p, size_t *avail)
{
	struct pfelf__go_win *x = &r->win[w];
	if (off >= lim) {
		*p = x->buf;
		*avail = 0;
		return 0;
	}
	uint64_t have = off >= x->off && off - x->off < x->len ? x->off + x->len - off : 0;
	if (have < need && have < lim - off) {
		uint64_t len = lim - off < PFELF__GO_WIN ? lim - off : PFELF__GO_WIN;
		x->len = 0;
		int ret = pfelf__read_range(r->f, off, x->buf, (size_t)len);
		if (ret < 0)
			return ret;
		x->off = off;
		x->len = (uint32_t)len;
		have = len;
	}
	*p = x->buf + (off - x->off);
	*avail = (size_t)have;
	return 0;
}

/* Make room for n + 1 bytes in s. */
static int str_room(struct pfelf__go_str *s, size_t n)
{
	if (n < s->cap)
		return 0;
	size_t cap = s->cap ? s->cap : 256;
	while (cap <= n)
		cap *= 2;
	if (cap > PFELF_GO_NAME_MAX + 1)
		cap = PFELF_GO_NAME_MAX + 1;
	char *p = realloc(s->buf, cap);
	if (!p)
		return -ENOMEM;
	s->buf = p;
	s->cap = (uint32_t)cap;
	return 0;
}

int pfelf__go_string(pfelf_go_reader *r, int w, uint64_t off, uint64_t lim, struct pfelf__go_str *s,
                     uint32_t *n)
{
	size_t len = 0;
	if (off >= lim)
		return -ERANGE;
	while (off < lim) {
		const uint8_t *p;
		size_t avail;
		int ret = pfelf__go_bytes(r, w, off, lim, 1, &p, &avail);
		if (ret < 0)
			return ret;
		const uint8_t *nul = memchr(p, 0, avail);
		size_t take = nul ? (size_t)(nul - p) : avail;
		if (len + take > PFELF_GO_NAME_MAX)
			return -EINVAL;
		if ((ret = str_room(s, len + take)) < 0)
			return ret;
		memcpy(s->buf + len, p, take);
		len += take;
		if (nul) {
			s->buf[len] = 0;
			*n = (uint32_t)len;
			return 0;
		}
		off += avail;
	}
	return -ERANGE;
}

int pfelf__go_record(pfelf_go_reader *r, uint32_t i, struct pfelf__go_rec *out)
{
	const struct pfelf__go *g = r->g;
	const uint8_t *p;
	size_t avail;
	uint64_t at = g->func_at + g->fo[i]; /* checked at load: rec_size bytes inside */
	int ret = pfelf__go_bytes(r, GO_W_FUNC, at, g->func_end, g->rec_size, &p, &avail);
	if (ret < 0)
		return ret;
	bool m = g->pub.big_endian;
	unsigned e = g->entry_size;
	out->entry = pfelf__go_word(p, e, m);
	if (g->pub.version >= PFELF_GO_V118)
		out->entry += g->pub.text; /* a wrap fails the check below */
	out->nameoff = pfelf__u32(p + e, m);
	out->pcfile = pfelf__u32(p + e + 16, m);
	out->pcln = pfelf__u32(p + e + 20, m);
	out->cuoff = g->pub.version == PFELF_GO_V12 ? 0 : pfelf__u32(p + e + 28, m);
	/* debug/gosym decodes the pc-value tables from this entry; ours are
	 * the function table's, so both must be one */
	return out->entry == g->pc[i] ? 0 : -EINVAL;
}
