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
	N_SYM_VIS_TEXT,
	N_SYM_SHNDX,
	N_COMPRESS_TYPE,
};

struct name_call {
	enum name_kind kind;
	uint64_t value;
	uint16_t machine;
	pfelf_file *f;
	const pfelf_sym *sym;
	uint8_t osabi; /* EI_OSABI, for the section flags */
};

static int call(const struct name_call *c, char *buf, size_t len)
{
	switch (c->kind) {
	case N_SECTION_TYPE:
		return pfelf_section_type_name((uint32_t)c->value, c->machine, buf, len);
	case N_SECTION_FLAGS:
		return pfelf_section_flags_string(c->value, c->machine, c->osabi, buf, len);
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
	case N_SYM_VIS_TEXT:
		return pfelf_symbol_vis_text(c->f, (uint8_t)c->value, buf, len);
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
	               ((uint64_t)c->osabi << 32) ^ ((uint64_t)c->kind << 56) ^ 1;
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
	        {.kind = N_MACHINE, .value = h->machine},
	        {.kind = N_TYPE, .value = h->type},
	        {.kind = N_OSABI, .value = h->osabi},
	        {.kind = N_FILE_TYPE, .f = w->f},
	        /* Values straight from the input's bytes, to reach odd ones. */
	        {.kind = N_SECTION_TYPE, .value = h->flags, .machine = h->machine},
	        {.kind = N_SECTION_FLAGS,
	         .value = h->entry,
	         .machine = h->machine,
	         .osabi = h->osabi},
	        {.kind = N_SECTION_FLAGS,
	         .value = h->entry,
	         .machine = h->machine,
	         .osabi = (uint8_t)h->flags},
	        {.kind = N_SEGMENT_TYPE, .value = h->flags, .machine = h->machine},
	        {.kind = N_SEGMENT_FLAGS, .value = h->flags},
	        {.kind = N_SECTION_TYPE, .value = h->phoff, .machine = (uint16_t)h->shoff},
	        {.kind = N_SEGMENT_TYPE, .value = h->phoff, .machine = (uint16_t)h->shoff},
	        {.kind = N_MACHINE, .value = h->flags >> 16},
	        {.kind = N_TYPE, .value = h->flags},
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		check_name(w, &calls[i], true);
}

void walk_names_section(struct walk *w, const pfelf_shdr *s)
{
	struct name_call t = {.kind = N_SECTION_TYPE, .value = s->type, .machine = w->machine};
	struct name_call fl = {.kind = N_SECTION_FLAGS,
	                       .value = s->flags,
	                       .machine = w->machine,
	                       .osabi = w->osabi};
	check_name(w, &t, false);
	check_name(w, &fl, false);
}

void walk_names_segment(struct walk *w, const pfelf_phdr *p)
{
	struct name_call t = {.kind = N_SEGMENT_TYPE, .value = p->type, .machine = w->machine};
	struct name_call fl = {.kind = N_SEGMENT_FLAGS, .value = p->flags};
	check_name(w, &t, false);
	check_name(w, &fl, false);
}

void walk_names_symbol(struct walk *w, const pfelf_sym *s)
{
	struct name_call calls[] = {
	        {.kind = N_SYM_TYPE, .value = s->type, .machine = w->machine, .f = w->f},
	        {.kind = N_SYM_BIND, .value = s->bind, .machine = w->machine, .f = w->f},
	        {.kind = N_SYM_VISIBILITY, .value = s->visibility},
	        {.kind = N_SYM_VIS_TEXT,
	         .value = s->other,
	         .machine = w->machine,
	         .osabi = w->osabi,
	         .f = w->f},
	        {.kind = N_SYM_SHNDX, .value = s->shndx, .f = w->f, .sym = s},
	};
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		check_name(w, &calls[i], false);
}

void walk_names_compress(struct walk *w, uint32_t type)
{
	struct name_call c = {.kind = N_COMPRESS_TYPE, .value = type};
	check_name(w, &c, true);
}
