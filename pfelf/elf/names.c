/* Names of ELF constants spelled as binutils' readelf spells them. */
#include "pfelf_i.h"

#include <stdarg.h>
#include <stdio.h>

struct name {
	uint32_t value;
	const char *name;
};

static const char *lookup(const struct name *t, size_t n, uint32_t v)
{
	for (size_t i = 0; i < n; i++)
		if (t[i].value == v)
			return t[i].name;
	return NULL;
}

#define LOOKUP(t, v) lookup(t, sizeof(t) / sizeof(t[0]), v)

int pfelf__fmt(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= len ? -ENOSPC : n;
}

static const struct name sht_names[] = {
        {0, "NULL"},
        {1, "PROGBITS"},
        {2, "SYMTAB"},
        {3, "STRTAB"},
        {4, "RELA"},
        {5, "HASH"},
        {6, "DYNAMIC"},
        {7, "NOTE"},
        {8, "NOBITS"},
        {9, "REL"},
        {10, "SHLIB"},
        {11, "DYNSYM"},
        {14, "INIT_ARRAY"},
        {15, "FINI_ARRAY"},
        {16, "PREINIT_ARRAY"},
        {17, "GROUP"},
        {18, "SYMTAB SECTION INDICES"},
        {19, "RELR"},
        {0x6ffffff6, "GNU_HASH"},
        {0x6ffffffd, "VERDEF"},
        {0x6ffffffe, "VERNEED"},
        {0x6fffffff, "VERSYM"},
        {0x6ffffff0, "VERSYM"},
        {0x6ffffffc, "VERDEF"},
        {0x7ffffffd, "AUXILIARY"},
        {0x7fffffff, "FILTER"},
        {0x6ffffff7, "GNU_LIBLIST"},
};

/* Processor types (0x70000000..0x7fffffff) of each machine readelf 2.40
 * names some of, as its -S prints them; the user range of V850. */
static const struct name sht_arm[] = {
        {0x70000001, "ARM_EXIDX"},          {0x70000002, "ARM_PREEMPTMAP"},
        {0x70000003, "ARM_ATTRIBUTES"},     {0x70000004, "ARM_DEBUGOVERLAY"},
        {0x70000005, "ARM_OVERLAYSECTION"},
};
static const struct name sht_x86_64[] = {{0x70000001, "X86_64_UNWIND"}};
static const struct name sht_aarch64[] = {{0x70000003, "AARCH64_ATTRIBUTES"}};
static const struct name sht_riscv[] = {{0x70000003, "RISCV_ATTRIBUTES"}};
static const struct name sht_arc[] = {{0x70000001, "ARC_ATTRIBUTES"}};
static const struct name sht_csky[] = {{0x70000001, "CSKY_ATTRIBUTES"}};
static const struct name sht_nfp[] = {{0x70000001, "NFP_MECONFIG"}, {0x70000002, "NFP_INITREG"}};
static const struct name sht_msp430[] = {{0x70000003, "MSP430_ATTRIBUTES"},
                                         {0x7f000005, "MSP430_SEC_FLAGS"},
                                         {0x7f000006, "MSP430_SYM_ALIASES"}};
static const struct name sht_c6000[] = {
        {0x70000001, "C6000_UNWIND"},     {0x70000002, "C6000_PREEMPTMAP"},
        {0x70000003, "C6000_ATTRIBUTES"}, {0x7f000000, "TI_ICODE"},
        {0x7f000001, "TI_XREF"},          {0x7f000002, "TI_HANDLER"},
        {0x7f000003, "TI_INITINFO"},      {0x7f000004, "TI_PHATTRS"},
};
static const struct name sht_parisc[] = {
        {0x70000000, "PARISC_EXT"},   {0x70000001, "PARISC_UNWIND"}, {0x70000002, "PARISC_DOC"},
        {0x70000003, "PARISC_ANNOT"}, {0x70000004, "PARISC_DLKM"},   {0x70000008, "PARISC_SYMEXTN"},
        {0x70000009, "PARISC_STUBS"},
};
static const struct name sht_v850[] = {
        {0x70000000, "V850 Small Common"}, {0x70000001, "V850 Tiny Common"},
        {0x70000002, "V850 Zero Common"},  {0x80000000, "RENESAS IOP"},
        {0xa0000000, "RENESAS INFO"},
};
/* IA-64: processor types, and OpenVMS' in the OS range (whatever the OS/ABI) */
static const struct name sht_ia64[] = {
        {0x60000000, "VMS_TRACE"},    {0x60000001, "VMS_TIE_SIGNATURES"},
        {0x60000002, "VMS_DEBUG"},    {0x60000003, "VMS_DEBUG_STR"},
        {0x60000004, "VMS_LINKAGES"}, {0x60000005, "VMS_SYMBOL_VECTOR"},
        {0x60000006, "VMS_FIXUP"},    {0x70000000, "IA_64_EXT"},
        {0x70000001, "IA_64_UNWIND"}, {0x79000000, "IA_64_PRIORITY_INIT"},
};
static const struct name sht_mips[] = {
        {0x70000000, "MIPS_LIBLIST"},       {0x70000001, "MIPS_MSYM"},
        {0x70000002, "MIPS_CONFLICT"},      {0x70000003, "MIPS_GPTAB"},
        {0x70000004, "MIPS_UCODE"},         {0x70000005, "MIPS_DEBUG"},
        {0x70000006, "MIPS_REGINFO"},       {0x70000007, "MIPS_PACKAGE"},
        {0x70000008, "MIPS_PACKSYM"},       {0x70000009, "MIPS_RELD"},
        {0x7000000b, "MIPS_IFACE"},         {0x7000000c, "MIPS_CONTENT"},
        {0x7000000d, "MIPS_OPTIONS"},       {0x70000010, "MIPS_SHDR"},
        {0x70000011, "MIPS_FDESC"},         {0x70000012, "MIPS_EXTSYM"},
        {0x70000013, "MIPS_DENSE"},         {0x70000014, "MIPS_PDESC"},
        {0x70000015, "MIPS_LOCSYM"},        {0x70000016, "MIPS_AUXSYM"},
        {0x70000017, "MIPS_OPTSYM"},        {0x70000018, "MIPS_LOCSTR"},
        {0x70000019, "MIPS_LINE"},          {0x7000001a, "MIPS_RFDESC"},
        {0x7000001b, "MIPS_DELTASYM"},      {0x7000001c, "MIPS_DELTAINST"},
        {0x7000001d, "MIPS_DELTACLASS"},    {0x7000001e, "MIPS_DWARF"},
        {0x7000001f, "MIPS_DELTADECL"},     {0x70000020, "MIPS_SYMBOL_LIB"},
        {0x70000021, "MIPS_EVENTS"},        {0x70000022, "MIPS_TRANSLATE"},
        {0x70000023, "MIPS_PIXIE"},         {0x70000024, "MIPS_XLATE"},
        {0x70000025, "MIPS_XLATE_DEBUG"},   {0x70000026, "MIPS_WHIRL"},
        {0x70000027, "MIPS_EH_REGION"},     {0x70000028, "MIPS_XLATE_OLD"},
        {0x70000029, "MIPS_PDR_EXCEPTION"}, {0x7000002a, "MIPS_ABIFLAGS"},
        {0x7000002b, "MIPS_XHASH"},
};
/* The OS range: GNU's, or Solaris' for ELFOSABI_SOLARIS (which then has no
 * GNU_ATTRIBUTES), IA-64's above whatever the OS/ABI. */
static const struct name sht_gnu[] = {{0x6fff4700, "GNU_INCREMENTAL_INPUTS"},
                                      {0x6ffffff5, "GNU_ATTRIBUTES"}};
static const struct name sht_solaris[] = {
        {0x6fffffee, "SUNW_ancillary"}, {0x6fffffef, "SUNW_capchain"}, {0x6ffffff1, "SUNW_symsort"},
        {0x6ffffff2, "SUNW_tlssort"},   {0x6ffffff3, "SUNW_LDYNSYM"},  {0x6ffffff4, "SUNW_dof"},
        {0x6ffffff5, "SUNW_cap"},       {0x6ffffff8, "SUNW_DEBUGSTR"}, {0x6ffffff9, "SUNW_DEBUG"},
        {0x6ffffffa, "SUNW_move"},      {0x6ffffffb, "SUNW_COMDAT"},
};

/* A processor or user type's name on machine, or NULL. */
static const char *sht_machine(uint32_t type, uint16_t machine)
{
	switch (machine) {
	case EM_ARM:
		return LOOKUP(sht_arm, type);
	case EM_X86_64:
	case 180: /* EM_L1OM */
	case 181: /* EM_K1OM */
		return LOOKUP(sht_x86_64, type);
	case EM_AARCH64:
		return LOOKUP(sht_aarch64, type);
	case EM_RISCV:
		return LOOKUP(sht_riscv, type);
	case EM_MIPS:
	case EM_MIPS_RS3_LE:
		return LOOKUP(sht_mips, type);
	case EM_ARC:
	case EM_ARC_COMPACT:
	case EM_ARCV2:
		return LOOKUP(sht_arc, type);
	case 252: /* EM_CSKY */
		return LOOKUP(sht_csky, type);
	case 250: /* EM_NFP */
		return LOOKUP(sht_nfp, type);
	case EM_MSP430:
		return LOOKUP(sht_msp430, type);
	case EM_TI_C6000:
		return LOOKUP(sht_c6000, type);
	case EM_PARISC:
		return LOOKUP(sht_parisc, type);
	case 36: /* EM_V800 */
	case EM_V850:
	case 0x9080: /* EM_CYGNUS_V850 */
		return LOOKUP(sht_v850, type);
	case EM_IA_64:
		return LOOKUP(sht_ia64, type);
	}
	return NULL;
}

PFELF_API int pfelf_section_type_name_os(uint32_t type, uint16_t machine, uint8_t osabi, char *buf,
                                         size_t buflen)
{
	const char *n = LOOKUP(sht_names, type);
	if (n)
		return pfelf__fmt(buf, buflen, "%s", n);
	if (type >= 0x70000000 && type <= 0x7fffffff) {
		/* IA-64: 0x78XX0000 are the OS/ABI XX's, named as e_ident's */
		if (machine == EM_IA_64 && (type & 0xff000000) == 0x78000000)
			return pfelf_osabi_name((uint8_t)(type >> 16), buf, buflen);
		n = sht_machine(type, machine);
		return n ? pfelf__fmt(buf, buflen, "%s", n)
		         : pfelf__fmt(buf, buflen, "LOPROC+%#x", type - 0x70000000);
	}
	if (type >= 0x60000000 && type <= 0x6fffffff) {
		if (machine == EM_IA_64)
			n = LOOKUP(sht_ia64, type);
		else if (osabi == ELFOSABI_SOLARIS)
			n = LOOKUP(sht_solaris, type);
		else
			n = LOOKUP(sht_gnu, type);
		return n ? pfelf__fmt(buf, buflen, "%s", n)
		         : pfelf__fmt(buf, buflen, "LOOS+%#x", type - 0x60000000);
	}
	if (type >= 0x80000000) {
		n = sht_machine(type, machine);
		return n ? pfelf__fmt(buf, buflen, "%s", n)
		         : pfelf__fmt(buf, buflen, "LOUSER+%#x", type - 0x80000000);
	}
	return pfelf__fmt(buf, buflen, "%08x: <unknown>", type);
}

PFELF_API int pfelf_section_type_name(uint32_t type, uint16_t machine, char *buf, size_t buflen)
{
	return pfelf_section_type_name_os(type, machine, 0, buf, buflen);
}

/* One readelf flag letter for the lowest set bit; *rest loses the bits it covers. */
static char flag_letter(uint64_t bit, uint64_t *rest, uint16_t machine, uint8_t osabi)
{
	static const char low[] = "WAX\0MSILOGTC"; /* bits 0..11 */
	bool gnu = osabi == 3 || osabi == 9;       /* ELFOSABI_GNU, ELFOSABI_FREEBSD */
	if (bit < (1u << 12) && low[__builtin_ctzll(bit)])
		return low[__builtin_ctzll(bit)];
	if (bit == 0x80000000u)
		return 'E';
	if (gnu && bit == 0x200000)
		return 'R';                           /* SHF_GNU_RETAIN */
	if ((gnu || osabi == 0) && bit == 0x01000000) /* readelf: also for NONE */
		return 'D';                           /* SHF_GNU_MBIND */
	if (bit & 0x0ff00000) {
		*rest &= ~(uint64_t)0x0ff00000;
		return 'o';
	}
	if (bit & 0xf0000000) {
		if ((machine == EM_X86_64 || machine == 180 || machine == 181) && bit == 0x10000000)
			return 'l';
		if (machine == EM_ARM && bit == 0x20000000)
			return 'y';
		if (machine == EM_PPC && bit == 0x10000000)
			return 'v';
		*rest &= ~(uint64_t)0xf0000000;
		return 'p';
	}
	return 'x';
}

PFELF_API int pfelf_section_flags_string(uint64_t flags, uint16_t machine, uint8_t osabi, char *buf,
                                         size_t buflen)
{
	char tmp[80];
	size_t n = 0;
	uint64_t rest = flags;
	while (rest && n < sizeof(tmp) - 1) {
		uint64_t bit = rest & -rest;
		rest &= ~bit;
		tmp[n++] = flag_letter(bit, &rest, machine, osabi);
	}
	tmp[n] = 0;
	return pfelf__fmt(buf, buflen, "%s", tmp);
}

static const struct name pt_names[] = {
        {0, "NULL"},
        {1, "LOAD"},
        {2, "DYNAMIC"},
        {3, "INTERP"},
        {4, "NOTE"},
        {5, "SHLIB"},
        {6, "PHDR"},
        {7, "TLS"},
        {0x6474e550, "GNU_EH_FRAME"},
        {0x6474e551, "GNU_STACK"},
        {0x6474e552, "GNU_RELRO"},
        {0x6474e553, "GNU_PROPERTY"},
        {0x6474e554, "GNU_SFRAME"},
        {0x65a3dbe6, "OPENBSD_RANDOMIZE"},
        {0x65a3dbe7, "OPENBSD_WXNEEDED"},
        {0x65a41be6, "OPENBSD_BOOTDATA"},
        {0x6ffffffa, "SUNWBSS"},
        {0x6ffffffb, "SUNWSTACK"},
};
static const struct name pt_arm[] = {{0x70000000, "ARM_ARCHEXT"}, {0x70000001, "ARM_EXIDX"}};
static const struct name pt_aarch64[] = {{0x70000000, "AARCH64_ARCHEXT"},
                                         {0x70000002, "AARCH64_MEMTAG_MTE"}};
static const struct name pt_mips[] = {{0x70000000, "MIPS_REGINFO"},
                                      {0x70000001, "MIPS_RTPROC"},
                                      {0x70000002, "MIPS_OPTIONS"},
                                      {0x70000003, "MIPS_ABIFLAGS"}};
static const struct name pt_s390[] = {{0x70000000, "S390_PGSTE"}};
static const struct name pt_riscv[] = {{0x70000003, "RISCV_ATTRIBUTES"}};
static const struct name pt_ia64[] = {{0x70000000, "IA_64_ARCHEXT"}, {0x70000001, "IA_64_UNWIND"}};
static const struct name pt_parisc[] = {{0x70000000, "PARISC_ARCHEXT"},
                                        {0x70000001, "PARISC_UNWIND"}};

static const char *pt_proc(uint32_t type, uint16_t machine)
{
	switch (machine) {
	case EM_ARM:
		return LOOKUP(pt_arm, type);
	case EM_AARCH64:
		return LOOKUP(pt_aarch64, type);
	case EM_MIPS:
	case EM_MIPS_RS3_LE:
		return LOOKUP(pt_mips, type);
	case EM_RISCV:
		return LOOKUP(pt_riscv, type);
	case EM_S390:
		return LOOKUP(pt_s390, type);
	case EM_IA_64:
		return LOOKUP(pt_ia64, type);
	case EM_PARISC:
		return LOOKUP(pt_parisc, type);
	}
	return NULL;
}

PFELF_API int pfelf_segment_type_name(uint32_t type, uint16_t machine, char *buf, size_t buflen)
{
	const char *n = LOOKUP(pt_names, type);
	if (!n && type >= 0x70000000 && type <= 0x7fffffff)
		n = pt_proc(type, machine);
	return n ? pfelf__fmt(buf, buflen, "%s", n) : pfelf__fmt(buf, buflen, "0x%08x", type);
}

PFELF_API int pfelf_segment_flags_string(uint32_t flags, char *buf, size_t buflen)
{
	return pfelf__fmt(buf, buflen, "%s%s%s", flags & 4 ? "R" : "", flags & 2 ? "W" : "",
	                  flags & 1 ? "E" : "");
}

static const struct name em_names[] = {
        {0, "None"},
        {1, "WE32100"},
        {2, "Sparc"},
        {3, "Intel 80386"},
        {4, "MC68000"},
        {5, "MC88000"},
        {6, "Intel MCU"},
        {7, "Intel 80860"},
        {8, "MIPS R3000"},
        {9, "IBM System/370"},
        {10, "MIPS R4000 big-endian"},
        {15, "HPPA"},
        {18, "Sparc v8+"},
        {19, "Intel 80960"},
        {20, "PowerPC"},
        {21, "PowerPC64"},
        {22, "IBM S/390"},
        {23, "SPU"},
        {36, "Renesas V850 (using RH850 ABI)"},
        {37, "Fujitsu FR20"},
        {38, "TRW RH32"},
        {39, "MCORE"},
        {40, "ARM"},
        {41, "Digital Alpha (old)"},
        {42, "Renesas / SuperH SH"},
        {43, "Sparc v9"},
        {44, "Siemens Tricore"},
        {45, "ARC"},
        {46, "Renesas H8/300"},
        {47, "Renesas H8/300H"},
        {48, "Renesas H8S"},
        {49, "Renesas H8/500"},
        {50, "Intel IA-64"},
        {51, "Stanford MIPS-X"},
        {52, "Motorola Coldfire"},
        {53, "Motorola MC68HC12 Microcontroller"},
        {54, "Fujitsu Multimedia Accelerator"},
        {55, "Siemens PCP"},
        {56, "Sony nCPU embedded RISC processor"},
        {57, "Denso NDR1 microprocesspr"},
        {58, "Motorola Star*Core processor"},
        {59, "Toyota ME16 processor"},
        {60, "STMicroelectronics ST100 processor"},
        {61, "Advanced Logic Corp. TinyJ embedded processor"},
        {62, "Advanced Micro Devices X86-64"},
        {63, "Sony DSP processor"},
        {66, "Siemens FX66 microcontroller"},
        {67, "STMicroelectronics ST9+ 8/16 bit microcontroller"},
        {68, "STMicroelectronics ST7 8-bit microcontroller"},
        {69, "Motorola MC68HC16 Microcontroller"},
        {70, "Motorola MC68HC11 Microcontroller"},
        {71, "Motorola MC68HC08 Microcontroller"},
        {72, "Motorola MC68HC05 Microcontroller"},
        {73, "Silicon Graphics SVx"},
        {74, "STMicroelectronics ST19 8-bit microcontroller"},
        {75, "Digital VAX"},
        {76, "Axis Communications 32-bit embedded processor"},
        {80, "MMIX"},
        {83, "Atmel AVR 8-bit microcontroller"},
        {87, "NEC v850"},
        {88, "Renesas M32R (formerly Mitsubishi M32r)"},
        {92, "OpenRISC 1000"},
        {93, "ARCompact"},
        {94, "Tensilica Xtensa Processor"},
        {106, "Analog Devices Blackfin"},
        {113, "Altera Nios II"},
        {140, "Texas Instruments TMS320C6000 DSP family"},
        {164, "QUALCOMM DSP6 Processor"},
        {183, "AArch64"},
        {189, "Xilinx MicroBlaze"},
        {190, "NVIDIA CUDA architecture"},
        {195, "ARCv2"},
        {220, "Zilog Z80"},
        {224, "AMD GPU"},
        {243, "RISC-V"},
        {247, "Linux BPF"},
        {252, "C-SKY"},
        {258, "LoongArch"},
        {0x9026, "Alpha"},
};

PFELF_API int pfelf_machine_name(uint16_t machine, char *buf, size_t buflen)
{
	const char *n = LOOKUP(em_names, machine);
	return n ? pfelf__fmt(buf, buflen, "%s", n)
	         : pfelf__fmt(buf, buflen, "<unknown>: 0x%x", machine);
}

PFELF_API int pfelf_type_name(uint16_t type, char *buf, size_t buflen)
{
	static const char *const t[] = {"NONE (None)", "REL (Relocatable file)",
	                                "EXEC (Executable file)", "DYN (Shared object file)",
	                                "CORE (Core file)"};
	if (type < 5)
		return pfelf__fmt(buf, buflen, "%s", t[type]);
	if (type >= 0xff00)
		return pfelf__fmt(buf, buflen, "Processor Specific: (%x)", type);
	if (type >= 0xfe00)
		return pfelf__fmt(buf, buflen, "OS Specific: (%x)", type);
	return pfelf__fmt(buf, buflen, "<unknown>: %x", type);
}

static const struct name osabi_names[] = {
        {0, "UNIX - System V"},
        {1, "UNIX - HP-UX"},
        {2, "UNIX - NetBSD"},
        {3, "UNIX - GNU"},
        {6, "UNIX - Solaris"},
        {7, "UNIX - AIX"},
        {8, "UNIX - IRIX"},
        {9, "UNIX - FreeBSD"},
        {10, "UNIX - TRU64"},
        {11, "Novell - Modesto"},
        {12, "UNIX - OpenBSD"},
        {13, "VMS - OpenVMS"},
        {14, "HP - Non-Stop Kernel"},
        {15, "AROS"},
        {16, "FenixOS"},
        {17, "Nuxi CloudABI"},
        {18, "Stratus Technologies OpenVOS"},
};

PFELF_API int pfelf_osabi_name(uint8_t osabi, char *buf, size_t buflen)
{
	const char *n = LOOKUP(osabi_names, osabi);
	return n ? pfelf__fmt(buf, buflen, "%s", n)
	         : pfelf__fmt(buf, buflen, "<unknown: %x>", osabi);
}
