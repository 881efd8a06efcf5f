/* Separate debug information links: .gnu_debuglink (file name and the
 * CRC-32 of the debug file) and .gnu_debugaltlink (file name and build
 * id), and the CRC-32 of a whole file to check a debuglink against. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define MAX_LINK  ((uint64_t)1 << 20) /* larger link sections are malformed */
#define CRC_CHUNK ((size_t)1 << 20)

/* Copy section name into *out (NULL when absent or unusable). */
static int copy_named(pfelf_file *f, const char *name, uint8_t **out, size_t *len)
{
	const pfelf_shdr *s;
	int ret = pfelf_section_by_name(f, name, &s);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return ret;
	if (s->type == SHT_NOBITS || (s->status & PFELF_ST_OUT_OF_FILE) || s->size > MAX_LINK)
		return 0;
	ret = pfelf__copy_table(f, s->offset, s->size, out);
	if (ret == 0)
		*len = (size_t)s->size;
	return ret;
}

static int load_links(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf_tables *m = f->tables;
	int n = pfelf_section_count(f);
	if (n <= 0)
		return n;
	int ret = copy_named(f, ".gnu_debuglink", &m->debuglink, &m->debuglink_len);
	if (ret == 0)
		ret = copy_named(f, ".gnu_debugaltlink", &m->altlink, &m->altlink_len);
	if (ret < 0) {
		free(m->debuglink);
		m->debuglink = NULL;
	}
	return ret;
}

static int links(pfelf_file *f, struct pfelf_tables **m)
{
	int ret = pfelf__tables(f);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->link_state, load_links, NULL);
	*m = f->tables;
	return ret;
}

PFELF_API int pfelf_debuglink(pfelf_file *f, const char **name, uint32_t *crc)
{
	struct pfelf_tables *m;
	int ret = links(f, &m);
	if (ret < 0)
		return ret;
	if (!m->debuglink)
		return -ENOENT;
	size_t nlen = strnlen((const char *)m->debuglink, m->debuglink_len);
	size_t crc_at = (nlen + 4) & ~(size_t)3; /* after the NUL, 4-aligned */
	if (nlen == m->debuglink_len || crc_at > m->debuglink_len || m->debuglink_len - crc_at < 4)
		return -EINVAL;
	*name = (const char *)m->debuglink;
	*crc = pfelf__u32(m->debuglink + crc_at, f->msb);
	return 0;
}

PFELF_API int pfelf_debugaltlink(pfelf_file *f, const char **name, const uint8_t **id)
{
	struct pfelf_tables *m;
	int ret = links(f, &m);
	if (ret < 0)
		return ret;
	if (!m->altlink)
		return -ENOENT;
	size_t nlen = strnlen((const char *)m->altlink, m->altlink_len);
	if (nlen == m->altlink_len)
		return -EINVAL;
	*name = (const char *)m->altlink;
	*id = m->altlink + nlen + 1;
	return (int)(m->altlink_len - nlen - 1);
}

PFELF_API int pfelf_file_crc32(pfelf_file *f, uint32_t *crc)
{
	/* A chunk at a time through the kernel-mediated copy (a mapped file
	 * may shrink under us); no bigger than the file. */
	size_t chunk = f->size < CRC_CHUNK ? (size_t)f->size : CRC_CHUNK;
	uint8_t *buf = malloc(chunk ? chunk : 1);
	if (!buf)
		return -ENOMEM;
	uLong c = crc32(0L, Z_NULL, 0);
	int ret = 0;
	for (uint64_t off = 0; off < f->size && ret == 0;) {
		size_t n = f->size - off < chunk ? (size_t)(f->size - off) : chunk;
		ret = pfelf__read_range(f, off, buf, n);
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	free(buf);
	if (ret == 0)
		*crc = (uint32_t)c;
	return ret;
}
