/* Go binaries: whether a file is one, and its build info read as Go
 * 1.19's debug/buildinfo reads it. The 32-byte header (the magic at a
 * 16-byte boundary) is searched in the first 64 KiB at .go.buildinfo's
 * address, else at the first PT_LOAD that is writable and not executable;
 * the version and the module information follow it as uvarint-prefixed
 * strings (Go 1.18+), or are Go string headers it points to (before). */
#include "tables/go_i.h"

#include <stdlib.h>
#include <string.h>

#define BI_MAGIC     "\xff Go buildinf:"
#define BI_MAGIC_LEN 14
#define BI_ALIGN     16
#define BI_HDR       32
#define BI_WINDOW    ((uint64_t)64 << 10)
#define MAX_VERSION  4096u

/* debug/buildinfo's DataStart: .go.buildinfo's address, else the first
 * PT_LOAD writable and not executable. */
static int data_start(pfelf_file *f, uint64_t *addr)
{
	const pfelf_shdr *s;
	if (pfelf_section_count(f) > 0 && pfelf_section_by_name(f, ".go.buildinfo", &s) == 0) {
		*addr = s->addr;
		return 0;
	}
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type == PT_LOAD && (p->flags & (PF_X | PF_W)) == PF_W) {
			*addr = p->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* debug/buildinfo's ReadData: at most size bytes at addr from the first
 * program header whose file bytes hold addr, copied into a new *buf (the
 * caller frees it) of *len bytes. -EFAULT when none holds addr, -EINVAL
 * when its bytes are outside the file, -EIO, -ENOMEM. */
static int read_data(pfelf_file *f, uint64_t addr, uint64_t size, uint8_t **buf, size_t *len)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->filesz == 0 || addr < p->vaddr || addr - p->vaddr >= p->filesz)
			continue;
		if (p->status & PFELF_ST_OUT_OF_FILE)
			return -EINVAL;
		uint64_t skip = addr - p->vaddr;
		uint64_t take = p->filesz - skip < size ? p->filesz - skip : size;
		int ret = pfelf__copy_table(f, p->offset + skip, take, buf);
		if (ret == 0)
			*len = (size_t)take;
		return ret;
	}
	return -EFAULT;
}

/* The window from the build info header on, in *buf (the caller frees
 * it): 0, -ENOENT (no header), -EINVAL, -EIO, -ENOMEM. */
static int find_buildinfo(pfelf_file *f, uint8_t **buf, size_t *len)
{
	uint64_t addr;
	int ret = data_start(f, &addr);
	if (ret == 0)
		ret = read_data(f, addr, BI_WINDOW, buf, len);
	if (ret == -EFAULT)
		ret = -ENOENT;
	if (ret < 0)
		return ret;
	uint8_t *data = *buf;
	for (size_t i = 0; *len >= BI_HDR && i <= *len - BI_HDR; i += BI_ALIGN) {
		if (memcmp(data + i, BI_MAGIC, BI_MAGIC_LEN) == 0) {
			*len -= i;
			memmove(data, data + i, *len);
			return 0;
		}
	}
	free(data);
	return -ENOENT;
}

/* debug/buildinfo's decodeString: a uvarint length and that many bytes,
 * with at least one byte after them. 0, or -EINVAL (the string is then ""
 * to Go). */
static int decode_string(const uint8_t *p, size_t len, const char **s, size_t *slen, size_t *used)
{
	uint64_t v = 0;
	for (size_t i = 0; i < len && i < 10; i++) {
		v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
		if (!(p[i] & 0x80)) {
			if (v >= len - i - 1)
				return -EINVAL;
			*s = (const char *)p + i + 1;
			*slen = (size_t)v;
			*used = i + 1 + (size_t)v;
			return 0;
		}
	}
	return -EINVAL;
}

/* The pre-1.18 format: the Go string header (data, len) at vaddr, its
 * bytes appended to *buf at *at. -EINVAL when the header or the bytes are
 * not whole in one program header (Go reads them as ""). */
static int pointer_string(pfelf_file *f, const uint8_t *hdr, uint64_t vaddr, uint8_t **buf,
                          size_t *at, size_t *slen)
{
	unsigned ps = hdr[14];
	bool msb = hdr[15] != 0;
	uint8_t *sh, *data;
	size_t n = 0;
	int ret = read_data(f, vaddr, 2 * (uint64_t)ps, &sh, &n);
	if (ret < 0)
		return ret == -EFAULT ? -EINVAL : ret;
	if (n < 2 * (size_t)ps) {
		free(sh);
		return -EINVAL;
	}
	uint64_t addr = pfelf__go_word(sh, ps, msb), len = pfelf__go_word(sh + ps, ps, msb);
	free(sh);
	if (len == 0) {
		*slen = 0;
		return 0;
	}
	if ((ret = read_data(f, addr, len, &data, &n)) < 0)
		return ret == -EFAULT ? -EINVAL : ret;
	uint8_t *grown = n == len ? realloc(*buf, *at + n + 1) : NULL;
	if (grown) {
		memcpy(grown + *at, data, n);
		grown[*at + n] = 0;
		*buf = grown;
		*slen = n;
	}
	free(data);
	return n != len ? -EINVAL : grown ? 0 : -ENOMEM;
}

/* The module text inside Go's framing (16 bytes each side), or "". */
static void unframe(const char **mod, size_t *mlen)
{
	if (*mlen >= 33 && (*mod)[*mlen - 17] == '\n') {
		*mod += 16;
		*mlen -= 32;
	} else {
		*mlen = 0;
	}
}

static int raw_inline(uint8_t *buf, size_t len, const char **vers, size_t *vlen, const char **mod,
                      size_t *mlen)
{
	size_t used;
	if (decode_string(buf + BI_HDR, len - BI_HDR, vers, vlen, &used) < 0)
		return -EINVAL;
	size_t at = BI_HDR + used;
	if (decode_string(buf + at, len - at, mod, mlen, &used) < 0)
		*mlen = 0;
	return 0;
}

static int raw_pointers(pfelf_file *f, uint8_t **buf, size_t len, const char **vers, size_t *vlen,
                        const char **mod, size_t *mlen)
{
	uint8_t hdr[BI_HDR];
	memcpy(hdr, *buf, BI_HDR);
	unsigned ps = hdr[14];
	if (ps != 4 && ps != 8)
		return -EINVAL;
	bool msb = hdr[15] != 0;
	size_t vat = len, mat;
	int ret = pointer_string(f, hdr, pfelf__go_word(hdr + 16, ps, msb), buf, &vat, vlen);
	if (ret < 0)
		return ret;
	mat = vat + *vlen + 1;
	ret = pointer_string(f, hdr, pfelf__go_word(hdr + 16 + ps, ps, msb), buf, &mat, mlen);
	if (ret == -EIO || ret == -ENOMEM)
		return ret;
	if (ret < 0)
		*mlen = 0;
	*vers = (const char *)*buf + vat;
	*mod = (const char *)*buf + mat;
	return 0;
}

int pfelf__go_raw_buildinfo(pfelf_file *f, uint8_t **buf, const char **vers, size_t *vlen,
                            const char **mod, size_t *mlen)
{
	size_t len;
	int ret = find_buildinfo(f, buf, &len);
	if (ret < 0)
		return ret;
	if ((*buf)[15] & 2) /* Go 1.18+: inline strings after the header */
		ret = raw_inline(*buf, len, vers, vlen, mod, mlen);
	else
		ret = raw_pointers(f, buf, len, vers, vlen, mod, mlen);
	if (ret == 0 && *vlen == 0)
		ret = -ENOENT;
	if (ret < 0) {
		free(*buf);
		*buf = NULL;
		return ret;
	}
	unframe(mod, mlen);
	return 0;
}

PFELF_API int pfelf_go_version(pfelf_file *f, char *buf, size_t buflen)
{
	uint8_t *raw;
	const char *vers, *mod;
	size_t vlen, mlen;
	if (!buf || buflen == 0)
		return -ENOSPC;
	buf[0] = 0;
	int ret = pfelf__go_raw_buildinfo(f, &raw, &vers, &vlen, &mod, &mlen);
	if (ret < 0)
		return ret;
	if (vlen > MAX_VERSION || memchr(vers, 0, vlen)) /* a NUL inside: malformed */
		ret = -EINVAL;
	else if (vlen >= buflen)
		ret = -ENOSPC;
	if (ret == 0) {
		memcpy(buf, vers, vlen);
		buf[vlen] = 0;
		ret = (int)vlen;
	}
	free(raw);
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
	uint8_t *buf;
	size_t len;
	ret = find_buildinfo(f, &buf, &len);
	if (ret == 0) {
		free(buf);
		return 1;
	}
	return ret == -EIO || ret == -ENOMEM ? ret : 0;
}
