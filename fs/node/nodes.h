/* The node table: every inode the kernel knows, by number and by name. */
#ifndef ELFFS_NODES_H
#define ELFFS_NODES_H

#include "base/elffs.h"
#include "node/node.h"

#include <pfelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

/* Whether n is a directory: of SOURCE, a binary, or a directory entry of
 * a binary (entries.h). */
bool node_is_dir(const struct node *n);

/* Whether n's directory holds the entries of a binary (entries.h). */
static inline bool node_is_vroot(const struct node *n)
{
	return n->kind == NK_BIN || n->kind == NK_MEMBER || n->kind == NK_DDATA;
}

/* The name of n: a source node's own, its row's for an entry of a
 * binary's directory (entries.h), "" for the root and for files inside a
 * binary's directories (not kept). */
const char *node_name(const struct node *n);

/* The path of source node n (a directory, file or link of SOURCE) from the
 * root, "dir/name" ("" for the root) into buf of size bytes: its length, or
 * -ENAMETOOLONG when it does not fit with its NUL. */
int node_source_path(const struct node *n, char *buf, size_t size);

/* The per-binary state of NK_BIN nodes (the binary cache's), given at
 * init: make returns NULL on ENOMEM; destroy takes NULL. */
struct node_binary_ops {
	struct binary *(*make)(void);
	void (*destroy)(struct binary *b);
};

/* Create the root (inode 1) of the given kind, with ops making the state
 * of every NK_BIN node (kept: ops lives as long as the table); 0 or -ENOMEM. */
int nodes_init(enum node_kind root_kind, const struct stat *st, const struct node_binary_ops *ops);

/* Call hook with each source node whose src->watch is set before it is
 * freed (not at exit): set once, before the session serves. */
void nodes_on_free(void (*hook)(struct node *n));

/* Free every node (at exit, after the session is gone). */
void nodes_destroy(void);

/* The table lock, for reading and updating the fields marked "table lock". */
void nodes_lock(void);
void nodes_unlock(void);

/* A new unattached node (refs 0, not findable yet); NULL on ENOMEM. A
 * source node gets its srcinfo (st zero); an NK_BIN node its binary and
 * a generation. */
struct node *node_new(enum node_kind kind, const char *name);

/* Free a node that was never attached. */
void node_discard(struct node *n);

/*
 * Decide whether the existing node old (same parent and name) still
 * stands for what cand describes; may update old from cand. Called with
 * the table lock held.
 */
typedef bool (*node_reuse_fn)(struct node *old, struct node *cand);

/*
 * Attach cand as the child name of parent, or reuse the existing child
 * when reuse() says so (cand is then freed). The node returned carries one
 * more lookup reference (the kernel's). An existing child not reused is
 * unhashed and marked stale.
 */
struct node *node_attach(struct node *parent, struct node *cand, node_reuse_fn reuse);

/* The node with that inode number plus an internal reference, or NULL. */
struct node *node_get(fuse_ino_t ino);

/* Drop an internal reference (node_get's); NULL is allowed. */
void node_put(struct node *n);

/* The kernel forgets nlookup lookups of ino. */
void node_forget(fuse_ino_t ino, uint64_t nlookup);

/* After a batch of forgets: give freed memory back to the system when
 * much was freed since the last time (malloc_trim). */
void nodes_trim(void);

/* Inode number of child name of parent if such a node exists, else 0. */
uint64_t node_child_ino(uint64_t parent, const char *name);

/* Make n unreachable by name and stale (table lock held). */
void node_unhash_locked(struct node *n);

/* A new generation number for a binary (table lock held): numbers are
 * never given twice, so (inode, generation) names one parse. */
uint64_t node_next_gen_locked(void);

/* The generation n shows: a binary's current one, an inner node's own
 * (table lock held). */
static inline uint64_t node_gen(const struct node *n)
{
	return n->kind == NK_BIN ? n->src->gen : node_is_source(n) ? 0 : n->gen;
}

/* The lstat of a source node as a struct stat (table lock held): the
 * fields of struct srcstat, the others 0. */
void node_stat_get(const struct node *n, struct stat *st);

/* Keep st as the lstat of source node n (table lock held unless n is
 * not attached yet). */
void node_stat_set(struct node *n, const struct stat *st);

/* What a source node keeps of lstat st (node_stat_set keeps this). */
struct srcstat node_srcstat(const struct stat *st);

/* Number of nodes alive (for statistics). */
uint64_t nodes_count(void);

#endif /* ELFFS_NODES_H */
