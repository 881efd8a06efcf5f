/* The keys of the name table: SipHash-2-4 of a name under a key drawn at start. */
#include "node/namekey.h"

#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static uint64_t sipkey[2];

#define ROTL(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13) ^ v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17) ^ v[2];
	v[2] = ROTL(v[2], 32);
}

static void sipblock(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
}

/* SipHash-2-4 of name under the key drawn at start. */
uint64_t name_key(const char *name)
{
	size_t len = strlen(name), i = 0;
	uint64_t v[4] = {sipkey[0] ^ 0x736f6d6570736575ULL, sipkey[1] ^ 0x646f72616e646f6dULL,
	                 sipkey[0] ^ 0x6c7967656e657261ULL, sipkey[1] ^ 0x7465646279746573ULL};
	for (; i + 8 <= len; i += 8) {
		uint64_t m = 0;
		for (unsigned j = 0; j < 8; j++)
			m |= (uint64_t)(unsigned char)name[i + j] << (8 * j);
		sipblock(v, m);
	}
	uint64_t last = (uint64_t)len << 56;
	for (unsigned j = 0; i + j < len; j++)
		last |= (uint64_t)(unsigned char)name[i + j] << (8 * j);
	sipblock(v, last);
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

void name_key_draw(void)
{
	if (getrandom(sipkey, sizeof(sipkey), GRND_NONBLOCK) == (ssize_t)sizeof(sipkey))
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	sipkey[0] = (uint64_t)ts.tv_nsec * 0x9e3779b97f4a7c15ULL ^ (uint64_t)getpid();
	sipkey[1] = (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&ts;
}
