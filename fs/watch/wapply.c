/*
 * What an event does: every node that shows the file or directory it
 * names has its next check forced (tree/check.c looks at SOURCE again:
 * a binary with another identity gets a new generation, its views and
 * inner nodes go) and the kernel is told to forget its attributes and
 * its entry (base/inval.c, sent by that thread, coalesced per node). The
 * nodes are found by the handles of wmap.c and the names of the node
 * table: an event about a file the kernel does not hold costs one hash
 * lookup (two with its directory's).
 */
#include "watch/watch_i.h"
#include "base/inval.h"
#include "buildid/buildid_index.h"
#include "tree/check.h"
#include "tree/dirsnap.h"

#include <string.h>
#include <sys/fanotify.h>

#define SAME_MAX   16 /* nodes of one handle acted on per event */
#define DIR_CHANGE (FAN_CREATE | FAN_DELETE | FAN_MOVED_FROM | FAN_MOVED_TO)
/* a write can make a file an ELF file or not: its entry in the listing changes type */
#define ENTRY_TYPE (FAN_MODIFY | FAN_CLOSE_WRITE)

_Atomic uint64_t watch_n_events, watch_n_overflows, watch_n_remounts, watch_n_watched;

/* Forget what the kernel and the daemon hold of node ino. */
static void touch(uint64_t ino)
{
	struct node *n = node_get(ino);
	if (!n)
		return;
	if (node_is_source(n)) {
		check_force(n);
		char name[256] = "";
		uint64_t parent = 0;
		nodes_lock();
		if (n->parent && n->hashed && strlen(n->name) < sizeof(name)) {
			parent = n->parent->ino;
			strcpy(name, n->name);
		}
		nodes_unlock();
		if (parent)
			inval_entry(parent, name);
	}
	if (n->kind == NK_DIR)
		dsnap_forget(ino); /* its listing */
	inval_inode(ino);
	node_put(n);
}

/* Forget the listing the daemon and the kernel hold of directory ino. */
static void relist(uint64_t ino)
{
	dsnap_forget(ino);
	inval_inode(ino); /* the kernel's listing cache is the directory's pages */
}

static void touch_each(uint64_t ino, void *arg)
{
	(void)arg;
	touch(ino);
}

/* An event about entry name of the directory with handle dir. */
static void in_dir(uint64_t mask, const struct wfid *dir, const char *name)
{
	uint64_t dirs[SAME_MAX];
	size_t n = wmap_find(dir, dirs, SAME_MAX);
	if (n)
		inval_seq_bump();
	for (size_t i = 0; i < n; i++) {
		if (mask & DIR_CHANGE || strcmp(name, ".") == 0 || !name[0])
			touch(dirs[i]); /* its times, link count, listing */
		else if (mask & ENTRY_TYPE)
			relist(dirs[i]);
		uint64_t child =
		        name[0] && strcmp(name, ".") != 0 ? node_child_ino(dirs[i], name) : 0;
		if (child)
			touch(child);
	}
}

void wapply_event(uint64_t mask, const struct wfid *dir, const char *name, const struct wfid *obj)
{
	atomic_fetch_add(&watch_n_events, 1);
	bidx_changed();
	if (dir)
		in_dir(mask, dir, name ? name : "");
	if (!obj)
		return;
	uint64_t same[SAME_MAX];
	size_t n = wmap_find(obj, same, SAME_MAX);
	if (n)
		inval_seq_bump();
	for (size_t i = 0; i < n; i++)
		touch(same[i]); /* every name of it the kernel holds: hard links */
}

int wapply_everything(void)
{
	inval_seq_bump();
	return wmap_each(touch_each, NULL);
}

uint64_t watch_seq(void)
{
	return inval_seq();
}
