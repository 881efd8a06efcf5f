/*
 * The magic reads of a batch submitted together (liburing, optional at
 * build time), private to probe_batch.c.
 */
#ifndef ELFFS_PROBE_URING_H
#define ELFFS_PROBE_URING_H

#include "source/probe_helpers.h"

#include <stddef.h>

/* Read the magic of the entries of b waiting for it (IT_MAGIC), up to
 * depth at once: each opened and checked as probe_read_magic does, its
 * read submitted with the others in one io_uring_enter, so that the block
 * layer sends neighbouring blocks as one request. Without a ring, one
 * after the other. */
void probe_read_together(struct probe_batch *b, size_t depth);

#endif /* ELFFS_PROBE_URING_H */
