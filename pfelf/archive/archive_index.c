/*
 * The symbol index of an archive, decoded at open and bounds-checked:
 *  - GNU "/": a 32-bit big-endian count N, N 32-bit big-endian member
 *    header offsets, then N NUL-ended names; "/SYM64/" the same with
 *    64-bit words.
 *  - BSD "__.SYMDEF": a word giving the bytes of the ranlib array, the
 *    array of {name offset, member header offset} pairs, a word giving the
 *    bytes of the string table, the strings; "__.SYMDEF_64" with 64-bit
 *    words. Its byte order is the target's: little-endian is tried first,
 *    then big-endian.
 * Any inconsistency makes the whole index -EINVAL; members stay readable.
 */
#include "archive/archive_i.h"

#include <stdlib.h>
#include <string.h>

static uint64_t word(const uint8_t *p, bool is64, bool msb)
{
	return is64 ? pfelf__u64(p, msb) : pfelf__u32(p, msb);
}

static int gnu(pfelf_archive *a, const uint8_t *d, uint64_t len, bool is64)
{
	size_t w = is64 ? 8 : 4;
	if (len < w)
		return -EINVAL;
	uint64_t n = word(d, is64, true);
	/* Each entry takes a word and at least a NUL. */
	if (n > (len - w) / (w + 1))
		return -EINVAL;
	struct ar_sym *s = calloc(n ? (size_t)n : 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	uint64_t str = w + n * w;
	for (uint64_t i = 0; i < n; i++) {
		const uint8_t *e = str < len ? memchr(d + str, '\0', (size_t)(len - str)) : NULL;
		if (!e) {
			free(s);
			return -EINVAL;
		}
		s[i].header_offset = word(d + w + i * w, is64, true);
		s[i].name_off = (uint32_t)str;
		str = (uint64_t)(e - d) + 1;
	}
	a->syms = s;
	a->nsyms = (uint32_t)n;
	return 0;
}

static int bsd_order(pfelf_archive *a, const uint8_t *d, uint64_t len, bool is64, bool msb)
{
	size_t w = is64 ? 8 : 4;
	if (len < w)
		return -EINVAL;
	uint64_t ranlib = word(d, is64, msb);
	if (ranlib % (2 * w) != 0 || ranlib > len - w || len - w - ranlib < w)
		return -EINVAL;
	uint64_t strsize = word(d + w + ranlib, is64, msb);
	uint64_t str = w + ranlib + w;
	if (strsize > len - str)
		return -EINVAL;
	uint64_t n = ranlib / (2 * w);
	struct ar_sym *s = calloc(n ? (size_t)n : 1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint64_t i = 0; i < n; i++) {
		uint64_t strx = word(d + w + i * 2 * w, is64, msb);
		const uint8_t *e = strx < strsize
		                           ? memchr(d + str + strx, '\0', (size_t)(strsize - strx))
		                           : NULL;
		if (!e) {
			free(s);
			return -EINVAL;
		}
		s[i].name_off = (uint32_t)(str + strx);
		s[i].header_offset = word(d + w + i * 2 * w + w, is64, msb);
	}
	a->syms = s;
	a->nsyms = (uint32_t)n;
	return 0;
}

int pfelf__ar_index(pfelf_archive *a, enum pfelf_ar_index k, uint64_t off, uint64_t len)
{
	a->index_kind = k;
	/* Offsets of names are kept in 32 bits: the cap keeps them below. */
	if (len > AR_INDEX_MAX) {
		a->index_error = -EINVAL;
		return -EINVAL;
	}
	uint8_t *d = malloc(len ? (size_t)len : 1);
	if (!d)
		return -ENOMEM;
	int ret = pfelf__ar_read(a, off, d, (size_t)len);
	if (ret < 0) {
		free(d);
		a->index_error = -EINVAL;
		return ret == -EIO ? -EINVAL : ret;
	}
	switch (k) {
	case PFELF_AR_INDEX_GNU:
	case PFELF_AR_INDEX_GNU64:
		ret = gnu(a, d, len, k == PFELF_AR_INDEX_GNU64);
		break;
	default:
		ret = bsd_order(a, d, len, k == PFELF_AR_INDEX_BSD64, false);
		if (ret == -EINVAL)
			ret = bsd_order(a, d, len, k == PFELF_AR_INDEX_BSD64, true);
		break;
	}
	if (ret < 0) {
		free(d);
		if (ret == -EINVAL)
			a->index_error = -EINVAL;
		return ret;
	}
	a->index = d;
	a->symstr = (char *)d;
	return 0;
}

PFELF_API enum pfelf_ar_index pfelf_archive_index_kind(const pfelf_archive *a)
{
	return a->index_kind;
}

PFELF_API int pfelf_archive_symbol_count(const pfelf_archive *a)
{
	return a->index_error ? a->index_error : (int)a->nsyms;
}

PFELF_API int pfelf_archive_symbol(const pfelf_archive *a, uint32_t index, pfelf_ar_symbol *out)
{
	if (a->index_error)
		return a->index_error;
	if (!out || index >= a->nsyms)
		return -ENOENT;
	const struct ar_sym *s = &a->syms[index];
	out->name = a->symstr + s->name_off;
	out->header_offset = s->header_offset;
	out->member = s->member;
	return 0;
}
