/* Go binaries: the build info (".go.buildinfo", else the first writable
 * PT_LOAD) with the Go version in the 1.18+ inline format or the older
 * pointer format, and the location of .gopclntab (its section, else a
 * validated header found by scanning the first read-only PT_LOAD). Every
 * read is bounded: 64 KiB of build info, 4 KiB version strings, 1 MiB
 * scan chunks. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

#define BI_MAGIC     "\xff Go buildinf:"
#define BI_MAGIC_LEN 14
#define BI_ALIGN     16
#define BI_HDR       32
#define BI_SCAN      ((size_t)64 << 10)
#define MAX_VERSION  4096u
#define SCAN_CHUNK   ((size_t)1 << 20)
#define PCLN_HDR_MAX 72 /* 8 + 8 words of 8 bytes */

/* The file range of the section named name: -ENOENT when there is none,
 * -EINVAL when it has no bytes in the file. */
static int section_range(pfelf_file *f, const char *name, uint64_t *off, uint64_t *len)
{
	const pfelf_shdr *s;
	if (pfelf_section_count(f) <= 0 || pfelf_section_by_name(f, name, &s) != 0)
		return -ENOENT;
	if (s->type == SHT_NOBITS || (s->status & PFELF_ST_OUT_OF_FILE))
		return -EINVAL;
	*off = s->offset;
	*len = s->size;
	return 0;
}

/* The virtual address and file range where the build info is searched. */
static int buildinfo_range(pfelf_file *f, uint64_t *off, uint64_t *len)
{
	int ret = section_range(f, ".go.buildinfo", off, len);
	if (ret != -ENOENT)
		return ret;
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_LOAD || (p->flags & (PF_X | PF_W)) != PF_W)
			continue;
		if (p->status & PFELF_ST_OUT_OF_FILE)
			return -EINVAL;
		*off = p->offset;
		*len = p->filesz;
		return 0;
	}
	return -ENOENT;
}

/* Copy the 32-byte build info header (16-aligned magic) into hdr and the
 * bytes after it (up to the scan window) into *rest. */
static int find_buildinfo(pfelf_file *f, uint8_t hdr[BI_HDR], uint8_t **rest, size_t *rest_len)
{
	uint64_t off, len;
	int ret = buildinfo_range(f, &off, &len);
	if (ret < 0)
		return ret;
	if (len > BI_SCAN)
		len = BI_SCAN;
	uint8_t *data;
	if ((ret = pfelf__copy_table(f, off, len, &data)) < 0)
		return ret;
	for (size_t i = 0; len >= BI_HDR && i <= len - BI_HDR; i += BI_ALIGN) {
		if (memcmp(data + i, BI_MAGIC, BI_MAGIC_LEN) != 0)
			continue;
		memcpy(hdr, data + i, BI_HDR);
		*rest_len = (size_t)len - i - BI_HDR;
		memmove(data, data + i + BI_HDR, *rest_len);
		*rest = data;
		return 0;
	}
	free(data);
	return -ENOENT;
}

/* A Go uvarint-prefixed string at p (len bytes): its bytes and length. */
static int decode_string(const uint8_t *p, size_t len, const uint8_t **s, uint64_t *slen)
{
	uint64_t v = 0;
	for (size_t i = 0; i < len && i < 10; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (v > len - i - 1)
				return -EINVAL;
			*s = p + i + 1;
			*slen = v;
			return 0;
		}
	}
	return -EINVAL;
}

static uint64_t word(const uint8_t *p, int ptrsize, bool msb)
{
	return ptrsize == 8 ? pfelf__u64(p, msb) : pfelf__u32(p, msb);
}

/* The pre-1.18 format: a pointer to a Go string header (data, len). */
static int pointer_string(pfelf_file *f, const uint8_t hdr[BI_HDR], char *buf, size_t buflen)
{
	int ptrsize = hdr[14];
	bool msb = hdr[15] != 0;
	if (ptrsize != 4 && ptrsize != 8)
		return -EINVAL;
	uint8_t sh[16];
	if (pfelf_read_vaddr(f, word(hdr + 16, ptrsize, msb), sh, (size_t)ptrsize * 2) < 0)
		return -EINVAL;
	uint64_t data = word(sh, ptrsize, msb), len = word(sh + ptrsize, ptrsize, msb);
	if (len == 0)
		return -ENOENT;
	if (len > MAX_VERSION)
		return -EINVAL;
	if (len >= buflen)
		return -ENOSPC;
	if (pfelf_read_vaddr(f, data, buf, (size_t)len) < 0)
		return -EINVAL;
	buf[len] = 0;
	return (int)len;
}

PFELF_API int pfelf_go_version(pfelf_file *f, char *buf, size_t buflen)
{
	uint8_t hdr[BI_HDR], *rest;
	size_t rest_len;
	if (!buf || buflen == 0)
		return -ENOSPC;
	buf[0] = 0;
	int ret = find_buildinfo(f, hdr, &rest, &rest_len);
	if (ret < 0)
		return ret;
	if (hdr[15] & 2) { /* 1.18+: inline uvarint strings after the header */
		const uint8_t *s;
		uint64_t len;
		ret = decode_string(rest, rest_len, &s, &len);
		if (ret == 0 && len == 0)
			ret = -ENOENT;
		else if (ret == 0 && len > MAX_VERSION)
			ret = -EINVAL;
		else if (ret == 0 && len >= buflen)
			ret = -ENOSPC;
		if (ret == 0) {
			memcpy(buf, s, (size_t)len);
			buf[len] = 0;
			ret = (int)len;
		}
	} else {
		ret = pointer_string(f, hdr, buf, buflen);
	}
	if (ret > 0 && strlen(buf) != (size_t)ret) {
		buf[0] = 0; /* a NUL inside the version: malformed */
		ret = -EINVAL;
	}
	free(rest);
	return ret;
}

PFELF_API int pfelf_is_go(pfelf_file *f)
{
	const pfelf_shdr *s;
	if (pfelf_section_count(f) > 0 && (pfelf_section_by_name(f, ".go.buildinfo", &s) == 0 ||
	                                   pfelf_section_by_name(f, ".gopclntab", &s) == 0))
		return 1;
	char id[8];
	int ret = pfelf_go_build_id(f, id, sizeof(id));
	if (ret >= 0 || ret == -ENOSPC)
		return 1;
	if (ret != -ENOENT && ret != -EINVAL)
		return ret;
	uint8_t hdr[BI_HDR], *rest;
	size_t rest_len;
	ret = find_buildinfo(f, hdr, &rest, &rest_len);
	if (ret == 0) {
		free(rest);
		return 1;
	}
	return ret == -EIO || ret == -ENOMEM ? ret : 0;
}

/* A pclntab header at p (avail bytes to the end of the segment)? */
static bool pcln_header(const uint8_t *p, uint64_t avail, bool msb)
{
	uint32_t magic = pfelf__u32(p, msb);
	int q = p[6], ps = p[7];
	if (p[4] || p[5] || (q != 1 && q != 2 && q != 4) || (ps != 4 && ps != 8))
		return false;
	uint64_t nfunc = word(p + 8, ps, msb);
	if (nfunc == 0 || nfunc > avail)
		return false;
	if (magic == 0xfffffffb) /* Go 1.2 - 1.15: functab follows nfunc */
		return nfunc <= (avail - 8 - (uint64_t)ps) / (2 * (uint64_t)ps);
	int first; /* word index of funcnameOffset */
	if (magic == 0xfffffffa)
		first = 2; /* 1.16, 1.17: nfunc, nfiles, then five offsets */
	else if (magic == 0xfffffff0 || magic == 0xfffffff1)
		first = 3; /* 1.18+: nfunc, nfiles, textStart, then five offsets */
	else
		return false;
	uint64_t prev = 8 + (uint64_t)(first + 5) * ps;
	for (int i = 0; i < 5; i++) {
		uint64_t o = word(p + 8 + (size_t)(first + i) * ps, ps, msb);
		if (o < prev || o >= avail)
			return false;
		prev = o;
	}
	return true;
}

/* Scan a read-only PT_LOAD for a pclntab header, chunk by chunk. */
static int scan_segment(pfelf_file *f, const pfelf_phdr *p, uint64_t *offset, uint64_t *size)
{
	uint8_t *buf = malloc(SCAN_CHUNK + PCLN_HDR_MAX);
	if (!buf)
		return -ENOMEM;
	int ret = -ENOENT;
	for (uint64_t at = 0; at + 8 <= p->filesz && ret == -ENOENT; at += SCAN_CHUNK) {
		uint64_t left = p->filesz - at;
		size_t n =
		        left < SCAN_CHUNK + PCLN_HDR_MAX ? (size_t)left : SCAN_CHUNK + PCLN_HDR_MAX;
		int r = pfelf__read_range(f, p->offset + at, buf, n);
		if (r < 0) {
			ret = r;
			break;
		}
		for (size_t i = 0; i < SCAN_CHUNK && i + PCLN_HDR_MAX <= n; i += 4) {
			if (buf[i + 1] == 0xff && buf[i + 2] == 0xff &&
			    pcln_header(buf + i, left - i, f->msb)) {
				*offset = p->offset + at + i;
				*size = left - i;
				ret = 0;
				break;
			}
		}
	}
	free(buf);
	return ret;
}

PFELF_API int pfelf_go_pclntab(pfelf_file *f, uint64_t *offset, uint64_t *size)
{
	int ret = section_range(f, ".gopclntab", offset, size);
	if (ret != -ENOENT)
		return ret;
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_LOAD || (p->flags & (PF_W | PF_X)) || !(p->flags & PF_R))
			continue;
		if (p->status & PFELF_ST_OUT_OF_FILE)
			return -EINVAL;
		return scan_segment(f, p, offset, size);
	}
	return -ENOENT;
}
