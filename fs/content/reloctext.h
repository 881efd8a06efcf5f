/*
 * The `relocations` text of a binary (reloctext.c): a line generator
 * (textview.h) over pfelf's relocation iterator. What it keeps besides the
 * text's index (its sections, their first lines, RELR positions) lives in
 * the view's core (view.h: reloc) and is counted in the budget.
 */
#ifndef ELFFS_RELOCTEXT_H
#define ELFFS_RELOCTEXT_H

#include <stdint.h>

struct vcore;
struct textgen;

/*
 * Prepare the relocations text of v (under its lazy_lock): list its
 * relocation sections, count RELR addresses, set *g. Lines: "<section>
 * <readelf -rW's entry line>". 0, -ENOMEM, -EIO.
 */
int reloctext_prepare(struct vcore *c, struct textgen *g);

/* Free what the relocations text of core c keeps besides its index. */
void reloctext_release(struct vcore *c);

/* Bytes it keeps (for the memory budget). */
uint64_t reloctext_cost(const struct vcore *c);

#endif /* ELFFS_RELOCTEXT_H */
