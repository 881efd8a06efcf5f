/* The size and aux of a row's node (entries.h: entry_shape). */
#include "content/entries.h"
#include "content/info.h"

#include <errno.h>

int entry_shape(const struct bin_entry *e, struct node *bin, struct bview *v, uint64_t *size,
                uint64_t *aux)
{
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
