/* The `info` text of a binary's view. */
#include "info.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_INTERP  3
#define SHT_NOBITS 8
#define INTERP_MAX 4096

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

static void put_header(FILE *m, struct bview *v)
{
	char a[128], b[128], c[128], d[128];
	const pfelf_ehdr *eh = &v->eh;
	if (pfelf_file_type_name(v->f, c, sizeof(c)) < 0)
		pfelf_type_name(eh->type, c, sizeof(c));
	fprintf(m, "class: %s\n", class_name(eh->elfclass, a, sizeof(a)));
	fprintf(m, "data: %s\n", data_name(eh->data, b, sizeof(b)));
	fprintf(m, "type: %s\n", c);
	pfelf_machine_name(eh->machine, d, sizeof(d));
	fprintf(m, "machine: %s\n", d);
	pfelf_osabi_name(eh->osabi, a, sizeof(a));
	fprintf(m, "OS/ABI: %s\n", a);
	fprintf(m, "ABI version: %u\n", eh->abiversion);
	fprintf(m, "entry: 0x%" PRIx64 "\n", eh->entry);
	fprintf(m, "flags: 0x%" PRIx32 "\n", eh->flags);
	fprintf(m, "sections: %" PRIu32 "\n", v->sec_err ? eh->shnum : v->nsec);
	fprintf(m, "segments: %" PRIu32 "\n", v->seg_err ? eh->phnum : v->nseg);
}

/* The PT_INTERP string: bounded, read by copy, cut at its NUL. */
static void put_interp(FILE *m, struct bview *v)
{
	for (uint32_t i = 0; i < v->nseg; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(v->f, i, &ph) < 0 || ph->type != PT_INTERP)
			continue;
		if ((ph->status & PFELF_ST_OUT_OF_FILE) || ph->filesz == 0 ||
		    ph->filesz > INTERP_MAX)
			return;
		char buf[INTERP_MAX + 1];
		if (pfelf_read(v->f, ph->offset, buf, ph->filesz) < 0)
			return;
		buf[ph->filesz] = '\0';
		for (char *p = buf; *p; p++)
			if (*p == '\n' || *p == '\r')
				*p = '?';
		fprintf(m, "interpreter: %s\n", buf);
		return;
	}
}

static void put_errors(FILE *m, struct bview *v)
{
	if (v->sec_err)
		fprintf(m, "error: section headers: %s\n", strerror(-v->sec_err));
	if (v->seg_err)
		fprintf(m, "error: program headers: %s\n", strerror(-v->seg_err));
	if (v->eh.ehsize > v->fsize)
		fprintf(m, "out of file: header size %u\n", v->eh.ehsize);
}

/* One line per section or segment outside the file; returns lines written. */
static uint64_t put_out_of_file(FILE *m, struct bview *v)
{
	uint64_t lines = 0;
	for (uint32_t i = 1; i < v->nsec; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(v->f, i, &sh) < 0 || !(sh->status & PFELF_ST_OUT_OF_FILE) ||
		    sh->type == SHT_NOBITS)
			continue;
		if (lines++ < INFO_MAX_OOF_LINES)
			fprintf(m,
			        "out of file: section %" PRIu32 " %s offset 0x%" PRIx64
			        " size %" PRIu64 "\n",
			        i, v->secname[i], sh->offset, sh->size);
	}
	for (uint32_t i = 0; i < v->nseg; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(v->f, i, &ph) < 0 || !(ph->status & PFELF_ST_OUT_OF_FILE))
			continue;
		if (lines++ < INFO_MAX_OOF_LINES)
			fprintf(m,
			        "out of file: segment %" PRIu32 " %s offset 0x%" PRIx64
			        " size %" PRIu64 "\n",
			        i, strchr(v->segname[i], '-') + 1, ph->offset, ph->filesz);
	}
	return lines;
}

int info_build(struct bview *v)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	if (!m)
		return -ENOMEM;
	put_header(m, v);
	put_interp(m, v);
	info_meta(m, v);
	put_errors(m, v);
	uint64_t lines = put_out_of_file(m, v);
	if (lines > INFO_MAX_OOF_LINES)
		fprintf(m, "out of file: %" PRIu64 " more\n", lines - INFO_MAX_OOF_LINES);
	int bad = ferror(m);
	if (fclose(m) != 0 || bad) {
		free(text);
		return -ENOMEM;
	}
	v->info = text;
	v->info_len = len;
	return 0;
}
