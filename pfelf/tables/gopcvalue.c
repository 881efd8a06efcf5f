/* Go's pc-value tables, decoded as debug/gosym's step and pcvalue do: a
 * sequence of (value delta, pc delta) pairs of uvarints, the value delta
 * zig-zag encoded, the pc delta in units of the quantum; a value delta of
 * 0 ends the table, except while the pc is still the entry. Bounds: a
 * varint of at most 5 bytes, at most MAX_STALLS steps that leave the pc
 * where it was, and the pctab's end. */
#include "tables/go_i.h"

#define MAX_STALLS 256
#define VARINT_MAX 5

/* A uvarint at p (avail bytes): its length; 0 when it runs past avail;
 * -EINVAL when it is longer than VARINT_MAX bytes. */
static int uvarint(const uint8_t *p, size_t avail, uint32_t *v)
{
	uint32_t x = 0;
	for (size_t i = 0; i < VARINT_MAX; i++) {
		if (i == avail)
			return 0;
		x |= (uint32_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			*v = x;
			return (int)i + 1;
		}
	}
	return avail > VARINT_MAX ? -EINVAL : 0;
}

void pfelf__go_pc_start(pfelf_go_reader *r, struct pfelf__go_pcdec *d, uint32_t off, uint64_t entry,
                        int w)
{
	d->at = r->g->pc_at + off;
	d->entry = d->pc = entry;
	d->val = -1;
	d->stalls = 0;
	d->w = w;
	d->state = d->at < r->g->pc_end ? 1 : -1;
}

/* One step of d from the avail bytes at p (at least 2 * VARINT_MAX, or
 * all that is left of the table): as pfelf__go_pc_step, the bytes it took
 * added to d->at. */
static int step_from(const uint8_t *p, size_t avail, struct pfelf__go_pcdec *d, unsigned quantum)
{
	uint32_t uv, pcd;
	int n1 = uvarint(p, avail, &uv);
	if (n1 > 0 && uv == 0 && d->pc != d->entry) {
		d->state = 0;
		return 0;
	}
	int n2 = n1 > 0 ? uvarint(p + n1, avail - (size_t)n1, &pcd) : n1;
	if (n1 < 0 || n2 < 0)
		return -EINVAL;
	if (n2 == 0) {
		d->state = -1; /* ran off the table: debug/gosym recovers with -1 */
		return -ERANGE;
	}
	d->at += (uint64_t)n1 + (uint64_t)n2;
	uint32_t vd = uv & 1 ? ~(uv >> 1) : uv >> 1;
	d->val = (int32_t)((uint32_t)d->val + vd); /* int32 arithmetic wraps in Go */
	uint32_t delta = pcd * quantum;            /* so does uint32's */
	if (delta == 0 && ++d->stalls > MAX_STALLS)
		return -EINVAL;
	d->pc += delta;
	return 1;
}

int pfelf__go_pc_step(pfelf_go_reader *r, struct pfelf__go_pcdec *d)
{
	if (d->state != 1)
		return d->state == 0 ? 0 : -ERANGE;
	const uint8_t *p;
	size_t avail;
	int ret = pfelf__go_bytes(r, d->w, d->at, r->g->pc_end, 2 * VARINT_MAX, &p, &avail);
	return ret < 0 ? ret : step_from(p, avail, d, r->g->pub.quantum);
}

int pfelf__go_pc_value(pfelf_go_reader *r, uint32_t off, uint64_t entry, uint64_t target, int w,
                       int32_t *val)
{
	struct pfelf__go_pcdec d;
	const uint8_t *p = NULL;
	size_t avail = 0;
	pfelf__go_pc_start(r, &d, off, entry, w);
	/* steps decoded from one window as long as it holds them: no other
	 * read comes between them */
	while (d.state == 1) {
		if (avail < 2 * VARINT_MAX) {
			int ret = pfelf__go_bytes(r, w, d.at, r->g->pc_end, 2 * VARINT_MAX, &p,
			                          &avail);
			if (ret < 0)
				return ret;
		}
		uint64_t at = d.at;
		int ret = step_from(p, avail, &d, r->g->pub.quantum);
		if (ret == 1 && target < d.pc) {
			*val = d.val;
			return 0;
		}
		if (ret == -EINVAL)
			return ret;
		p += d.at - at;
		avail -= (size_t)(d.at - at);
	}
	*val = -1; /* the table ended, or ran off the tables */
	return 0;
}
