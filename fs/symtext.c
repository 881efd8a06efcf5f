/*
 * The `symbols` text: one line per symbol of .symtab, then of .dynsym,
 * "table index value size type bind visibility ndx name", the fields
 * spelled as readelf -sW spells them (leading blanks of Ndx dropped).
 */
#include "symview.h"
#include "view.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NAME_BUF 8192

static const char *skip_blanks(const char *s)
{
	while (*s == ' ')
		s++;
	return s;
}

static void put_size(FILE *m, uint64_t size)
{
	if (size > 99999)
		fprintf(m, "0x%" PRIx64, size);
	else
		fprintf(m, "%" PRIu64, size);
}

/* Newlines in a name would split its line: shown as '?'. */
static void put_name(FILE *m, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\n' || *s == '\r' ? '?' : *s, m);
}

static void put_symbol(FILE *m, pfelf_file *f, const char *table, const pfelf_sym *s, bool elf64,
                       char *name)
{
	char type[64] = "", bind[64] = "", vis[64] = "", ndx[64] = "";
	pfelf_symbol_type_name(f, s->type, type, sizeof(type));
	pfelf_symbol_bind_name(f, s->bind, bind, sizeof(bind));
	pfelf_symbol_visibility_name(s->visibility, vis, sizeof(vis));
	pfelf_symbol_shndx_name(f, s, ndx, sizeof(ndx));
	name[0] = '\0';
	pfelf_symbol_display_name(f, s, name, NAME_BUF); /* -ENOSPC: cut */
	fprintf(m, "%s %" PRIu32 " %0*" PRIx64 " ", table, s->index, elf64 ? 16 : 8, s->value);
	put_size(m, s->size);
	fprintf(m, " %s %s %s %s ", type, bind, vis, skip_blanks(ndx));
	put_name(m, name);
	fputc('\n', m);
}

static void put_table(FILE *m, pfelf_file *f, enum pfelf_symtab_kind t, bool elf64, char *name)
{
	int n = pfelf_symbol_count(f, t);
	for (int i = 0; i < n; i++) {
		pfelf_sym s;
		if (pfelf_symbol(f, t, (uint32_t)i, &s) == 0)
			put_symbol(m, f, t == PFELF_SYMTAB ? "symtab" : "dynsym", &s, elf64, name);
	}
}

static int build_text(struct bview *v)
{
	char *text = NULL;
	size_t len = 0;
	char *name = malloc(NAME_BUF);
	FILE *m = name ? open_memstream(&text, &len) : NULL;
	if (!m) {
		free(name);
		return -ENOMEM;
	}
	bool elf64 = v->eh.elfclass == 2;
	put_table(m, v->f, PFELF_SYMTAB, elf64, name);
	put_table(m, v->f, PFELF_DYNSYM, elf64, name);
	free(name);
	int bad = ferror(m);
	if (fclose(m) != 0 || bad) {
		free(text);
		return -ENOMEM;
	}
	v->sym.text = text;
	v->sym.text_len = len;
	return 0;
}

int symview_text(struct bview *v, const char **text, size_t *len)
{
	pthread_mutex_lock(&v->lazy_lock);
	int ret = v->sym.text ? 0 : build_text(v);
	*text = v->sym.text;
	*len = v->sym.text_len;
	pthread_mutex_unlock(&v->lazy_lock);
	return ret;
}

void symview_free(struct symview *s)
{
	free(s->text);
	for (uint32_t i = 0; i < s->nfiles; i++)
		free(s->files[i].name);
	free(s->files);
	free(s->hash);
}
