/*
 * -o readahead=KB: the mount's readahead window.
 *
 * The kernel gives a FUSE mount the default window (128 KiB) and lowers it
 * to what the daemon answers at FUSE_INIT; only root can raise it, by
 * writing the mount's backing device's read_ahead_kb in sysfs
 * (/sys/class/bdi/MAJOR:MINOR/read_ahead_kb, the numbers of st_dev of the
 * mount point). That must happen after INIT, or INIT would lower it again.
 * So the first lookup or getattr (the kernel sends none before INIT is
 * done, and a read always comes after one) writes it, once: the device is
 * read with statx(AT_STATX_DONT_SYNC) of the mount point, which the kernel
 * answers from its cache without a request, and must be our own mount's.
 * (A thread that stat'ed the mount point at start held the mount while it
 * waited for INIT: a fusermount3 -u right after the mount failed with
 * EBUSY, 4 times in 40 under load.) As root the daemon sets
 * ELFFS_READAHEAD_KB unless told otherwise (-o readahead=0 keeps the
 * kernel's window).
 */
#include "ops/readahead.h"
#include "base/log.h"
#include "source/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static char *ra_mountpoint; /* set before the session loop, then read-only */
static unsigned ra_kb;
static bool ra_warn;
static atomic_bool ra_pending;

/* Write kb to the read_ahead_kb of the backing device dev: 0 or -errno. */
static int readahead_set(dev_t dev, unsigned kb)
{
	char path[96], val[24];
	snprintf(path, sizeof(path), "/sys/class/bdi/%u:%u/read_ahead_kb", major(dev), minor(dev));
	int n = snprintf(val, sizeof(val), "%u\n", kb);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int ret = write(fd, val, (size_t)n) == n ? 0 : -errno;
	close(fd);
	return ret;
}

/* The device of our mount at ra_mountpoint, without a request: 0 or -errno. */
static int mount_dev(dev_t *dev)
{
	struct statx sx;
	if (statx(AT_FDCWD, ra_mountpoint, AT_NO_AUTOMOUNT | AT_STATX_DONT_SYNC, 0, &sx) < 0)
		return -errno;
	*dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	/* Never another file system's window (something mounted over ours). */
	return major(*dev) == 0 && src_is_own_dev(*dev) ? 0 : -ENODEV;
}

void readahead_kick(void)
{
	if (!atomic_load_explicit(&ra_pending, memory_order_relaxed) ||
	    !atomic_exchange(&ra_pending, false))
		return;
	dev_t dev;
	int ret = mount_dev(&dev);
	if (ret == 0)
		ret = readahead_set(dev, ra_kb);
	if (ret < 0 && ra_warn)
		elog(LOG_WARNING, "-o readahead=%u: %s (the kernel's window stays)", ra_kb,
		     strerror(-ret));
}

int readahead_start(const char *mountpoint, unsigned kb, bool warn)
{
	free(ra_mountpoint);
	ra_mountpoint = strdup(mountpoint);
	if (!ra_mountpoint)
		return -ENOMEM;
	ra_kb = kb;
	ra_warn = warn;
	atomic_store(&ra_pending, true);
	return 0;
}
