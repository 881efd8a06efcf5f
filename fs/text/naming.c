/* The naming engine of section and symbol file names (naming.h). */
#include "text/naming.h"
#include "nameset.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool naming_is_odd(const char *s)
{
	return !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || strchr(s, '/') ||
	       strlen(s) > NAMING_MAX;
}

/* s + "~<i>", freeing s; NULL on ENOMEM (s freed too). */
static char *suffixed(char *s, uint32_t i)
{
	size_t len = strlen(s);
	char *t = realloc(s, len + 12);
	if (!t) {
		free(s);
		return NULL;
	}
	snprintf(t + len, 12, "~%u", i);
	return t;
}

/* Rule 1: cut, '/' -> '_', "~<i>". */
static char *odd_name(char *s, uint32_t i)
{
	if (strlen(s) > NAMING_MAX)
		s[NAMING_MAX] = '\0';
	for (char *p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	return suffixed(s, i);
}

/* The name of item id - 1: the key of the set of taken names. */
static const char *item_key(const void *ctx, uint32_t id)
{
	const struct naming_item *items = ctx;
	return items[id - 1].name;
}

/* Rules 1 and 2: odd names, and the first holder of a plain name. */
static int keep_plain(struct naming_item *items, uint32_t n, struct nameset *set,
                      naming_same_fn same, void *ctx)
{
	for (uint32_t i = 0; i < n; i++) {
		struct naming_item *it = &items[i];
		it->made = it->dropped = false;
		if (naming_is_odd(it->name)) {
			it->made = true;
			it->name = odd_name(it->name, it->index);
		} else if (!nameset_add(set, i + 1, item_key, items)) {
			uint32_t keeper = nameset_find(set, it->name, item_key, items) - 1;
			if (same && same(ctx, keeper, i)) {
				it->dropped = true;
				continue;
			}
			it->made = true;
			it->name = suffixed(it->name, it->index);
		}
		if (!it->name)
			return -ENOMEM;
	}
	return 0;
}

/* Rule 3: made names step aside for taken ones. */
static int place_made(struct naming_item *items, uint32_t n, struct nameset *set)
{
	for (uint32_t i = 0; i < n; i++) {
		struct naming_item *it = &items[i];
		if (!it->made || it->dropped)
			continue;
		while (nameset_find(set, it->name, item_key, items))
			if (!(it->name = suffixed(it->name, it->index)))
				return -ENOMEM;
		nameset_add(set, i + 1, item_key, items);
	}
	return 0;
}

int naming_resolve(struct naming_item *items, uint32_t n, naming_same_fn same, void *ctx)
{
	struct nameset set;
	int ret = nameset_init(&set, n);
	if (ret == 0)
		ret = keep_plain(items, n, &set, same, ctx);
	if (ret == 0)
		ret = place_made(items, n, &set);
	nameset_free(&set);
	return ret;
}

int naming_sections(const char *const *raw, uint32_t n, char **out)
{
	if (n == 0)
		return 0;
	memset(out, 0, (size_t)n * sizeof(*out));
	struct naming_item *items = calloc(n, sizeof(*items));
	int ret = items ? 0 : -ENOMEM;
	for (uint32_t i = 1; i < n && ret == 0; i++) {
		items[i - 1].name = strndup(raw[i] ? raw[i] : "", NAMING_MAX + 1);
		items[i - 1].index = i;
		if (!items[i - 1].name)
			ret = -ENOMEM;
	}
	if (ret == 0)
		ret = naming_resolve(items, n - 1, NULL, NULL);
	for (uint32_t i = 1; items && i < n; i++) {
		if (ret == 0)
			out[i] = items[i - 1].name;
		else
			free(items[i - 1].name);
	}
	free(items);
	return ret;
}

void naming_free(char **out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
}
