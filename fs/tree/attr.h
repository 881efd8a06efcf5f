/* The attributes the mount shows for a node (docs/elffs.1, "What is shown"). */
#ifndef ELFFS_ATTR_H
#define ELFFS_ATTR_H

#include "node/nodes.h"

#include <sys/stat.h>

/*
 * Attributes of n: owner and times of its source (a binary's for every
 * node of its view); mode: directories of SOURCE lose the write bits,
 * files of a view keep only the read bits, directories of a view have the
 * read bits plus the matching search bits.
 */
void attr_of(struct node *n, struct stat *out);

#endif /* ELFFS_ATTR_H */
