/* Symbol tables: .symtab and .dynsym (or DT_SYMTAB when there is no
 * section table), copied on first use with their string tables and
 * SHT_SYMTAB_SHNDX extension, decoded one entry at a time. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

#define SYM32_SIZE 16
#define SYM64_SIZE 24

const char *pfelf__sym_str(const struct pfelf__symtab *t, uint32_t off)
{
	if (!t->str || off >= t->str_len || !memchr(t->str + off, 0, t->str_len - off))
		return NULL;
	return t->str + off;
}

static void symtab_reset(struct pfelf__symtab *t)
{
	free(t->raw);
	free(t->str);
	free(t->xndx);
	memset(t, 0, sizeof(*t));
}

/* Copy count entries of stride bytes at off. */
static int load_entries(pfelf_file *f, struct pfelf__symtab *t, uint64_t off, uint64_t count,
                        uint64_t stride)
{
	size_t min = f->is64 ? SYM64_SIZE : SYM32_SIZE;
	if (stride < min || count > UINT32_MAX || count > PFELF__MAX_TABLE / stride)
		return -EINVAL;
	int ret = pfelf__copy_table(f, off, count * stride, &t->raw);
	if (ret < 0)
		return ret;
	t->count = (uint32_t)count;
	t->stride = (size_t)stride;
	return 0;
}

/* The string table of section link; a bad one leaves every name bad. */
static int load_section_strings(pfelf_file *f, struct pfelf__symtab *t, uint32_t link)
{
	if (link == 0 || link >= f->eh.shnum)
		return 0;
	const pfelf_shdr *s = &f->sh[link];
	if (s->type == SHT_NOBITS || (s->status & PFELF_ST_OUT_OF_FILE))
		return 0;
	int ret = pfelf__copy_table(f, s->offset, s->size, (uint8_t **)&t->str);
	if (ret == -EINVAL)
		return 0; /* over the size bound: names stay bad */
	if (ret == 0)
		t->str_len = (size_t)s->size;
	return ret;
}

/* The SHT_SYMTAB_SHNDX section that extends table section index. */
static int load_xindex(pfelf_file *f, struct pfelf__symtab *t, uint32_t index)
{
	const pfelf_shdr *s = pfelf__section_of_type(f, SHT_SYMTAB_SHNDX, index);
	if (!s || (s->status & PFELF_ST_OUT_OF_FILE))
		return 0;
	uint64_t n = s->size / 4;
	if (n > t->count)
		n = t->count;
	int ret = pfelf__copy_table(f, s->offset, n * 4, &t->xndx);
	if (ret == 0)
		t->xndx_count = (uint32_t)n;
	return ret == -EINVAL ? 0 : ret;
}

static int load_from_section(pfelf_file *f, struct pfelf__symtab *t, const pfelf_shdr *s)
{
	t->section = s->index;
	if (s->type == SHT_NOBITS || s->size == 0)
		return 0;
	if (s->status & PFELF_ST_OUT_OF_FILE || s->entsize == 0)
		return -EINVAL;
	int ret = load_entries(f, t, s->offset, s->size / s->entsize, s->entsize);
	if (ret == 0)
		ret = load_section_strings(f, t, s->link);
	if (ret == 0)
		ret = load_xindex(f, t, s->index);
	return ret;
}

/* DT_SYMTAB/DT_STRTAB, counted through the hash table. */
static int load_from_dynamic(pfelf_file *f, struct pfelf__symtab *t)
{
	const struct pfelf__dyn *d = NULL;
	int ret = pfelf__dyn_get(f, &d);
	if (ret < 0)
		return ret == -EINVAL ? 0 : ret;
	uint64_t symaddr, stride = f->is64 ? SYM64_SIZE : SYM32_SIZE, off;
	uint32_t count;
	if (!pfelf__dyn_find(d, DT_SYMTAB, &symaddr))
		return 0;
	pfelf__dyn_find(d, DT_SYMENT, &stride);
	ret = pfelf__dynsym_count_from_hash(f, d, &count);
	if (ret < 0)
		return ret;
	if (stride == 0 || count > PFELF__MAX_TABLE / stride)
		return -EINVAL;
	ret = pfelf_vaddr_to_offset(f, symaddr, (uint64_t)count * stride, &off);
	if (ret < 0)
		return ret == -EFAULT ? -EINVAL : ret;
	ret = load_entries(f, t, off, count, stride);
	if (ret < 0 || !d->str)
		return ret;
	t->str = malloc(d->str_len + 1);
	if (!t->str)
		return -ENOMEM;
	memcpy(t->str, d->str, d->str_len + 1);
	t->str_len = d->str_len;
	return 0;
}

/* Loader of table *(int *)ctx: PFELF_SYMTAB or PFELF_DYNSYM. */
static int load_table(pfelf_file *f, void *ctx)
{
	int which = *(const int *)ctx;
	struct pfelf__symtab *t = &f->tables->sym[which];
	int n = pfelf_section_count(f);
	if (n < 0)
		return n;
	uint32_t type = which == PFELF_SYMTAB ? SHT_SYMTAB : SHT_DYNSYM;
	const pfelf_shdr *s = pfelf__section_of_type(f, type, UINT32_MAX);
	int ret = 0;
	if (s)
		ret = load_from_section(f, t, s);
	else if (which == PFELF_DYNSYM)
		ret = load_from_dynamic(f, t);
	if (ret < 0)
		symtab_reset(t);
	return ret;
}

int pfelf__symtab_get(pfelf_file *f, int which, struct pfelf__symtab **out)
{
	if (which != PFELF_SYMTAB && which != PFELF_DYNSYM)
		return -EINVAL;
	int ret = pfelf__tables(f);
	if (ret < 0)
		return ret;
	ret = pfelf__tables_once(f, &f->tables->sym_state[which], load_table, &which);
	if (ret == 0)
		*out = &f->tables->sym[which];
	return ret;
}

static uint32_t resolve_shndx(const pfelf_file *f, const struct pfelf__symtab *t, uint32_t i,
                              uint16_t raw, uint32_t *status)
{
	if (raw != SHN_XINDEX)
		return raw;
	if (t->xndx && i < t->xndx_count)
		return pfelf__u32(t->xndx + (size_t)i * 4, f->msb);
	*status |= PFELF_SYM_BAD_SHNDX;
	return raw;
}

void pfelf__sym_decode(const pfelf_file *f, const struct pfelf__symtab *t, uint32_t index,
                       pfelf_sym *s)
{
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, t->raw + (size_t)index * t->stride, t->stride, f->msb);
	memset(s, 0, sizeof(*s));
	s->index = index;
	s->name_off = pfelf__get32(&c);
	if (f->is64) {
		s->info = pfelf__get8(&c);
		s->other = pfelf__get8(&c);
		s->raw_shndx = pfelf__get16(&c);
		s->value = pfelf__get64(&c);
		s->size = pfelf__get64(&c);
	} else {
		s->value = pfelf__get32(&c);
		s->size = pfelf__get32(&c);
		s->info = pfelf__get8(&c);
		s->other = pfelf__get8(&c);
		s->raw_shndx = pfelf__get16(&c);
	}
	s->type = s->info & 0xf;
	s->bind = s->info >> 4;
	s->visibility = s->other & 3;
	s->shndx = resolve_shndx(f, t, index, s->raw_shndx, &s->status);
	const char *name = pfelf__sym_str(t, s->name_off);
	s->name = name ? name : "";
	if (!name)
		s->status |= PFELF_SYM_BAD_NAME;
}

PFELF_API int pfelf_symbol_count(pfelf_file *f, enum pfelf_symtab_kind t)
{
	struct pfelf__symtab *tab = NULL;
	int ret = pfelf__symtab_get(f, (int)t, &tab);
	if (ret < 0)
		return ret;
	return tab->count > INT32_MAX ? -EINVAL : (int)tab->count;
}

PFELF_API int pfelf_symbol_table_section(pfelf_file *f, enum pfelf_symtab_kind t)
{
	struct pfelf__symtab *tab = NULL;
	int ret = pfelf__symtab_get(f, (int)t, &tab);
	if (ret < 0)
		return ret;
	if (!tab->raw && tab->section == 0)
		return -ENOENT;
	return (int)tab->section;
}
