/* Relocation type names of Blackfin, Nios II, CRX, CR16, S+core, LM32, PRU, Z80, Visium, AMD GPU,
 * BPF, NFP (NFP-6xxx and NFP-32xx) and WebAssembly, as binutils 2.40's readelf -r prints them (see
 * relocnames.c). */
#include "tables/relocnames_i.h"

static const struct pfelf__relname bfin[] = {
        {0, "R_BFIN_UNUSED0"},
        {1, "R_BFIN_PCREL5M2"},
        {2, "R_BFIN_UNUSED1"},
        {3, "R_BFIN_PCREL10"},
        {4, "R_BFIN_PCREL12_JUMP"},
        {5, "R_BFIN_RIMM16"},
        {6, "R_BFIN_LUIMM16"},
        {7, "R_BFIN_HUIMM16"},
        {8, "R_BFIN_PCREL12_JUMP_S"},
        {9, "R_BFIN_PCREL24_JUMP_X"},
        {10, "R_BFIN_PCREL24"},
        {11, "R_BFIN_UNUSEDB"},
        {12, "R_BFIN_UNUSEDC"},
        {13, "R_BFIN_PCREL24_JUMP_L"},
        {14, "R_BFIN_PCREL24_CALL_X"},
        {15, "R_BFIN_VAR_EQ_SYMB"},
        {16, "R_BFIN_BYTE_DATA"},
        {17, "R_BFIN_BYTE2_DATA"},
        {18, "R_BFIN_BYTE4_DATA"},
        {19, "R_BFIN_PCREL11"},
        {20, "R_BFIN_GOT17M4"},
        {21, "R_BFIN_GOTHI"},
        {22, "R_BFIN_GOTLO"},
        {23, "R_BFIN_FUNCDESC"},
        {24, "R_BFIN_FUNCDESC_GOT17M4"},
        {25, "R_BFIN_FUNCDESC_GOTHI"},
        {26, "R_BFIN_FUNCDESC_GOTLO"},
        {27, "R_BFIN_FUNCDESC_VALUE"},
        {28, "R_BFIN_FUNCDESC_GOTOFF17M4"},
        {29, "R_BFIN_FUNCDESC_GOTOFFHI"},
        {30, "R_BFIN_FUNCDESC_GOTOFFLO"},
        {31, "R_BFIN_GOTOFF17M4"},
        {32, "R_BFIN_GOTOFFHI"},
        {33, "R_BFIN_GOTOFFLO"},
        {64, "R_BFIN_PLTPC"},
        {65, "R_BFIN_GOT"},
        {66, "R_BFIN_GNU_VTINHERIT"},
        {67, "R_BFIN_GNU_VTENTRY"},
        {224, "R_BFIN_PUSH"},
        {225, "R_BFIN_CONST"},
        {226, "R_BFIN_ADD"},
        {227, "R_BFIN_SUB"},
        {228, "R_BFIN_MULT"},
        {229, "R_BFIN_DIV"},
        {230, "R_BFIN_MOD"},
        {231, "R_BFIN_LSHIFT"},
        {232, "R_BFIN_RSHIFT"},
        {233, "R_BFIN_AND"},
        {234, "R_BFIN_OR"},
        {235, "R_BFIN_XOR"},
        {236, "R_BFIN_LAND"},
        {237, "R_BFIN_LOR"},
        {238, "R_BFIN_LEN"},
        {239, "R_BFIN_NEG"},
        {240, "R_BFIN_COMP"},
        {241, "R_BFIN_PAGE"},
        {242, "R_BFIN_HWPAGE"},
        {243, "R_BFIN_ADDR"},
};
const struct pfelf__reltab pfelf__rel_bfin = {bfin, sizeof(bfin) / sizeof(bfin[0])};

static const struct pfelf__relname nios2[] = {
        {0, "R_NIOS2_NONE"},
        {1, "R_NIOS2_S16"},
        {2, "R_NIOS2_U16"},
        {3, "R_NIOS2_PCREL16"},
        {4, "R_NIOS2_CALL26"},
        {5, "R_NIOS2_IMM5"},
        {6, "R_NIOS2_CACHE_OPX"},
        {7, "R_NIOS2_IMM6"},
        {8, "R_NIOS2_IMM8"},
        {9, "R_NIOS2_HI16"},
        {10, "R_NIOS2_LO16"},
        {11, "R_NIOS2_HIADJ16"},
        {12, "R_NIOS2_BFD_RELOC_32"},
        {13, "R_NIOS2_BFD_RELOC_16"},
        {14, "R_NIOS2_BFD_RELOC_8"},
        {15, "R_NIOS2_GPREL"},
        {16, "R_NIOS2_GNU_VTINHERIT"},
        {17, "R_NIOS2_GNU_VTENTRY"},
        {18, "R_NIOS2_UJMP"},
        {19, "R_NIOS2_CJMP"},
        {20, "R_NIOS2_CALLR"},
        {21, "R_NIOS2_ALIGN"},
        {22, "R_NIOS2_GOT16"},
        {23, "R_NIOS2_CALL16"},
        {24, "R_NIOS2_GOTOFF_LO"},
        {25, "R_NIOS2_GOTOFF_HA"},
        {26, "R_NIOS2_PCREL_LO"},
        {27, "R_NIOS2_PCREL_HA"},
        {28, "R_NIOS2_TLS_GD16"},
        {29, "R_NIOS2_TLS_LDM16"},
        {30, "R_NIOS2_TLS_LDO16"},
        {31, "R_NIOS2_TLS_IE16"},
        {32, "R_NIOS2_TLS_LE16"},
        {33, "R_NIOS2_TLS_DTPMOD"},
        {34, "R_NIOS2_TLS_DTPREL"},
        {35, "R_NIOS2_TLS_TPREL"},
        {36, "R_NIOS2_COPY"},
        {37, "R_NIOS2_GLOB_DAT"},
        {38, "R_NIOS2_JUMP_SLOT"},
        {39, "R_NIOS2_RELATIVE"},
        {40, "R_NIOS2_GOTOFF"},
        {41, "R_NIOS2_CALL26_NOAT"},
        {42, "R_NIOS2_GOT_LO"},
        {43, "R_NIOS2_GOT_HA"},
        {44, "R_NIOS2_CALL_LO"},
        {45, "R_NIOS2_CALL_HA"},
        {64, "R_NIOS2_R2_S12"},
        {65, "R_NIOS2_R2_I10_1_PCREL"},
        {66, "R_NIOS2_R2_T1I7_1_PCREL"},
        {67, "R_NIOS2_R2_T1I7_2"},
        {68, "R_NIOS2_R2_T2I4"},
        {69, "R_NIOS2_R2_T2I4_1"},
        {70, "R_NIOS2_R2_T2I4_2"},
        {71, "R_NIOS2_R2_X1I7_2"},
        {72, "R_NIOS2_R2_X2L5"},
        {73, "R_NIOS2_R2_F1I5_2"},
        {74, "R_NIOS2_R2_L5I4X1"},
        {75, "R_NIOS2_R2_T1X1I6"},
        {76, "R_NIOS2_R2_T1X1I6_2"},
        {77, "R_NIOS2_ILLEGAL"},
};
const struct pfelf__reltab pfelf__rel_nios2 = {nios2, sizeof(nios2) / sizeof(nios2[0])};

static const struct pfelf__relname crx[] = {
        {0, "R_CRX_NONE"},     {1, "R_CRX_REL4"},      {2, "R_CRX_REL8"},
        {3, "R_CRX_REL8_CMP"}, {4, "R_CRX_REL16"},     {5, "R_CRX_REL24"},
        {6, "R_CRX_REL32"},    {7, "R_CRX_REGREL12"},  {8, "R_CRX_REGREL22"},
        {9, "R_CRX_REGREL28"}, {10, "R_CRX_REGREL32"}, {11, "R_CRX_ABS16"},
        {12, "R_CRX_ABS32"},   {13, "R_CRX_NUM8"},     {14, "R_CRX_NUM16"},
        {15, "R_CRX_NUM32"},   {16, "R_CRX_IMM16"},    {17, "R_CRX_IMM32"},
        {18, "R_CRX_SWITCH8"}, {19, "R_CRX_SWITCH16"}, {20, "R_CRX_SWITCH32"},
};
const struct pfelf__reltab pfelf__rel_crx = {crx, sizeof(crx) / sizeof(crx[0])};

static const struct pfelf__relname cr16[] = {
        {0, "R_CR16_NONE"},           {1, "R_CR16_NUM8"},      {2, "R_CR16_NUM16"},
        {3, "R_CR16_NUM32"},          {4, "R_CR16_NUM32a"},    {5, "R_CR16_REGREL4"},
        {6, "R_CR16_REGREL4a"},       {7, "R_CR16_REGREL14"},  {8, "R_CR16_REGREL14a"},
        {9, "R_CR16_REGREL16"},       {10, "R_CR16_REGREL20"}, {11, "R_CR16_REGREL20a"},
        {12, "R_CR16_ABS20"},         {13, "R_CR16_ABS24"},    {14, "R_CR16_IMM4"},
        {15, "R_CR16_IMM8"},          {16, "R_CR16_IMM16"},    {17, "R_CR16_IMM20"},
        {18, "R_CR16_IMM24"},         {19, "R_CR16_IMM32"},    {20, "R_CR16_IMM32a"},
        {21, "R_CR16_DISP4"},         {22, "R_CR16_DISP8"},    {23, "R_CR16_DISP16"},
        {24, "R_CR16_DISP24"},        {25, "R_CR16_DISP24a"},  {26, "R_CR16_SWITCH8"},
        {27, "R_CR16_SWITCH16"},      {28, "R_CR16_SWITCH32"}, {29, "R_CR16_GOT_REGREL20"},
        {30, "R_CR16_GOTC_REGREL20"}, {31, "R_CR16_GLOB_DAT"},
};
const struct pfelf__reltab pfelf__rel_cr16 = {cr16, sizeof(cr16) / sizeof(cr16[0])};

static const struct pfelf__relname score[] = {
        {0, "R_SCORE_NONE"},           {1, "R_SCORE_HI16"},         {2, "R_SCORE_LO16"},
        {3, "R_SCORE_BCMP"},           {4, "R_SCORE_24"},           {5, "R_SCORE_PC19"},
        {6, "R_SCORE16_11"},           {7, "R_SCORE16_PC8"},        {8, "R_SCORE_ABS32"},
        {9, "R_SCORE_ABS16"},          {10, "R_SCORE_DUMMY2"},      {11, "R_SCORE_GP15"},
        {12, "R_SCORE_GNU_VTINHERIT"}, {13, "R_SCORE_GNU_VTENTRY"}, {14, "R_SCORE_GOT15"},
        {15, "R_SCORE_GOT_LO16"},      {16, "R_SCORE_CALL15"},      {17, "R_SCORE_GPREL32"},
        {18, "R_SCORE_REL32"},         {19, "R_SCORE_DUMMY_HI16"},  {20, "R_SCORE_IMM30"},
        {21, "R_SCORE_IMM32"},
};
const struct pfelf__reltab pfelf__rel_score = {score, sizeof(score) / sizeof(score[0])};

static const struct pfelf__relname lm32[] = {
        {0, "R_LM32_NONE"},         {1, "R_LM32_8"},
        {2, "R_LM32_16"},           {3, "R_LM32_32"},
        {4, "R_LM32_HI16"},         {5, "R_LM32_LO16"},
        {6, "R_LM32_GPREL16"},      {7, "R_LM32_CALL"},
        {8, "R_LM32_BRANCH"},       {9, "R_LM32_GNU_VTINHERIT"},
        {10, "R_LM32_GNU_VTENTRY"}, {11, "R_LM32_16_GOT"},
        {12, "R_LM32_GOTOFF_HI16"}, {13, "R_LM32_GOTOFF_LO16"},
        {14, "R_LM32_COPY"},        {15, "R_LM32_GLOB_DAT"},
        {16, "R_LM32_JMP_SLOT"},    {17, "R_LM32_RELATIVE"},
};
const struct pfelf__reltab pfelf__rel_lm32 = {lm32, sizeof(lm32) / sizeof(lm32[0])};

static const struct pfelf__relname pru[] = {
        {0, "R_PRU_NONE"},
        {5, "R_PRU_16_PMEM"},
        {6, "R_PRU_U16_PMEMIMM"},
        {8, "R_PRU_BFD_RELOC_16"},
        {9, "R_PRU_U16"},
        {10, "R_PRU_32_PMEM"},
        {11, "R_PRU_BFD_RELOC_32"},
        {14, "R_PRU_S10_PCREL"},
        {15, "R_PRU_U8_PCREL"},
        {18, "R_PRU_LDI32"},
        {64, "R_PRU_GNU_BFD_RELOC_8"},
        {65, "R_PRU_GNU_DIFF8"},
        {66, "R_PRU_GNU_DIFF16"},
        {67, "R_PRU_GNU_DIFF32"},
        {68, "R_PRU_GNU_DIFF16_PMEM"},
        {69, "R_PRU_GNU_DIFF32_PMEM"},
        {70, "R_PRU_ILLEGAL"},
};
const struct pfelf__reltab pfelf__rel_pru = {pru, sizeof(pru) / sizeof(pru[0])};

static const struct pfelf__relname z80[] = {
        {0, "R_Z80_NONE"},   {1, "R_Z80_8"},      {2, "R_Z80_8_DIS"},  {3, "R_Z80_8_PCREL"},
        {4, "R_Z80_16"},     {5, "R_Z80_24"},     {6, "R_Z80_32"},     {7, "R_Z80_BYTE0"},
        {8, "R_Z80_BYTE1"},  {9, "R_Z80_BYTE2"},  {10, "R_Z80_BYTE3"}, {11, "R_Z80_WORD0"},
        {12, "R_Z80_WORD1"}, {13, "R_Z80_16_BE"},
};
const struct pfelf__reltab pfelf__rel_z80 = {z80, sizeof(z80) / sizeof(z80[0])};

static const struct pfelf__relname visium[] = {
        {0, "R_VISIUM_NONE"},
        {1, "R_VISIUM_8"},
        {2, "R_VISIUM_16"},
        {3, "R_VISIUM_32"},
        {4, "R_VISIUM_8_PCREL"},
        {5, "R_VISIUM_16_PCREL"},
        {6, "R_VISIUM_32_PCREL"},
        {7, "R_VISIUM_PC16"},
        {8, "R_VISIUM_HI16"},
        {9, "R_VISIUM_LO16"},
        {10, "R_VISIUM_IM16"},
        {11, "R_VISIUM_HI16_PCREL"},
        {12, "R_VISIUM_LO16_PCREL"},
        {13, "R_VISIUM_IM16_PCREL"},
        {200, "R_VISIUM_GNU_VTINHERIT"},
        {201, "R_VISIUM_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_visium = {visium, sizeof(visium) / sizeof(visium[0])};

static const struct pfelf__relname amdgpu[] = {
        {0, "R_AMDGPU_NONE"},          {1, "R_AMDGPU_ABS32_LO"},  {2, "R_AMDGPU_ABS32_HI"},
        {3, "R_AMDGPU_ABS64"},         {4, "R_AMDGPU_REL32"},     {5, "R_AMDGPU_REL64"},
        {6, "R_AMDGPU_ABS32"},         {7, "R_AMDGPU_GOTPCREL"},  {8, "R_AMDGPU_GOTPCREL32_LO"},
        {9, "R_AMDGPU_GOTPCREL32_HI"}, {10, "R_AMDGPU_REL32_LO"}, {11, "R_AMDGPU_REL32_HI"},
        {13, "R_AMDGPU_RELATIVE64"},   {16, "R_AMDGPU_REL16"},
};
const struct pfelf__reltab pfelf__rel_amdgpu = {amdgpu, sizeof(amdgpu) / sizeof(amdgpu[0])};

static const struct pfelf__relname bpf[] = {
        {0, "R_BPF_NONE"},          {1, "R_BPF_INSN_64"},        {2, "R_BPF_INSN_32"},
        {3, "R_BPF_INSN_16"},       {4, "R_BPF_INSN_DISP16"},    {5, "R_BPF_DATA_8_PCREL"},
        {6, "R_BPF_DATA_16_PCREL"}, {7, "R_BPF_DATA_32_PCREL"},  {8, "R_BPF_DATA_8"},
        {9, "R_BPF_DATA_16"},       {10, "R_BPF_INSN_DISP32"},   {11, "R_BPF_DATA_32"},
        {12, "R_BPF_DATA_64"},      {13, "R_BPF_DATA_64_PCREL"},
};
const struct pfelf__reltab pfelf__rel_bpf = {bpf, sizeof(bpf) / sizeof(bpf[0])};

static const struct pfelf__relname nfp[] = {
        {0, "R_NFP_NOTYPE"},          {1, "R_NFP_W32LE"},           {2, "R_NFP_SRC8_A"},
        {3, "R_NFP_SRC8_B"},          {4, "R_NFP_IMMED8_I"},        {5, "R_NFP_SC"},
        {6, "R_NFP_IMMED_LO16_I_A"},  {7, "R_NFP_IMMED_LO16_I_B"},  {8, "R_NFP_SRC7_B"},
        {9, "R_NFP_SRC7_A"},          {10, "R_NFP_SRC8_I_B"},       {11, "R_NFP_SRC8_I_A"},
        {12, "R_NFP_IMMED_HI16_I_A"}, {13, "R_NFP_IMMED_HI16_I_B"}, {14, "R_NFP_W64LE"},
        {15, "R_NFP_SH_INFO"},        {16, "R_NFP_W32BE"},          {17, "R_NFP_W64BE"},
        {18, "R_NFP_W32_29_24"},      {19, "R_NFP_W32LE_AND"},      {20, "R_NFP_W32BE_AND"},
        {21, "R_NFP_W32LE_OR"},       {22, "R_NFP_W32BE_OR"},       {23, "R_NFP_W64LE_AND"},
        {24, "R_NFP_W64BE_AND"},      {25, "R_NFP_W64LE_OR"},       {26, "R_NFP_W64BE_OR"},
};
const struct pfelf__reltab pfelf__rel_nfp = {nfp, sizeof(nfp) / sizeof(nfp[0])};

static const struct pfelf__relname nfp3200[] = {
        {0, "R_NFP3200_NOTYPE"},          {1, "R_NFP3200_W32LE"},
        {2, "R_NFP3200_SRC8_A"},          {3, "R_NFP3200_SRC8_B"},
        {4, "R_NFP3200_IMMED8_I"},        {5, "R_NFP3200_SC"},
        {6, "R_NFP3200_IMMED_LO16_I_A"},  {7, "R_NFP3200_IMMED_LO16_I_B"},
        {8, "R_NFP3200_SRC7_B"},          {9, "R_NFP3200_SRC7_A"},
        {10, "R_NFP3200_SRC8_I_B"},       {11, "R_NFP3200_SRC8_I_A"},
        {12, "R_NFP3200_IMMED_HI16_I_A"}, {13, "R_NFP3200_IMMED_HI16_I_B"},
        {14, "R_NFP3200_RSVD_0"},         {15, "R_NFP3200_RSVD_1"},
        {16, "R_NFP3200_RSVD_2"},         {17, "R_NFP3200_RSVD_3"},
        {18, "R_NFP3200_RSVD_4"},         {19, "R_NFP3200_RSVD_5"},
        {20, "R_NFP3200_RSVD_6"},         {21, "R_NFP3200_W64LE"},
        {22, "R_NFP3200_W32BE"},          {23, "R_NFP3200_W64BE"},
        {24, "R_NFP3200_W32LE_AND"},      {25, "R_NFP3200_W32BE_AND"},
        {26, "R_NFP3200_W32LE_OR"},       {27, "R_NFP3200_W32BE_OR"},
        {28, "R_NFP3200_W64LE_AND"},      {29, "R_NFP3200_W64BE_AND"},
        {30, "R_NFP3200_W64LE_OR"},       {31, "R_NFP3200_W64BE_OR"},
};
const struct pfelf__reltab pfelf__rel_nfp3200 = {nfp3200, sizeof(nfp3200) / sizeof(nfp3200[0])};

static const struct pfelf__relname wasm32[] = {
        {0, "R_WASM32_NONE"},
        {1, "R_WASM32_32"},
};
const struct pfelf__reltab pfelf__rel_wasm32 = {wasm32, sizeof(wasm32) / sizeof(wasm32[0])};
