/*
 * A small writer of ar archives for the archive tests: the GNU variant
 * with a "/" or "/SYM64/" index (what binutils writes only for archives
 * over 4 GiB) and the BSD variant ("#1/LEN" names, "__.SYMDEF SORTED" or
 * "__.SYMDEF_64 SORTED" index), which binutils here cannot write. Member
 * headers get distinct dates, uids, gids and modes so that their parsing
 * is checked.
 */
#ifndef TB_ARGEN_H
#define TB_ARGEN_H

#include <stddef.h>
#include <stdint.h>

enum argen_format {
	ARGEN_GNU = 0,   /* "/" index, names over 15 bytes in "//" */
	ARGEN_GNU64 = 1, /* "/SYM64/" index */
	ARGEN_BSD = 2,   /* "#1/LEN" names over 16 bytes or with a space, 32-bit ranlib */
	ARGEN_BSD64 = 3, /* 64-bit ranlib */
};

struct argen_member {
	const char *name;
	const void *data;
	size_t len;
};

struct argen_sym {
	const char *name;
	unsigned member; /* index in the members given */
};

/* The header fields argen writes for member i. */
#define ARGEN_DATE(i) (1700000000ull + (i)*7)
#define ARGEN_UID(i)  (1000u + (i))
#define ARGEN_GID(i)  (100u + (i) % 7)
#define ARGEN_MODE(i) ((i) % 2 ? 0100644u : 0100755u)

/* The archive in a malloc'd buffer of *len bytes (NULL on ENOMEM); with
 * offsets != NULL, offsets[i] is member i's header offset. */
uint8_t *argen_build(enum argen_format fmt, const struct argen_member *m, size_t n,
                     const struct argen_sym *s, size_t ns, size_t *len, uint64_t *offsets);

#endif
