/* The daemon's shared context. */
#include "base/elffs.h"

#include <time.h>

struct elffs_ctx elffs = {
        .srcfd = -1,
        .timeout = 1.0,
        .timeout_ns = 1000000000ULL,
        .watch_timeout = 86400.0,
        .watch_timeout_ns = 86400000000000ULL,
};

uint64_t elffs_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
