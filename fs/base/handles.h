/*
 * The file handles given to the kernel (open files, directory listings).
 * When the connection goes away without releasing them (a lazy unmount
 * with readers, an abort), they are freed at exit all the same.
 */
#ifndef ELFFS_HANDLES_H
#define ELFFS_HANDLES_H

#include <stdbool.h>
#include <sys/queue.h>

struct hlink {
	LIST_ENTRY(hlink) link;
	void (*free)(struct hlink *h); /* frees the handle (it calls handles_remove) */
	bool linked;
};

/* Register handle h, freed by free_fn at exit unless removed before. */
void handles_add(struct hlink *h, void (*free_fn)(struct hlink *h));

/* Unregister h (a no-op if it is not registered). */
void handles_remove(struct hlink *h);

/* Free every handle still registered (after the session loop). */
void handles_free_all(void);

#endif /* ELFFS_HANDLES_H */
