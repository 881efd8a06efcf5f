/* The daemon's memory budget: reservations, evictions, refusals. */
#include "base/membudget.h"
#include "base/elffs.h"
#include "base/log.h"

#include <errno.h>
#include <inttypes.h>
#include <malloc.h>
#include <stdatomic.h>
#include <unistd.h>

#define MiB           ((uint64_t)1 << 20)
#define EVICT_TRIES   4096         /* evictions per reservation, at most */
#define TRIM_EVERY_NS 100000000ULL /* malloc_trim after evictions: 10 per second at most */
#define LOG_EVERY_NS  ((uint64_t)MEMBUDGET_LOG_EVERY_S * 1000000000ULL)

static uint64_t limit = (uint64_t)MEMBUDGET_DEFAULT_MB * MiB;
static _Atomic uint64_t used;
static _Atomic uint64_t held[MB_NKINDS];
static const struct membudget_source *sources[MB_NKINDS];
static uint64_t (*node_counter)(void); /* the node table's count of live nodes */
static _Atomic uint64_t last_trim;
static struct elog_limit log_limit; /* refusal lines */

uint64_t membudget_default(void)
{
	uint64_t want = (uint64_t)MEMBUDGET_DEFAULT_MB * MiB;
	long pages = sysconf(_SC_PHYS_PAGES);
	long size = sysconf(_SC_PAGESIZE);
	if (pages > 0 && size > 0 && (uint64_t)pages * (uint64_t)size / 4 < want)
		want = (uint64_t)pages * (uint64_t)size / 4;
	return want < 16 * MiB ? 16 * MiB : want;
}

/*
 * glibc raises its mmap threshold to the size of each mmapped block freed
 * (up to 32 MiB), after which big tables come from the heap and stay in
 * the resident set once freed: an evicted view would leave its tables'
 * pages behind. Fixed thresholds keep blocks of MALLOC_FIXED bytes and more
 * mmapped (unmapped when freed) and trim the heaps' free tops.
 */
#define MALLOC_FIXED (128 * 1024)

void membudget_init(uint64_t bytes)
{
	limit = bytes ? bytes : membudget_default();
	mallopt(M_MMAP_THRESHOLD, MALLOC_FIXED);
	mallopt(M_TRIM_THRESHOLD, MALLOC_FIXED);
}

uint64_t membudget_limit(void)
{
	return limit;
}

void membudget_register(enum membudget_kind k, const struct membudget_source *s)
{
	sources[k] = s;
}

void membudget_count_nodes(uint64_t (*count)(void))
{
	node_counter = count;
}

/* Take bytes if they fit now. */
static bool try_take(uint64_t bytes)
{
	uint64_t u = atomic_load(&used);
	do
		if (u > limit || bytes > limit - u)
			return false;
	while (!atomic_compare_exchange_weak(&used, &u, u + bytes));
	return true;
}

/* Evict the least recently used idle entry of any source; whether one went. */
static bool evict_oldest(void)
{
	const struct membudget_source *best = NULL;
	uint64_t best_stamp = UINT64_MAX;
	for (int k = 0; k < MB_NKINDS; k++) {
		uint64_t stamp;
		if (sources[k] && sources[k]->oldest(&stamp) && (!best || stamp < best_stamp)) {
			best = sources[k];
			best_stamp = stamp;
		}
	}
	return best && best->evict();
}

/* Give freed heap pages back to the system (rate-limited): what was evicted
 * must leave the resident set, not wait in some thread's arena. */
static void trim(void)
{
	uint64_t now = elffs_now_ns(), last = atomic_load(&last_trim);
	if (now - last < TRIM_EVERY_NS || !atomic_compare_exchange_strong(&last_trim, &last, now))
		return;
	malloc_trim(0);
}

void membudget_stats_get(struct membudget_stats *st)
{
	st->limit = limit;
	for (int k = 0; k < MB_NKINDS; k++)
		st->held[k] = atomic_load(&held[k]);
	st->nodes = node_counter ? node_counter() * MEMBUDGET_NODE_BYTES : 0;
}

/* One line for a refusal, at most one per LOG_EVERY_NS (the others counted). */
static void log_refusal(int err, uint64_t bytes, uint64_t own, const char *what)
{
	unsigned skipped;
	if (!elog_due(&log_limit, LOG_EVERY_NS, &skipped))
		return;
	struct membudget_stats st;
	membudget_stats_get(&st);
	elog(LOG_WARNING,
	     "memory budget of %" PRIu64 " MiB (-o memory=): %s needs %" PRIu64 " KiB more "
	     "(holds %" PRIu64 " KiB): %s; held: views %" PRIu64 " KiB, decompressed %" PRIu64
	     " KiB, listings %" PRIu64 " KiB, nodes about %" PRIu64
	     " KiB (%u more refusals since the last message)",
	     limit / MiB, what ? what : "?", bytes >> 10, own >> 10,
	     err == -EFBIG ? "more than the whole budget, refused (EFBIG)"
	                   : "no room beside the entries in use (ENOMEM)",
	     st.held[MB_VIEWS] >> 10, st.held[MB_DECOMPRESSED] >> 10, st.held[MB_LISTINGS] >> 10,
	     st.nodes >> 10, skipped);
}

int membudget_reserve(enum membudget_kind k, uint64_t bytes, uint64_t own, const char *what)
{
	int ret = 0;
	if (own > limit || bytes > limit - own) {
		ret = -EFBIG;
	} else {
		bool evicted = false;
		for (unsigned i = 0; !try_take(bytes); i++) {
			if (i == EVICT_TRIES || !evict_oldest()) {
				ret = -ENOMEM;
				break;
			}
			evicted = true;
		}
		if (evicted)
			trim();
	}
	if (ret < 0) {
		log_refusal(ret, bytes, own, what);
		return ret;
	}
	atomic_fetch_add(&held[k], bytes);
	return 0;
}

void membudget_release(enum membudget_kind k, uint64_t bytes)
{
	atomic_fetch_sub(&held[k], bytes);
	atomic_fetch_sub(&used, bytes);
}
