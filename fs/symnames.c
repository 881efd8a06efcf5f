/*
 * The files of symbol/: one per defined symbol of size > 0 whose bytes are
 * in the file, named like sections (docs/architecture.md, "Symbol
 * views"): symtab symbols by index, then dynsym symbols (non-local with a
 * non-hidden version, non-local hidden, local; each by index); the first of
 * a name keeps it, later ones get "~<index in their table>"; odd names
 * get '/' -> '_' and "~<index>"; a made name that is taken gets "~<index>"
 * again. A dynsym symbol with the name, offset and size of the symtab
 * symbol that kept that name is the same symbol and is left out.
 */
#include "symview.h"
#include "membudget.h"
#include "view.h"
#include "naming.h"
#include "strhash.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

/* The file range of a section-relative symbol of an ET_REL file. */
static bool rel_range(pfelf_file *f, const pfelf_sym *s, uint64_t *off)
{
	const pfelf_shdr *sh;
	if (pfelf_section(f, s->shndx, &sh) < 0 || sh->type == SHT_NOBITS ||
	    (sh->status & PFELF_ST_OUT_OF_FILE) || (sh->flags & SHF_COMPRESSED))
		return false;
	if (s->value > sh->size || s->size > sh->size - s->value)
		return false;
	*off = sh->offset + s->value;
	return true;
}

/* Whether s gets a file, and its range. */
static bool sym_range(const struct bview *v, const pfelf_sym *s, uint64_t *off)
{
	bool xindex = s->raw_shndx == SHN_XINDEX && !(s->status & PFELF_SYM_BAD_SHNDX);
	if (s->size == 0 || s->shndx == 0 || (s->shndx >= 0xff00 && !xindex) ||
	    s->type == STT_SECTION || s->type == STT_FILE || s->type == STT_TLS ||
	    (s->status & PFELF_SYM_BAD_NAME))
		return false;
	if (v->eh.type == ET_REL)
		return rel_range(v->f, s, off);
	if (v->eh.type != ET_EXEC && v->eh.type != ET_DYN)
		return false;
	uint64_t addr = s->value;
	if (v->eh.machine == EM_ARM && s->type == STT_FUNC)
		addr &= ~(uint64_t)1; /* Thumb bit */
	if (pfelf_vaddr_to_offset(v->f, addr, s->size, off) < 0)
		return false;
	return *off <= v->fsize && s->size <= v->fsize - *off;
}

/* Order class of a dynsym symbol among those of one name. */
static int dyn_class(const pfelf_sym *s)
{
	if (s->bind == STB_LOCAL)
		return 2;
	return s->ver_kind == PFELF_VER_HIDDEN ? 1 : 0;
}

static bool is_odd(const char *s)
{
	return !*s || strcmp(s, ".") == 0 || strcmp(s, "..") == 0 || strchr(s, '/') ||
	       strlen(s) > NAMING_MAX;
}

/* A candidate while names are made. */
struct cand {
	char *name;
	uint64_t off, len;
	uint32_t index;
	bool dyn;
	bool made;
	bool dropped;
};

struct builder {
	struct cand *c;
	uint32_t n, cap;
	const char **slot; /* set of names taken */
	size_t mask;
};

static int add_cand(struct builder *b, const pfelf_sym *s, uint64_t off, bool dyn)
{
	if (b->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 256;
		struct cand *c = realloc(b->c, (size_t)cap * sizeof(*c));
		if (!c)
			return -ENOMEM;
		b->c = c;
		b->cap = cap;
	}
	char *name = strndup(s->name, NAMING_MAX + 1); /* longer names are cut anyway */
	if (!name)
		return -ENOMEM;
	b->c[b->n++] = (struct cand){name, off, s->size, s->index, dyn, false, false};
	return 0;
}

static int collect(struct bview *v, struct builder *b, enum pfelf_symtab_kind t, int cls)
{
	int n = pfelf_symbol_count(v->f, t);
	for (int i = 0; i < n; i++) {
		pfelf_sym s;
		uint64_t off;
		if (pfelf_symbol(v->f, t, (uint32_t)i, &s) < 0 || !sym_range(v, &s, &off))
			continue;
		if (t == PFELF_DYNSYM && dyn_class(&s) != cls)
			continue;
		if (add_cand(b, &s, off, t == PFELF_DYNSYM) < 0)
			return -ENOMEM;
	}
	return 0;
}

static size_t slot_of(const struct builder *b, const char *k)
{
	size_t i = strhash(k) & b->mask;
	while (b->slot[i] && strcmp(b->slot[i], k) != 0)
		i = (i + 1) & b->mask;
	return i;
}

static char *suffix(char *s, uint32_t i)
{
	size_t len = strlen(s);
	char *t = realloc(s, len + 12);
	if (!t) {
		free(s);
		return NULL;
	}
	snprintf(t + len, 12, "~%u", i);
	return t;
}

static char *odd_name(char *s, uint32_t i)
{
	if (strlen(s) > NAMING_MAX)
		s[NAMING_MAX] = '\0';
	for (char *p = s; *p; p++)
		if (*p == '/')
			*p = '_';
	return suffix(s, i);
}

/* The symtab candidate that kept name (position + 1 in slot holder), or NULL. */
static const struct cand *holder(const struct builder *b, const uint32_t *who, const char *name)
{
	size_t i = slot_of(b, name);
	return b->slot[i] ? &b->c[who[i] - 1] : NULL;
}

/* Rules 1 and 2: odd names and the first holder of a plain name. */
static int keep_plain(struct builder *b, uint32_t *who)
{
	for (uint32_t i = 0; i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (is_odd(c->name)) {
			c->made = true;
			c->name = odd_name(c->name, c->index);
		} else if (b->slot[slot_of(b, c->name)]) {
			const struct cand *h = holder(b, who, c->name);
			if (c->dyn && !h->dyn && h->off == c->off && h->len == c->len) {
				c->dropped = true;
				continue;
			}
			c->made = true;
			c->name = suffix(c->name, c->index);
		} else {
			size_t s = slot_of(b, c->name);
			b->slot[s] = c->name;
			who[s] = i + 1;
		}
		if (!c->name)
			return -ENOMEM;
	}
	return 0;
}

/* Rule 3: made names step aside for taken ones. */
static int place_made(struct builder *b)
{
	for (uint32_t i = 0; i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (!c->made || c->dropped)
			continue;
		while (b->slot[slot_of(b, c->name)])
			if (!(c->name = suffix(c->name, c->index)))
				return -ENOMEM;
		b->slot[slot_of(b, c->name)] = c->name;
	}
	return 0;
}

static int make_names(struct builder *b)
{
	size_t cap = 16;
	while (cap < 2 * (size_t)b->n)
		cap <<= 1;
	b->slot = calloc(cap, sizeof(*b->slot));
	uint32_t *who = calloc(cap, sizeof(*who));
	b->mask = cap - 1;
	int ret = b->slot && who ? keep_plain(b, who) : -ENOMEM;
	if (ret == 0)
		ret = place_made(b);
	free(who);
	return ret;
}

/* Move the kept candidates into v->sym.files and index them. */
static int publish(struct bview *v, struct builder *b)
{
	struct symview *sv = &v->sym;
	sv->files = calloc(b->n ? b->n : 1, sizeof(*sv->files));
	sv->hash = calloc(b->mask + 1, sizeof(*sv->hash));
	if (!sv->files || !sv->hash)
		return -ENOMEM;
	sv->mask = b->mask;
	for (uint32_t i = 0; i < b->n; i++) {
		struct cand *c = &b->c[i];
		if (c->dropped)
			continue;
		sv->files[sv->nfiles] = (struct symfile){c->name, c->off, c->len};
		c->name = NULL;
		size_t s = strhash(sv->files[sv->nfiles].name) & sv->mask;
		while (sv->hash[s])
			s = (s + 1) & sv->mask;
		sv->hash[s] = ++sv->nfiles;
	}
	return 0;
}

/* What the names of b and their index keep once published. */
static uint64_t files_cost(const struct builder *b)
{
	uint64_t bytes = membudget_chunk((b->n ? b->n : 1) * (uint64_t)sizeof(struct symfile)) +
	                 membudget_chunk((b->mask + 1) * (uint64_t)sizeof(uint32_t));
	for (uint32_t i = 0; i < b->n; i++)
		if (!b->c[i].dropped && b->c[i].name)
			bytes += membudget_chunk(strlen(b->c[i].name) + 12);
	return bytes;
}

/* Build v->sym.files; *cost: what they keep. */
static int build_files(struct bview *v, uint64_t *cost)
{
	struct builder b = {0};
	int ret = collect(v, &b, PFELF_SYMTAB, 0);
	for (int cls = 0; cls < 3 && ret == 0; cls++)
		ret = collect(v, &b, PFELF_DYNSYM, cls);
	if (ret == 0)
		ret = make_names(&b);
	if (ret == 0) {
		*cost = files_cost(&b);
		ret = publish(v, &b);
	}
	for (uint32_t i = 0; i < b.n; i++)
		free(b.c[i].name);
	free(b.c);
	free(b.slot);
	return ret;
}

/* Symbols of table t of v that get a file. */
static uint64_t count_files(struct bview *v, enum pfelf_symtab_kind t)
{
	int n = pfelf_symbol_count(v->f, t);
	uint64_t files = 0;
	for (int i = 0; i < n; i++) {
		pfelf_sym s;
		uint64_t off;
		if (pfelf_symbol(v->f, t, (uint32_t)i, &s) == 0 && sym_range(v, &s, &off))
			files++;
	}
	return files;
}

/* An upper bound of what building the files of v takes, per symbol that
 * gets one: a candidate (in an array that doubles), a name of at most
 * NAMING_MAX bytes and two "~<index>", the sets of names while they are
 * made, the file and its index slots. */
static uint64_t files_bound(struct bview *v)
{
	uint64_t n = count_files(v, PFELF_SYMTAB) + count_files(v, PFELF_DYNSYM);
	uint64_t per = 2 * sizeof(struct cand) + membudget_chunk(NAMING_MAX + 1 + 24) +
	               4 * (sizeof(char *) + sizeof(uint32_t)) + sizeof(struct symfile) +
	               4 * sizeof(uint32_t);
	return 4096 + n * per;
}

/* The files of core c (its lazy_lock held): built once, within the memory
 * budget. A refusal for lack of room (-ENOMEM) is not kept, the next call
 * tries again; one over the whole budget (-EFBIG) is. */
static int files_locked(struct bview *c)
{
	if (c->sym.files_built)
		return c->sym.files_err;
	int ret = view_charge_meta(c);
	uint64_t bound = ret == 0 ? files_bound(c) : 0, cost = 0;
	if (ret == 0)
		ret = view_charge(c, bound);
	if (ret < 0) {
		c->sym.files_built = ret == -EFBIG;
		c->sym.files_err = ret;
		return ret;
	}
	c->sym.files_err = build_files(c, &cost);
	c->sym.files_built = true;
	uint64_t keep = c->sym.files_err < 0 ? 0 : cost < bound ? cost : bound;
	view_uncharge(c, bound - keep);
	view_drop_pages(c);
	return c->sym.files_err;
}

int symview_files(struct bview *v, const struct symfile **files, uint32_t *n)
{
	struct bview *c = view_core(v);
	pthread_mutex_lock(&c->lazy_lock);
	int ret = files_locked(c);
	*files = c->sym.files;
	*n = ret == 0 ? c->sym.nfiles : 0;
	pthread_mutex_unlock(&c->lazy_lock);
	return ret;
}

/* Through the hash tables: 0 when the answer is certain, else -EAGAIN. */
static int fast_lookup(struct bview *v, const char *name, uint64_t *off, uint64_t *len)
{
	pfelf_sym s;
	if (strchr(name, '~') || is_odd(name))
		return -EAGAIN;
	int ret = pfelf_symbol_find(v->f, PFELF_SYMTAB, name, &s);
	if (ret == -ENOENT)
		ret = pfelf_symbol_lookup(v->f, name, &s);
	if (ret < 0 || !sym_range(v, &s, off))
		return -EAGAIN;
	*len = s.size;
	return 0;
}

static int table_lookup(struct bview *v, const char *name, uint64_t *off, uint64_t *len)
{
	const struct symview *sv = &v->sym;
	if (!sv->hash)
		return -ENOENT;
	size_t s = strhash(name) & sv->mask;
	for (uint32_t i; (i = sv->hash[s]) != 0; s = (s + 1) & sv->mask) {
		if (strcmp(sv->files[i - 1].name, name) == 0) {
			*off = sv->files[i - 1].off;
			*len = sv->files[i - 1].len;
			return 0;
		}
	}
	return -ENOENT;
}

int symview_lookup(struct bview *v, const char *name, uint64_t *off, uint64_t *len)
{
	struct bview *c = view_core(v);
	pthread_mutex_lock(&c->lazy_lock);
	int ret = view_charge_meta(c); /* the hash tables are pfelf's metadata */
	if (ret == 0)
		ret = c->sym.files_built && c->sym.files_err == 0 ? -EAGAIN
		                                                  : fast_lookup(c, name, off, len);
	if (ret == -EAGAIN)
		ret = files_locked(c);
	if (ret == 0 && c->sym.files_built && c->sym.files_err == 0)
		ret = table_lookup(c, name, off, len);
	pthread_mutex_unlock(&c->lazy_lock);
	return ret;
}

void symview_free(struct symview *s)
{
	for (uint32_t i = 0; i < s->nfiles; i++)
		free(s->files[i].name);
	free(s->files);
	free(s->hash);
}
