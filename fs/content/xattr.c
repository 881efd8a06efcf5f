/* The read-only extended attributes of section and segment files. */
#include "content/xattr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define PREFIX "user.elf."

static const char *const sec_keys[] = {"index", "type",    "flags", "addr", "offset", "size",
                                       "align", "entsize", "link",  "info", NULL};
static const char *const seg_keys[] = {"index", "type",   "flags", "offset", "vaddr",
                                       "paddr", "filesz", "memsz", "align",  NULL};

static const char *const *keys_of(enum node_kind kind)
{
	return kind == NK_SECTION ? sec_keys : kind == NK_SEGMENT ? seg_keys : NULL;
}

static const char *const ch_keys[] = {"ch_type", "ch_size", NULL};

static size_t list_keys(const char *const *keys, char *buf, size_t size, size_t len)
{
	for (unsigned i = 0; keys && keys[i]; i++) {
		size_t l = strlen(PREFIX) + strlen(keys[i]) + 1;
		if (buf && len + l <= size) {
			memcpy(buf + len, PREFIX, strlen(PREFIX));
			memcpy(buf + len + strlen(PREFIX), keys[i], l - strlen(PREFIX));
		}
		len += l;
	}
	return len;
}

size_t xattr_list(enum node_kind kind, bool compressed, char *buf, size_t size)
{
	size_t len = list_keys(keys_of(kind), buf, size, 0);
	if (kind == NK_SECTION && compressed)
		len = list_keys(ch_keys, buf, size, len);
	return len;
}

bool xattr_is_ours(enum node_kind kind, const char *name)
{
	return keys_of(kind) && strncmp(name, PREFIX, strlen(PREFIX)) == 0;
}

static int hex(char *buf, uint64_t v)
{
	return snprintf(buf, XATTR_VALUE_MAX, "0x%" PRIx64, v);
}

static int dec(char *buf, uint64_t v)
{
	return snprintf(buf, XATTR_VALUE_MAX, "%" PRIu64, v);
}

static int section_value(const struct xattr_hdr *f, const char *key, char *buf)
{
	const pfelf_shdr *sh = &f->sh;
	if (strcmp(key, "index") == 0)
		return dec(buf, sh->index);
	if (strcmp(key, "type") == 0)
		return pfelf_section_type_name_os(sh->type, f->machine, f->osabi, buf,
		                                  XATTR_VALUE_MAX);
	if (strcmp(key, "flags") == 0)
		return pfelf_section_flags_string(sh->flags, f->machine, f->osabi, buf,
		                                  XATTR_VALUE_MAX);
	if (strcmp(key, "addr") == 0)
		return hex(buf, sh->addr);
	if (strcmp(key, "offset") == 0)
		return hex(buf, sh->offset);
	if (strcmp(key, "size") == 0)
		return dec(buf, sh->size);
	if (strcmp(key, "align") == 0)
		return dec(buf, sh->addralign);
	if (strcmp(key, "entsize") == 0)
		return dec(buf, sh->entsize);
	if (strcmp(key, "link") == 0)
		return dec(buf, sh->link);
	if (strcmp(key, "info") == 0)
		return dec(buf, sh->info);
	if (strcmp(key, "ch_type") == 0 && f->compressed)
		return pfelf_compress_type_name(f->ch_type, buf, XATTR_VALUE_MAX);
	if (strcmp(key, "ch_size") == 0 && f->compressed)
		return dec(buf, f->ch_size);
	return -ENODATA;
}

static int segment_value(const struct xattr_hdr *f, const char *key, char *buf)
{
	const pfelf_phdr *ph = &f->ph;
	if (strcmp(key, "index") == 0)
		return dec(buf, ph->index);
	if (strcmp(key, "type") == 0)
		return pfelf_segment_type_name(ph->type, f->machine, buf, XATTR_VALUE_MAX);
	if (strcmp(key, "flags") == 0)
		return pfelf_segment_flags_string(ph->flags, buf, XATTR_VALUE_MAX);
	if (strcmp(key, "offset") == 0)
		return hex(buf, ph->offset);
	if (strcmp(key, "vaddr") == 0)
		return hex(buf, ph->vaddr);
	if (strcmp(key, "paddr") == 0)
		return hex(buf, ph->paddr);
	if (strcmp(key, "filesz") == 0)
		return dec(buf, ph->filesz);
	if (strcmp(key, "memsz") == 0)
		return dec(buf, ph->memsz);
	if (strcmp(key, "align") == 0)
		return dec(buf, ph->align);
	return -ENODATA;
}

int xattr_value(enum node_kind kind, const struct xattr_hdr *h, const char *name, char *buf)
{
	if (!xattr_is_ours(kind, name) || !h)
		return -ENODATA;
	const char *key = name + strlen(PREFIX);
	int ret = kind == NK_SECTION ? section_value(h, key, buf) : segment_value(h, key, buf);
	if (ret == -ENOSPC)
		ret = (int)strlen(buf); /* cut to XATTR_VALUE_MAX - 1: never for real names */
	return ret;
}
