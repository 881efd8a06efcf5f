/*
 * FUSE passthrough for the `elf` file of an ELF binary (Linux 6.9+).
 *
 * An open in passthrough mode names a backing file (FOPEN_PASSTHROUGH and
 * a backing_id in the OPEN reply): the kernel then reads it (read, splice)
 * and maps it (mmap: the mapping is the backing file's) itself, 1:1 from
 * offset 0, and the daemon never sees a read of that open file. So only
 * files that are a whole source file can pass through: `elf` of a binary
 * (every `.build-id/` link leads to one); sections, segments and archive
 * members are ranges and take the daemon's path.
 *
 * What the kernel asks (fs/fuse/passthrough.c, fs/fuse/iomode.c):
 * - FUSE_PASSTHROUGH in the INIT reply with a max_stack_depth of 1 or 2,
 *   the file system depth of the backing files it accepts (a backing file
 *   on a stacked file system, overlayfs, needs 2); the mount then counts
 *   as that deep itself. initext.c answers it for libfuse 3.14.
 * - A backing id, from FUSE_DEV_IOC_BACKING_OPEN on /dev/fuse with a
 *   descriptor of the backing file: it needs CAP_SYS_ADMIN. The kernel
 *   keeps its own reference of the file; the daemon closes its descriptor
 *   at once, so an open file in passthrough holds none of the daemon's.
 * - One inode, one mode: while an open file of an inode is in passthrough,
 *   every open of it must be, on the same backing file (another id of the
 *   same file is refused: EBUSY); while one is open through the page cache
 *   (or for direct I/O), none may be in passthrough (ETXTBSY). The kernel
 *   turns both into EIO for the opener. So the daemon counts the open
 *   files of each `elf` inode with their mode: the first open chooses
 *   (passthrough when a backing id can be had, else the daemon's path),
 *   the others follow it until the last is released, and the backing id
 *   is closed (FUSE_DEV_IOC_BACKING_CLOSE) at that last release. The
 *   kernel releases an open file's mode before it sends RELEASE, so the
 *   daemon's count never says "none" while the kernel still has one.
 * - Only FOPEN_DIRECT_IO, FOPEN_NOFLUSH and FOPEN_PARALLEL_DIRECT_WRITES
 *   may come with FOPEN_PASSTHROUGH, and FOPEN_DIRECT_IO would win over it:
 *   a passthrough open has neither direct_io nor keep_cache.
 *
 * The backing file is the source file, opened read-only as every source
 * file is (source.h: no symlink followed) and taken only when it is still
 * the file the view was built from (its identity: device, inode, size,
 * mtime, ctime); any other answer (a changed or vanished file, no
 * descriptor left, a file system too deep) gives the daemon's path, which
 * then answers as it does for any view. An open that joins a backing file
 * held already checks the same (an lstat of the source): the held file is
 * the same inode after a rewrite in place, and would read its new bytes
 * as the old view's. So does a first open whose own backing file failed
 * for a reason that says nothing of the file (no descriptor, the ioctl)
 * and that finds one made meanwhile; only -ESTALE from its own is a
 * changed file. One that fails can take neither the daemon's path
 * nor another backing file (the kernel refuses both beside the held one):
 * it is answered ESTALE, the source's node is checked at its next use,
 * and the kernel looks the path up again and opens the fresh view
 * (check.h: a second ESTALE in a row is EIO).
 */
#include "ops/passthrough.h"
#include "base/log.h"
#include "ops/initext.h"
#include "source/source.h"
#include "tree/check.h"

#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The kernel's include/uapi/linux/fuse.h */
struct pt_backing_map {
	int32_t fd;
	uint32_t flags;
	uint64_t padding;
};
#define PT_IOC_MAGIC         229
#define PT_IOC_BACKING_OPEN  _IOW(PT_IOC_MAGIC, 1, struct pt_backing_map)
#define PT_IOC_BACKING_CLOSE _IOW(PT_IOC_MAGIC, 2, uint32_t)
#define PT_MAX_STACK_DEPTH   2 /* the kernel's FILESYSTEM_MAX_STACK_DEPTH */

/* File systems whose files sit one level deep already (their s_stack_depth). */
#define OVERLAYFS_MAGIC 0x794c7630
#define ECRYPTFS_MAGIC  0xf15f
#define FUSE_MAGIC      0x65735546

enum { PT_BUCKETS = 256 };

/* An `elf` inode with open files: their mode and count. */
struct ptnode {
	uint64_t ino;
	unsigned opens;
	int8_t mode;
	int32_t backing; /* PT_PASS: the backing id */
	struct ptnode *next;
};

static bool wanted = true;  /* -o passthrough=auto */
static atomic_bool enabled; /* negotiated at INIT */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ptnode *table[PT_BUCKETS];

int passthrough_parse(const char *mode)
{
	if (!mode || strcmp(mode, "auto") == 0)
		wanted = true;
	else if (strcmp(mode, "off") == 0)
		wanted = false;
	else {
		fprintf(stderr, "elffs: bad passthrough '%s' (auto or off)\n", mode);
		return -1;
	}
	return 0;
}

bool passthrough_on(void)
{
	return atomic_load(&enabled);
}

static bool cap_sys_admin(void)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d) < 0)
		return false;
	return (d[CAP_SYS_ADMIN / 32].effective >> (CAP_SYS_ADMIN % 32)) & 1;
}

/* The depth to ask for: 2 when SOURCE is on a stacked file system. */
static uint32_t stack_depth(void)
{
	struct statfs sf;
	if (fstatfs(elffs.srcfd, &sf) == 0 &&
	    (sf.f_type == OVERLAYFS_MAGIC || sf.f_type == ECRYPTFS_MAGIC ||
	     sf.f_type == FUSE_MAGIC))
		return PT_MAX_STACK_DEPTH;
	return 1;
}

void passthrough_init(void)
{
	const char *why = NULL;
	if (!wanted)
		why = "-o passthrough=off";
	else if (!initext_offered(INITEXT_PASSTHROUGH))
		why = "the kernel does not offer it (Linux 6.9+ with CONFIG_FUSE_PASSTHROUGH, "
		      "libfuse 3.14+)";
	else if (!cap_sys_admin())
		why = "it needs CAP_SYS_ADMIN (root)";
	if (why) {
		elog(LOG_INFO, "passthrough: off: %s", why);
		return;
	}
	uint32_t depth = stack_depth();
	initext_init_add(INITEXT_PASSTHROUGH, depth, 0);
	atomic_store(&enabled, true);
	elog(LOG_INFO, "passthrough: on: elf files read from SOURCE by the kernel (stack depth %u)",
	     depth);
}

static struct ptnode **slot_of(uint64_t ino)
{
	struct ptnode **p = &table[(ino * 0x9e3779b97f4a7c15ULL) >> 56];
	while (*p && (*p)->ino != ino)
		p = &(*p)->next;
	return p;
}

/* Count one more open of ino if it has open files (lock held): their mode,
 * or PT_NONE. */
static int8_t join_locked(uint64_t ino, int32_t *backing)
{
	struct ptnode *e = *slot_of(ino);
	if (!e)
		return PT_NONE;
	e->opens++;
	*backing = e->backing;
	return e->mode;
}

/* Give back backing id id. After the session (open files freed at exit)
 * there is nothing to give back: the ids went with the connection. */
static void backing_close(int32_t id)
{
	uint32_t arg = (uint32_t)id;
	if (elffs.se && ioctl(fuse_session_fd(elffs.se), PT_IOC_BACKING_CLOSE, &arg) < 0)
		elog(LOG_WARNING, "passthrough: backing id %d: close: %s", id, strerror(errno));
}

/* Whether st is the file view v was built from: 0, or -ESTALE. */
static int is_view_file(const struct stat *st, const struct bview *v)
{
	pfelf_identity id;
	src_identity(st, &id);
	return pfelf_identity_equal(&id, &v->id) ? 0 : -ESTALE;
}

/* Whether the source of binary node root is still the file view v was
 * built from (an lstat by its path): 0, -ESTALE, or the -errno of lstat. */
static int source_is_view(struct node *root, const struct bview *v)
{
	struct stat st;
	int ret = src_lstat(root, &st);
	return ret < 0 ? ret : is_view_file(&st, v);
}

/* A backing id of the source file of view v (binary node root): > 0, or
 * -errno. */
static int32_t backing_open(struct node *root, const struct bview *v)
{
	int fd = src_open_file(root);
	if (fd < 0)
		return fd;
	struct stat st;
	int32_t ret = fstat(fd, &st) < 0 ? -errno : is_view_file(&st, v);
	if (ret == 0) {
		struct pt_backing_map map = {.fd = fd};
		ret = ioctl(fuse_session_fd(elffs.se), PT_IOC_BACKING_OPEN, &map);
		if (ret < 0)
			ret = -errno;
		else if (ret == 0) /* ids start at 1 */
			ret = -EPROTO;
	}
	close(fd);
	if (ret == -EPERM) { /* the kernel did not take FUSE_PASSTHROUGH */
		if (atomic_exchange(&enabled, false))
			elog(LOG_WARNING, "passthrough: off: the kernel refuses backing files (%s)",
			     strerror(EPERM));
	}
	return ret;
}

/* Whether file node n (view v) is the `elf` of an ELF binary (not of an
 * archive member: a range of the archive). */
static bool is_whole_file(struct node *n, const struct bview *v)
{
	struct node *root = node_vroot(n);
	return n->kind == NK_ELF && v && root && root->kind == NK_BIN && !v->ar && v->base == 0 &&
	       !v->outer;
}

/* Count a first open of ino (lock not held) whose backing id is made
 * (-errno: none): the mode it counts in and its *backing. An open that
 * came first meanwhile is joined instead, and made given back. */
static int8_t first_open(uint64_t ino, int32_t made, int32_t *backing)
{
	pthread_mutex_lock(&lock);
	int8_t mode = join_locked(ino, backing);
	struct ptnode *e = NULL;
	if (mode == PT_NONE && (e = calloc(1, sizeof(*e)))) {
		*e = (struct ptnode){ino, 1, made > 0 ? PT_PASS : PT_CACHED, made, NULL};
		*slot_of(ino) = e;
		mode = e->mode;
		*backing = made;
		made = 0;
	}
	pthread_mutex_unlock(&lock);
	if (made > 0)
		backing_close(made);
	return mode;
}

/* Whether the source of file node n is still view v's file, for an open
 * counted in passthrough whose own backing_open gave made (0: none tried):
 * 0, or -errno. Its backing id, or -ESTALE, told already; any other
 * failure of it (no descriptor, the ioctl) says nothing of the file, and
 * an open made meanwhile holds the inode: its lstat tells. */
static int pass_check(struct node *n, const struct bview *v, int32_t made)
{
	if (made > 0)
		return 0;
	return made == -ESTALE ? made : source_is_view(node_vroot(n), v);
}

/* An open of n counted in passthrough (p) whose source is not its view's
 * file: the held backing file is not, and the kernel refuses the daemon's
 * path and a second backing file beside it. Its count given back, the
 * binary checked at its next use (the kernel's second walk sees the
 * change, also at a root it does not look up again): -ESTALE. */
static int refuse_join(struct node *n, struct ptopen *p)
{
	passthrough_release(p);
	check_force(node_broot(n));
	return -ESTALE;
}

int passthrough_open(struct node *n, const struct bview *v, struct fuse_file_info *fi,
                     struct ptopen *p)
{
	*p = (struct ptopen){n->ino, PT_NONE};
	if (!atomic_load(&enabled) || !is_whole_file(n, v))
		return 0;
	int32_t backing = 0, made = 0;
	pthread_mutex_lock(&lock);
	int8_t mode = join_locked(n->ino, &backing);
	pthread_mutex_unlock(&lock);
	if (mode == PT_NONE) {
		made = backing_open(node_vroot(n), v);
		mode = first_open(n->ino, made, &backing);
	}
	p->mode = mode;
	if (mode == PT_PASS && pass_check(n, v, made) < 0)
		return refuse_join(n, p);
	if (mode == PT_PASS) {
		fi->keep_cache = 0;
		fi->direct_io = 0;
		initext_open_passthrough(backing);
	}
	return 0;
}

void passthrough_replied(void)
{
	initext_open_passthrough(0);
}

void passthrough_release(struct ptopen *p)
{
	if (p->mode == PT_NONE)
		return;
	int32_t close_id = 0;
	pthread_mutex_lock(&lock);
	struct ptnode **s = slot_of(p->ino);
	struct ptnode *e = *s;
	if (e && --e->opens == 0) {
		*s = e->next;
		close_id = e->mode == PT_PASS ? e->backing : 0;
		free(e);
	}
	pthread_mutex_unlock(&lock);
	p->mode = PT_NONE;
	if (close_id > 0)
		backing_close(close_id);
}
