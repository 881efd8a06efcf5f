/*
 * The cache of ELF magic answers, by file identity (probe.h describes the
 * table), private to the probe's files (probe_magic.c).
 */
#ifndef ELFFS_PROBE_CACHE_H
#define ELFFS_PROBE_CACHE_H

#include "pfelf.h"

#include <stdbool.h>

/* The answer kept for id: 1 (ELF or ar magic) or 0 when known, -1 when
 * not. */
int probe_cache_get(const pfelf_identity *id);

/* Keep answer elf for id (the table grows when it may, within the memory
 * budget; full, a bucket forgets one of its tags). */
void probe_cache_put(const pfelf_identity *id, bool elf);

#endif /* ELFFS_PROBE_CACHE_H */
