/*
 * The walk of an archive's member headers: one pass, in file order, each
 * header read once (through a window, so that small members cost one copy
 * per 64 KiB rather than one per header). Names are resolved in constant
 * time (an offset into the "//" table, or the bytes of a BSD name), so the
 * walk is linear in the number of members.
 *
 * Header (60 bytes): name[16] date[12] uid[6] gid[6] mode[8] size[10] "`\n".
 */
#include "archive/archive_i.h"

#include <stdlib.h>
#include <string.h>

#define WINDOW ((size_t)64 << 10)

struct walk {
	pfelf_archive *a;
	uint8_t *win; /* WINDOW bytes of the file from win_off */
	uint64_t win_off;
	size_t win_len;
	size_t cap_members, cap_skipped;
	char *names; /* short and BSD names, NUL-ended, one after the other */
	size_t names_len, names_cap;
	uint64_t *name_ref; /* per member: offset in names, or AR_IN_TABLE | offset in longnames */
	uint64_t longnames_len;
	bool regular_seen; /* special members come before the first regular one */
	uint32_t position;
};

#define AR_IN_TABLE (1ull << 63)

/* The len (<= WINDOW) bytes at off (inside the file), through the window. */
static int get(struct walk *w, uint64_t off, size_t len, const uint8_t **p)
{
	if (off < w->win_off || off - w->win_off > w->win_len ||
	    len > w->win_len - (off - w->win_off)) {
		uint64_t n = w->a->size - off;
		w->win_len = n < WINDOW ? (size_t)n : WINDOW;
		w->win_off = off;
		int ret = pfelf__ar_read(w->a, off, w->win, w->win_len);
		if (ret < 0) {
			w->win_len = 0;
			return ret;
		}
	}
	*p = w->win + (off - w->win_off);
	return 0;
}

int pfelf__ar_skip(pfelf_archive *a, uint64_t header_offset, uint32_t position, int error,
                   const char *reason)
{
	/* Grown by doubling; the count is bounded by the headers (60 bytes each). */
	if ((a->nskipped & (a->nskipped - 1)) == 0) {
		size_t n = a->nskipped ? (size_t)a->nskipped * 2 : 4;
		pfelf_ar_skipped *s = realloc(a->skipped, n * sizeof(*s));
		if (!s)
			return -ENOMEM;
		a->skipped = s;
	}
	a->skipped[a->nskipped++] = (pfelf_ar_skipped){header_offset, position, error, reason};
	return 0;
}

/* A numeric field: optional spaces, digits of base, spaces to the end.
 * All spaces is 0. False for anything else or an overflow. */
static bool number(const uint8_t *p, size_t len, unsigned base, uint64_t *out)
{
	size_t i = 0;
	uint64_t v = 0;
	while (i < len && p[i] == ' ')
		i++;
	for (; i < len && p[i] >= '0' && p[i] < '0' + base; i++) {
		if (v > (UINT64_MAX - 9) / base)
			return false;
		v = v * base + (uint64_t)(p[i] - '0');
	}
	while (i < len && p[i] == ' ')
		i++;
	*out = v;
	return i == len;
}

static bool field_is(const uint8_t *name, const char *s)
{
	size_t n = strlen(s);
	if (memcmp(name, s, n) != 0)
		return false;
	for (size_t i = n; i < 16; i++)
		if (name[i] != ' ')
			return false;
	return true;
}

/* The length of a short name (binutils): up to the first NUL, else the
 * first '/', else the first space of the 16-byte field. */
static size_t short_len(const uint8_t *h)
{
	const uint8_t *e = memchr(h, '\0', 16);
	if (!e)
		e = memchr(h, '/', 16);
	if (!e)
		e = memchr(h, ' ', 16);
	return e ? (size_t)(e - h) : 16;
}

/* A header whose bytes an archive holds even when thin: a special member,
 * or one with a BSD name (refused in thin archives). */
static bool looks_special(const uint8_t *h)
{
	return h[0] == '/' ? !(h[1] >= '0' && h[1] <= '9')
	                   : memcmp(h, "__.SYMDEF", 9) == 0 || memcmp(h, "#1/", 3) == 0;
}

static bool is_bsd_index(const char *s, size_t n, enum pfelf_ar_index *k)
{
	static const char *const names[] = {"__.SYMDEF", "__.SYMDEF SORTED", "__.SYMDEF_64",
	                                    "__.SYMDEF_64 SORTED"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (strlen(names[i]) == n && memcmp(s, names[i], n) == 0) {
			*k = i == 2 || i == 3 ? PFELF_AR_INDEX_BSD64 : PFELF_AR_INDEX_BSD;
			return true;
		}
	}
	return false;
}

/* Append n bytes and a NUL to the names; their offset in *ref. */
static int add_name(struct walk *w, const void *s, size_t n, uint64_t *ref)
{
	if (n + 1 > w->names_cap - w->names_len) {
		size_t cap = w->names_cap ? w->names_cap : 4096;
		while (n + 1 > cap - w->names_len) {
			if (cap > SIZE_MAX / 2)
				return -ENOMEM;
			cap *= 2;
		}
		char *p = realloc(w->names, cap);
		if (!p)
			return -ENOMEM;
		w->names = p;
		w->names_cap = cap;
	}
	memcpy(w->names + w->names_len, s, n);
	w->names[w->names_len + n] = '\0';
	*ref = w->names_len;
	w->names_len += n + 1;
	return 0;
}

/* The "//" table: copied, each "/\n" or "\n" made a NUL as binutils does,
 * '\\' read as '/', a NUL after its end. */
static int load_longnames(struct walk *w, uint64_t off, uint64_t len)
{
	if (len > AR_INDEX_MAX || len >= SIZE_MAX)
		return -EINVAL;
	char *t = malloc((size_t)len + 1);
	if (!t)
		return -ENOMEM;
	int ret = pfelf__ar_read(w->a, off, t, (size_t)len);
	if (ret < 0) {
		free(t);
		return ret;
	}
	for (size_t i = 0; i < len; i++) {
		if (t[i] == '\n')
			t[i > 0 && t[i - 1] == '/' ? i - 1 : i] = '\0';
		if (t[i] == '\\')
			t[i] = '/';
	}
	t[len] = '\0';
	w->a->longnames = t;
	w->longnames_len = len;
	return 0;
}

/* The name of a regular member: *ref set, *skip bytes of BSD name before
 * its bytes, or a reason it cannot be read. */
static const char *member_name(struct walk *w, const uint8_t *h, uint64_t data, uint64_t size,
                               uint64_t *ref, uint64_t *skip, int *err)
{
	*skip = 0;
	*err = 0;
	uint64_t v;
	if (h[0] == '/' && h[1] >= '0' && h[1] <= '9') {
		if (!number(h + 1, 15, 10, &v))
			return "bad long name reference";
		if (!w->a->longnames)
			return "long name without a // table";
		if (v >= w->longnames_len)
			return "long name outside the // table";
		*ref = AR_IN_TABLE | v;
		return NULL;
	}
	if (memcmp(h, "#1/", 3) == 0) {
		if (!number(h + 3, 13, 10, &v) || w->a->thin)
			return "bad BSD name length";
		if (v > size)
			return "BSD name longer than the member";
		if (v > AR_INDEX_MAX)
			return "BSD name over 256 MiB";
		char *buf = malloc((size_t)v + 1);
		if (!buf) {
			*err = -ENOMEM;
			return "";
		}
		*err = pfelf__ar_read(w->a, data, buf, (size_t)v);
		if (*err == 0)
			*err = add_name(w, buf, strnlen(buf, (size_t)v), ref);
		free(buf);
		*skip = v;
		return *err ? "" : NULL;
	}
	*err = add_name(w, h, short_len(h), ref);
	return *err ? "" : NULL;
}

static int add_member(struct walk *w, const pfelf_ar_member *m, uint64_t ref)
{
	pfelf_archive *a = w->a;
	if (a->nmembers == w->cap_members) {
		size_t cap = w->cap_members ? w->cap_members * 2 : 16;
		pfelf_ar_member *p = realloc(a->members, cap * sizeof(*p));
		if (!p)
			return -ENOMEM;
		a->members = p;
		uint64_t *r = realloc(w->name_ref, cap * sizeof(*r));
		if (!r)
			return -ENOMEM;
		w->name_ref = r;
		w->cap_members = cap;
	}
	w->name_ref[a->nmembers] = ref;
	a->members[a->nmembers++] = *m;
	return 0;
}

/* A special member (symbol index, long names) at off: 1 when h is one
 * (handled), 0 when not, or -ENOMEM / -EIO. */
static int special(struct walk *w, const uint8_t *h, uint64_t off, uint64_t size)
{
	pfelf_archive *a = w->a;
	uint64_t data = off + AR_HDR_LEN;
	enum pfelf_ar_index k = PFELF_AR_INDEX_NONE;
	bool table = field_is(h, "//");
	if (field_is(h, "/"))
		k = PFELF_AR_INDEX_GNU;
	else if (field_is(h, "/SYM64/"))
		k = PFELF_AR_INDEX_GNU64;
	else if (is_bsd_index((const char *)h, short_len(h), &k))
		;
	else if (memcmp(h, "#1/", 3) == 0) {
		uint64_t n;
		char name[32];
		if (!number(h + 3, 13, 10, &n) || n > size || n >= sizeof(name) || n < 9)
			return 0;
		int ret = pfelf__ar_read(a, data, name, (size_t)n);
		if (ret < 0)
			return ret;
		if (!is_bsd_index(name, strnlen(name, (size_t)n), &k))
			return 0;
		data += n;
		size -= n;
	}
	if (!table && k == PFELF_AR_INDEX_NONE)
		return 0;
	const char *why = NULL;
	if (w->regular_seen)
		why = "special member after the first regular one";
	else if (table && a->longnames)
		why = "second // table";
	else if (!table && a->index_kind != PFELF_AR_INDEX_NONE)
		why = "second symbol index";
	/* Past the first regular member, a special one takes a position. */
	uint32_t pos = w->regular_seen ? w->position++ : UINT32_MAX;
	if (why)
		return pfelf__ar_skip(a, off, pos, -EINVAL, why) < 0 ? -ENOMEM : 1;
	int ret = table ? load_longnames(w, data, size) : pfelf__ar_index(a, k, data, size);
	if (ret == -EINVAL)
		ret = pfelf__ar_skip(a, off, pos, -EINVAL,
		                     table ? "// table over 256 MiB" : "malformed symbol index");
	return ret < 0 ? ret : 1;
}

/* One header at off; *next the offset of the following one, or 0 to stop. */
static int one(struct walk *w, uint64_t off, uint64_t *next)
{
	pfelf_archive *a = w->a;
	const uint8_t *h;
	*next = 0;
	pfelf__ar_count(1);
	if (a->size - off < AR_HDR_LEN)
		return pfelf__ar_skip(a, off, w->position, -EINVAL, "truncated member header");
	int ret = get(w, off, AR_HDR_LEN, &h);
	if (ret < 0)
		return ret;
	uint64_t size, date, uid, gid, mode;
	if (h[58] != '`' || h[59] != '\n')
		return pfelf__ar_skip(a, off, w->position, -EINVAL, "bad header magic");
	if (!number(h + 48, 10, 10, &size))
		return pfelf__ar_skip(a, off, w->position, -EINVAL, "bad size field");
	uint64_t data = off + AR_HDR_LEN;
	if (!pfelf__range_ok(a->size, data, size) && (!a->thin || looks_special(h)))
		return pfelf__ar_skip(a, off, w->position, -EINVAL,
		                      "member past the end of the file");
	ret = special(w, h, off, size);
	if (ret < 0)
		return ret;
	/* Thin archives hold the bytes of special members only. */
	uint64_t end = (a->thin && ret == 0) ? data : data + size + (size & 1);
	*next = end < a->size ? end : 0;
	if (ret == 1)
		return 0;
	/* A regular member. */
	uint32_t position = w->position++;
	w->regular_seen = true;
	if (a->nmembers >= PFELF_AR_MAX_MEMBERS) {
		*next = 0;
		return pfelf__ar_skip(a, off, position, -E2BIG,
		                      "more than PFELF_AR_MAX_MEMBERS members");
	}
	uint64_t ref, skip;
	int err;
	const char *why = member_name(w, h, data, size, &ref, &skip, &err);
	if (err < 0 && err != -EIO)
		return err;
	if (!why && (!number(h + 16, 12, 10, &date) || !number(h + 28, 6, 10, &uid) ||
	             !number(h + 34, 6, 10, &gid) || !number(h + 40, 8, 8, &mode) ||
	             uid > UINT32_MAX || gid > UINT32_MAX || mode > UINT32_MAX))
		why = "bad numeric field";
	if (err == -EIO)
		why = "name unreadable";
	if (why)
		return pfelf__ar_skip(a, off, position, -EINVAL, why);
	pfelf_ar_member m = {
	        .index = a->nmembers,
	        .position = position,
	        .header_offset = off,
	        .offset = data + skip,
	        .size = size - skip,
	        .date = date,
	        .uid = (uint32_t)uid,
	        .gid = (uint32_t)gid,
	        .mode = (uint32_t)mode,
	        .thin = a->thin,
	};
	return add_member(w, &m, ref);
}

/* Give every member its name pointer, now that the names are in place. */
static void set_names(struct walk *w)
{
	pfelf_archive *a = w->a;
	a->names = w->names;
	w->names = NULL;
	for (uint32_t i = 0; i < a->nmembers; i++) {
		uint64_t r = w->name_ref[i];
		a->members[i].name =
		        r & AR_IN_TABLE ? a->longnames + (r & ~AR_IN_TABLE) : a->names + r;
	}
}

/* Point every symbol at its member: the members are sorted by header offset. */
static void resolve_symbols(pfelf_archive *a)
{
	for (uint32_t i = 0; i < a->nsyms; i++) {
		uint64_t want = a->syms[i].header_offset;
		uint32_t lo = 0, hi = a->nmembers;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			pfelf__ar_count(1);
			if (a->members[mid].header_offset < want)
				lo = mid + 1;
			else
				hi = mid;
		}
		bool found = lo < a->nmembers && a->members[lo].header_offset == want;
		a->syms[i].member = found ? lo : PFELF_AR_NO_MEMBER;
	}
}

int pfelf__ar_walk(pfelf_archive *a)
{
	struct walk w = {.a = a};
	w.win = malloc(WINDOW);
	if (!w.win)
		return -ENOMEM;
	int ret = 0;
	uint64_t off = AR_MAGIC_LEN;
	while (ret == 0 && off != 0 && off < a->size)
		ret = one(&w, off, &off);
	if (ret == 0) {
		set_names(&w);
		resolve_symbols(a);
	}
	free(w.win);
	free(w.names);
	free(w.name_ref);
	return ret;
}
