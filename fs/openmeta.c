/* Opening info, symbols and decompressed/<name>; reading the generated texts. */
#include "openmeta.h"
#include "textview.h"

#include <errno.h>

static enum text_kind text_of(enum node_kind kind)
{
	return kind == NK_INFO ? TEXT_INFO : TEXT_SYMBOLS;
}

int openmeta(struct node *n, struct bview *v, const char **mem, struct dentry_data **hold)
{
	if (openmeta_generated((enum node_kind)n->kind)) {
		uint64_t size;
		int ret = textview_size(v, text_of((enum node_kind)n->kind), &size);
		return ret < 0 ? ret : size != n->size ? -EIO : 0;
	}
	return dcache_acquire(v, node_broot(n)->ino, (uint32_t)n->aux, n->size, mem, hold);
}

int openmeta_read(enum node_kind kind, struct bview *v, uint64_t off, char *buf, size_t len)
{
	return textview_read(v, text_of(kind), off, buf, len);
}
