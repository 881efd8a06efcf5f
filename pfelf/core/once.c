/* Lazy loading: a loader run once per table, its success or permanent
 * error kept for every later call. */
#include "pfelf_i.h"

/* Run load(f, ctx) once under lock; remember success and a permanent error. */
int pfelf__once(pfelf_file *f, pthread_mutex_t *lock, _Atomic int *state, pfelf__loader load,
                void *ctx)
{
	int st = atomic_load_explicit(state, memory_order_acquire);
	if (st != 0)
		return st > 0 ? 0 : st;
	pthread_mutex_lock(lock);
	st = atomic_load_explicit(state, memory_order_relaxed);
	if (st == 0) {
		int ret = load(f, ctx);
		st = ret == 0 ? 1 : ret;
		/* -EINVAL is a property of the file: remember it. -EIO and
		 * -ENOMEM are transient: the next call tries again. */
		if (ret == 0 || ret == -EINVAL)
			atomic_store_explicit(state, st, memory_order_release);
	}
	pthread_mutex_unlock(lock);
	return st > 0 ? 0 : st;
}
