/*
 * The watch thread: reads fanotify's events (file handles and names), the
 * changes of the mount table (/proc/self/mountinfo polled for POLLPRI:
 * a mount or unmount below SOURCE marks the file systems again and
 * invalidates everything, as does an overflow of the event queue), and a
 * pipe that stops it. It only queues invalidations: base/inval.c's
 * thread sends them.
 */
#include "watch/watch_i.h"
#include "base/inval.h"
#include "base/log.h"
#include "buildid/buildid_index.h"
#include "text/xattrtab.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fanotify.h>
#include <unistd.h>

#define EVENT_BUF (64 * 1024)

static int fan = -1, mountinfo = -1, stop_pipe[2] = {-1, -1};
static pthread_t thread;
static bool running;
static bool pending_all; /* a full invalidation to be made (it failed for memory) */
static struct elog_limit overflow_log;

/* A fid record (hdr at p, len bytes) into f and its name; 0 or -EINVAL.
 * Records are not aligned: every field is copied out. */
static int fid_record(const unsigned char *p, size_t len, struct wfid *f, const char **name)
{
	const size_t head = sizeof(struct fanotify_event_info_fid) + sizeof(struct file_handle);
	if (len < head)
		return -EINVAL;
	struct fanotify_event_info_fid r;
	struct file_handle fh;
	memcpy(&r, p, sizeof(r));
	memcpy(&fh, p + sizeof(r), sizeof(fh));
	if (fh.handle_bytes > WATCH_HANDLE_MAX || fh.handle_bytes > len - head)
		return -EINVAL;
	f->fsid = wfs_fsid_of(&r.fsid);
	f->type = fh.handle_type;
	f->len = fh.handle_bytes;
	memcpy(f->bytes, p + head, f->len);
	*name = NULL;
	if (r.hdr.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME) {
		const char *s = (const char *)p + head + f->len;
		size_t room = len - head - f->len;
		if (!memchr(s, '\0', room))
			return -EINVAL;
		*name = s;
	}
	return 0;
}

/* One event of mask mask: its info records from p to end. */
static void one_event(uint64_t mask, const unsigned char *p, const unsigned char *end)
{
	struct wfid dir, obj;
	const char *name = NULL, *unused;
	bool has_dir = false, has_obj = false;
	while ((size_t)(end - p) >= sizeof(struct fanotify_event_info_header)) {
		struct fanotify_event_info_header h;
		memcpy(&h, p, sizeof(h));
		if (h.len < sizeof(h) || h.len > (size_t)(end - p))
			break;
		if ((h.info_type == FAN_EVENT_INFO_TYPE_DFID_NAME ||
		     h.info_type == FAN_EVENT_INFO_TYPE_DFID) &&
		    !has_dir)
			has_dir = fid_record(p, h.len, &dir, &name) == 0;
		else if (h.info_type == FAN_EVENT_INFO_TYPE_FID && !has_obj)
			has_obj = fid_record(p, h.len, &obj, &unused) == 0;
		p += h.len;
	}
	wapply_event(mask, has_dir ? &dir : NULL, name, has_obj ? &obj : NULL);
}

static void everything(void)
{
	bidx_changed();
	pending_all = wapply_everything() < 0;
}

/* The build-id index kept while SOURCE is watched whole (buildid_index.h). */
static void index_keep(void)
{
	bidx_keep(wfs_whole() ? elffs.watch_timeout_ns : 0);
}

static void overflow(void)
{
	atomic_fetch_add(&watch_n_overflows, 1);
	unsigned skipped;
	if (elog_due(&overflow_log, 10000000000ULL, &skipped))
		elog(LOG_WARNING,
		     "watch: event queue overflowed (%u more held back): "
		     "everything the kernel holds invalidated",
		     skipped);
	everything();
}

/* Read and apply what fanotify has; false when it cannot be read. */
static bool read_events(unsigned char *buf)
{
	ssize_t got = read(fan, buf, EVENT_BUF);
	if (got < 0)
		return errno == EAGAIN || errno == EINTR;
	bool overflowed = false;
	size_t off = 0, end = (size_t)got;
	while (end - off >= sizeof(struct fanotify_event_metadata)) {
		struct fanotify_event_metadata md; /* events are not aligned: copied out */
		memcpy(&md, buf + off, sizeof(md));
		if (md.vers != FANOTIFY_METADATA_VERSION || md.metadata_len < sizeof(md) ||
		    md.event_len < md.metadata_len || md.event_len > end - off)
			break;
		if (md.mask & FAN_Q_OVERFLOW)
			overflowed = true;
		else
			one_event(md.mask, buf + off + md.metadata_len, buf + off + md.event_len);
		off += md.event_len;
	}
	if (overflowed) /* after the events read with it: once */
		overflow();
	return true;
}

static void remount(void)
{
	bool changed;
	int n = wfs_scan(fan, false, &changed);
	if (n < 0)
		changed = true; /* unknown: as a change */
	else
		atomic_store(&watch_n_watched, (uint64_t)n);
	index_keep();
	if (!changed)
		return; /* a mount elsewhere: nothing below SOURCE moved */
	atomic_fetch_add(&watch_n_remounts, 1);
	everything();
}

static void *run(void *arg)
{
	unsigned char *buf = arg;
	struct pollfd p[3] = {{.fd = fan, .events = POLLIN},
	                      {.fd = mountinfo, .events = POLLPRI},
	                      {.fd = stop_pipe[0], .events = POLLIN}};
	for (;;) {
		if (poll(p, 3, 1000) < 0 && errno != EINTR)
			break;
		if (p[2].revents)
			break;
		if (p[1].revents & (POLLPRI | POLLERR))
			remount();
		if (p[0].revents & POLLIN && !read_events(buf))
			break;
		if (pending_all || inval_lost())
			everything();
	}
	free(buf);
	return NULL;
}

static void close_all(void)
{
	int *fds[] = {&fan, &mountinfo, &stop_pipe[0], &stop_pipe[1]};
	for (size_t i = 0; i < 4; i++)
		if (*fds[i] >= 0) {
			close(*fds[i]);
			*fds[i] = -1;
		}
}

/* The group, the pipe, mountinfo; 0 or -errno. */
static int open_all(void)
{
	fan = fanotify_init(FAN_CLASS_NOTIF | FAN_REPORT_DFID_NAME | FAN_REPORT_FID |
	                            FAN_REPORT_TARGET_FID | FAN_NONBLOCK | FAN_CLOEXEC,
	                    O_RDONLY | O_CLOEXEC | O_LARGEFILE);
	if (fan < 0) {
		int e = errno;
		elog(LOG_NOTICE, "watch: nothing watched, fanotify: %s%s", strerror(e),
		     e == EPERM ? " (no CAP_SYS_ADMIN)" : "");
		return -e;
	}
	mountinfo = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
	if (mountinfo < 0 || pipe2(stop_pipe, O_CLOEXEC) < 0)
		return -errno;
	return 0;
}

int watch_start(void)
{
	if (!elffs.watch)
		return 0;
	if (elffs.single_name) { /* its replacement names a directory no node shows */
		elog(LOG_NOTICE, "watch: SOURCE is one file: not watched (-o timeout)");
		elffs.watch = false;
		return 0;
	}
	nodes_on_free(wmap_forget);
	unsigned char *buf = malloc(EVENT_BUF);
	int ret = buf ? open_all() : -ENOMEM;
	bool changed;
	if (ret == 0 && (ret = wfs_scan(fan, true, &changed)) > 0) {
		atomic_store(&watch_n_watched, (uint64_t)ret);
		index_keep();
	}
	if (ret == 0)
		ret = -ENODEV; /* nothing to watch */
	if (ret > 0)
		ret = -pthread_create(&thread, NULL, run, buf);
	if (ret < 0) {
		free(buf);
		close_all();
		elffs.watch = false;
		return ret;
	}
	running = true;
	inval_keep_all();
	struct node *root = node_get(FUSE_ROOT_ID);
	watch_hold(root, -1, NULL, watch_seq());
	node_put(root);
	return 0;
}

void watch_stop(void)
{
	if (!running)
		return;
	char c = 0;
	if (write(stop_pipe[1], &c, 1) == 1)
		pthread_join(thread, NULL);
	else
		pthread_detach(thread);
	running = false;
	bidx_keep(0);
	close_all();
}

void watch_stats_get(struct watch_stats *s)
{
	*s = (struct watch_stats){
	        .events = atomic_load(&watch_n_events),
	        .overflows = atomic_load(&watch_n_overflows),
	        .remounts = atomic_load(&watch_n_remounts),
	        .held = wmap_count(),
	        .watched = atomic_load(&watch_n_watched),
	};
}

#define WATCH(member)                                                                              \
	XATTR_NUMBER("user.elffs.watch_" #member, XATTR_DEC, struct watch_stats, member)

static const struct xattr_field watch_fields[] = {
        WATCH(watched), WATCH(events), WATCH(overflows), WATCH(remounts), WATCH(held),
};

static const struct xattr_table watch_xattrs = XATTR_TABLE(watch_fields);

int watch_getxattr(const char *name, char *buf)
{
	if (!elffs.watch)
		return -ENODATA;
	struct watch_stats s;
	watch_stats_get(&s);
	return xattr_table_value(&watch_xattrs, &s, name, buf);
}

size_t watch_listxattr(char *buf, size_t size, size_t len)
{
	return elffs.watch ? xattr_table_list(&watch_xattrs, buf, size, len) : len;
}
