/* An ar archive as a directory: its members, their views, info and armap. */
#include "content/arview.h"
#include "cache/dcache.h"
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
	return membudget_chunk(sizeof(struct bview) + sizeof(struct arview)) +
	       membudget_chunk((uint64_t)n * (sizeof(char *) + sizeof(struct bview *) + 1)) +
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

int arview_build(pfelf_archive *a, const char *what, struct bview **out)
{
	int count = pfelf_archive_member_count(a);
	struct bview *v = calloc(1, sizeof(*v));
	struct arview *ar = calloc(1, sizeof(*ar));
	if (!v || !ar || count < 0) {
		free(v);
		free(ar);
		return count < 0 ? -EIO : -ENOMEM;
	}
	v->core = v;
	v->ar = ar;
	TAILQ_INIT(&ar->idle);
	v->fsize = pfelf_archive_size(a);
	v->meta_charged = true; /* no ELF tables */
	snprintf(v->label, sizeof(v->label), "%s", what ? what : "");
	pthread_mutex_init(&v->lazy_lock, NULL);
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
		view_free(v); /* the caller keeps a on failure */
		return ret;
	}
	v->arch = a;
	*out = v;
	return 0;
}

void arview_free(struct bview *c)
{
	struct arview *ar = c->ar;
	if (!ar)
		return;
	for (uint32_t i = 0; ar->mcore && i < ar->n; i++) {
		if (ar->mcore[i])
			dcache_forget(ar->mcore[i]->serial);
		view_free(ar->mcore[i]);
	}
	free(ar->mcore);
	for (uint32_t i = 0; ar->name && i < ar->n; i++)
		free(ar->name[i]);
	free(ar->name);
	free(ar->kind);
	nameset_free(&ar->index);
	free(ar);
	c->ar = NULL;
}

/* ---------------------------------------------------------------- members */

static void arview_member_put_locked(struct bview *c, struct bview *m);

/* Free idle member view m of core c (c's lazy_lock held). */
static void member_drop(struct bview *c, struct bview *m)
{
	struct arview *ar = c->ar;
	TAILQ_REMOVE(&ar->idle, m, lru);
	ar->nidle--;
	ar->mcore[m->member] = NULL;
	dcache_forget(m->serial);
	view_free(m);
}

/* Free the idle member views of core c but the keep most recently used
 * ones (c's lazy_lock held); whether one was freed. */
static bool members_trim(struct bview *c, uint32_t keep)
{
	struct arview *ar = c->ar;
	bool freed = false;
	while (ar->nidle > keep) {
		member_drop(c, TAILQ_FIRST(&ar->idle));
		freed = true;
	}
	return freed;
}

/* Build the view of ELF member i of core c (c's lazy_lock held, its handle
 * open through the caller's pin); when the memory budget has no room, the
 * idle member views go first. */
static int member_build(struct bview *c, uint32_t i, struct bview **out)
{
	pfelf_ar_member m;
	pfelf_file *f;
	char label[64];
	int ret = pfelf_archive_member(c->arch, i, &m);
	if (ret == 0)
		ret = pfelf_archive_open_member(c->arch, i, 0, &f);
	if (ret < 0)
		return ret == -ENOMEM ? ret : -EIO;
	snprintf(label, sizeof(label), "%s(%s)", c->label, c->ar->name[i]);
	ret = view_build(f, label, out);
	if (ret == -ENOMEM && members_trim(c, 0))
		ret = view_build(f, label, out);
	if (ret < 0) {
		pfelf_close(f);
		return ret;
	}
	(*out)->id = c->id;
	(*out)->base = m.offset;
	(*out)->member = i;
	return 0;
}

/* The view of ELF member i of core c with one more user (c's lazy_lock held). */
static int member_get(struct bview *c, uint32_t i, struct bview **out)
{
	struct arview *ar = c->ar;
	if (!ar->mcore) {
		ar->mcore = calloc(ar->n, sizeof(*ar->mcore));
		if (!ar->mcore)
			return -ENOMEM;
	}
	struct bview *m = ar->mcore[i];
	if (!m) {
		int ret = member_build(c, i, &m);
		if (ret < 0)
			return ret;
		ar->mcore[i] = m;
	} else if (m->refs == 0) {
		TAILQ_REMOVE(&ar->idle, m, lru);
		ar->nidle--;
	}
	m->refs++;
	*out = m;
	return 0;
}

int arview_member(struct bview *a, uint32_t index, struct bview **out)
{
	struct bview *c = view_core(a);
	if (!c->ar || index >= c->ar->n || c->ar->kind[index] != AR_ELF)
		return -ENOENT;
	pthread_mutex_lock(&c->lazy_lock);
	struct bview *m = NULL;
	int ret = member_get(c, index, &m);
	struct bview *ma = ret == 0 ? view_alias(m, a->gen, a->root) : NULL;
	if (ma) {
		ma->outer = a;
		ma->f = m->f; /* open as long as m is */
		ma->refs = 1;
	} else if (ret == 0) {
		arview_member_put_locked(c, m);
		ret = -ENOMEM;
	}
	pthread_mutex_unlock(&c->lazy_lock);
	*out = ma;
	return ret;
}

static void arview_member_put_locked(struct bview *c, struct bview *m)
{
	struct arview *ar = c->ar;
	if (--m->refs > 0)
		return;
	TAILQ_INSERT_TAIL(&ar->idle, m, lru);
	ar->nidle++;
	members_trim(c, AR_IDLE_MEMBERS);
}

void arview_member_put(struct bview *ma)
{
	struct bview *c = view_core(ma->outer);
	pthread_mutex_lock(&c->lazy_lock);
	arview_member_put_locked(c, view_core(ma));
	pthread_mutex_unlock(&c->lazy_lock);
	view_free(ma);
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

/* ---------------------------------------------------------- the members row */

static int members_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	*size = v->ar->n;
	*aux = 0;
	return 0;
}

static int member_range(const struct bview *v, uint64_t index, uint64_t *off, uint64_t *len)
{
	pfelf_ar_member m;
	if (index >= v->core->ar->n || !v->arch ||
	    pfelf_archive_member(v->arch, (uint32_t)index, &m) < 0)
		return -EIO;
	*off = m.offset;
	*len = m.size;
	return 0;
}

static int member_file(struct bview *v, const char *name, struct entry_file *out)
{
	const struct arview *ar = v->core->ar;
	uint32_t id = nameset_find(&ar->index, name, member_key, ar);
	if (!id)
		return -ENOENT;
	uint32_t i = id - 1;
	static const enum node_kind kinds[] = {NK_MEMBER, NK_ARFILE, NK_ARLINK};
	out->kind = kinds[ar->kind[i]];
	out->aux = i;
	if (ar->kind[i] == AR_FILE) {
		uint64_t off;
		return member_range(v, i, &off, &out->size);
	}
	if (ar->kind[i] == AR_LINK) {
		char target[4096];
		ssize_t n = arview_link(v, i, target, sizeof(target));
		out->size = n < 0 ? 0 : (uint64_t)n;
		return n < 0 ? (int)n : 0;
	}
	out->size = entries_n; /* as a binary's directory */
	return 0;
}

static int members_count(struct bview *v, size_t *n)
{
	*n = v->core->ar->n;
	return 0;
}

static const char *member_name(struct bview *v, size_t i)
{
	return v->core->ar->name[i];
}

static unsigned char member_type(struct bview *v, size_t i)
{
	static const unsigned char types[] = {4 /* DT_DIR */, 8 /* DT_REG */, 10 /* DT_LNK */};
	return types[v->core->ar->kind[i]];
}

const struct bin_entry ar_entries[] = {
        {.name = "info",
         .usage = "info                   members, ELF ones and others, index, what was left out",
         .kind = NK_ARINFO,
         .bytes = EB_TEXT,
         .text = TEXT_ARINFO},
        {.name = "armap",
         .usage = "armap                  the symbol index, \"<symbol> <member>\" a line",
         .kind = NK_ARMAP,
         .bytes = EB_TEXT,
         .text = TEXT_ARMAP},
        {.name = "members",
         .usage = "members/<name>         each ELF member's view (as above), other members' bytes",
         .kind = NK_ARMEMBERS,
         .bytes = EB_DIR,
         .shape = members_shape,
         .file_kind = NK_ARFILE,
         .file_bytes = EB_INDEXED,
         .lookup = member_file,
         .count = members_count,
         .name_at = member_name,
         .type_at = member_type,
         .file_range = member_range},
};

const size_t ar_entries_n = sizeof(ar_entries) / sizeof(ar_entries[0]);

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

static void fixed_line(const struct bview *c, uint64_t i, struct linebuf *b)
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
	const struct bview *c = ctx;
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

int arinfo_prepare(struct bview *v, struct textgen *g)
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
	const struct bview *c = ctx;
	struct linebuf b = {buf, 0};
	pfelf_ar_symbol s;
	if (!c->arch || i > UINT32_MAX || pfelf_archive_symbol(c->arch, (uint32_t)i, &s) < 0)
		return -EIO;
	lb_field(&b, s.name);
	lb_printf(&b, " ");
	lb_field(&b, s.member < c->ar->n ? c->ar->name[s.member] : "-");
	return lb_end(&b);
}

int armap_prepare(struct bview *v, struct textgen *g)
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
