/* Decoding and validating the ELF header, extended numbering included. */
#include "pfelf_i.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EHDR32_SIZE 52
#define EHDR64_SIZE 64
#define SHDR32_SIZE 40
#define SHDR64_SIZE 64

/* Refuse f's header with err: the reason (a printf format) goes to f->why
 * when pfelf_header_why() asked for it. */
static int refuse(pfelf_file *f, int err, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

static int refuse(pfelf_file *f, int err, const char *fmt, ...)
{
	if (f->why && f->why_len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(f->why, f->why_len, fmt, ap);
		va_end(ap);
	}
	return err;
}

/* What decides the layout of everything else: the magic, EI_CLASS and
 * EI_DATA. EI_VERSION is not checked (readelf reads such files; elffs's
 * info notes it). */
static int check_ident(pfelf_file *f, const uint8_t *id)
{
	if (memcmp(id, "\177ELF", 4) != 0)
		return refuse(f, -ENOEXEC, "no ELF magic");
	if (id[4] != 1 && id[4] != 2)
		return refuse(f, -EINVAL, "EI_CLASS %u: neither ELFCLASS32 nor ELFCLASS64", id[4]);
	if (id[5] != 1 && id[5] != 2)
		return refuse(f, -EINVAL, "EI_DATA %u: neither ELFDATA2LSB nor ELFDATA2MSB", id[5]);
	f->is64 = id[4] == 2;
	f->msb = id[5] == 2;
	return 0;
}

static void decode_ehdr(pfelf_file *f, const uint8_t *b, size_t len)
{
	pfelf_ehdr *e = &f->eh;
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, b, len, f->msb);
	memcpy(e->ident, b, 16);
	pfelf__skip(&c, 16);
	e->elfclass = b[4];
	e->data = b[5];
	e->osabi = b[7];
	e->abiversion = b[8];
	e->type = pfelf__get16(&c);
	e->machine = pfelf__get16(&c);
	e->version = pfelf__get32(&c);
	e->entry = pfelf__getw(&c, f->is64);
	e->phoff = pfelf__getw(&c, f->is64);
	e->shoff = pfelf__getw(&c, f->is64);
	e->flags = pfelf__get32(&c);
	e->ehsize = pfelf__get16(&c);
	e->phentsize = pfelf__get16(&c);
	e->raw_phnum = pfelf__get16(&c);
	e->shentsize = pfelf__get16(&c);
	e->raw_shnum = pfelf__get16(&c);
	e->raw_shstrndx = pfelf__get16(&c);
}

int pfelf__read_shdr(pfelf_file *f, uint32_t index, pfelf_shdr *sh)
{
	size_t esz = f->is64 ? SHDR64_SIZE : SHDR32_SIZE;
	uint8_t b[SHDR64_SIZE];
	if (f->eh.shentsize < esz)
		return -EINVAL;
	uint64_t off = f->eh.shoff + (uint64_t)index * f->eh.shentsize;
	if (off < f->eh.shoff)
		return -EINVAL;
	int ret = pfelf__read_range(f, off, b, esz);
	if (ret < 0)
		return ret;
	pfelf__decode_shdr(b, index, f->is64, f->msb, sh);
	return 0;
}

/* Resolve e_shnum == 0, e_shstrndx == SHN_XINDEX and e_phnum == PN_XNUM
 * through section header 0. */
static int resolve_counts(pfelf_file *f)
{
	pfelf_ehdr *e = &f->eh;
	e->shnum = e->raw_shnum;
	e->phnum = e->raw_phnum;
	e->shstrndx = e->raw_shstrndx;
	if (e->shoff == 0) {
		if (e->raw_phnum == PN_XNUM)
			return refuse(f, -EINVAL,
			              "e_phnum PN_XNUM (0xffff) without section headers");
		e->shnum = 0;
		e->shstrndx = 0;
		return 0;
	}
	bool ext = e->raw_shnum == 0 || e->raw_shstrndx == SHN_XINDEX || e->raw_phnum == PN_XNUM;
	if (!ext)
		return 0;
	pfelf_shdr s0;
	int ret = pfelf__read_shdr(f, 0, &s0);
	if (ret == -EIO)
		return refuse(f, ret, "section header 0 (extended numbering): read error");
	if (ret < 0)
		return refuse(f, -EINVAL,
		              "section header 0 (extended numbering): e_shoff 0x%" PRIx64
		              " e_shentsize %u out of the file",
		              e->shoff, e->shentsize);
	if (e->raw_shnum == 0) {
		if (s0.size > INT32_MAX)
			return refuse(f, -EINVAL, "section count (sh_size of section 0) %" PRIu64,
			              s0.size);
		e->shnum = (uint32_t)s0.size;
	}
	if (e->raw_shstrndx == SHN_XINDEX)
		e->shstrndx = s0.link;
	if (e->raw_phnum == PN_XNUM)
		e->phnum = s0.info;
	return 0;
}

/*
 * readelf's rule: a header is usable when the fields that give the layout
 * of the rest (class, byte order, the section and program header tables,
 * which their own loads check) are; e_version, EI_VERSION and e_ehsize
 * are not (e_version 0x70 comes from a real toolchain, e_ehsize 0 from
 * another), and the daemon's info notes them.
 */
int pfelf__parse_header(pfelf_file *f)
{
	uint8_t b[EHDR64_SIZE];
	if (f->size < 16)
		return refuse(f, -ENOEXEC, "%" PRIu64 " bytes: shorter than e_ident (16 bytes)",
		              f->size);
	size_t have = f->size < EHDR64_SIZE ? (size_t)f->size : EHDR64_SIZE;
	int ret = pfelf__read_range(f, 0, b, have); /* one copy for ident and header */
	if (ret < 0)
		return refuse(f, ret, "ELF header: read error");
	ret = check_ident(f, b);
	if (ret < 0)
		return ret;
	size_t need = f->is64 ? EHDR64_SIZE : EHDR32_SIZE;
	if (have < need)
		return refuse(f, -EINVAL,
		              "%" PRIu64 " bytes: shorter than an ELF%u header (%zu bytes)",
		              f->size, f->is64 ? 64u : 32u, need);
	decode_ehdr(f, b, need);
	return resolve_counts(f);
}

/*
 * PFELF_OPEN_RAW: keep f, whose header was refused with err, as its bytes
 * only when it has ELF magic: e_ident and what decode_ehdr took, no table
 * (every table of f is read from the fields zeroed here). 0, or err.
 */
static int keep_raw(pfelf_file *f, int err)
{
	uint8_t id[16] = {0};
	size_t n = f->size < sizeof(id) ? (size_t)f->size : sizeof(id);
	if ((err != -EINVAL && err != -ENOEXEC) || f->size < 4 ||
	    pfelf__read_range(f, 0, id, n) < 0 || memcmp(id, "\177ELF", 4) != 0)
		return err;
	pfelf_ehdr *e = &f->eh;
	memcpy(e->ident, id, sizeof(id));
	e->phoff = e->shoff = 0;
	e->raw_phnum = e->raw_shnum = e->raw_shstrndx = 0;
	e->phnum = e->shnum = e->shstrndx = 0;
	f->refused = err;
	return 0;
}

int pfelf__finish_open(pfelf_file *f, unsigned flags, pfelf_file **out)
{
	int ret = pfelf__parse_header(f);
	if (ret < 0 && (flags & PFELF_OPEN_RAW))
		ret = keep_raw(f, ret);
	if (ret < 0) {
		pfelf__free(f);
		return ret;
	}
	*out = f;
	return 0;
}

PFELF_API int pfelf_header_error(const pfelf_file *f)
{
	return f->refused;
}

PFELF_API const pfelf_ehdr *pfelf_header(const pfelf_file *f)
{
	return &f->eh;
}
