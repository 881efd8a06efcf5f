/* The string hash of the daemon's small hash tables (FNV-1a, 64 bits). */
#ifndef ELFFS_STRHASH_H
#define ELFFS_STRHASH_H

#include <stdint.h>

static inline uint64_t strhash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	return h ^ (h >> 29);
}

#endif /* ELFFS_STRHASH_H */
