/* The keys of the node table's names (namekey.c). */
#ifndef ELFFS_NODE_NAMEKEY_H
#define ELFFS_NODE_NAMEKEY_H

#include <stdint.h>

/* Draw the key (once, at start: random, else from the clock). */
void name_key_draw(void);

/* SipHash-2-4 of name under the key drawn at start. */
uint64_t name_key(const char *name);

#endif /* ELFFS_NODE_NAMEKEY_H */
