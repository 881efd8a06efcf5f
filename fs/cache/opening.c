/*
 * Opening the source of a binary for the cache: its handle (an ELF file's
 * or an ar archive's), its identity, why pfelf refuses it, the parse into
 * a new core.
 */
#include "cache/opening.h"
#include "base/log.h"
#include "cache/core.h"
#include "content/entries.h"
#include "source/source.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Open fd as an ELF file (archive false: a refused header as its bytes
 * only, PFELF_OPEN_RAW) or an ar archive, tried again when out of
 * descriptors (the pread backend keeps a duplicate). */
static int open_fd(int fd, bool archive, struct vhandle *h)
{
	unsigned tries = 0;
	int ret;
	*h = (struct vhandle){NULL, NULL};
	do
		ret = archive ? pfelf_archive_open_fd(fd, elffs.pfelf_flags, &h->arch)
		              : pfelf_open_fd(fd, elffs.pfelf_flags | PFELF_OPEN_RAW, &h->f);
	while (src_fd_retry(ret, &tries));
	return ret;
}

void bincache_handle_close(struct vhandle h)
{
	pfelf_close(h.f);
	pfelf_archive_close(h.arch);
}

/* Whether st, the stat of the file on a's path, is a's file with a's
 * bytes: the same file, not written since (view_holds: a change of its
 * change time alone may be a rewrite, and the path names the file). */
static bool still_a(struct bview *a, const struct stat *st)
{
	return (uint64_t)st->st_dev == a->id.dev && (uint64_t)st->st_ino == a->id.ino &&
	       view_holds(a, st);
}

/* Whether open handle f was opened on the file of stat st as it was then. */
static bool handle_is(pfelf_file *f, const struct stat *st)
{
	pfelf_identity id, want;
	src_identity(st, &want);
	return !f || (pfelf_get_identity(f, &id) == 0 && pfelf_identity_equal(&id, &want));
}

int bincache_reopen(struct bview *a, struct vhandle *out)
{
	int fd = src_open_file(a->root);
	if (fd == -ENOENT || fd == -ENOTDIR || fd == -ELOOP)
		return -ENOENT;
	if (fd < 0)
		return -EIO;
	struct stat st;
	struct vhandle h = {NULL, NULL};
	int ret = fstat(fd, &st) < 0 || !still_a(a, &st) ? -EIO : 0;
	if (ret == 0 && open_fd(fd, a->ar != NULL, &h) < 0)
		ret = -EIO;
	close(fd);
	if (ret == 0 && !handle_is(h.f, &st))
		ret = -EIO;
	if (ret < 0) {
		bincache_handle_close(h);
		return ret;
	}
	*out = h;
	return 0;
}

/* The handle of open source fd (lstat st) of a mapped handle h, for the
 * check of a cut last page (ops_file.c); NULL under pread, or when the
 * file system or our privileges give no handles. */
static struct src_handle *handle_for(int fd, const struct stat *st, struct node *root,
                                     struct vhandle h)
{
	struct src_handle *fh = NULL;
	enum pfelf_backend b = h.f ? pfelf_backend(h.f) : pfelf_archive_backend(h.arch);
	if (b == PFELF_BACKEND_MMAP)
		src_handle_of(fd, st, root, &fh);
	return fh;
}

/* Why fd's header is refused (open_source's -EIO) into why: pfelf's words
 * for an ELF file, an archive's errno for an ar archive. */
static void refusal(int fd, int ret, char *why, size_t size)
{
	if (pfelf_header_why(fd, why, size) == -ENOEXEC && strcmp(why, "no ELF magic") == 0)
		snprintf(why, size, "ar archive: %s", strerror(-ret));
	else if (!why[0])
		snprintf(why, size, "%s", strerror(-ret));
}

/* Open the source of root: *vh its handle (an ELF file's, or an ar
 * archive's when it has no ELF magic), *h its file handle, *st its stat;
 * -ESTALE when it is not expect any more, -EIO when pfelf refuses an
 * archive's header; why it refuses a header in why (REFUSED_MAX bytes),
 * also for an ELF file opened as its bytes only. */
static int open_source(struct node *root, const struct stat *expect, struct vhandle *vh,
                       struct src_handle **h, struct stat *st, char *why)
{
	int fd = src_open_file(root);
	if (fd < 0)
		return fd == -ENOENT || fd == -ELOOP ? -ESTALE : fd;
	int ret = fstat(fd, st) < 0 ? -errno : 0;
	if (ret == 0 && (!S_ISREG(st->st_mode) || !src_same_identity(st, expect)))
		ret = -ESTALE;
	if (ret == 0)
		ret = open_fd(fd, false, vh);
	if (ret == -ENOEXEC)
		ret = open_fd(fd, true, vh);
	if (ret == -ENOEXEC || ret == -EINVAL)
		refusal(fd, ret, why, REFUSED_MAX);
	else if (ret == 0 && vh->f && pfelf_header_error(vh->f) < 0)
		refusal(fd, pfelf_header_error(vh->f), why, REFUSED_MAX); /* read raw */
	if (ret == 0 && !handle_is(vh->f, st)) /* changed between the two fstat */
		ret = -ESTALE;
	*h = ret == 0 ? handle_for(fd, st, root, *vh) : NULL;
	close(fd);
	return ret == -ENOEXEC || ret == -EINVAL ? -EIO : ret;
}

/*
 * Whether the source of root (identity id, file handle h, size bytes when
 * opened) changed while it was parsed, or cannot be told. A file cut under
 * its mapping reads as zeros up to the end of its last page, not as a
 * fault: an archive member whose magic lay there would show as a plain
 * file, a table as garbage. Such a parse is not kept.
 */
static bool changed_during_parse(struct node *root, const struct src_handle *h,
                                 const pfelf_identity *id, uint64_t size)
{
	pfelf_identity now;
	return src_identity_now(h, root, id, &now) < 0 || now.size < size ||
	       src_written_since(id, &now);
}

int bincache_parse(struct node *root, const struct stat *expect, struct vcore **out, char *why)
{
	struct vhandle vh = {NULL, NULL};
	struct src_handle *h = NULL;
	struct stat st;
	int ret = open_source(root, expect, &vh, &h, &st, why);
	if (ret == 0)
		ret = vh.f ? core_build(vh.f, root->name, out)
		           : core_build_archive(vh.arch, root->name, out);
	if (ret < 0) {
		src_handle_free(h);
		bincache_handle_close(vh);
		return ret;
	}
	src_identity(&st, &(*out)->id);
	src_attr_of(&st, &(*out)->attr);
	(*out)->fh = h;
	if (why[0] && (ret = entries_refused(*out, why)) < 0) {
		core_free(*out); /* with h and the handle */
		*out = NULL;
		return ret;
	}
	if (changed_during_parse(root, h, &(*out)->id, (*out)->id.size)) {
		core_free(*out); /* with h and the handle */
		*out = NULL;
		return -ESTALE; /* as a source that is not `expect` any more */
	}
	return 0;
}

void bincache_log_refusal(struct node *root, const char *why)
{
	static struct elog_limit limit;
	unsigned skipped;
	if (!elog_due(&limit, REFUSED_LOG_EVERY_NS, &skipped))
		return;
	char *path = malloc(PATH_MAX);
	if (path && node_source_path(root, path, PATH_MAX) < 0)
		snprintf(path, PATH_MAX, "%s", node_name(root));
	elog(LOG_WARNING,
	     "%s: ELF header refused (shown: elf, header and info; of an archive, "
	     "nothing): %s (%u more refusals since the last message)",
	     path && path[0] ? path : ".", why, skipped);
	free(path);
}
