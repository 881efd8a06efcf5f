/* The slots of the node table (slots.c), for nodes.c only: under its lock. */
#ifndef ELFFS_NODE_SLOTS_H
#define ELFFS_NODE_SLOTS_H

#include "node/node.h"

#include <stdint.h>

/* A zeroed slot with its number; NULL on ENOMEM. */
struct node *slot_take(void);

/* Free slot n: a number given out is not given again. */
void slot_give(struct node *n);

/* The slot that number ino would be, or NULL (free slots hold a number not
 * given yet: the caller compares). */
struct node *slot_at(uint64_t ino);

/* Slots taken. */
uint64_t slots_live(void);

/* Call each on every slot used since its slab was mapped, then unmap every
 * slab (at exit). */
void slots_destroy(void (*each)(struct node *n));

#endif /* ELFFS_NODE_SLOTS_H */
