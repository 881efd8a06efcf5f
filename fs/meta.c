/* Metadata of a binary's view found when it is parsed. */
#include "meta.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILD_ID_MAX 1024 /* bytes of id shown; real ids are 16 to 20 */

static int build_id(struct bview *v)
{
	const uint8_t *id;
	int n = pfelf_build_id(v->f, &id);
	if (n <= 0)
		return 0;
	if (n > BUILD_ID_MAX)
		n = BUILD_ID_MAX;
	v->buildid = malloc(2 * (size_t)n + 2);
	if (!v->buildid)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		snprintf(v->buildid + 2 * i, 3, "%02x", id[i]);
	v->buildid[2 * n] = '\n';
	v->buildid[2 * n + 1] = '\0';
	v->buildid_len = 2 * (size_t)n + 1;
	return 0;
}

bool meta_compressed(const struct bview *v, uint32_t index, pfelf_chdr *ch)
{
	return index > 0 && index < v->nsec && pfelf_section_chdr(v->f, index, ch) == 0;
}

static int compressed(struct bview *v)
{
	for (uint32_t i = 1; i < v->nsec; i++) {
		pfelf_chdr ch;
		if (!meta_compressed(v, i, &ch))
			continue;
		if (v->ncomp % 64 == 0) {
			uint32_t *c = realloc(v->comp, (v->ncomp + 64) * sizeof(*c));
			if (!c)
				return -ENOMEM;
			v->comp = c;
		}
		v->comp[v->ncomp++] = i;
	}
	return 0;
}

int meta_build(struct bview *v)
{
	int ret = build_id(v);
	return ret < 0 ? ret : compressed(v);
}

void meta_free(struct bview *v)
{
	free(v->buildid);
	free(v->comp);
}

int meta_find_compressed(const struct bview *v, const char *name)
{
	int i = view_find_section(v, name);
	pfelf_chdr ch;
	return i > 0 && meta_compressed(v, (uint32_t)i, &ch) ? i : -ENOENT;
}
