/* The text start of a Go 1.18+ pclntab: what its entries are offsets
 * from. The header's textStart; when it is 0 in the file (a PIE whose
 * dynamic relocation fills it), the addend of the relative relocation at
 * it; when there is none (Go 1.26 writes 0 there), the module data's text
 * field (word 22 of runtime.firstmoduledata from Go 1.16 to 1.26), the
 * module data found by its .go.module section (Go 1.26) or its symbol,
 * relocated the same way; else the runtime.text symbol. Never .text's
 * address: a binary linked by the system linker has runtime.text after
 * the C start-up code. */
#include "tables/go_i.h"

#define MODULE_TEXT_WORD 22 /* pcHeader, 6 slices, findfunctab, minpc, maxpc */

/* The relative relocation type of machine (RELA), 0 when unknown. */
static uint32_t relative_type(uint16_t machine)
{
	switch (machine) {
	case EM_X86_64:
	case EM_386:
		return R_X86_64_RELATIVE; /* 8 for both */
	case EM_AARCH64:
		return R_AARCH64_RELATIVE;
	case EM_PPC64:
	case EM_PPC:
		return R_PPC64_RELATIVE;
	case EM_S390:
		return R_390_RELATIVE;
	case EM_RISCV:
		return R_RISCV_RELATIVE;
	case EM_LOONGARCH:
		return R_LARCH_RELATIVE;
	case EM_ARM:
		return R_ARM_RELATIVE;
	case EM_MIPS:
		return R_MIPS_REL32;
	case EM_SPARCV9:
	case EM_SPARC:
		return R_SPARC_RELATIVE;
	}
	return 0;
}

/* The addend of the first relative SHT_RELA relocation at addr: 0 with
 * *val, -ENOENT, -EIO. */
static int relative_at(pfelf_file *f, uint64_t addr, uint64_t *val)
{
	uint32_t type = relative_type(f->eh.machine);
	int n = pfelf_section_count(f);
	for (uint32_t i = 1; type && n > 0 && i < (uint32_t)n; i++) {
		pfelf_reloc_iter it;
		pfelf_reloc r;
		if (f->sh[i].type != PFELF_SHT_RELA || pfelf_reloc_iter_init(f, i, &it) != 0)
			continue;
		int ret;
		while ((ret = pfelf_reloc_next(&it, &r)) > 0) {
			if (r.offset == addr && r.type == type && r.sym == 0) {
				*val = (uint64_t)r.addend;
				return 0;
			}
		}
		if (ret < 0)
			return ret;
	}
	return -ENOENT;
}

/* The pointer-sized word at addr, or the addend relocating it when it is 0:
 * 0 with *val (0 when neither says), *relocated; -EFAULT, -EINVAL, -EIO. */
static int word_at(pfelf_file *f, const struct pfelf__go *g, uint64_t addr, uint64_t *val,
                   bool *relocated)
{
	uint8_t w[8];
	unsigned ps = g->pub.ptrsize;
	ssize_t got = pfelf_read_vaddr(f, addr, w, ps);
	if (got < 0)
		return (int)got;
	*val = pfelf__go_word(w, ps, f->msb); /* module data: the ELF's order */
	*relocated = false;
	if (*val != 0)
		return 0;
	int ret = relative_at(f, addr, val);
	if (ret == 0)
		*relocated = true;
	return ret == -ENOENT ? 0 : ret;
}

/* The address of the module data: .go.module, else runtime.firstmoduledata. */
static int module_data(pfelf_file *f, uint64_t *addr)
{
	const pfelf_shdr *s;
	if (pfelf_section_count(f) > 0 && pfelf_section_by_name(f, ".go.module", &s) == 0 &&
	    s->type != SHT_NOBITS) {
		*addr = s->addr;
		return 0;
	}
	pfelf_sym sym;
	if (pfelf_symbol_count(f, PFELF_SYMTAB) > 0 &&
	    pfelf_symbol_find(f, PFELF_SYMTAB, "runtime.firstmoduledata", &sym) == 0) {
		*addr = sym.value;
		return 0;
	}
	return -ENOENT;
}

static int from_module(pfelf_file *f, struct pfelf__go *g)
{
	uint64_t md, text;
	bool relocated;
	unsigned ps = g->pub.ptrsize;
	if (module_data(f, &md) != 0 || md > UINT64_MAX - MODULE_TEXT_WORD * ps)
		return -ENOENT;
	int ret = word_at(f, g, md + MODULE_TEXT_WORD * ps, &text, &relocated);
	if (ret == -EIO || ret == -ENOMEM)
		return ret;
	if (ret < 0 || text == 0)
		return -ENOENT;
	g->pub.text = text;
	g->pub.text_from = relocated ? PFELF_GO_TEXT_MODULE_RELOC : PFELF_GO_TEXT_MODULE;
	return 0;
}

int pfelf__go_text(pfelf_file *f, struct pfelf__go *g, const uint8_t *hdr)
{
	unsigned ps = g->pub.ptrsize;
	uint64_t text = pfelf__go_word(hdr + 8 + 2 * ps, ps, g->pub.big_endian);
	g->pub.text_from = PFELF_GO_TEXT_HEADER;
	if (text == 0 && g->pub.vaddr != 0) {
		int ret = relative_at(f, g->pub.vaddr + 8 + 2 * ps, &text);
		if (ret == -EIO)
			return ret;
		g->pub.text_from = PFELF_GO_TEXT_HEADER_RELOC;
	}
	if (text != 0) {
		g->pub.text = text;
		return 0;
	}
	int ret = from_module(f, g);
	if (ret != -ENOENT)
		return ret;
	pfelf_sym sym;
	if (pfelf_symbol_count(f, PFELF_SYMTAB) > 0 &&
	    pfelf_symbol_find(f, PFELF_SYMTAB, "runtime.text", &sym) == 0 && sym.value != 0) {
		g->pub.text = sym.value;
		g->pub.text_from = PFELF_GO_TEXT_SYMBOL;
		return 0;
	}
	return -EINVAL;
}
