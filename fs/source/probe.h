/*
 * What an entry of SOURCE shows as, without parsing anything: directories
 * and symlinks as themselves, regular files as binaries when their first
 * four bytes are the ELF magic or that start with the ar archive magic
 * (an archive is shown as a directory too), everything else left out.
 *
 * Magic answers are kept by file identity (dev, ino, size, mtime, ctime):
 * a set-associative table of 8-byte tags (a keyed hash of the identity,
 * one bit of it the answer), 8 to a 64-byte bucket, each tag in the
 * emptier of its two buckets. It grows from 64 Ki tags (512 KiB; the
 * first size ELFFS_PROBE_CACHE_FIRST, a knob of the tests) by doubling up
 * to PROBE_CACHE_MAX_TAGS while it is more than half full or a tag found
 * both its buckets full, each growth reserved in the memory budget
 * (MB_LISTINGS; refused: it stays as it is). Past that, a full bucket
 * forgets one of its tags (that file is read again when next listed).
 *
 * A directory's entries are classified together (probe_batch_*): the
 * listing's own thread and, once it has worked PROBE_ALONE_NS on them
 * without finishing (the entries wait for the disk), up to PROBE_HELPERS
 * helper threads take its entries one at a time (lstat, then the magic of
 * a regular file not known yet): a warm listing pays no hand-over (warm:
 * PROBE_WARM_ENTRIES or more answered in each PROBE_ALONE_NS). With
 * liburing, the regular files of the directory's device not known yet
 * wait until every lstat is taken, then the listing's thread opens up to
 * PROBE_READS_MAX (a 16th of RLIMIT_NOFILE) and submits their reads in one
 * io_uring_enter (neighbouring blocks become one request); without it
 * they are read one by one as they come.
 * A regular file on another device than its directory (a file
 * bind-mounted from a file system below SOURCE) is read only by a helper,
 * never by the listing's thread, noted as a call into that device
 * (stall.h): one not answered within STALL_NS is left out of that listing
 * (its helper stays with it; the answer, when it comes, is kept), and one
 * on a device that has a call in flight for STALL_NS or more is left out
 * at once. The listing's thread, a FUSE worker, waits for such files as
 * one of the workers of the stall shares (stall_wait_enter, under the
 * first such file's device); when the shares are taken it does not wait:
 * they are left out at once (their helpers go on, the answers are kept).
 * At most PROBE_THREADS_MAX helpers live; idle ones end after
 * PROBE_IDLE_S seconds.
 *
 * Files: probe_magic.c (one entry, the read of its magic), probe_cache.c
 * (the answers kept), probe_batch.c (a batch and the listing's thread,
 * and probe_classify, which may make a batch of one file),
 * probe_helpers.c (the steps of its entries, and the helper threads),
 * probe_uring.c (the reads together).
 */
#ifndef ELFFS_PROBE_H
#define ELFFS_PROBE_H

#include "node/nodes.h"

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#define PROBE_HELPERS        6          /* helpers woken for one directory */
#define PROBE_HELPERS_MAX    16         /* ... at most (ELFFS_PROBE_HELPERS, a knob of bench/) */
#define PROBE_THREADS_MAX    24         /* helpers alive, those stuck included */
#define PROBE_ALONE_NS       200000ULL  /* 0.2 ms */
#define PROBE_WARM_ENTRIES   40         /* ... done in which the listing stays alone (5 us each) */
#define PROBE_IDLE_S         10         /* an idle helper ends after this */
#define PROBE_READS_MAX      64         /* magic reads submitted together */
#define PROBE_CACHE_MAX_TAGS (1u << 22) /* 32 MiB: 2 Mi known files at half full */

/*
 * Kind of entry name of directory dirfd whose lstat is st: NK_DIR,
 * NK_LINK, NK_BIN, or -ENOENT when it is left out (not ELF, special file,
 * cannot be opened); -EMFILE or -ENFILE when the daemon is out of
 * descriptors (nothing is known then). A regular file on another device
 * than its directory (below SOURCE) is read by a helper and waited for as
 * in a listing (a batch of that one entry): -ENOENT when it is left out.
 */
int probe_classify(int dirfd, const char *name, const struct stat *st);

/* What the cache knows of regular file st (its lstat): 1 when it starts
 * with the ELF or the ar magic, 0 when it does not, -1 when not known
 * (nothing is read). */
int probe_known(const struct stat *st);

/*
 * Kind of a directory entry and its lstat (into st, valid whenever the
 * result is a kind): special files by their d_type are left out without
 * a look, everything else is lstat'ed without entering another mount
 * (-ELOOP: our own mount, src_statat_listed) and classified as
 * probe_classify.
 * The lstat is what readdirplus gives the kernel (ops_dir.c).
 */
int probe_entry(int dirfd, const char *name, unsigned char d_type, struct stat *st);

/* Entries of one directory classified together (probe_entry each). */
struct probe_batch;

/* A batch of at most cap entries; NULL when out of memory. */
struct probe_batch *probe_batch_new(size_t cap);

/* Add entry name (d_type) to b; 0, or -ENOMEM when b is full. */
int probe_batch_add(struct probe_batch *b, const char *name, unsigned char d_type);

/* Add entry name (d_type) of directory dirfd, not the batch's, to b (a
 * batch alone: a look ahead of several directories, ahead.h); 0 or
 * -ENOMEM. dirfd stays open until probe_batch_run returns. */
int probe_batch_add_at(struct probe_batch *b, int dirfd, const char *name, unsigned char d_type);

/* b is a batch of the look ahead (ahead.h), alone with its files: a file
 * on another device is not read (its answer -ENOENT, nothing kept), so
 * nothing below SOURCE that may hang is waited for; helpers join as for
 * any batch. Before probe_batch_run. */
void probe_batch_alone(struct probe_batch *b);

/* How many entries b holds. */
size_t probe_batch_count(const struct probe_batch *b);

/* Classify the entries of b, in directory dirfd (on device dev): each gets
 * what probe_entry gives, or -ENOENT for a file on another device that did
 * not answer in time. Returns once every entry has its answer. */
void probe_batch_run(struct probe_batch *b, int dirfd, dev_t dev);

/* Entry i of b: its name, its answer, and its lstat (when a kind). */
int probe_batch_get(const struct probe_batch *b, size_t i, const char **name,
                    const struct stat **st);

/* Whether b left a file out because its device did not answer (or was
 * not waited for): a listing made of it is incomplete. */
bool probe_batch_stalled(const struct probe_batch *b);

/* The directory of entry i of b (probe_batch_add_at's, or the batch's). */
int probe_batch_dirfd(const struct probe_batch *b, size_t i);

/* Done with b (helpers still inside a file keep it until they return). */
void probe_batch_put(struct probe_batch *b);

#endif /* ELFFS_PROBE_H */
