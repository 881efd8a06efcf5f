/* Finding a row of the entries tables (entries.h): of a view, by name, by kind. */
#include "content/entries.h"
#include "node/kinds.h"

#include <string.h>

const struct bin_entry *entry_rows(const struct bview *v, size_t *n)
{
	bool ar = v && v->ar;
	*n = ar ? ar_entries_n : entries_n;
	return ar ? ar_entries : entries;
}

/* The row of table t (n rows) that ok() takes, or NULL. */
static const struct bin_entry *find_row(const struct bin_entry *t, size_t n,
                                        bool (*ok)(const struct bin_entry *e, const void *key),
                                        const void *key)
{
	for (size_t i = 0; i < n; i++)
		if (ok(&t[i], key))
			return &t[i];
	return NULL;
}

/* As find_row, in both tables. */
static const struct bin_entry *find_any(bool (*ok)(const struct bin_entry *e, const void *key),
                                        const void *key)
{
	const struct bin_entry *e = find_row(entries, entries_n, ok, key);
	return e ? e : find_row(ar_entries, ar_entries_n, ok, key);
}

static bool named(const struct bin_entry *e, const void *key)
{
	return strcmp(e->name, key) == 0;
}

const struct bin_entry *entry_named(const char *name)
{
	return find_any(named, name);
}

const struct bin_entry *entry_in(const struct bview *v, const char *name)
{
	size_t n;
	const struct bin_entry *t = entry_rows(v, &n);
	return find_row(t, n, named, name);
}

/* The rows by the kind of their node, and by the kind of the files they
 * hold (entries_init). */
static const struct bin_entry *by_kind[NK_NKINDS], *by_file_kind[NK_NKINDS];

/* Index the rows of table t (n rows): the first row of a kind counts. */
static void index_rows(const struct bin_entry *t, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct bin_entry *e = &t[i];
		enum node_kind fk = e->file_kind;
		if (!by_kind[e->kind])
			by_kind[e->kind] = e;
		node_kind_set(e->kind, e->name, e->bytes == EB_DIR || e->bytes == EB_VIEW);
		if (e->bytes != EB_DIR || fk == NK_DIR) /* NK_DIR: files of rows of their own */
			continue;
		if (!by_file_kind[fk])
			by_file_kind[fk] = e;
		node_kind_set_unnamed(fk);
	}
}

void entries_init(void)
{
	index_rows(entries, entries_n);
	index_rows(ar_entries, ar_entries_n);
	index_rows(go_entries, go_entries_n); /* the files of go/ */
	/* members/ holds ELF members and thin archives' links too (member_file),
	 * nameless like its other files: found by the key of their name */
	node_kind_set_unnamed(NK_MEMBER);
	node_kind_set_unnamed(NK_ARLINK);
}

const struct bin_entry *entry_of_kind(enum node_kind k)
{
	return k < NK_NKINDS ? by_kind[k] : NULL;
}

const struct bin_entry *entry_holding(enum node_kind k)
{
	return k < NK_NKINDS ? by_file_kind[k] : NULL;
}

enum entry_bytes entry_bytes_of(enum node_kind k)
{
	if (k == NK_MEMBER) /* an ELF member: the directory of a binary */
		return EB_DIR;
	if (k == NK_ARLINK)
		return EB_LINK;
	const struct bin_entry *e = entry_of_kind(k);
	if (e)
		return e->bytes;
	e = entry_holding(k);
	return e ? e->file_bytes : EB_DIR;
}
