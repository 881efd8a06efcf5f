/* The kind table of the node table: facts of each node kind, by index. */
#include "node/kinds.h"

struct kind_facts {
	const char *name; /* NULL: not set */
	bool dir;
	bool unnamed;
};

static struct kind_facts kinds[NK_NKINDS];

void node_kind_set(enum node_kind k, const char *name, bool dir)
{
	if (k >= NK_NKINDS || kinds[k].name)
		return;
	kinds[k].name = name;
	kinds[k].dir = dir;
}

void node_kind_set_unnamed(enum node_kind k)
{
	if (k < NK_NKINDS)
		kinds[k].unnamed = true;
}

const char *node_kind_name(enum node_kind k)
{
	return k < NK_NKINDS && kinds[k].name ? kinds[k].name : "";
}

bool node_kind_is_dir(enum node_kind k)
{
	return k < NK_NKINDS && kinds[k].dir;
}

bool node_kind_unnamed(enum node_kind k)
{
	return k < NK_NKINDS && kinds[k].unnamed;
}
