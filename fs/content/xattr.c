/* The read-only extended attributes of section and segment files. */
#include "content/xattr.h"

#include <errno.h>
#include <string.h>

#define PREFIX "user.elf."

static int section_type(const void *obj, char *buf)
{
	const struct xattr_hdr *h = obj;
	return pfelf_section_type_name_os(h->sh.type, h->machine, h->osabi, buf, XATTR_VALUE_MAX);
}

static int section_flags(const void *obj, char *buf)
{
	const struct xattr_hdr *h = obj;
	return pfelf_section_flags_string(h->sh.flags, h->machine, h->osabi, buf, XATTR_VALUE_MAX);
}

static int compress_type(const void *obj, char *buf)
{
	const struct xattr_hdr *h = obj;
	return pfelf_compress_type_name(h->ch_type, buf, XATTR_VALUE_MAX);
}

static int segment_type(const void *obj, char *buf)
{
	const struct xattr_hdr *h = obj;
	return pfelf_segment_type_name(h->ph.type, h->machine, buf, XATTR_VALUE_MAX);
}

static int segment_flags(const void *obj, char *buf)
{
	const struct xattr_hdr *h = obj;
	return pfelf_segment_flags_string(h->ph.flags, buf, XATTR_VALUE_MAX);
}

#define SH(name, form, member) XATTR_NUMBER(PREFIX name, form, struct xattr_hdr, sh.member)
#define PH(name, form, member) XATTR_NUMBER(PREFIX name, form, struct xattr_hdr, ph.member)

static const struct xattr_field section_fields[] = {
        SH("index", XATTR_DEC, index),
        XATTR_WRITTEN(PREFIX "type", section_type),
        XATTR_WRITTEN(PREFIX "flags", section_flags),
        SH("addr", XATTR_HEX, addr),
        SH("offset", XATTR_HEX, offset),
        SH("size", XATTR_DEC, size),
        SH("align", XATTR_DEC, addralign),
        SH("entsize", XATTR_DEC, entsize),
        SH("link", XATTR_DEC, link),
        SH("info", XATTR_DEC, info),
};

/* A compressed section's too (SHF_COMPRESSED with a compression header). */
static const struct xattr_field compressed_fields[] = {
        XATTR_WRITTEN(PREFIX "ch_type", compress_type),
        XATTR_NUMBER(PREFIX "ch_size", XATTR_DEC, struct xattr_hdr, ch_size),
};

static const struct xattr_field segment_fields[] = {
        PH("index", XATTR_DEC, index),
        XATTR_WRITTEN(PREFIX "type", segment_type),
        XATTR_WRITTEN(PREFIX "flags", segment_flags),
        PH("offset", XATTR_HEX, offset),
        PH("vaddr", XATTR_HEX, vaddr),
        PH("paddr", XATTR_HEX, paddr),
        PH("filesz", XATTR_DEC, filesz),
        PH("memsz", XATTR_DEC, memsz),
        PH("align", XATTR_DEC, align),
};

static const struct xattr_table sections = XATTR_TABLE(section_fields);
static const struct xattr_table compressed = XATTR_TABLE(compressed_fields);
static const struct xattr_table segments = XATTR_TABLE(segment_fields);

static const struct xattr_table *table_of(enum node_kind kind)
{
	return kind == NK_SECTION ? &sections : kind == NK_SEGMENT ? &segments : NULL;
}

size_t xattr_list(enum node_kind kind, bool is_compressed, char *buf, size_t size)
{
	const struct xattr_table *t = table_of(kind);
	size_t len = t ? xattr_table_list(t, buf, size, 0) : 0;
	if (kind == NK_SECTION && is_compressed)
		len = xattr_table_list(&compressed, buf, size, len);
	return len;
}

bool xattr_is_ours(enum node_kind kind, const char *name)
{
	return table_of(kind) && strncmp(name, PREFIX, strlen(PREFIX)) == 0;
}

int xattr_value(enum node_kind kind, const struct xattr_hdr *h, const char *name, char *buf)
{
	if (!xattr_is_ours(kind, name) || !h)
		return -ENODATA;
	int ret = xattr_table_value(table_of(kind), h, name, buf);
	if (ret == -ENODATA && kind == NK_SECTION && h->compressed)
		ret = xattr_table_value(&compressed, h, name, buf);
	return ret;
}
