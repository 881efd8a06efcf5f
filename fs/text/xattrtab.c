/* Read-only extended attributes as a table (xattrtab.h). */
#include "text/xattrtab.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

size_t xattr_table_list(const struct xattr_table *t, char *buf, size_t size, size_t len)
{
	for (size_t i = 0; i < t->n; i++) {
		size_t l = strlen(t->fields[i].name) + 1;
		if (buf && len + l <= size)
			memcpy(buf + len, t->fields[i].name, l);
		len += l;
	}
	return len;
}

const struct xattr_field *xattr_table_find(const struct xattr_table *t, const char *name)
{
	for (size_t i = 0; i < t->n; i++)
		if (strcmp(t->fields[i].name, name) == 0)
			return &t->fields[i];
	return NULL;
}

/* The unsigned number of size bytes at offset of obj. */
static uint64_t number_of(const void *obj, size_t offset, size_t size)
{
	const char *p = (const char *)obj + offset;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;
	switch (size) {
	case 1:
		memcpy(&u8, p, 1);
		return u8;
	case 2:
		memcpy(&u16, p, 2);
		return u16;
	case 4:
		memcpy(&u32, p, 4);
		return u32;
	default:
		memcpy(&u64, p, sizeof(u64));
		return u64;
	}
}

int xattr_table_value(const struct xattr_table *t, const void *obj, const char *name, char *buf)
{
	const struct xattr_field *f = xattr_table_find(t, name);
	if (!f)
		return -ENODATA;
	if (f->form == XATTR_TEXT) {
		int ret = f->text(obj, buf);
		return ret == -ENOSPC ? (int)strlen(buf) : ret;
	}
	uint64_t v = number_of(obj, f->offset, f->size);
	if (f->form == XATTR_HEX)
		return snprintf(buf, XATTR_VALUE_MAX, "0x%" PRIx64, v);
	if (f->form == XATTR_OCT)
		return snprintf(buf, XATTR_VALUE_MAX, "%" PRIo64, v);
	return snprintf(buf, XATTR_VALUE_MAX, "%" PRIu64, v);
}
