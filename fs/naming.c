/* File names of sections (SPEC section 3); a pure function. */
#include "naming.h"
#include "strhash.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An open-addressing set of strings it does not own. */
struct strset {
	const char **slot;
	size_t mask;
};

static int set_init(struct strset *s, size_t n)
{
	size_t cap = 16;
	while (cap < 2 * n)
		cap <<= 1;
	s->slot = calloc(cap, sizeof(*s->slot));
	s->mask = cap - 1;
	return s->slot ? 0 : -ENOMEM;
}

static size_t set_find(const struct strset *s, const char *k)
{
	size_t i = strhash(k) & s->mask;
	while (s->slot[i] && strcmp(s->slot[i], k) != 0)
		i = (i + 1) & s->mask;
	return i;
}

static bool set_has(const struct strset *s, const char *k)
{
	return s->slot[set_find(s, k)] != NULL;
}

static void set_add(struct strset *s, const char *k)
{
	s->slot[set_find(s, k)] = k;
}

static bool is_special(const char *s)
{
	return !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || strchr(s, '/');
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

/* Rule 1: the name of section i before duplicates are resolved. */
static char *base_name(const char *raw, uint32_t i, bool *made)
{
	if (!raw)
		raw = "";
	size_t len = strlen(raw);
	*made = is_special(raw) || len > NAMING_MAX;
	if (!*made)
		return strdup(raw);
	size_t keep = len > NAMING_MAX ? NAMING_MAX : len;
	char *s = malloc(keep + 1);
	if (!s)
		return NULL;
	for (size_t k = 0; k < keep; k++)
		s[k] = raw[k] == '/' ? '_' : raw[k];
	s[keep] = '\0';
	return suffixed(s, i);
}

/* Rule 2: the lowest index keeps a shared name. */
static int keep_lowest(char **out, bool *made, uint32_t n, struct strset *set)
{
	for (uint32_t i = 1; i < n; i++) {
		if (made[i])
			continue;
		if (!set_has(set, out[i])) {
			set_add(set, out[i]);
			continue;
		}
		out[i] = suffixed(out[i], i);
		if (!out[i])
			return -ENOMEM;
		made[i] = true;
	}
	return 0;
}

/* Rule 3: made names step aside for names kept as they are. */
static int place_made(char **out, const bool *made, uint32_t n, struct strset *set)
{
	for (uint32_t i = 1; i < n; i++) {
		if (!made[i])
			continue;
		while (set_has(set, out[i])) {
			out[i] = suffixed(out[i], i);
			if (!out[i])
				return -ENOMEM;
		}
		set_add(set, out[i]);
	}
	return 0;
}

int naming_sections(const char *const *raw, uint32_t n, char **out)
{
	if (n == 0)
		return 0;
	memset(out, 0, (size_t)n * sizeof(*out));
	bool *made = calloc(n, sizeof(*made));
	struct strset set = {0};
	int ret = made ? set_init(&set, n) : -ENOMEM;
	for (uint32_t i = 1; i < n && ret == 0; i++) {
		out[i] = base_name(raw[i], i, &made[i]);
		if (!out[i])
			ret = -ENOMEM;
	}
	if (ret == 0)
		ret = keep_lowest(out, made, n, &set);
	if (ret == 0)
		ret = place_made(out, made, n, &set);
	free(set.slot);
	free(made);
	if (ret < 0)
		naming_free(out, n);
	return ret;
}

void naming_free(char **out, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		free(out[i]);
		out[i] = NULL;
	}
}
