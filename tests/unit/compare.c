/* pfelf tables versus readelf's parse (see compare.h). */
#include "compare.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"

struct cmp_ctx {
	const char *label;
	unsigned long mismatches;
};

static void cmp_str(struct cmp_ctx *x, const char *what, uint32_t i, const char *field,
                    const char *mine, const char *theirs)
{
	if (strcmp(mine, theirs) != 0) {
		printf("MISMATCH %s: %s [%u] %s: pfelf '%s' readelf '%s'\n", x->label, what, i,
		       field, mine, theirs);
		x->mismatches++;
	}
}

static void cmp_num(struct cmp_ctx *x, const char *what, uint32_t i, const char *field,
                    uint64_t mine, uint64_t theirs)
{
	if (mine != theirs) {
		printf("MISMATCH %s: %s [%u] %s: pfelf %#" PRIx64 " readelf %#" PRIx64 "\n",
		       x->label, what, i, field, mine, theirs);
		x->mismatches++;
	}
}

static void cmp_fail(struct cmp_ctx *x, const char *what, uint32_t i, const char *call, int ret)
{
	printf("MISMATCH %s: %s [%u]: %s returned %d (%s)\n", x->label, what, i, call, ret,
	       tb_errname(ret));
	x->mismatches++;
}

static void cmp_section(struct cmp_ctx *x, pfelf_file *f, uint16_t machine,
                        const struct re_section *r)
{
	const pfelf_shdr *sh = NULL;
	const char *name = NULL;
	char buf[256];
	int ret;

	ret = pfelf_section(f, r->index, &sh);
	if (ret != 0 || !sh) {
		cmp_fail(x, "section", r->index, "pfelf_section", ret);
		return;
	}
	cmp_num(x, "section", r->index, "index", sh->index, r->index);
	cmp_str(x, "section", r->index, "name", sh->name ? sh->name : "(null)", r->name);
	ret = pfelf_section_name(f, r->index, &name);
	if (ret != 0 || !name)
		cmp_fail(x, "section", r->index, "pfelf_section_name", ret);
	else
		cmp_str(x, "section", r->index, "pfelf_section_name", name, r->name);
	ret = pfelf_section_type_name_os(sh->type, machine, pfelf_header(f)->osabi, buf,
	                                 sizeof(buf));
	cmp_str(x, "section", r->index, "type", ret < 0 ? "(error)" : buf, r->type);
	ret = pfelf_section_flags_string(sh->flags, machine, pfelf_header(f)->osabi, buf,
	                                 sizeof(buf));
	cmp_str(x, "section", r->index, "flags", ret < 0 ? "(error)" : buf, r->flags);
	cmp_num(x, "section", r->index, "addr", sh->addr, r->addr);
	cmp_num(x, "section", r->index, "offset", sh->offset, r->off);
	cmp_num(x, "section", r->index, "size", sh->size, r->size);
	cmp_num(x, "section", r->index, "entsize", sh->entsize, r->es);
	cmp_num(x, "section", r->index, "link", sh->link, r->lk);
	cmp_num(x, "section", r->index, "info", sh->info, r->inf);
	cmp_num(x, "section", r->index, "addralign", sh->addralign, r->al);
}

/* rtype is readelf's spelling of a type it has no name for, and it designates type. */
static bool unnamed_segment(const char *rtype, uint32_t type)
{
	static const struct {
		const char *prefix;
		uint64_t base;
		bool alt; /* "%#lx" rather than "%lx" */
	} unnamed[] = {{"LOOS+", 0x60000000, true},
	               {"LOPROC+", 0x70000000, true},
	               {"<unknown>: ", 0, false}};

	for (size_t i = 0; i < sizeof(unnamed) / sizeof(unnamed[0]); i++) {
		size_t plen = strlen(unnamed[i].prefix);
		char full[64];

		if (strncmp(rtype, unnamed[i].prefix, plen) != 0)
			continue;
		if (type < unnamed[i].base)
			return false;
		memcpy(full, unnamed[i].prefix, plen);
		if (unnamed[i].alt)
			snprintf(full + plen, sizeof(full) - plen, "%#" PRIx64,
			         (uint64_t)type - unnamed[i].base);
		else
			snprintf(full + plen, sizeof(full) - plen, "%" PRIx64,
			         (uint64_t)type - unnamed[i].base);
		full[14] = 0; /* as readelf cuts it */
		return strcmp(full, rtype) == 0;
	}
	return false;
}

bool cmp_segment_type_ok(const char *mine, const char *rtype, uint32_t type, bool lenient)
{
	size_t lm = strlen(mine), lr = strlen(rtype);
	bool proc = type >= 0x70000000 && type <= 0x7fffffff;
	char hex[16], cut[15];

	snprintf(hex, sizeof(hex), "0x%08x", type);
	if (unnamed_segment(rtype, type))
		return !strcmp(mine, hex) || (lenient && proc && strncmp(mine, "0x", 2) != 0);
	snprintf(cut, sizeof(cut), "%s", mine);
	if (!strcmp(cut, rtype))
		return true;
	/* readelf's bare machine-specific name, pfelf's PT_ name: EXIDX / ARM_EXIDX */
	return proc && lr < 14 && lm > lr + 1 && mine[lm - lr - 1] == '_' &&
	       !strcmp(mine + lm - lr, rtype) && strchr(mine, '_') == mine + lm - lr - 1;
}

static void cmp_segment(struct cmp_ctx *x, pfelf_file *f, uint16_t machine, uint32_t i,
                        const struct re_segment *r)
{
	const pfelf_phdr *ph = NULL;
	char buf[64], letters[4] = "";
	size_t nl = 0;
	int ret;

	ret = pfelf_segment(f, i, &ph);
	if (ret != 0 || !ph) {
		cmp_fail(x, "segment", i, "pfelf_segment", ret);
		return;
	}
	cmp_num(x, "segment", i, "index", ph->index, i);
	ret = pfelf_segment_type_name(ph->type, machine, buf, sizeof(buf));
	if (ret < 0)
		snprintf(buf, sizeof(buf), "(error %d)", ret);
	if (!cmp_segment_type_ok(buf, r->type, ph->type, false)) {
		printf("MISMATCH %s: segment [%u] type %#x: pfelf '%s' readelf '%s'\n", x->label, i,
		       ph->type, buf, r->type);
		x->mismatches++;
	}
	cmp_num(x, "segment", i, "offset", ph->offset, r->off);
	cmp_num(x, "segment", i, "vaddr", ph->vaddr, r->vaddr);
	cmp_num(x, "segment", i, "paddr", ph->paddr, r->paddr);
	cmp_num(x, "segment", i, "filesz", ph->filesz, r->filesz);
	cmp_num(x, "segment", i, "memsz", ph->memsz, r->memsz);
	cmp_num(x, "segment", i, "align", ph->align, r->align);
	ret = pfelf_segment_flags_string(ph->flags, buf, sizeof(buf));
	cmp_str(x, "segment", i, "flags", ret < 0 ? "(error)" : buf, r->flags);
	if (ph->flags & 4)
		letters[nl++] = 'R';
	if (ph->flags & 2)
		letters[nl++] = 'W';
	if (ph->flags & 1)
		letters[nl++] = 'E';
	letters[nl] = 0;
	cmp_str(x, "segment", i, "p_flags", letters, r->flags);
}

unsigned long cmp_tables(pfelf_file *f, const struct re_file *rf, const char *label,
                         struct cmp_counts *c)
{
	struct cmp_ctx x = {label, rf->bad_lines};
	uint16_t machine = pfelf_header(f)->machine;
	int nsec = pfelf_section_count(f), nseg = pfelf_segment_count(f);

	if (rf->bad_lines)
		printf("MISMATCH %s: %u readelf lines not parsed\n", label, rf->bad_lines);
	if (nsec < 0 || (size_t)nsec != rf->nsec) {
		printf("MISMATCH %s: pfelf_section_count %d (%s), readelf lists %zu\n", label, nsec,
		       tb_errname(nsec), rf->nsec);
		x.mismatches++;
	}
	if (nseg < 0 || (size_t)nseg != rf->nseg) {
		printf("MISMATCH %s: pfelf_segment_count %d (%s), readelf lists %zu\n", label, nseg,
		       tb_errname(nseg), rf->nseg);
		x.mismatches++;
	}
	for (size_t i = 0; i < rf->nsec; i++)
		cmp_section(&x, f, machine, &rf->sec[i]);
	for (size_t i = 0; i < rf->nseg; i++)
		cmp_segment(&x, f, machine, (uint32_t)i, &rf->seg[i]);
	c->files++;
	c->sections += rf->nsec;
	c->segments += rf->nseg;
	c->mismatches += x.mismatches;
	return x.mismatches;
}
