/* Relocation type names of the Cygnus-era embedded cores: MN10300, MN10200, FR30, FR-V, D10V, D30V,
 * M*Core, MT, IQ2000, MeP, DLX, Xstormy16, picoJava, Moxie, FT32 and Epiphany, as binutils 2.40's
 * readelf -r prints them (see relocnames.c). */
#include "tables/relocnames_i.h"

static const struct pfelf__relname mn10300[] = {
        {0, "R_MN10300_NONE"},        {1, "R_MN10300_32"},
        {2, "R_MN10300_16"},          {3, "R_MN10300_8"},
        {4, "R_MN10300_PCREL32"},     {5, "R_MN10300_PCREL16"},
        {6, "R_MN10300_PCREL8"},      {7, "R_MN10300_GNU_VTINHERIT"},
        {8, "R_MN10300_GNU_VTENTRY"}, {9, "R_MN10300_24"},
        {10, "R_MN10300_GOTPC32"},    {11, "R_MN10300_GOTPC16"},
        {12, "R_MN10300_GOTOFF32"},   {13, "R_MN10300_GOTOFF24"},
        {14, "R_MN10300_GOTOFF16"},   {15, "R_MN10300_PLT32"},
        {16, "R_MN10300_PLT16"},      {17, "R_MN10300_GOT32"},
        {18, "R_MN10300_GOT24"},      {19, "R_MN10300_GOT16"},
        {20, "R_MN10300_COPY"},       {21, "R_MN10300_GLOB_DAT"},
        {22, "R_MN10300_JMP_SLOT"},   {23, "R_MN10300_RELATIVE"},
        {24, "R_MN10300_TLS_GD"},     {25, "R_MN10300_TLS_LD"},
        {26, "R_MN10300_TLS_LDO"},    {27, "R_MN10300_TLS_GOTIE"},
        {28, "R_MN10300_TLS_IE"},     {29, "R_MN10300_TLS_LE"},
        {30, "R_MN10300_TLS_DTPMOD"}, {31, "R_MN10300_TLS_DTPOFF"},
        {32, "R_MN10300_TLS_TPOFF"},  {33, "R_MN10300_SYM_DIFF"},
        {34, "R_MN10300_ALIGN"},
};
const struct pfelf__reltab pfelf__rel_mn10300 = {mn10300, sizeof(mn10300) / sizeof(mn10300[0])};

static const struct pfelf__relname mn10200[] = {
        {0, "R_MN10200_NONE"},    {1, "R_MN10200_32"},      {2, "R_MN10200_16"},
        {3, "R_MN10200_8"},       {4, "R_MN10200_24"},      {5, "R_MN10200_PCREL8"},
        {6, "R_MN10200_PCREL16"}, {7, "R_MN10200_PCREL24"},
};
const struct pfelf__reltab pfelf__rel_mn10200 = {mn10200, sizeof(mn10200) / sizeof(mn10200[0])};

static const struct pfelf__relname fr30[] = {
        {0, "R_FR30_NONE"},         {1, "R_FR30_8"},         {2, "R_FR30_20"},
        {3, "R_FR30_32"},           {4, "R_FR30_48"},        {5, "R_FR30_6_IN_4"},
        {6, "R_FR30_8_IN_8"},       {7, "R_FR30_9_IN_8"},    {8, "R_FR30_10_IN_8"},
        {9, "R_FR30_9_PCREL"},      {10, "R_FR30_12_PCREL"}, {11, "R_FR30_GNU_VTINHERIT"},
        {12, "R_FR30_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_fr30 = {fr30, sizeof(fr30) / sizeof(fr30[0])};

static const struct pfelf__relname frv[] = {
        {0, "R_FRV_NONE"},
        {1, "R_FRV_32"},
        {2, "R_FRV_LABEL16"},
        {3, "R_FRV_LABEL24"},
        {4, "R_FRV_LO16"},
        {5, "R_FRV_HI16"},
        {6, "R_FRV_GPREL12"},
        {7, "R_FRV_GPRELU12"},
        {8, "R_FRV_GPREL32"},
        {9, "R_FRV_GPRELHI"},
        {10, "R_FRV_GPRELLO"},
        {11, "R_FRV_GOT12"},
        {12, "R_FRV_GOTHI"},
        {13, "R_FRV_GOTLO"},
        {14, "R_FRV_FUNCDESC"},
        {15, "R_FRV_FUNCDESC_GOT12"},
        {16, "R_FRV_FUNCDESC_GOTHI"},
        {17, "R_FRV_FUNCDESC_GOTLO"},
        {18, "R_FRV_FUNCDESC_VALUE"},
        {19, "R_FRV_FUNCDESC_GOTOFF12"},
        {20, "R_FRV_FUNCDESC_GOTOFFHI"},
        {21, "R_FRV_FUNCDESC_GOTOFFLO"},
        {22, "R_FRV_GOTOFF12"},
        {23, "R_FRV_GOTOFFHI"},
        {24, "R_FRV_GOTOFFLO"},
        {25, "R_FRV_GETTLSOFF"},
        {26, "R_FRV_TLSDESC_VALUE"},
        {27, "R_FRV_GOTTLSDESC12"},
        {28, "R_FRV_GOTTLSDESCHI"},
        {29, "R_FRV_GOTTLSDESCLO"},
        {30, "R_FRV_TLSMOFF12"},
        {31, "R_FRV_TLSMOFFHI"},
        {32, "R_FRV_TLSMOFFLO"},
        {33, "R_FRV_GOTTLSOFF12"},
        {34, "R_FRV_GOTTLSOFFHI"},
        {35, "R_FRV_GOTTLSOFFLO"},
        {36, "R_FRV_TLSOFF"},
        {37, "R_FRV_TLSDESC_RELAX"},
        {38, "R_FRV_GETTLSOFF_RELAX"},
        {39, "R_FRV_TLSOFF_RELAX"},
        {40, "R_FRV_TLSMOFF"},
        {200, "R_FRV_GNU_VTINHERIT"},
        {201, "R_FRV_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_frv = {frv, sizeof(frv) / sizeof(frv[0])};

static const struct pfelf__relname d10v[] = {
        {0, "R_D10V_NONE"},        {1, "R_D10V_10_PCREL_R"},
        {2, "R_D10V_10_PCREL_L"},  {3, "R_D10V_16"},
        {4, "R_D10V_18"},          {5, "R_D10V_18_PCREL"},
        {6, "R_D10V_32"},          {7, "R_D10V_GNU_VTINHERIT"},
        {8, "R_D10V_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_d10v = {d10v, sizeof(d10v) / sizeof(d10v[0])};

static const struct pfelf__relname d30v[] = {
        {0, "R_D30V_NONE"},       {1, "R_D30V_6"},   {2, "R_D30V_9_PCREL"},
        {3, "R_D30V_9_PCREL_R"},  {4, "R_D30V_15"},  {5, "R_D30V_15_PCREL"},
        {6, "R_D30V_15_PCREL_R"}, {7, "R_D30V_21"},  {8, "R_D30V_21_PCREL"},
        {9, "R_D30V_21_PCREL_R"}, {10, "R_D30V_32"}, {11, "R_D30V_32_PCREL"},
        {12, "R_D30V_32_NORMAL"},
};
const struct pfelf__reltab pfelf__rel_d30v = {d30v, sizeof(d30v) / sizeof(d30v[0])};

static const struct pfelf__relname mcore[] = {
        {0, "R_MCORE_NONE"},
        {1, "R_MCORE_ADDR32"},
        {2, "R_MCORE_PCRELIMM8BY4"},
        {3, "R_MCORE_PCRELIMM11BY2"},
        {4, "R_MCORE_PCRELIMM4BY2"},
        {5, "R_MCORE_PCREL32"},
        {6, "R_MCORE_PCRELJSR_IMM11BY2"},
        {7, "R_MCORE_GNU_VTINHERIT"},
        {8, "R_MCORE_GNU_VTENTRY"},
        {9, "R_MCORE_RELATIVE"},
        {10, "R_MCORE_COPY"},
        {11, "R_MCORE_GLOB_DAT"},
        {12, "R_MCORE_JUMP_SLOT"},
};
const struct pfelf__reltab pfelf__rel_mcore = {mcore, sizeof(mcore) / sizeof(mcore[0])};

static const struct pfelf__relname mt[] = {
        {0, "R_MT_NONE"}, {1, "R_MT_16"},   {2, "R_MT_32"},   {3, "R_MT_32_PCREL"},
        {4, "R_MT_PC16"}, {5, "R_MT_HI16"}, {6, "R_MT_LO16"},
};
const struct pfelf__reltab pfelf__rel_mt = {mt, sizeof(mt) / sizeof(mt[0])};

static const struct pfelf__relname iq2000[] = {
        {0, "R_IQ2000_NONE"},
        {1, "R_IQ2000_16"},
        {2, "R_IQ2000_32"},
        {3, "R_IQ2000_26"},
        {4, "R_IQ2000_PC16"},
        {5, "R_IQ2000_HI16"},
        {6, "R_IQ2000_LO16"},
        {7, "R_IQ2000_OFFSET_16"},
        {8, "R_IQ2000_OFFSET_21"},
        {9, "R_IQ2000_UHI16"},
        {10, "R_IQ2000_32_DEBUG"},
        {200, "R_IQ2000_GNU_VTINHERIT"},
        {201, "R_IQ2000_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_iq2000 = {iq2000, sizeof(iq2000) / sizeof(iq2000[0])};

static const struct pfelf__relname mep[] = {
        {0, "R_MEP_NONE"},         {1, "R_RELC"},          {2, "R_MEP_8"},
        {3, "R_MEP_16"},           {4, "R_MEP_32"},        {5, "R_MEP_PCREL8A2"},
        {6, "R_MEP_PCREL12A2"},    {7, "R_MEP_PCREL17A2"}, {8, "R_MEP_PCREL24A2"},
        {9, "R_MEP_PCABS24A2"},    {10, "R_MEP_LOW16"},    {11, "R_MEP_HI16U"},
        {12, "R_MEP_HI16S"},       {13, "R_MEP_GPREL"},    {14, "R_MEP_TPREL"},
        {15, "R_MEP_TPREL7"},      {16, "R_MEP_TPREL7A2"}, {17, "R_MEP_TPREL7A4"},
        {18, "R_MEP_UIMM24"},      {19, "R_MEP_ADDR24A4"}, {20, "R_MEP_GNU_VTINHERIT"},
        {21, "R_MEP_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_mep = {mep, sizeof(mep) / sizeof(mep[0])};

static const struct pfelf__relname dlx[] = {
        {0, "R_DLX_NONE"},           {1, "R_DLX_RELOC_8"},       {2, "R_DLX_RELOC_16"},
        {3, "R_DLX_RELOC_32"},       {4, "R_DLX_GNU_VTINHERIT"}, {5, "R_DLX_GNU_VTENTRY"},
        {6, "R_DLX_RELOC_16_HI"},    {7, "R_DLX_RELOC_16_LO"},   {8, "R_DLX_RELOC_16_PCREL"},
        {9, "R_DLX_RELOC_26_PCREL"},
};
const struct pfelf__reltab pfelf__rel_dlx = {dlx, sizeof(dlx) / sizeof(dlx[0])};

static const struct pfelf__relname xstormy16[] = {
        {0, "R_XSTORMY16_NONE"},
        {1, "R_XSTORMY16_32"},
        {2, "R_XSTORMY16_16"},
        {3, "R_XSTORMY16_8"},
        {4, "R_XSTORMY16_PC32"},
        {5, "R_XSTORMY16_PC16"},
        {6, "R_XSTORMY16_PC8"},
        {7, "R_XSTORMY16_REL_12"},
        {8, "R_XSTORMY16_24"},
        {9, "R_XSTORMY16_FPTR16"},
        {10, "R_XSTORMY16_LO16"},
        {11, "R_XSTORMY16_HI16"},
        {12, "R_XSTORMY16_12"},
        {128, "R_XSTORMY16_GNU_VTINHERIT"},
        {129, "R_XSTORMY16_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_xstormy16 = {xstormy16,
                                                   sizeof(xstormy16) / sizeof(xstormy16[0])};

static const struct pfelf__relname pj[] = {
        {0, "R_PJ_NONE"},         {1, "R_PJ_DATA_DIR32"}, {2, "R_PJ_CODE_REL32"},
        {3, "R_PJ_CODE_REL16"},   {6, "R_PJ_CODE_DIR32"}, {7, "R_PJ_CODE_DIR16"},
        {13, "R_PJ_CODE_LO16"},   {14, "R_PJ_CODE_HI16"}, {15, "R_PJ_GNU_VTINHERIT"},
        {16, "R_PJ_GNU_VTENTRY"},
};
const struct pfelf__reltab pfelf__rel_pj = {pj, sizeof(pj) / sizeof(pj[0])};

static const struct pfelf__relname moxie[] = {
        {0, "R_MOXIE_NONE"},
        {1, "R_MOXIE_32"},
        {2, "R_MOXIE_PCREL10"},
};
const struct pfelf__reltab pfelf__rel_moxie = {moxie, sizeof(moxie) / sizeof(moxie[0])};

static const struct pfelf__relname ft32[] = {
        {0, "R_FT32_NONE"},    {1, "R_FT32_32"},  {2, "R_FT32_16"},   {3, "R_FT32_8"},
        {4, "R_FT32_10"},      {5, "R_FT32_20"},  {6, "R_FT32_17"},   {7, "R_FT32_18"},
        {8, "R_FT32_RELAX"},   {9, "R_FT32_SC0"}, {10, "R_FT32_SC1"}, {11, "R_FT32_15"},
        {12, "R_FT32_DIFF32"},
};
const struct pfelf__reltab pfelf__rel_ft32 = {ft32, sizeof(ft32) / sizeof(ft32[0])};

static const struct pfelf__relname epiphany[] = {
        {0, "R_EPIPHANY_NONE"},     {1, "R_EPIPHANY_8"},       {2, "R_EPIPHANY_16"},
        {3, "R_EPIPHANY_32"},       {4, "R_EPIPHANY_8_PCREL"}, {5, "R_EPIPHANY_16_PCREL"},
        {6, "R_EPIPHANY_32_PCREL"}, {7, "R_EPIPHANY_SIMM8"},   {8, "R_EPIPHANY_SIMM24"},
        {9, "R_EPIPHANY_HIGH"},     {10, "R_EPIPHANY_LOW"},    {11, "R_EPIPHANY_SIMM11"},
        {12, "R_EPIPHANY_IMM11"},   {13, "R_EPIPHANY_IMM8"},
};
const struct pfelf__reltab pfelf__rel_epiphany = {epiphany, sizeof(epiphany) / sizeof(epiphany[0])};
