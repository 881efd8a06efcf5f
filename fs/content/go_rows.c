/*
 * The rows of go/ (entries.h; gotables.h says what each file is) and the
 * directory itself: what it lists once the Go tables are loaded, and its
 * lookups.
 */
#include "content/entries.h"
#include "content/gotables.h"

#include <errno.h>
#include <string.h>

static const char *buildinfo_text(const struct bview *v, size_t *len)
{
	const char *text;
	return pfelf_go_buildinfo(v->f, &text, len) == 0 ? text : NULL;
}

static int buildinfo_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	size_t len = 0;
	*aux = 0;
	*size = 0;
	if (!buildinfo_text(v, &len))
		return -EIO;
	*size = len;
	return 0;
}

const struct bin_entry go_entries[] = {
        {.name = "buildinfo",
         .usage = "go/buildinfo           the build info, as go version -m",
         .kind = NK_GOINFO,
         .bytes = EB_COPY,
         .shape = buildinfo_shape,
         .copy = buildinfo_text},
        {.name = "functions",
         .usage = "go/functions           every function of the pclntab",
         .kind = NK_GOFUNCS,
         .bytes = EB_TEXT,
         .text = TEXT_GOFUNCS},
        {.name = "debug",
         .usage = "go/debug               an ELF debug file made from the pclntab",
         .kind = NK_GODEBUG,
         .bytes = EB_MADE,
         .make = godebug_make,
         .make_guess = godebug_guess},
};

const size_t go_entries_n = sizeof(go_entries) / sizeof(go_entries[0]);

/* Whether loaded state g shows row e: buildinfo with build info, the
 * others with a pclntab that holds together. */
static bool shows(const struct goview *g, const struct bin_entry *e)
{
	return e->kind == NK_GOINFO ? g->info_err == 0 : g->table_err == 0;
}

int go_dir_lookup(struct bview *v, const char *name, struct entry_file *out)
{
	const struct goview *g;
	int ret = goview_get(v, &g); /* -ENOENT: not a Go binary (any more) */
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < go_entries_n; i++) {
		if (strcmp(name, go_entries[i].name) != 0)
			continue;
		if (!shows(g, &go_entries[i]))
			return -ENOENT;
		out->kind = go_entries[i].kind;
		return entry_shape(&go_entries[i], NULL, v, &out->size, &out->aux);
	}
	return -ENOENT;
}

int go_dir_count(struct bview *v, size_t *n)
{
	const struct goview *g;
	int ret = goview_get(v, &g);
	*n = 0;
	if (ret < 0)
		return ret;
	for (size_t i = 0; i < go_entries_n; i++)
		*n += shows(g, &go_entries[i]);
	return 0;
}

/* After go_dir_count: the state is loaded. */
const char *go_dir_name_at(struct bview *v, size_t i)
{
	const struct goview *g = view_core(v)->gov;
	for (size_t k = 0; k < go_entries_n; k++)
		if (shows(g, &go_entries[k]) && i-- == 0)
			return go_entries[k].name;
	return "";
}
