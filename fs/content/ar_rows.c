/* The rows of an ar archive's directory (entries.h): info, armap, members/. */
#include "content/arview.h"
#include "content/entries.h"

#include <errno.h>

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
	int found = arview_find(ar, name);
	if (found < 0)
		return found;
	uint32_t i = (uint32_t)found;
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
