/* The size and aux of a row's node (entries.h: entry_shape). */
#include "content/entries.h"
#include "content/info.h"
#include "node/namekey.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>

/* A link row's node: its target's length and the hash of its target. */
static int link_shape(const struct bin_entry *e, struct node *bin, struct bview *v, uint64_t *size,
                      uint64_t *aux)
{
	char *target = malloc(PATH_MAX);
	if (!target)
		return -ENOMEM;
	int n = e->link(bin, v, target, PATH_MAX);
	if (n >= 0) {
		*size = (uint64_t)n;
		*aux = name_key(target);
	}
	free(target);
	return n < 0 ? n : 0;
}

int entry_shape(const struct bin_entry *e, struct node *bin, struct bview *v, uint64_t *size,
                uint64_t *aux)
{
	if (e->link) /* decided here: present is what a listing shows */
		return link_shape(e, bin, v, size, aux);
	if (e->present && !e->present(v))
		return -ENOENT;
	if (e->bytes == EB_TEXT) {
		struct infotail t = {0};
		*aux = 0;
		int ret = textview_size(v, e->text, size);
		if (ret == 0 && e->tail)
			ret = e->tail(bin, v, &t);
		*size += t.len;
		*aux = t.hash;
		info_tail_free(&t);
		return ret;
	}
	if (e->bytes == EB_MADE) { /* the size of what is made: the cache's (dcache.h) */
		*size = *aux = 0;
		return 0;
	}
	return e->shape(v, size, aux);
}
