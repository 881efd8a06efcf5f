/* Relocation type names as binutils 2.40's readelf -r prints them, for
 * every e_machine readelf 2.40 has a table for (its dump_relocations
 * switch): the tables are in relocnames_<family>.c, this is their one
 * lookup. The names are what readelf 2.40 printed for one entry of every
 * type 0..65535 of each machine (ELF32 for the 8-bit types of MIPS64 and
 * SPARC V9), and of the types 0x70000000..0x700003ff and k << 16 above
 * (only IA-64 names some: its VMS types); the numbers agree with
 * binutils' include/elf/<machine>.h for the 33 machines compared. The
 * unit test test_reloc and the mount test mount-relocations make the same
 * probe on files generated at test time and compare with readelf. */
#include "pfelf_i.h"
#include "tables/relocnames_i.h"

#include <stdlib.h>

#define EF_MSP430_MACH        0xff
#define E_MSP430_MACH_MSP430X 45
#define EF_NFP_MACH(f)        (((f) >> 8) & 0xffff)
#define E_NFP_MACH_3200       0x3200

/* The table of e_machine m (readelf's grouping: aliases share one), or
 * NULL. MSP430 and NFP have two, chosen by e_flags (and, for MSP430,
 * EI_OSABI) as readelf chooses. */
static const struct pfelf__reltab *table_of(uint16_t m, uint32_t flags, uint8_t osabi)
{
	switch (m) {
	case 2:  /* EM_SPARC */
	case 11: /* EM_OLD_SPARCV9 */
	case 18: /* EM_SPARC32PLUS */
	case 43: /* EM_SPARCV9 */
		return &pfelf__rel_sparc;
	case 3: /* EM_386 */
	case 6: /* EM_IAMCU */
		return &pfelf__rel_i386;
	case 4: /* EM_68K */
		return &pfelf__rel_m68k;
	case 7: /* EM_860 */
		return &pfelf__rel_i860;
	case 8:  /* EM_MIPS */
	case 10: /* EM_MIPS_RS3_LE */
		return &pfelf__rel_mips;
	case 9: /* EM_S370 */
		return &pfelf__rel_i370;
	case 15: /* EM_PARISC */
		return &pfelf__rel_parisc;
	case 19: /* EM_960 */
		return &pfelf__rel_i960;
	case 20: /* EM_PPC */
		return &pfelf__rel_ppc;
	case 21: /* EM_PPC64 */
		return &pfelf__rel_ppc64;
	case 22:     /* EM_S390 */
	case 0xa390: /* EM_S390_OLD */
		return &pfelf__rel_s390;
	case 23: /* EM_SPU */
		return &pfelf__rel_spu;
	case 36: /* EM_V800 */
		return &pfelf__rel_v800;
	case 39: /* EM_MCORE */
		return &pfelf__rel_mcore;
	case 40: /* EM_ARM */
		return &pfelf__rel_arm;
	case 42: /* EM_SH */
		return &pfelf__rel_sh;
	case 45:  /* EM_ARC */
	case 93:  /* EM_ARC_COMPACT */
	case 195: /* EM_ARC_COMPACT2 */
		return &pfelf__rel_arc;
	case 46: /* EM_H8_300 */
	case 47: /* EM_H8_300H */
	case 48: /* EM_H8S */
		return &pfelf__rel_h8;
	case 50: /* EM_IA_64 */
		return &pfelf__rel_ia64;
	case 53: /* EM_68HC12 */
	case 70: /* EM_68HC11 */
		return &pfelf__rel_m68hc11;
	case 62:  /* EM_X86_64 */
	case 180: /* EM_L1OM */
	case 181: /* EM_K1OM */
		return &pfelf__rel_x86_64;
	case 75: /* EM_VAX */
		return &pfelf__rel_vax;
	case 76: /* EM_CRIS */
		return &pfelf__rel_cris;
	case 80: /* EM_MMIX */
		return &pfelf__rel_mmix;
	case 83:     /* EM_AVR */
	case 0x1057: /* EM_AVR_OLD */
		return &pfelf__rel_avr;
	case 84:     /* EM_FR30 */
	case 0x3330: /* EM_CYGNUS_FR30 */
		return &pfelf__rel_fr30;
	case 85:     /* EM_D10V */
	case 0x7650: /* EM_CYGNUS_D10V */
		return &pfelf__rel_d10v;
	case 86:     /* EM_D30V */
	case 0x7676: /* EM_CYGNUS_D30V */
		return &pfelf__rel_d30v;
	case 87:     /* EM_V850 */
	case 0x9080: /* EM_CYGNUS_V850 */
		return &pfelf__rel_v850;
	case 88:     /* EM_M32R */
	case 0x9041: /* EM_CYGNUS_M32R */
		return &pfelf__rel_m32r;
	case 89:     /* EM_MN10300 */
	case 0xbeef: /* EM_CYGNUS_MN10300 */
		return &pfelf__rel_mn10300;
	case 90:     /* EM_MN10200 */
	case 0xdead: /* EM_CYGNUS_MN10200 */
		return &pfelf__rel_mn10200;
	case 91: /* EM_PJ */
	case 99: /* EM_PJ_OLD */
		return &pfelf__rel_pj;
	case 92: /* EM_OR1K */
		return &pfelf__rel_or1k;
	case 94:     /* EM_XTENSA */
	case 0xabc7: /* EM_XTENSA_OLD */
		return &pfelf__rel_xtensa;
	case 101:    /* EM_IP2K */
	case 0x8217: /* EM_IP2K_OLD */
		return &pfelf__rel_ip2k;
	case 105: /* EM_MSP430: MSP430X names for GCC's MSP430X objects and TI's (OS/ABI 0) */
		if ((flags & EF_MSP430_MACH) == E_MSP430_MACH_MSP430X || osabi == 0)
			return &pfelf__rel_msp430x;
		return &pfelf__rel_msp430;
	case 0x1059: /* EM_MSP430_OLD */
		return &pfelf__rel_msp430;
	case 106: /* EM_BLACKFIN */
		return &pfelf__rel_bfin;
	case 113: /* EM_ALTERA_NIOS2 */
		return &pfelf__rel_nios2;
	case 114: /* EM_CRX */
		return &pfelf__rel_crx;
	case 115: /* EM_XGATE */
		return &pfelf__rel_xgate;
	case 120:    /* EM_M32C */
	case 0xfeb0: /* EM_M32C_OLD */
		return &pfelf__rel_m32c;
	case 135: /* EM_SCORE */
		return &pfelf__rel_score;
	case 138: /* EM_LATTICEMICO32 */
		return &pfelf__rel_lm32;
	case 140: /* EM_TI_C6000 */
		return &pfelf__rel_c6000;
	case 144: /* EM_TI_PRU */
		return &pfelf__rel_pru;
	case 167: /* EM_NDS32 */
		return &pfelf__rel_nds32;
	case 173: /* EM_RX */
		return &pfelf__rel_rx;
	case 174: /* EM_METAG */
		return &pfelf__rel_metag;
	case 177: /* EM_CR16 */
		return &pfelf__rel_cr16;
	case 183: /* EM_AARCH64 */
		return &pfelf__rel_aarch64;
	case 188: /* EM_TILEPRO */
		return &pfelf__rel_tilepro;
	case 189:    /* EM_MICROBLAZE */
	case 0xbaab: /* EM_MICROBLAZE_OLD */
		return &pfelf__rel_microblaze;
	case 191: /* EM_TILEGX */
		return &pfelf__rel_tilegx;
	case 197: /* EM_RL78 */
		return &pfelf__rel_rl78;
	case 220: /* EM_Z80 */
		return &pfelf__rel_z80;
	case 221: /* EM_VISIUM */
		return &pfelf__rel_visium;
	case 222: /* EM_FT32 */
		return &pfelf__rel_ft32;
	case 223: /* EM_MOXIE */
		return &pfelf__rel_moxie;
	case 224: /* EM_AMDGPU */
		return &pfelf__rel_amdgpu;
	case 243: /* EM_RISCV */
		return &pfelf__rel_riscv;
	case 247: /* EM_BPF */
		return &pfelf__rel_bpf;
	case 250: /* EM_NFP */
		return EF_NFP_MACH(flags) == E_NFP_MACH_3200 ? &pfelf__rel_nfp3200
		                                             : &pfelf__rel_nfp;
	case 252: /* EM_CSKY */
		return &pfelf__rel_csky;
	case 258: /* EM_LOONGARCH */
		return &pfelf__rel_loongarch;
	case 0x1223: /* EM_ADAPTEVA_EPIPHANY */
		return &pfelf__rel_epiphany;
	case 0x2530: /* EM_MT */
		return &pfelf__rel_mt;
	case 0x4157: /* EM_WEBASSEMBLY */
		return &pfelf__rel_wasm32;
	case 0x4def: /* EM_S12Z */
		return &pfelf__rel_s12z;
	case 0x5441: /* EM_CYGNUS_FRV */
		return &pfelf__rel_frv;
	case 0x5aa5: /* EM_DLX */
		return &pfelf__rel_dlx;
	case 0x9026: /* EM_ALPHA */
		return &pfelf__rel_alpha;
	case 0xad45: /* EM_XSTORMY16 */
		return &pfelf__rel_xstormy16;
	case 0xf00d: /* EM_CYGNUS_MEP */
		return &pfelf__rel_mep;
	case 0xfeba: /* EM_IQ2000 */
		return &pfelf__rel_iq2000;
	default:
		return NULL;
	}
}

static int cmp_type(const void *key, const void *ent)
{
	uint32_t t = *(const uint32_t *)key;
	const struct pfelf__relname *r = ent;
	return t < r->type ? -1 : t > r->type;
}

static const char *lookup(uint16_t machine, uint32_t flags, uint8_t osabi, uint32_t type)
{
	const struct pfelf__reltab *t = table_of(machine, flags, osabi);
	const struct pfelf__relname *r =
	        t ? bsearch(&type, t->v, t->n, sizeof(*t->v), cmp_type) : NULL;
	return r ? r->name : NULL;
}

PFELF_API const char *pfelf_reloc_type_string(uint16_t machine, uint32_t type)
{
	return lookup(machine, 0, 0, type);
}

PFELF_API const char *pfelf_reloc_type_string_hdr(const pfelf_ehdr *eh, uint32_t type)
{
	return eh ? lookup(eh->machine, eh->flags, eh->osabi, type) : NULL;
}

PFELF_API int pfelf_reloc_type_name(uint16_t machine, uint32_t type, char *buf, size_t buflen)
{
	const char *s = pfelf_reloc_type_string(machine, type);
	if (s)
		return pfelf__fmt(buf, buflen, "%s", s);
	return pfelf__fmt(buf, buflen, "unrecognized: %x", (unsigned)type);
}
