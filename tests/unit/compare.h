/*
 * Compare a pfelf handle's section and program header tables with readelf's
 * parse of the same file. Every difference is printed on stdout as
 * "MISMATCH <label>: ..." and counted.
 */
#ifndef TB_COMPARE_H
#define TB_COMPARE_H

#include <pfelf.h>

#include "readelf_parse.h"

struct cmp_counts {
	unsigned long files;
	unsigned long sections;
	unsigned long segments;
	unsigned long mismatches;
};

/* Compare f with rf; adds to c and returns the mismatches of this file. */
unsigned long cmp_tables(pfelf_file *f, const struct re_file *rf, const char *label,
                         struct cmp_counts *c);

/*
 * Whether pfelf's name mine for segment type type agrees with readelf's
 * column rtype. readelf cuts the column to 14 characters; where it has no
 * name (LOOS+, LOPROC+, <unknown>) pfelf says "0x%08x" (SPEC); where it
 * prints a machine-specific name bare ("EXIDX", "ABIFLAGS") pfelf says it
 * with the machine prefix of the PT_ constant ("ARM_EXIDX", SPEC). With
 * lenient, a processor-specific type readelf has no name for may also
 * carry a machine-prefixed name in pfelf.
 */
bool cmp_segment_type_ok(const char *mine, const char *rtype, uint32_t type, bool lenient);

#endif
