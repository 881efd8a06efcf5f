/* Opening `symbols` and decompressed/<name>. */
#include "openmeta.h"
#include "symview.h"

#include <errno.h>

int openmeta(struct node *n, struct bview *v, const char **mem, struct dentry_data **hold)
{
	if (n->kind == NK_SYMBOLS) {
		size_t len;
		int ret = symview_text(v, mem, &len);
		return ret < 0 ? ret : len != n->file->len ? -EIO : 0;
	}
	return dcache_acquire(v, n->broot->ino, n->file->index, n->file->ch_size, mem, hold);
}
