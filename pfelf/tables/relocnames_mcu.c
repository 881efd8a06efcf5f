/* Relocation type names of microcontrollers: AVR, MSP430X and MSP430, 68HC11/68HC12, XGATE, S12Z,
 * IP2K, M32C, RL78 and RX, as binutils 2.40's readelf -r prints them (see relocnames.c). */
#include "tables/relocnames_i.h"

static const struct pfelf__relname avr[] = {
        {0, "R_AVR_NONE"},
        {1, "R_AVR_32"},
        {2, "R_AVR_7_PCREL"},
        {3, "R_AVR_13_PCREL"},
        {4, "R_AVR_16"},
        {5, "R_AVR_16_PM"},
        {6, "R_AVR_LO8_LDI"},
        {7, "R_AVR_HI8_LDI"},
        {8, "R_AVR_HH8_LDI"},
        {9, "R_AVR_LO8_LDI_NEG"},
        {10, "R_AVR_HI8_LDI_NEG"},
        {11, "R_AVR_HH8_LDI_NEG"},
        {12, "R_AVR_LO8_LDI_PM"},
        {13, "R_AVR_HI8_LDI_PM"},
        {14, "R_AVR_HH8_LDI_PM"},
        {15, "R_AVR_LO8_LDI_PM_NEG"},
        {16, "R_AVR_HI8_LDI_PM_NEG"},
        {17, "R_AVR_HH8_LDI_PM_NEG"},
        {18, "R_AVR_CALL"},
        {19, "R_AVR_LDI"},
        {20, "R_AVR_6"},
        {21, "R_AVR_6_ADIW"},
        {22, "R_AVR_MS8_LDI"},
        {23, "R_AVR_MS8_LDI_NEG"},
        {24, "R_AVR_LO8_LDI_GS"},
        {25, "R_AVR_HI8_LDI_GS"},
        {26, "R_AVR_8"},
        {27, "R_AVR_8_LO8"},
        {28, "R_AVR_8_HI8"},
        {29, "R_AVR_8_HLO8"},
        {30, "R_AVR_DIFF8"},
        {31, "R_AVR_DIFF16"},
        {32, "R_AVR_DIFF32"},
        {33, "R_AVR_LDS_STS_16"},
        {34, "R_AVR_PORT6"},
        {35, "R_AVR_PORT5"},
        {36, "R_AVR_32_PCREL"},
};
const struct pfelf__reltab pfelf__rel_avr = {avr, sizeof(avr) / sizeof(avr[0])};

static const struct pfelf__relname msp430x[] = {
        {1, "R_MSP430_ABS32"},
        {2, "R_MSP430_ABS16"},
        {3, "R_MSP430_ABS8"},
        {4, "R_MSP430_PCR16"},
        {5, "R_MSP430X_PCR20_EXT_SRC"},
        {6, "R_MSP430X_PCR20_EXT_DST"},
        {7, "R_MSP430X_PCR20_EXT_ODST"},
        {8, "R_MSP430X_ABS20_EXT_SRC"},
        {9, "R_MSP430X_ABS20_EXT_DST"},
        {10, "R_MSP430X_ABS20_EXT_ODST"},
        {11, "R_MSP430X_ABS20_ADR_SRC"},
        {12, "R_MSP430X_ABS20_ADR_DST"},
        {13, "R_MSP430X_PCR16"},
        {14, "R_MSP430X_PCR20_CALL"},
        {15, "R_MSP430X_ABS16"},
        {16, "R_MSP430_ABS_HI16"},
        {17, "R_MSP430_PREL31"},
        {18, "R_MSP430_EHTYPE"},
        {19, "R_MSP430X_10_PCREL"},
        {20, "R_MSP430X_2X_PCREL"},
        {21, "R_MSP430X_SYM_DIFF"},
        {22, "R_MSP430X_GNU_SET_ULEB128"},
        {23, "R_MSP430X_GNU_SUB_ULEB128"},
};
const struct pfelf__reltab pfelf__rel_msp430x = {msp430x, sizeof(msp430x) / sizeof(msp430x[0])};

static const struct pfelf__relname msp430[] = {
        {0, "R_MSP430_NONE"},
        {1, "R_MSP430_32"},
        {2, "R_MSP430_10_PCREL"},
        {3, "R_MSP430_16"},
        {4, "R_MSP430_16_PCREL"},
        {5, "R_MSP430_16_BYTE"},
        {6, "R_MSP430_16_PCREL_BYTE"},
        {7, "R_MSP430_2X_PCREL"},
        {8, "R_MSP430_RL_PCREL"},
        {9, "R_MSP430_8"},
        {10, "R_MSP430_SYM_DIFF"},
        {11, "R_MSP430_GNU_SET_ULEB128"},
        {12, "R_MSP430_GNU_SUB_ULEB128"},
};
const struct pfelf__reltab pfelf__rel_msp430 = {msp430, sizeof(msp430) / sizeof(msp430[0])};

static const struct pfelf__relname m68hc11[] = {
        {0, "R_M68HC11_NONE"},         {1, "R_M68HC11_8"},
        {2, "R_M68HC11_HI8"},          {3, "R_M68HC11_LO8"},
        {4, "R_M68HC11_PCREL_8"},      {5, "R_M68HC11_16"},
        {6, "R_M68HC11_32"},           {7, "R_M68HC11_3B"},
        {8, "R_M68HC11_PCREL_16"},     {9, "R_M68HC11_GNU_VTINHERIT"},
        {10, "R_M68HC11_GNU_VTENTRY"}, {11, "R_M68HC11_24"},
        {12, "R_M68HC11_LO16"},        {13, "R_M68HC11_PAGE"},
        {15, "R_M68HC12_16B"},         {16, "R_M68HC12_PCREL_9"},
        {17, "R_M68HC12_PCREL_10"},    {18, "R_M68HC12_HI8XG"},
        {19, "R_M68HC12_LO8XG"},       {20, "R_M68HC11_RL_JUMP"},
        {21, "R_M68HC11_RL_GROUP"},
};
const struct pfelf__reltab pfelf__rel_m68hc11 = {m68hc11, sizeof(m68hc11) / sizeof(m68hc11[0])};

static const struct pfelf__relname xgate[] = {
        {0, "R_XGATE_NONE"},
        {1, "R_XGATE_8"},
        {2, "R_XGATE_PCREL_8"},
        {3, "R_XGATE_16"},
        {4, "R_XGATE_32"},
        {5, "R_XGATE_PCREL_16"},
        {6, "R_XGATE_GNU_VTINHERIT"},
        {7, "R_XGATE_GNU_VTENTRY"},
        {8, "R_XGATE_24"},
        {9, "R_XGATE_LO16"},
        {10, "R_XGATE_GPAGE"},
        {11, "R_XGATE_PCREL_9"},
        {12, "R_XGATE_PCREL_10"},
        {13, "R_XGATE_IMM8_LO"},
        {14, "R_XGATE_IMM8_HI"},
        {15, "R_XGATE_IMM3"},
        {16, "R_XGATE_IMM4"},
        {17, "R_XGATE_IMM5"},
        {18, "R_XGATE_RL_JUMP"},
        {19, "R_XGATE_RL_GROUP"},
};
const struct pfelf__reltab pfelf__rel_xgate = {xgate, sizeof(xgate) / sizeof(xgate[0])};

static const struct pfelf__relname s12z[] = {
        {0, "R_S12Z_NONE"},  {1, "R_S12Z_OPR"},   {2, "R_S12Z_UKNWN_2"}, {3, "R_S12Z_PCREL_7_15"},
        {4, "R_S12Z_EXT24"}, {5, "R_S12Z_EXT18"}, {6, "R_S12Z_CW32"},    {7, "R_S12Z_EXT32"},
};
const struct pfelf__reltab pfelf__rel_s12z = {s12z, sizeof(s12z) / sizeof(s12z[0])};

static const struct pfelf__relname ip2k[] = {
        {0, "R_IP2K_NONE"},    {1, "R_IP2K_16"},         {2, "R_IP2K_32"},
        {3, "R_IP2K_FR9"},     {4, "R_IP2K_BANK"},       {5, "R_IP2K_ADDR16CJP"},
        {6, "R_IP2K_PAGE3"},   {7, "R_IP2K_LO8DATA"},    {8, "R_IP2K_HI8DATA"},
        {9, "R_IP2K_LO8INSN"}, {10, "R_IP2K_HI8INSN"},   {11, "R_IP2K_PC_SKIP"},
        {12, "R_IP2K_TEXT"},   {13, "R_IP2K_FR_OFFSET"}, {14, "R_IP2K_EX8DATA"},
};
const struct pfelf__reltab pfelf__rel_ip2k = {ip2k, sizeof(ip2k) / sizeof(ip2k[0])};

static const struct pfelf__relname m32c[] = {
        {0, "R_M32C_NONE"},      {1, "R_M32C_16"},       {2, "R_M32C_24"},
        {3, "R_M32C_32"},        {4, "R_M32C_8_PCREL"},  {5, "R_M32C_16_PCREL"},
        {6, "R_M32C_8"},         {7, "R_M32C_LO16"},     {8, "R_M32C_HI8"},
        {9, "R_M32C_HI16"},      {10, "R_M32C_RL_JUMP"}, {11, "R_M32C_RL_1ADDR"},
        {12, "R_M32C_RL_2ADDR"},
};
const struct pfelf__reltab pfelf__rel_m32c = {m32c, sizeof(m32c) / sizeof(m32c[0])};

static const struct pfelf__relname rl78[] = {
        {0, "R_RL78_NONE"},          {1, "R_RL78_DIR32"},         {2, "R_RL78_DIR24S"},
        {3, "R_RL78_DIR16"},         {4, "R_RL78_DIR16U"},        {5, "R_RL78_DIR16S"},
        {6, "R_RL78_DIR8"},          {7, "R_RL78_DIR8U"},         {8, "R_RL78_DIR8S"},
        {9, "R_RL78_DIR24S_PCREL"},  {10, "R_RL78_DIR16S_PCREL"}, {11, "R_RL78_DIR8S_PCREL"},
        {12, "R_RL78_DIR16UL"},      {13, "R_RL78_DIR16UW"},      {14, "R_RL78_DIR8UL"},
        {15, "R_RL78_DIR8UW"},       {16, "R_RL78_DIR32_REV"},    {17, "R_RL78_DIR16_REV"},
        {18, "R_RL78_DIR3U_PCREL"},  {45, "R_RL78_RH_RELAX"},     {46, "R_RL78_RH_SFR"},
        {47, "R_RL78_RH_SADDR"},     {65, "R_RL78_ABS32"},        {66, "R_RL78_ABS24S"},
        {67, "R_RL78_ABS16"},        {68, "R_RL78_ABS16U"},       {69, "R_RL78_ABS16S"},
        {70, "R_RL78_ABS8"},         {71, "R_RL78_ABS8U"},        {72, "R_RL78_ABS8S"},
        {73, "R_RL78_ABS24S_PCREL"}, {74, "R_RL78_ABS16S_PCREL"}, {75, "R_RL78_ABS8S_PCREL"},
        {76, "R_RL78_ABS16UL"},      {77, "R_RL78_ABS16UW"},      {78, "R_RL78_ABS8UL"},
        {79, "R_RL78_ABS8UW"},       {80, "R_RL78_ABS32_REV"},    {81, "R_RL78_ABS16_REV"},
        {128, "R_RL78_SYM"},         {129, "R_RL78_OPneg"},       {130, "R_RL78_OPadd"},
        {131, "R_RL78_OPsub"},       {132, "R_RL78_OPmul"},       {133, "R_RL78_OPdiv"},
        {134, "R_RL78_OPshla"},      {135, "R_RL78_OPshra"},      {136, "R_RL78_OPsctsize"},
        {141, "R_RL78_OPscttop"},    {144, "R_RL78_OPand"},       {145, "R_RL78_OPor"},
        {146, "R_RL78_OPxor"},       {147, "R_RL78_OPnot"},       {148, "R_RL78_OPmod"},
        {149, "R_RL78_OPromtop"},    {150, "R_RL78_OPramtop"},
};
const struct pfelf__reltab pfelf__rel_rl78 = {rl78, sizeof(rl78) / sizeof(rl78[0])};

static const struct pfelf__relname rx[] = {
        {0, "R_RX_NONE"},          {1, "R_RX_DIR32"},         {2, "R_RX_DIR24S"},
        {3, "R_RX_DIR16"},         {4, "R_RX_DIR16U"},        {5, "R_RX_DIR16S"},
        {6, "R_RX_DIR8"},          {7, "R_RX_DIR8U"},         {8, "R_RX_DIR8S"},
        {9, "R_RX_DIR24S_PCREL"},  {10, "R_RX_DIR16S_PCREL"}, {11, "R_RX_DIR8S_PCREL"},
        {12, "R_RX_DIR16UL"},      {13, "R_RX_DIR16UW"},      {14, "R_RX_DIR8UL"},
        {15, "R_RX_DIR8UW"},       {16, "R_RX_DIR32_REV"},    {17, "R_RX_DIR16_REV"},
        {18, "R_RX_DIR3U_PCREL"},  {32, "R_RX_RH_3_PCREL"},   {33, "R_RX_RH_16_OP"},
        {34, "R_RX_RH_24_OP"},     {35, "R_RX_RH_32_OP"},     {36, "R_RX_RH_24_UNS"},
        {37, "R_RX_RH_8_NEG"},     {38, "R_RX_RH_16_NEG"},    {39, "R_RX_RH_24_NEG"},
        {40, "R_RX_RH_32_NEG"},    {41, "R_RX_RH_DIFF"},      {42, "R_RX_RH_GPRELB"},
        {43, "R_RX_RH_GPRELW"},    {44, "R_RX_RH_GPRELL"},    {45, "R_RX_RH_RELAX"},
        {65, "R_RX_ABS32"},        {66, "R_RX_ABS24S"},       {67, "R_RX_ABS16"},
        {68, "R_RX_ABS16U"},       {69, "R_RX_ABS16S"},       {70, "R_RX_ABS8"},
        {71, "R_RX_ABS8U"},        {72, "R_RX_ABS8S"},        {73, "R_RX_ABS24S_PCREL"},
        {74, "R_RX_ABS16S_PCREL"}, {75, "R_RX_ABS8S_PCREL"},  {76, "R_RX_ABS16UL"},
        {77, "R_RX_ABS16UW"},      {78, "R_RX_ABS8UL"},       {79, "R_RX_ABS8UW"},
        {80, "R_RX_ABS32_REV"},    {81, "R_RX_ABS16_REV"},    {128, "R_RX_SYM"},
        {129, "R_RX_OPneg"},       {130, "R_RX_OPadd"},       {131, "R_RX_OPsub"},
        {132, "R_RX_OPmul"},       {133, "R_RX_OPdiv"},       {134, "R_RX_OPshla"},
        {135, "R_RX_OPshra"},      {136, "R_RX_OPsctsize"},   {141, "R_RX_OPscttop"},
        {144, "R_RX_OPand"},       {145, "R_RX_OPor"},        {146, "R_RX_OPxor"},
        {147, "R_RX_OPnot"},       {148, "R_RX_OPmod"},       {149, "R_RX_OPromtop"},
        {150, "R_RX_OPramtop"},
};
const struct pfelf__reltab pfelf__rel_rx = {rx, sizeof(rx) / sizeof(rx[0])};
