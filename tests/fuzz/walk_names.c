/*
 * The name functions, called on every value the walk finds, each checked
 * for its buffer contract: the length returned is the string's, a buffer
 * one byte short gives -ENOSPC and a cut NUL-ended string, and names are
 * printable. Segment type names become file names: they never hold '/'.
 */
#include "walk.h"

#include <errno.h>
#include <string.h>

enum name_kind {
	N_SECTION_TYPE,
	N_SECTION_FLAGS,
	N_SEGMENT_TYPE,
	N_SEGMENT_FLAGS,
	N_MACHINE,
	N_TYPE,
	N_OSABI,
	N_FILE_TYPE,
	N_SYM_TYPE,
	N_SYM_BIND,
	N_SYM_VISIBILITY,
	N_SYM_SHNDX,
	N_COMPRESS_TYPE,
};

struct name_call {
	enum name_kind kind;
	uint64_t value;
	uint16_t machine;
	pfelf_file *f;
	const pfelf_sym *sym;
};

static int call(const struct name_call *c, char *buf, size_t len)
{
	switch (c->kind) {
	case N_SECTION_TYPE:
		return pfelf_section_type_name((uint32_t)c->value, c->machine, buf, len);
	case N_SECTION_FLAGS:
		return pfelf_section_flags_string(c->value, c->machine, (uint8_t)(c->value >> 40),
		                                  buf, len);
	case N_SEGMENT_TYPE:
		return pfelf_segment_type_name((uint32_t)c->value, c->machine, buf, len);
	case N_SEGMENT_FLAGS:
		return pfelf_segment_flags_string((uint32_t)c->value, buf, len);
	case N_MACHINE:
		return pfelf_machine_name((uint16_t)c->value, buf, len);
	case N_TYPE:
		return pfelf_type_name((uint16_t)c->value, buf, len);
	case N_OSABI:
		return pfelf_osabi_name((uint8_t)c->value, buf, len);
	case N_FILE_TYPE:
		return pfelf_file_type_name(c->f, buf, len);
	case N_SYM_TYPE:
		return pfelf_symbol_type_name(c->f, (uint8_t)c->value, buf, len);
	case N_SYM_BIND:
		return pfelf_symbol_bind_name(c->f, (uint8_t)c->value, buf, len);
	case N_SYM_VISIBILITY:
		return pfelf_symbol_visibility_name((uint8_t)c->value, buf, len);
	case N_SYM_SHNDX:
		return pfelf_symbol_shndx_name(c->f, c->sym, buf, len);
	case N_COMPRESS_TYPE:
		return pfelf_compress_type_name((uint32_t)c->value, buf, len);
	}
	return -EINVAL;
}

static void check_printable(const char *s)
{
	for (; *s; s++)
		WALK_CHECK(*s >= 0x20 && *s < 0x7f);
}

/* Was this call checked before in this walk? Remember it if not. */
static bool seen(struct walk *w, const struct name_call *c)
{
	uint64_t key = (c->value * 0x9e3779b97f4a7c15ull) ^ ((uint64_t)c->machine << 40) ^
	               ((uint64_t)c->kind << 56) ^ 1;
	uint64_t *slot = &w->names_seen[(key >> 20) % WALK_NAME_CACHE];
	if (*slot == key)
		return true;
	*slot = key;
	return false;
}

/* Check one call; thorough: also buffers of n + 1 and 0 bytes. */
static void check_name(struct walk *w, const struct name_call *c, bool thorough)
{
	char full[256], cut[256];
	bool cacheable = c->kind != N_FILE_TYPE && c->kind != N_SYM_SHNDX;
	if (cacheable && seen(w, c)) {
		walk_mix(w, c->value); /* the name is a function of the value */
		return;
	}
	int n = call(c, full, sizeof(full));
	WALK_CHECK(n >= 0 && (size_t)n < sizeof(full) && (size_t)n == strlen(full));
	check_printable(full);
	walk_mix_str(w, full);
	if (c->kind == N_SEGMENT_TYPE)
		WALK_CHECK(n > 0 && strchr(full, '/') == NULL);
	if (thorough) {
		memset(cut, 'x', sizeof(cut));
		WALK_CHECK(call(c, cut, (size_t)n + 1) == n && strcmp(cut, full) == 0);
		memset(cut, 'x', sizeof(cut));
		WALK_CHECK(call(c, cut, 0) == -ENOSPC && cut[0] == 'x');
	}
	if (n == 0)
		return;
	WALK_CHECK(call(c, cut, (size_t)n) == -ENOSPC);
	WALK_CHECK(strlen(cut) == (size_t)n - 1 && memcmp(cut, full, (size_t)n - 1) == 0);
}

void walk_names_header(struct walk *w)
{
	const pfelf_ehdr *h = pfelf_header(w->f);
	struct name_call calls[] = {
	        {N_MACHINE, h->machine, 0, NULL, NULL},
	        {N_TYPE, h->type, 0, NULL, NULL},
	        {N_OSABI, h->osabi, 0, NULL, NULL},
	        {N_FILE_TYPE, 0, 0, w->f, NULL},
	        /* Values straight from the input's bytes, to reach odd ones. */
	        {N_SECTION_TYPE, h->flags, h->machine, NULL, NULL},
	        {N_SECTION_FLAGS, h->entry, h->machine, NULL, NULL},
	        {N_SEGMENT_TYPE, h->flags, h->machine, NULL, NULL},
	        {N_SEGMENT_FLAGS, h->flags, 0, NULL, NULL},
	        {N_SECTION_TYPE, h->phoff, (uint16_t)h->shoff, NULL, NULL},
	        {N_SEGMENT_TYPE, h->phoff, (uint16_t)h->shoff, NULL, NULL},
	        {N_MACHINE, h->flags >> 16, 0, NULL, NULL},
	        {N_TYPE, h->flags, 0, NULL, NULL},
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		check_name(w, &calls[i], true);
}

void walk_names_section(struct walk *w, const pfelf_shdr *s)
{
	struct name_call t = {N_SECTION_TYPE, s->type, w->machine, NULL, NULL};
	struct name_call fl = {N_SECTION_FLAGS, s->flags, w->machine, NULL, NULL};
	check_name(w, &t, false);
	check_name(w, &fl, false);
}

void walk_names_segment(struct walk *w, const pfelf_phdr *p)
{
	struct name_call t = {N_SEGMENT_TYPE, p->type, w->machine, NULL, NULL};
	struct name_call fl = {N_SEGMENT_FLAGS, p->flags, 0, NULL, NULL};
	check_name(w, &t, false);
	check_name(w, &fl, false);
}

void walk_names_symbol(struct walk *w, const pfelf_sym *s)
{
	struct name_call calls[] = {
	        {N_SYM_TYPE, s->type, w->machine, w->f, NULL},
	        {N_SYM_BIND, s->bind, w->machine, w->f, NULL},
	        {N_SYM_VISIBILITY, s->visibility, 0, NULL, NULL},
	        {N_SYM_SHNDX, s->shndx, 0, w->f, s},
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		check_name(w, &calls[i], false);
}

void walk_names_compress(struct walk *w, uint32_t type)
{
	struct name_call c = {N_COMPRESS_TYPE, type, 0, NULL, NULL};
	check_name(w, &c, true);
}
