/* Endian helpers and a fail-closed byte cursor over untrusted bytes. */
#include "pfelf_i.h"

uint16_t pfelf__u16(const uint8_t *p, bool msb)
{
	return msb ? (uint16_t)((unsigned)p[0] << 8 | p[1])
	           : (uint16_t)((unsigned)p[1] << 8 | p[0]);
}

uint32_t pfelf__u32(const uint8_t *p, bool msb)
{
	if (msb)
		return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
}

uint64_t pfelf__u64(const uint8_t *p, bool msb)
{
	uint64_t hi = pfelf__u32(msb ? p : p + 4, msb);
	uint64_t lo = pfelf__u32(msb ? p + 4 : p, msb);
	return hi << 32 | lo;
}

void pfelf__cursor_init(struct pfelf_cursor *c, const void *p, size_t len, bool msb)
{
	c->p = p;
	c->len = len;
	c->pos = 0;
	c->msb = msb;
	c->ok = true;
}

/* Claim n bytes; NULL (and the cursor failed for good) when they are not there. */
static const uint8_t *take(struct pfelf_cursor *c, size_t n)
{
	if (!c->ok || !pfelf__range_ok(c->len, c->pos, n)) {
		c->ok = false;
		return NULL;
	}
	const uint8_t *p = c->p + c->pos;
	c->pos += n;
	return p;
}

uint8_t pfelf__get8(struct pfelf_cursor *c)
{
	const uint8_t *p = take(c, 1);
	return p ? p[0] : 0;
}

uint16_t pfelf__get16(struct pfelf_cursor *c)
{
	const uint8_t *p = take(c, 2);
	return p ? pfelf__u16(p, c->msb) : 0;
}

uint32_t pfelf__get32(struct pfelf_cursor *c)
{
	const uint8_t *p = take(c, 4);
	return p ? pfelf__u32(p, c->msb) : 0;
}

uint64_t pfelf__get64(struct pfelf_cursor *c)
{
	const uint8_t *p = take(c, 8);
	return p ? pfelf__u64(p, c->msb) : 0;
}

uint64_t pfelf__getw(struct pfelf_cursor *c, bool is64)
{
	return is64 ? pfelf__get64(c) : pfelf__get32(c);
}

void pfelf__skip(struct pfelf_cursor *c, size_t n)
{
	(void)take(c, n);
}
