/* The reasons of refused headers (user.elffs.refused): bound, log lines, copy. */
#ifndef ELFFS_CACHE_REFUSED_H
#define ELFFS_CACHE_REFUSED_H

#include "content/xattr.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

/* Reasons of refused headers: at most this long (with the NUL); one log
 * line for them at most every REFUSED_LOG_EVERY_NS. */
#define REFUSED_MAX          XATTR_VALUE_MAX /* an attribute value, the NUL left out */
#define REFUSED_LOG_EVERY_NS 10000000000ULL

/* Reason why (a string) into buf, size bytes, without its NUL: its
 * length, or -ERANGE (user.elffs.refused). */
static inline int refused_copy(const char *why, char *buf, size_t size)
{
	size_t len = strlen(why);
	if (len > size)
		return -ERANGE;
	memcpy(buf, why, len);
	return (int)len;
}

#endif /* ELFFS_CACHE_REFUSED_H */
