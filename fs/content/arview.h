/*
 * An ar archive (a static library) shown as a directory: info, armap and
 * members/ (docs/architecture.md, "Archives in the mount"). Its view is a
 * core of the binary cache like an ELF file's, whose handle is the
 * archive's (pfelf_archive) instead of an ELF one; it keeps the file names
 * of the members and, made on first use, one view per ELF member: a core
 * built on pfelf_archive_open_member, so that the member's sections are
 * ranges of the archive's mapping (or descriptor), read without a copy.
 *
 * A member's view belongs to the archive's core. What a lookup, a listing
 * or an open gets is an alias of it made for that call (arview_member,
 * cache/members.h: the members' views are the binary cache's to build and free):
 * it stands for the caller's references and pins on the archive's alias
 * (its `outer`), which the binary cache counts as usual (view_outer), and
 * for one user of the member's view. When its last reference goes
 * (bincache_release, bincache_unref) the member's view has one user less;
 * a view without users waits in the archive's list of idle members, the
 * AR_IDLE_MEMBERS most recently used of them are kept, and the others (all
 * of them when the memory budget has no room for a new member) are freed.
 * So a walk of every member of a big archive holds at most the members in
 * use and AR_IDLE_MEMBERS others.
 */
#ifndef ELFFS_ARVIEW_H
#define ELFFS_ARVIEW_H

#include "nameset.h"
#include "text/textgen.h"
#include "view/view.h"

#include <pfelf.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

/* Member views without users an archive keeps. */
#define AR_IDLE_MEMBERS 32

/* What a member shows as under members/. */
enum ar_kind {
	AR_ELF,  /* a directory: the view of an ELF file (NK_MEMBER) */
	AR_FILE, /* a plain file of its bytes (NK_ARFILE) */
	AR_LINK, /* a symlink to the file a thin archive names (NK_ARLINK) */
};

/* What an archive's core keeps besides its handle. */
struct arview {
	uint32_t n;               /* members pfelf lists */
	char **name;              /* [n] file names under members/ */
	uint8_t *kind;            /* [n] enum ar_kind */
	struct nameset index;     /* members by file name */
	uint32_t count[3];        /* members of each kind */
	struct vcore **mcore;     /* [n] member views, made on use (core's lazy_lock) */
	TAILQ_HEAD(, vcore) idle; /* member views without users, oldest first */
	uint32_t nidle;
};

/*
 * Build the core of archive handle a with its member names (what: its name
 * for the log) and reserve what it keeps in the memory budget; on success
 * it owns a (core_build_archive of cache/core.h adds the rest). 0,
 * -ENOMEM, -EFBIG.
 */
int arview_build(pfelf_archive *a, const char *what, struct vcore **out);

/* Free what core c keeps of its archive: the names and the table of its
 * members' views, which the cache frees first (cache/members.h). */
void arview_free(struct vcore *c);

/* The index of the member whose file name is name in ar, or -ENOENT. */
int arview_find(const struct arview *ar, const char *name);

/* The target of thin member index of v (pinned) into buf: the path as
 * the archive writes it, "../../" before a relative one. Its length or
 * -errno: -ENOENT, -EIO for one that does not fit in buf (a thin member's
 * name has no bound: one past PATH_MAX is a link nobody can read). */
ssize_t arview_link(const struct bview *v, uint32_t index, char *buf, size_t size);

/* The texts of an archive (textview.h): info and armap. */
int arinfo_prepare(struct vcore *v, struct textgen *g);
int armap_prepare(struct vcore *v, struct textgen *g);

/*
 * user.ar.* of member index of v (pinned): the value of attribute name
 * into buf (XATTR_VALUE_MAX bytes, xattrtab.h), its length, or -ENODATA.
 */
int arview_xattr(const struct bview *v, uint32_t index, const char *name, char *buf);

/* The NUL-separated names of the user.ar.* attributes into buf (when size
 * allows); the length of the whole list. */
size_t arview_xattr_list(char *buf, size_t size);

#endif /* ELFFS_ARVIEW_H */
