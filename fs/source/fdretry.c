/* Calls that ran out of descriptors: the shedder that gives idle ones back, and the retries. */
#include "source/source.h"
#include "base/errors.h"

#include <time.h>

#define FD_TRIES 8 /* tries of a call that ran out of descriptors */

static void (*shedder)(void); /* the binary cache's, given at start */

void src_set_fd_shedder(void (*shed)(void))
{
	shedder = shed;
}

bool src_fd_retry(int err, unsigned *tries)
{
	if (!err_no_fds(err) || *tries >= FD_TRIES)
		return false;
	if (*tries > 0) { /* the others are a worker's, in use: wait for them */
		struct timespec ts = {0, 1000000L << (*tries < 5 ? *tries : 5)};
		nanosleep(&ts, NULL);
	}
	(*tries)++;
	if (shedder)
		shedder();
	return true;
}
