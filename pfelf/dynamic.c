/* What the dynamic section says about the file as a whole: whether it is a
 * position-independent executable (DT_FLAGS_1 & DF_1_PIE), as readelf -h
 * decides it. */
#include "pfelf_i.h"

#include <stdio.h>
#include <stdlib.h>

#define MAX_DYNAMIC ((size_t)1 << 20) /* bytes of dynamic entries looked at */

static int flags1_pie(pfelf_file *f, const pfelf_phdr *p)
{
	size_t esz = f->is64 ? 16 : 8;
	size_t len = p->filesz < MAX_DYNAMIC ? (size_t)p->filesz : MAX_DYNAMIC;
	len -= len % esz;
	if (len == 0 || (p->status & PFELF_ST_OUT_OF_FILE))
		return 0;
	uint8_t *raw = malloc(len);
	if (!raw)
		return -ENOMEM;
	int ret = pfelf__read_range(f, p->offset, raw, len);
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, raw, ret < 0 ? 0 : len, f->msb);
	int pie = 0;
	while (ret == 0 && c.pos < c.len) {
		uint64_t tag = pfelf__getw(&c, f->is64);
		uint64_t val = pfelf__getw(&c, f->is64);
		if (tag == DT_NULL)
			break;
		if (tag == DT_FLAGS_1) {
			pie = (val & DF_1_PIE) != 0;
			break;
		}
	}
	free(raw);
	return ret < 0 ? ret : pie;
}

PFELF_API int pfelf_is_pie(pfelf_file *f)
{
	if (f->eh.type != 3 /* ET_DYN */)
		return 0;
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++)
		if (f->ph[i].type == PT_DYNAMIC)
			return flags1_pie(f, &f->ph[i]);
	return 0;
}

PFELF_API int pfelf_file_type_name(pfelf_file *f, char *buf, size_t buflen)
{
	if (pfelf_is_pie(f) == 1) {
		int n = snprintf(buf, buflen, "DYN (Position-Independent Executable file)");
		return (size_t)n >= buflen ? -ENOSPC : n;
	}
	return pfelf_type_name(f->eh.type, buf, buflen);
}
