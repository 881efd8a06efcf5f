/* Symbol fields spelled as binutils' readelf -s spells them: type,
 * binding, visibility, section index and the versioned name. */
#include "tables/tables_i.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const type_names[] = {"NOTYPE", "OBJECT", "FUNC", "SECTION", "FILE",
                                         "COMMON", "TLS",    "RELC", "SRELC"};

PFELF_API int pfelf_symbol_type_name(pfelf_file *f, uint8_t type, char *buf, size_t buflen)
{
	uint16_t m = f->eh.machine;
	uint8_t osabi = f->eh.osabi;
	if (type < sizeof(type_names) / sizeof(type_names[0]))
		return pfelf__fmt(buf, buflen, "%s", type_names[type]);
	if (type >= 13 && type <= 15) { /* STT_LOPROC .. STT_HIPROC */
		if (m == EM_ARM && type == 13)
			return pfelf__fmt(buf, buflen, "THUMB_FUNC");
		if (m == EM_SPARCV9 && type == 13)
			return pfelf__fmt(buf, buflen, "REGISTER");
		if (m == EM_PARISC && type == 13)
			return pfelf__fmt(buf, buflen, "PARISC_MILLI");
		return pfelf__fmt(buf, buflen, "<processor specific>: %d", type);
	}
	if (type >= 10 && type <= 12) { /* STT_LOOS .. STT_HIOS */
		if (m == EM_PARISC && type == 11)
			return pfelf__fmt(buf, buflen, "HP_OPAQUE");
		if (m == EM_PARISC && type == 12)
			return pfelf__fmt(buf, buflen, "HP_STUB");
		if (type == 10 && (osabi == ELFOSABI_GNU || osabi == ELFOSABI_FREEBSD))
			return pfelf__fmt(buf, buflen, "IFUNC");
		return pfelf__fmt(buf, buflen, "<OS specific>: %d", type);
	}
	return pfelf__fmt(buf, buflen, "<unknown>: %d", type);
}

PFELF_API int pfelf_symbol_bind_name(pfelf_file *f, uint8_t bind, char *buf, size_t buflen)
{
	static const char *const names[] = {"LOCAL", "GLOBAL", "WEAK"};
	if (bind < 3)
		return pfelf__fmt(buf, buflen, "%s", names[bind]);
	if (bind >= 13 && bind <= 15)
		return pfelf__fmt(buf, buflen, "<processor specific>: %d", bind);
	if (bind >= 10 && bind <= 12) {
		if (bind == 10 && f->eh.osabi == ELFOSABI_GNU)
			return pfelf__fmt(buf, buflen, "UNIQUE");
		return pfelf__fmt(buf, buflen, "<OS specific>: %d", bind);
	}
	return pfelf__fmt(buf, buflen, "<unknown>: %d", bind);
}

PFELF_API int pfelf_symbol_visibility_name(uint8_t visibility, char *buf, size_t buflen)
{
	static const char *const names[] = {"DEFAULT", "INTERNAL", "HIDDEN", "PROTECTED"};
	return pfelf__fmt(buf, buflen, "%s", names[visibility & 3]);
}

#ifndef ELFOSABI_OPENVMS
#define ELFOSABI_OPENVMS 13
#endif

/* Solaris names st_other whole, in place of the visibility. */
static const char *const solaris_vis[] = {"DEFAULT",  "INTERNAL",  "HIDDEN",   "PROTECTED",
                                          "EXPORTED", "SINGLETON", "ELIMINATE"};

static const char *mips_other(unsigned o)
{
	switch (o) {
	case 0x04:
		return "OPTIONAL"; /* STO_OPTIONAL */
	case 0x08:
		return "MIPS PLT";
	case 0x20:
		return "MIPS PIC";
	case 0x80:
		return "MICROMIPS";
	case 0xa0:
		return "MICROMIPS, MIPS PIC";
	case 0xf0:
		return "MIPS16";
	}
	return NULL;
}

/* OpenVMS on IA-64: linkage (bits 6-7) and, in images, the function type
 * (bits 4-5). */
static void vms_other(const pfelf_file *f, unsigned o, char *buf, size_t len)
{
	static const char *const fn[] = {"CA ", "VEC ", "FD ", "RSV "};
	static const char *const link[] = {"IGN", "RSV", "STD", "LNK"};
	bool image = f->eh.type == ET_EXEC || f->eh.type == ET_DYN;
	snprintf(buf, len, "%s%s", image ? fn[(o >> 4) & 3] : "", link[(o >> 6) & 3]);
}

/* readelf's words for the bits o (st_other without its visibility, not 0)
 * of a symbol of f, into buf (len >= 32). */
static void other_words(const pfelf_file *f, unsigned o, char *buf, size_t len)
{
	const char *w = NULL;
	unsigned rest;
	switch (f->eh.machine) {
	case EM_ALPHA:
		w = o == 0x80 ? "NOPV" : o == 0x88 ? "STD GPLOAD" : "<unknown>";
		break;
	case EM_AARCH64:
		if (!(o & 0x80)) /* STO_AARCH64_VARIANT_PCS */
			break;
		rest = o & ~0x80u;
		if (rest)
			snprintf(buf, len, "VARIANT_PCS | %x", rest);
		w = rest ? buf : "VARIANT_PCS";
		break;
	case EM_MIPS:
		w = mips_other(o);
		break;
	case EM_IA_64:
		if (f->eh.osabi == ELFOSABI_OPENVMS) {
			vms_other(f, o, buf, len);
			w = buf;
		}
		break;
	case EM_PPC64:
		if ((o & ~0xe0u) == 0 && (o >> 5) != 7) { /* STO_PPC64_LOCAL_MASK */
			unsigned lbits = o >> 5;
			snprintf(buf, len, "<localentry>: %u", lbits == 1 ? 1 : 1u << lbits);
			w = buf;
		}
		break;
	case EM_RISCV:
		if (o == 0x80) /* STO_RISCV_VARIANT_CC alone */
			w = "VARIANT_CC";
		else {
			snprintf(buf, len, "%x", o & ~0x80u); /* readelf drops the name then */
			w = buf;
		}
		break;
	}
	if (!w)
		snprintf(buf, len, "<other>: %x", o);
	else if (w != buf)
		snprintf(buf, len, "%s", w);
}

PFELF_API int pfelf_symbol_vis_text(pfelf_file *f, uint8_t other, char *buf, size_t buflen)
{
	if (f->eh.osabi == ELFOSABI_SOLARIS)
		return pfelf__fmt(buf, buflen, "%s",
		                  other < sizeof(solaris_vis) / sizeof(solaris_vis[0])
		                          ? solaris_vis[other]
		                          : "<unknown>");
	char vis[16], words[64];
	pfelf_symbol_visibility_name(other & 3, vis, sizeof(vis));
	if ((other & ~3u) == 0)
		return pfelf__fmt(buf, buflen, "%s", vis);
	other_words(f, other & ~3u, words, sizeof(words));
	return pfelf__fmt(buf, buflen, "%s [%s]", vis, words);
}

static const char *special_shndx(const pfelf_file *f, uint32_t x)
{
	uint16_t m = f->eh.machine;
	if (x == 0xff00 && m == EM_IA_64 && f->eh.osabi == ELFOSABI_HPUX)
		return "ANSI_COM";
	if (x == 0xff02 && (m == EM_X86_64 || m == EM_L10M || m == EM_K10M))
		return "LARGE_COM";
	if ((x == 0xff03 && m == EM_MIPS) || (x == 0xff00 && m == EM_TI_C6000))
		return "SCOM";
	if (x == 0xff04 && m == EM_MIPS)
		return "SUND";
	return NULL;
}

PFELF_API int pfelf_symbol_shndx_name(pfelf_file *f, const pfelf_sym *s, char *buf, size_t buflen)
{
	uint32_t x = s->shndx;
	bool extended = s->raw_shndx == SHN_XINDEX && !(s->status & PFELF_SYM_BAD_SHNDX);
	if (!extended && x >= SHN_LORESERVE) {
		const char *name = special_shndx(f, x);
		if (x == 0xfff1)
			name = "ABS";
		else if (x == 0xfff2)
			name = "COM";
		if (name)
			return pfelf__fmt(buf, buflen, "%s", name);
		if (x <= 0xff1f)
			return pfelf__fmt(buf, buflen, "PRC[0x%04x]", x);
		if (x >= 0xff20 && x <= 0xff3f)
			return pfelf__fmt(buf, buflen, "OS [0x%04x]", x);
		return pfelf__fmt(buf, buflen, "RSV[0x%04x]", x);
	}
	if (x == 0)
		return pfelf__fmt(buf, buflen, "UND");
	if (f->eh.shnum != 0 && x >= f->eh.shnum)
		return pfelf__fmt(buf, buflen, "bad section index[%3u]", x);
	return pfelf__fmt(buf, buflen, "%3u", x);
}

/* The name readelf shows before any version suffix. */
static const char *base_name(pfelf_file *f, const pfelf_sym *s)
{
	if (s->type == STT_SECTION && s->name_off == 0) {
		const pfelf_shdr *sh;
		if (s->shndx >= f->eh.shnum || pfelf_section(f, s->shndx, &sh) < 0)
			return s->name;
		return (sh->status & PFELF_ST_BAD_NAME) ? "<corrupt>" : sh->name;
	}
	return (s->status & PFELF_SYM_BAD_NAME) ? "<corrupt>" : s->name;
}

PFELF_API int pfelf_symbol_display_name(pfelf_file *f, const pfelf_sym *s, char *buf, size_t buflen)
{
	const char *name = base_name(f, s);
	switch (s->ver_kind) {
	case PFELF_VER_DEFAULT:
		return pfelf__fmt(buf, buflen, "%s@@%s", name, s->version);
	case PFELF_VER_HIDDEN:
		return pfelf__fmt(buf, buflen, "%s@%s", name, s->version);
	case PFELF_VER_NEEDED:
		return pfelf__fmt(buf, buflen, "%s@%s (%u)", name, s->version, (unsigned)s->versym);
	case PFELF_VER_BAD:
		return pfelf__fmt(buf, buflen, "%s@<corrupt>", name);
	default:
		return pfelf__fmt(buf, buflen, "%s", name);
	}
}
