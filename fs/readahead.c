/*
 * -o readahead=KB: the mount's readahead window.
 *
 * The kernel gives a FUSE mount the default window (128 KiB) and lowers it
 * to what the daemon answers at FUSE_INIT; only root can raise it, by
 * writing the mount's backing device's read_ahead_kb in sysfs
 * (/sys/class/bdi/MAJOR:MINOR/read_ahead_kb, the numbers of st_dev of the
 * mount point). That must happen after INIT, or INIT would lower it again:
 * a thread stats the mount point, which the kernel answers only once INIT
 * is done (its request waits for it), then writes the value. As root the
 * daemon sets ELFFS_READAHEAD_KB unless told otherwise (-o readahead=0
 * keeps the kernel's window).
 */
#include "readahead.h"
#include "log.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define FUSE_SUPER_MAGIC 0x65735546

struct ra_job {
	char *mountpoint;
	unsigned kb;
	bool warn;
};

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

static void *ra_thread(void *arg)
{
	struct ra_job *job = arg;
	struct stat st;
	struct statfs sf;
	int ret = stat(job->mountpoint, &st) < 0 || statfs(job->mountpoint, &sf) < 0 ? -errno : 0;
	/* Never another file system's window: if the mount went away before
	 * this thread ran, the path is the directory under it. */
	if (ret == 0 && (sf.f_type != FUSE_SUPER_MAGIC || major(st.st_dev) != 0))
		ret = -ENODEV;
	if (ret == 0)
		ret = readahead_set(st.st_dev, job->kb);
	if (ret < 0 && job->warn)
		elog(LOG_WARNING, "-o readahead=%u: %s (the kernel's window stays)", job->kb,
		     strerror(-ret));
	free(job->mountpoint);
	free(job);
	return NULL;
}

int readahead_start(const char *mountpoint, unsigned kb, bool warn)
{
	struct ra_job *job = malloc(sizeof(*job));
	if (!job)
		return -ENOMEM;
	job->mountpoint = strdup(mountpoint);
	job->kb = kb;
	job->warn = warn;
	pthread_t t;
	int ret = job->mountpoint ? pthread_create(&t, NULL, ra_thread, job) : ENOMEM;
	if (ret != 0) {
		free(job->mountpoint);
		free(job);
		return -ret;
	}
	pthread_detach(t);
	return 0;
}
