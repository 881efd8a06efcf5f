/* The `info` text of a binary's view: its parts and its line generator. */
#include "content/info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>

#define HEADER_LINES 10
/* The note and error lines of infoplan.errs, in this order. */
#define NOTE_EIVER  1u /* EI_VERSION other than 1 */
#define NOTE_EVER   2u /* e_version other than 1 */
#define NOTE_EHSIZE 4u /* e_ehsize other than its class's header size */
#define ERR_SEC     8u
#define ERR_SEG     16u
#define ERR_EHSIZE  32u
#define ERR_HEADER  64u /* a header pfelf refused (the view's only line) */

static const char *class_name(uint8_t c, char *buf, size_t len)
{
	if (c == 0 || c == 1 || c == 2)
		return c == 0 ? "none" : c == 1 ? "ELF32" : "ELF64";
	snprintf(buf, len, "<unknown: %x>", c);
	return buf;
}

static const char *data_name(uint8_t d, char *buf, size_t len)
{
	if (d == 0)
		return "none";
	if (d == 1 || d == 2)
		return d == 1 ? "2's complement, little endian" : "2's complement, big endian";
	snprintf(buf, len, "<unknown: %x>", d);
	return buf;
}

static int header_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	(void)v;
	(void)p;
	*n = HEADER_LINES;
	return 0;
}

static int header_numbers(struct vcore *v, uint32_t j, struct linebuf *b)
{
	const pfelf_ehdr *eh = &v->eh;
	if (j == 5)
		lb_printf(b, "ABI version: %u", eh->abiversion);
	else if (j == 6)
		lb_printf(b, "entry: 0x%" PRIx64, eh->entry);
	else if (j == 7)
		lb_printf(b, "flags: 0x%" PRIx32, eh->flags);
	else if (j == 8)
		lb_printf(b, "sections: %" PRIu32, v->sec_err ? eh->shnum : v->nsec);
	else
		lb_printf(b, "segments: %" PRIu32, v->seg_err ? eh->phnum : v->nseg);
	return 0;
}

static int header_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	char s[128];
	const pfelf_ehdr *eh = &v->eh;
	(void)p;
	switch (j) {
	case 0:
		lb_printf(b, "class: %s", class_name(eh->elfclass, s, sizeof(s)));
		break;
	case 1:
		lb_printf(b, "data: %s", data_name(eh->data, s, sizeof(s)));
		break;
	case 2:
		if (pfelf_file_type_name(v->f, s, sizeof(s)) < 0)
			pfelf_type_name(eh->type, s, sizeof(s));
		lb_printf(b, "type: %s", s);
		break;
	case 3:
		pfelf_machine_name(eh->machine, s, sizeof(s));
		lb_printf(b, "machine: %s", s);
		break;
	case 4:
		pfelf_osabi_name(eh->osabi, s, sizeof(s));
		lb_printf(b, "OS/ABI: %s", s);
		break;
	default:
		return header_numbers(v, j, b);
	}
	return 0;
}

/* The PT_INTERP string as pfelf reads it (copied once, up to its NUL). */
static int interp_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	const char *path;
	(void)p;
	*n = pfelf_interpreter(v->f, &path) == 0; /* none or unreadable: no line */
	return 0;
}

static int interp_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	const char *path;
	(void)p;
	(void)j;
	if (pfelf_interpreter(v->f, &path) < 0)
		return -EIO;
	lb_printf(b, "interpreter: ");
	lb_field(b, path);
	return 0;
}

static int errors_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	const pfelf_ehdr *eh = &v->eh;
	if (v->refused) {
		p->errs = ERR_HEADER;
		*n = 1;
		return 0;
	}
	p->errs = (eh->ident[EI_VERSION] != EV_CURRENT ? NOTE_EIVER : 0) |
	          (eh->version != EV_CURRENT ? NOTE_EVER : 0) |
	          (eh->ehsize != (eh->elfclass == ELFCLASS64 ? 64 : 52) ? NOTE_EHSIZE : 0) |
	          (v->sec_err ? ERR_SEC : 0) | (v->seg_err ? ERR_SEG : 0) |
	          (eh->ehsize > v->fsize ? ERR_EHSIZE : 0);
	*n = (uint32_t)__builtin_popcount(p->errs);
	return 0;
}

static int errors_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	unsigned bit = p->errs;
	for (; j > 0; j--)
		bit &= bit - 1; /* drop the lowest bits before the one of line j */
	bit &= -bit;
	if (bit == NOTE_EIVER)
		lb_printf(b, "note: EI_VERSION %u", v->eh.ident[EI_VERSION]);
	else if (bit == NOTE_EVER)
		lb_printf(b, "note: e_version 0x%" PRIx32, v->eh.version);
	else if (bit == NOTE_EHSIZE)
		lb_printf(b, "note: e_ehsize %u", v->eh.ehsize);
	else if (bit == ERR_SEC)
		lb_printf(b, "error: section headers: %s", strerror(-v->sec_err));
	else if (bit == ERR_SEG)
		lb_printf(b, "error: program headers: %s", strerror(-v->seg_err));
	else if (bit == ERR_HEADER) {
		lb_printf(b, "error: ELF header: ");
		lb_field(b, v->refused);
	} else
		lb_printf(b, "out of file: header size %u", v->eh.ehsize);
	return 0;
}

static bool sec_out(struct vcore *v, uint32_t i)
{
	const pfelf_shdr *sh;
	return pfelf_section(v->f, i, &sh) == 0 && (sh->status & PFELF_ST_OUT_OF_FILE) &&
	       sh->type != SHT_NOBITS;
}

static bool seg_out(struct vcore *v, uint32_t i)
{
	const pfelf_phdr *ph;
	return pfelf_segment(v->f, i, &ph) == 0 && (ph->status & PFELF_ST_OUT_OF_FILE);
}

/* Note entry e (a section, or a segment | INFO_OOF_SEG) out of the file. */
static int oof_note(struct infoplan *p, uint64_t e)
{
	if (p->oof_total < INFO_MAX_OOF_LINES) {
		if (!p->oof && !(p->oof = malloc(INFO_MAX_OOF_LINES * sizeof(*p->oof))))
			return -ENOMEM;
		p->oof[p->oof_total] = e;
	}
	p->oof_total++;
	return 0;
}

static int oof_plan(struct vcore *v, struct infoplan *p, uint32_t *n)
{
	int ret = 0;
	for (uint32_t i = 1; i < v->nsec && ret == 0; i++)
		if (sec_out(v, i))
			ret = oof_note(p, i);
	for (uint32_t i = 0; i < v->nseg && ret == 0; i++)
		if (seg_out(v, i))
			ret = oof_note(p, i | INFO_OOF_SEG);
	bool more = p->oof_total > INFO_MAX_OOF_LINES;
	*n = more ? INFO_MAX_OOF_LINES + 1 : (uint32_t)p->oof_total;
	return ret;
}

static int oof_line(struct vcore *v, const struct infoplan *p, uint32_t j, struct linebuf *b)
{
	if (j == INFO_MAX_OOF_LINES) {
		lb_printf(b, "out of file: %" PRIu64 " more", p->oof_total - INFO_MAX_OOF_LINES);
		return 0;
	}
	uint32_t i = (uint32_t)p->oof[j];
	const pfelf_shdr *sh;
	const pfelf_phdr *ph;
	if (p->oof[j] & INFO_OOF_SEG) {
		if (pfelf_segment(v->f, i, &ph) < 0)
			return -EIO;
		lb_printf(b,
		          "out of file: segment %" PRIu32 " %s offset 0x%" PRIx64 " size %" PRIu64,
		          i, strchr(v->segname[i], '-') + 1, ph->offset, ph->filesz);
		return 0;
	}
	if (pfelf_section(v->f, i, &sh) < 0)
		return -EIO;
	lb_printf(b, "out of file: section %" PRIu32 " ", i);
	lb_field(b, v->secname[i]);
	lb_printf(b, " offset 0x%" PRIx64 " size %" PRIu64, sh->offset, sh->size);
	return 0;
}

static const struct infopart head_parts[] = {
        {header_plan, header_line},
        {interp_plan, interp_line},
};

static const struct infopart tail_parts[] = {
        {errors_plan, errors_line},
        {oof_plan, oof_line},
};

/* Part k of info, in order. */
static const struct infopart *part(unsigned k)
{
	if (k < 2)
		return &head_parts[k];
	if (k < 2 + INFO_META_PARTS)
		return &info_meta_parts[k - 2];
	return &tail_parts[k - 2 - INFO_META_PARTS];
}

static int info_line(void *ctx, uint64_t i, char *buf)
{
	struct vcore *v = ctx;
	const struct infoplan *p = v->infoplan;
	unsigned k = 0;
	for (; k < INFO_NPARTS && i >= p->n[k]; k++)
		i -= p->n[k];
	if (k == INFO_NPARTS)
		return -EIO;
	struct linebuf b = {buf, 0};
	int ret = part(k)->line(v, p, (uint32_t)i, &b);
	return ret < 0 ? ret : lb_end(&b);
}

int info_prepare(struct vcore *v, struct textgen *g)
{
	struct infoplan *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	v->infoplan = p;
	g->nlines = 0;
	for (unsigned k = 0; k < INFO_NPARTS; k++) {
		/* a refused header: its error line alone (the tables are not read) */
		bool skip = v->refused && part(k) != &tail_parts[0];
		int ret = skip ? 0 : part(k)->plan(v, p, &p->n[k]);
		if (ret < 0)
			return ret; /* the caller calls info_release */
		g->nlines += p->n[k];
	}
	g->line = info_line;
	g->ctx = v;
	return 0;
}

void info_release(struct vcore *v)
{
	if (!v->infoplan)
		return;
	free(v->infoplan->needed);
	free(v->infoplan->oof);
	free(v->infoplan);
	v->infoplan = NULL;
}
