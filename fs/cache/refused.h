/* The reasons of refused headers (user.elffs.refused): their bound and their log lines. */
#ifndef ELFFS_CACHE_REFUSED_H
#define ELFFS_CACHE_REFUSED_H

#include "content/xattr.h"

/* Reasons of refused headers: at most this long (with the NUL); one log
 * line for them at most every REFUSED_LOG_EVERY_NS. */
#define REFUSED_MAX          XATTR_VALUE_MAX /* an attribute value, the NUL left out */
#define REFUSED_LOG_EVERY_NS 10000000000ULL

#endif /* ELFFS_CACHE_REFUSED_H */
