/* The relocation type name tables (relocnames_<family>.c) and their one
 * lookup (relocnames.c). Each table is sorted by type, as bsearch needs. */
#ifndef PFELF_RELOCNAMES_I_H
#define PFELF_RELOCNAMES_I_H

#include <stddef.h>
#include <stdint.h>

struct pfelf__relname {
	uint32_t type;
	const char *name;
};

struct pfelf__reltab {
	const struct pfelf__relname *v;
	size_t n;
};

extern const struct pfelf__reltab pfelf__rel_x86_64;
extern const struct pfelf__reltab pfelf__rel_i386;
extern const struct pfelf__reltab pfelf__rel_i860;
extern const struct pfelf__reltab pfelf__rel_i960;
extern const struct pfelf__reltab pfelf__rel_i370;
extern const struct pfelf__reltab pfelf__rel_ia64;
extern const struct pfelf__reltab pfelf__rel_aarch64;
extern const struct pfelf__reltab pfelf__rel_arm;
extern const struct pfelf__reltab pfelf__rel_ppc64;
extern const struct pfelf__reltab pfelf__rel_ppc;
extern const struct pfelf__reltab pfelf__rel_spu;
extern const struct pfelf__reltab pfelf__rel_mips;
extern const struct pfelf__reltab pfelf__rel_nds32;
extern const struct pfelf__reltab pfelf__rel_riscv;
extern const struct pfelf__reltab pfelf__rel_loongarch;
extern const struct pfelf__reltab pfelf__rel_csky;
extern const struct pfelf__reltab pfelf__rel_or1k;
extern const struct pfelf__reltab pfelf__rel_sparc;
extern const struct pfelf__reltab pfelf__rel_s390;
extern const struct pfelf__reltab pfelf__rel_parisc;
extern const struct pfelf__reltab pfelf__rel_alpha;
extern const struct pfelf__reltab pfelf__rel_sh;
extern const struct pfelf__reltab pfelf__rel_m32r;
extern const struct pfelf__reltab pfelf__rel_h8;
extern const struct pfelf__reltab pfelf__rel_v850;
extern const struct pfelf__reltab pfelf__rel_v800;
extern const struct pfelf__reltab pfelf__rel_avr;
extern const struct pfelf__reltab pfelf__rel_msp430x;
extern const struct pfelf__reltab pfelf__rel_msp430;
extern const struct pfelf__reltab pfelf__rel_m68hc11;
extern const struct pfelf__reltab pfelf__rel_xgate;
extern const struct pfelf__reltab pfelf__rel_s12z;
extern const struct pfelf__reltab pfelf__rel_ip2k;
extern const struct pfelf__reltab pfelf__rel_m32c;
extern const struct pfelf__reltab pfelf__rel_rl78;
extern const struct pfelf__reltab pfelf__rel_rx;
extern const struct pfelf__reltab pfelf__rel_mn10300;
extern const struct pfelf__reltab pfelf__rel_mn10200;
extern const struct pfelf__reltab pfelf__rel_fr30;
extern const struct pfelf__reltab pfelf__rel_frv;
extern const struct pfelf__reltab pfelf__rel_d10v;
extern const struct pfelf__reltab pfelf__rel_d30v;
extern const struct pfelf__reltab pfelf__rel_mcore;
extern const struct pfelf__reltab pfelf__rel_mt;
extern const struct pfelf__reltab pfelf__rel_iq2000;
extern const struct pfelf__reltab pfelf__rel_mep;
extern const struct pfelf__reltab pfelf__rel_dlx;
extern const struct pfelf__reltab pfelf__rel_xstormy16;
extern const struct pfelf__reltab pfelf__rel_pj;
extern const struct pfelf__reltab pfelf__rel_moxie;
extern const struct pfelf__reltab pfelf__rel_ft32;
extern const struct pfelf__reltab pfelf__rel_epiphany;
extern const struct pfelf__reltab pfelf__rel_tilepro;
extern const struct pfelf__reltab pfelf__rel_tilegx;
extern const struct pfelf__reltab pfelf__rel_metag;
extern const struct pfelf__reltab pfelf__rel_c6000;
extern const struct pfelf__reltab pfelf__rel_m68k;
extern const struct pfelf__reltab pfelf__rel_cris;
extern const struct pfelf__reltab pfelf__rel_vax;
extern const struct pfelf__reltab pfelf__rel_mmix;
extern const struct pfelf__reltab pfelf__rel_xtensa;
extern const struct pfelf__reltab pfelf__rel_microblaze;
extern const struct pfelf__reltab pfelf__rel_arc;
extern const struct pfelf__reltab pfelf__rel_bfin;
extern const struct pfelf__reltab pfelf__rel_nios2;
extern const struct pfelf__reltab pfelf__rel_crx;
extern const struct pfelf__reltab pfelf__rel_cr16;
extern const struct pfelf__reltab pfelf__rel_score;
extern const struct pfelf__reltab pfelf__rel_lm32;
extern const struct pfelf__reltab pfelf__rel_pru;
extern const struct pfelf__reltab pfelf__rel_z80;
extern const struct pfelf__reltab pfelf__rel_visium;
extern const struct pfelf__reltab pfelf__rel_amdgpu;
extern const struct pfelf__reltab pfelf__rel_bpf;
extern const struct pfelf__reltab pfelf__rel_nfp;
extern const struct pfelf__reltab pfelf__rel_nfp3200;
extern const struct pfelf__reltab pfelf__rel_wasm32;
#endif
