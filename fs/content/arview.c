/* An ar archive as a directory: its members, their views, info and armap. */
#include "content/arview.h"
#include "base/membudget.h"
#include "text/naming.h"
#include "text/textline.h"
#include "text/xattrtab.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define XPREFIX "user.ar."

/* ----------------------------------------------------------------- build */

static const char *member_key(const void *ctx, uint32_t id)
{
	const struct arview *ar = ctx;
	return ar->name[id - 1];
}

int arview_find(const struct arview *ar, const char *name)
{
	uint32_t id = nameset_find(&ar->index, name, member_key, ar);
	return id ? (int)(id - 1) : -ENOENT;
}

/* What member m shows as: a thin one a link, one with the ELF magic a
 * directory (a bad header answers EIO inside it, as for any file); -EIO
 * when its first bytes cannot be read (gone since the archive was opened:
 * a member is never shown as a plain file for that). */
static int kind_of(pfelf_archive *a, const pfelf_ar_member *m)
{
	unsigned char magic[4];
	if (m->thin)
		return AR_LINK;
	if (m->size < sizeof(magic))
		return AR_FILE;
	if (pfelf_archive_read(a, m->offset, magic, sizeof(magic)) != (ssize_t)sizeof(magic))
		return -EIO;
	return pfelf_is_elf_magic(magic, sizeof(magic)) ? AR_ELF : AR_FILE;
}

/* The file names of the members (naming.h: index is the position). */
static int name_members(pfelf_archive *a, struct arview *ar)
{
	struct naming_item *items = calloc(ar->n ? ar->n : 1, sizeof(*items));
	int ret = items ? 0 : -ENOMEM;
	for (uint32_t i = 0; i < ar->n && ret == 0; i++) {
		pfelf_ar_member m;
		ret = pfelf_archive_member(a, i, &m) < 0 ? -EIO : 0;
		int kind = ret == 0 ? kind_of(a, &m) : ret;
		if (kind >= 0) {
			items[i].name = strndup(m.name, NAMING_MAX + 1);
			items[i].index = m.position;
			ar->kind[i] = (uint8_t)kind;
			ar->count[kind]++;
			ret = items[i].name ? 0 : -ENOMEM;
		} else {
			ret = kind;
		}
	}
	if (ret == 0)
		ret = naming_resolve(items, ar->n, NULL, NULL);
	for (uint32_t i = 0; items && i < ar->n; i++)
		ar->name[i] = items[i].name; /* freed with ar either way */
	free(items);
	if (ret == 0)
		ret = nameset_init(&ar->index, ar->n);
	for (uint32_t i = 0; ret == 0 && i < ar->n; i++)
		nameset_add(&ar->index, i + 1, member_key, ar); /* the names are distinct */
	return ret;
}

/* What the core of an archive of n members keeps but the names. */
static uint64_t ar_cost(uint32_t n)
{
	return membudget_chunk(sizeof(struct vcore) + sizeof(struct arview)) +
	       membudget_chunk((uint64_t)n * (sizeof(char *) + sizeof(struct vcore *) + 1)) +
	       membudget_chunk(nameset_bytes(n));
}

/* What the names of ar take (malloc's overhead counted as 16 bytes each). */
static uint64_t names_cost(const struct arview *ar)
{
	uint64_t bytes = 0;
	for (uint32_t i = 0; i < ar->n; i++)
		bytes += strlen(ar->name[i]) + 1 + 16;
	return membudget_chunk(bytes);
}

int arview_build(pfelf_archive *a, const char *what, struct vcore **out)
{
	int count = pfelf_archive_member_count(a);
	struct vcore *v = count < 0 ? NULL : view_new_core(what);
	struct arview *ar = calloc(1, sizeof(*ar));
	if (!v || !ar) {
		vcore_free(v);
		free(ar);
		return count < 0 ? -EIO : -ENOMEM;
	}
	v->ar = ar;
	TAILQ_INIT(&ar->idle);
	v->fsize = pfelf_archive_size(a);
	v->meta_charged = true; /* no ELF tables */
	ar->n = (uint32_t)count;
	int ret = view_charge(v, ar_cost(ar->n));
	if (ret == 0) {
		ar->name = calloc(ar->n ? ar->n : 1, sizeof(*ar->name));
		ar->kind = calloc(ar->n ? ar->n : 1, 1);
		ret = ar->name && ar->kind ? name_members(a, ar) : -ENOMEM;
	}
	if (ret == 0)
		ret = view_charge(v, names_cost(ar));
	if (ret < 0) {
		arview_free(v);
		vcore_free(v); /* the caller keeps a on failure */
		return ret;
	}
	v->arch = a;
	*out = v;
	return 0;
}

void arview_free(struct vcore *c)
{
	struct arview *ar = c->ar;
	if (!ar)
		return;
	free(ar->mcore); /* its views freed first (cache/members.h) */
	for (uint32_t i = 0; ar->name && i < ar->n; i++)
		free(ar->name[i]);
	free(ar->name);
	free(ar->kind);
	nameset_free(&ar->index);
	free(ar);
	c->ar = NULL;
}

ssize_t arview_link(const struct bview *v, uint32_t index, char *buf, size_t size)
{
	const struct arview *ar = v->core->ar;
	pfelf_ar_member m;
	if (!ar || index >= ar->n || ar->kind[index] != AR_LINK || !v->arch ||
	    pfelf_archive_member(v->arch, index, &m) < 0)
		return -ENOENT;
	int n = snprintf(buf, size, "%s%s", m.name[0] == '/' ? "" : "../../", m.name);
	return n < 0 || (size_t)n >= size ? -EIO : n;
}

/* ------------------------------------------------------------------ texts */

#define INFO_FIXED 9 /* lines before the members left out */

static const char *index_kind(enum pfelf_ar_index k)
{
	switch (k) {
	case PFELF_AR_INDEX_GNU:
		return "/ (GNU, 32-bit)";
	case PFELF_AR_INDEX_GNU64:
		return "/SYM64/ (GNU, 64-bit)";
	case PFELF_AR_INDEX_BSD:
		return "__.SYMDEF (BSD)";
	case PFELF_AR_INDEX_BSD64:
		return "__.SYMDEF_64 (BSD, 64-bit)";
	default:
		return "none";
	}
}

static void fixed_line(const struct vcore *c, uint64_t i, struct linebuf *b)
{
	pfelf_archive *a = c->arch;
	const struct arview *ar = c->ar;
	int nsym = pfelf_archive_symbol_count(a);
	switch (i) {
	case 0:
		lb_printf(b, "kind: %s",
		          pfelf_archive_is_thin(a) ? "thin ar archive" : "ar archive");
		break;
	case 1:
		lb_printf(b, "size: %" PRIu64, pfelf_archive_size(a));
		break;
	case 2:
		lb_printf(b, "members: %u", ar->n);
		break;
	case 3:
		lb_printf(b, "ELF members: %u", ar->count[AR_ELF]);
		break;
	case 4:
		lb_printf(b, "other members: %u", ar->count[AR_FILE]);
		break;
	case 5:
		lb_printf(b, "thin members: %u", ar->count[AR_LINK]);
		break;
	case 6:
		lb_printf(b, "symbol index: %s", index_kind(pfelf_archive_index_kind(a)));
		break;
	case 7:
		if (nsym < 0)
			lb_printf(b, "index symbols: malformed index, ignored");
		else
			lb_printf(b, "index symbols: %d", nsym);
		break;
	default:
		lb_printf(b, "left out: %d", pfelf_archive_skipped_count(a));
		break;
	}
}

static int info_line(void *ctx, uint64_t i, char *buf)
{
	const struct vcore *c = ctx;
	struct linebuf b = {buf, 0};
	if (!c->arch)
		return -EIO;
	if (i < INFO_FIXED) {
		fixed_line(c, i, &b);
		return lb_end(&b);
	}
	pfelf_ar_skipped s;
	if (pfelf_archive_skipped(c->arch, (uint32_t)(i - INFO_FIXED), &s) < 0)
		return -EIO;
	lb_printf(&b, "left out: header at 0x%" PRIx64, s.header_offset);
	if (s.position != UINT32_MAX)
		lb_printf(&b, ", position %u", s.position);
	lb_printf(&b, ": %s", s.reason);
	return lb_end(&b);
}

int arinfo_prepare(struct vcore *v, struct textgen *g)
{
	int skipped = v->arch ? pfelf_archive_skipped_count(v->arch) : -EIO;
	if (skipped < 0)
		return skipped;
	g->nlines = INFO_FIXED + (uint64_t)skipped;
	g->line = info_line;
	g->ctx = v;
	return 0;
}

static int armap_line(void *ctx, uint64_t i, char *buf)
{
	const struct vcore *c = ctx;
	struct linebuf b = {buf, 0};
	pfelf_ar_symbol s;
	if (!c->arch || i > UINT32_MAX || pfelf_archive_symbol(c->arch, (uint32_t)i, &s) < 0)
		return -EIO;
	lb_field(&b, s.name);
	lb_printf(&b, " ");
	lb_field(&b, s.member < c->ar->n ? c->ar->name[s.member] : "-");
	return lb_end(&b);
}

int armap_prepare(struct vcore *v, struct textgen *g)
{
	int n = v->arch ? pfelf_archive_symbol_count(v->arch) : -EIO;
	g->nlines = n < 0 ? 0 : (uint64_t)n; /* a malformed index: info says so */
	g->line = armap_line;
	g->ctx = v;
	return v->arch ? 0 : -EIO;
}

/* ----------------------------------------------------------------- xattrs */

#define MEMBER(name, form, member) XATTR_NUMBER(XPREFIX name, form, pfelf_ar_member, member)

static const struct xattr_field member_fields[] = {
        MEMBER("position", XATTR_DEC, position), MEMBER("offset", XATTR_HEX, offset),
        MEMBER("size", XATTR_DEC, size),         MEMBER("mode", XATTR_OCT, mode),
        MEMBER("uid", XATTR_DEC, uid),           MEMBER("gid", XATTR_DEC, gid),
        MEMBER("date", XATTR_DEC, date),
};

static const struct xattr_table member_xattrs = XATTR_TABLE(member_fields);

size_t arview_xattr_list(char *buf, size_t size)
{
	return xattr_table_list(&member_xattrs, buf, size, 0);
}

int arview_xattr(const struct bview *v, uint32_t index, const char *name, char *buf)
{
	pfelf_ar_member m;
	if (!v->arch || pfelf_archive_member(v->arch, index, &m) < 0)
		return -ENODATA;
	return xattr_table_value(&member_xattrs, &m, name, buf);
}
