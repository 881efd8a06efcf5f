/* A handle's memory: allocated blank, freed with all that hangs on it
 * (what higher layers attach is freed through the hook they set). */
#include "pfelf_i.h"

#include <stdlib.h>

pfelf_file *pfelf__alloc(void)
{
	pfelf_file *f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->fd = -1;
	pthread_mutex_init(&f->lock, NULL);
	return f;
}

void pfelf__free(pfelf_file *f)
{
	if (f->tables_free)
		f->tables_free(f);
	if (f->ops)
		f->ops->release(f);
	if (f->ar)
		f->archive_put(f->ar);
	free(f->path);
	free(f->sh);
	free(f->shstr);
	nameset_free(&f->byname);
	free(f->ph);
	pthread_mutex_destroy(&f->lock);
	free(f);
}
