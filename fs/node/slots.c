/*
 * The slots of the node table: 64-byte nodes in slabs of SLAB_SLOTS
 * (mmap'ed, so an empty slab goes back to the system at once), each slot's
 * inode number saying where it is (nodes.c, "Memory"). Under the node
 * table's lock.
 */
#include "node/slots.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define SLAB_SHIFT 12 /* 4096 slots of 64 bytes: 256 KiB a slab */
#define SLAB_SLOTS (1u << SLAB_SHIFT)
#define SLOT_BITS  28 /* slot ids: 2^28 nodes at most (16 GiB of slots) */
#define SLOT_MASK  (((uint64_t)1 << SLOT_BITS) - 1)
#define MAX_SLABS  ((1u << (SLOT_BITS - SLAB_SHIFT)) - 1) /* never 0xffffffff */

/* Under AddressSanitizer, free slots are poisoned but for the two fields
 * the allocator keeps in them (hnext: the free list; ino: the next number),
 * and slots not used yet entirely, so a node used after it was freed is
 * reported as with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define NODES_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NODES_ASAN 1
#endif
#endif
#ifdef NODES_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/lsan_interface.h>
#define POISON(p, n)   ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
/* LeakSanitizer does not look into mmap'ed memory: the slabs hold the only
 * pointers to the source nodes' data. */
#define LSAN_ROOTS(p, n)   __lsan_register_root_region((p), (n))
#define LSAN_UNROOTS(p, n) __lsan_unregister_root_region((p), (n))
#else
#define POISON(p, n)       ((void)(p), (void)(n))
#define UNPOISON(p, n)     ((void)(p), (void)(n))
#define LSAN_ROOTS(p, n)   ((void)(p), (void)(n))
#define LSAN_UNROOTS(p, n) ((void)(p), (void)(n))
#endif
#define SLAB_BYTES ((size_t)SLAB_SLOTS * sizeof(struct node))

/* Poison free slot n but for hnext and ino. */
static void poison_free(struct node *n)
{
	POISON(&n->parent, sizeof(n->parent));
	POISON(&n->key, sizeof(*n) - offsetof(struct node, key));
}

struct slab {
	struct node *mem;       /* SLAB_SLOTS slots (mmap), NULL while unmapped */
	struct node *free_head; /* freed slots, oldest first, through hnext */
	struct node *free_tail;
	uint64_t seq;        /* sequence of the first use of its slots when mapped */
	uint32_t used;       /* slots taken */
	uint32_t fresh;      /* slots [fresh, SLAB_SLOTS) not used since mapped */
	uint32_t prev, next; /* list of mapped slabs with room: index + 1, 0 none */
	bool in_room;
};

static struct slab *slabs;
static uint32_t nslabs, slabs_cap, room_head, room_tail, room_count;
static uint64_t live; /* slots taken */

static uint64_t slot_ino(uint32_t slab, uint32_t i, uint64_t seq)
{
	return (seq << SLOT_BITS | (uint64_t)slab << SLAB_SHIFT | i) + 1;
}

static struct slab *slab_of(const struct node *n)
{
	return &slabs[((n->ino - 1) & SLOT_MASK) >> SLAB_SHIFT];
}

static void room_add(uint32_t si)
{
	struct slab *s = &slabs[si];
	s->prev = room_tail;
	s->next = 0;
	if (room_tail)
		slabs[room_tail - 1].next = si + 1;
	else
		room_head = si + 1;
	room_tail = si + 1;
	s->in_room = true;
	room_count++;
}

static void room_remove(uint32_t si)
{
	struct slab *s = &slabs[si];
	if (!s->in_room)
		return;
	if (s->prev)
		slabs[s->prev - 1].next = s->next;
	else
		room_head = s->next;
	if (s->next)
		slabs[s->next - 1].prev = s->prev;
	else
		room_tail = s->prev;
	s->prev = s->next = 0;
	s->in_room = false;
	room_count--;
}

/* The index of an unmapped slab, the table grown if need be; -ENOMEM. */
static int64_t slab_free_index(void)
{
	for (uint32_t i = 0; i < nslabs; i++)
		if (!slabs[i].mem)
			return i;
	if (nslabs == MAX_SLABS)
		return -ENOMEM;
	if (nslabs == slabs_cap) {
		uint32_t cap = slabs_cap ? slabs_cap * 2 : 64;
		struct slab *t = realloc(slabs, cap * sizeof(*t));
		if (!t)
			return -ENOMEM;
		memset(t + slabs_cap, 0, (cap - slabs_cap) * sizeof(*t));
		slabs = t;
		slabs_cap = cap;
	}
	return nslabs++;
}

/* Map a slab with room; 0 or -ENOMEM. */
static int slab_map(void)
{
	int64_t si = slab_free_index();
	if (si < 0)
		return (int)si;
	void *mem =
	        mmap(NULL, SLAB_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -ENOMEM;
	POISON(mem, SLAB_BYTES);
	LSAN_ROOTS(mem, SLAB_BYTES);
	struct slab *s = &slabs[si];
	s->mem = mem;
	s->used = s->fresh = 0;
	s->free_head = s->free_tail = NULL;
	room_add((uint32_t)si);
	return 0;
}

/* Give empty slab si back; its slots' next uses start above all theirs. */
static void slab_unmap(uint32_t si)
{
	struct slab *s = &slabs[si];
	for (uint32_t i = 0; i < s->fresh; i++) {
		uint64_t seq = (s->mem[i].ino - 1) >> SLOT_BITS;
		if (seq > s->seq)
			s->seq = seq;
	}
	room_remove(si);
	UNPOISON(s->mem, SLAB_BYTES);
	LSAN_UNROOTS(s->mem, SLAB_BYTES);
	munmap(s->mem, SLAB_BYTES);
	s->mem = NULL;
}

/* A zeroed slot with its number (lock held); NULL on ENOMEM. */
struct node *slot_take(void)
{
	if (!room_head && slab_map() < 0)
		return NULL;
	uint32_t si = room_head - 1;
	struct slab *s = &slabs[si];
	struct node *n = s->free_head;
	uint64_t ino;
	if (n) {
		s->free_head = n->hnext;
		if (!s->free_head)
			s->free_tail = NULL;
		ino = n->ino;
	} else {
		n = &s->mem[s->fresh];
		ino = slot_ino(si, s->fresh++, s->seq);
	}
	if (++s->used == SLAB_SLOTS)
		room_remove(si);
	UNPOISON(n, sizeof(*n));
	memset(n, 0, sizeof(*n));
	n->ino = ino;
	live++;
	return n;
}

/* Free slot n (lock held): a number given out is not given again. */
void slot_give(struct node *n)
{
	struct slab *s = slab_of(n);
	uint32_t si = (uint32_t)(s - slabs);
	uint64_t next = n->attached ? n->ino + ((uint64_t)1 << SLOT_BITS) : n->ino;
	memset(n, 0, sizeof(*n));
	n->ino = next;
	poison_free(n);
	if (s->free_tail)
		s->free_tail->hnext = n;
	else
		s->free_head = n;
	s->free_tail = n;
	if (s->used-- == SLAB_SLOTS)
		room_add(si);
	live--;
	if (s->used == 0 && si != 0 && room_count > 1)
		slab_unmap(si);
}

struct node *slot_at(uint64_t ino)
{
	uint64_t id = (ino - 1) & SLOT_MASK;
	uint64_t si = id >> SLAB_SHIFT;
	uint32_t i = (uint32_t)(id & (SLAB_SLOTS - 1));
	if (ino == 0 || si >= nslabs || !slabs[si].mem || i >= slabs[si].fresh)
		return NULL;
	return &slabs[si].mem[i];
}

uint64_t slots_live(void)
{
	return live;
}

void slots_destroy(void (*each)(struct node *n))
{
	for (uint32_t si = 0; si < nslabs; si++) {
		struct slab *s = &slabs[si];
		if (!s->mem)
			continue;
		UNPOISON(s->mem, SLAB_BYTES);
		for (uint32_t i = 0; i < s->fresh; i++)
			each(&s->mem[i]);
		LSAN_UNROOTS(s->mem, SLAB_BYTES);
		munmap(s->mem, SLAB_BYTES);
	}
	free(slabs);
	slabs = NULL;
	nslabs = slabs_cap = room_head = room_tail = room_count = 0;
	live = 0;
}
