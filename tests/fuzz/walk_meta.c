/*
 * Metadata in the walk: notes (descriptors compared with the input, the
 * build id agreeing with the notes), GNU properties, core file notes, the
 * dynamic section (DT_NEEDED names agreeing with the entries), interpreter,
 * debug links, the file's CRC-32 (against a CRC-32 computed here), Go, and
 * compressed sections (decompressed within a budget, exact sizes).
 */
#include "walk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NOTES       4096
#define MAX_DYN         65536
#define NT_GNU_BUILD_ID 3
#define DT_NEEDED       1
#define DT_FLAGS_1      0x6ffffffb
#define MAX_INFLATE     ((size_t)4 << 20) /* largest section decompressed */
#define INFLATE_BUDGET  ((size_t)8 << 20) /* bytes decompressed per walk */
#define MAX_CHDR        4096              /* sections asked for a compression header */

/* Errors a metadata call may give on a file that does not change. */
static bool file_error(int ret)
{
	return ret == -EINVAL;
}

static void check_note(struct walk *w, uint32_t i, int *build_id_len)
{
	pfelf_note n;
	WALK_CHECK(pfelf_note_get(w->f, i, &n) == 0);
	WALK_CHECK(n.name != NULL && (n.desc != NULL || n.descsz == 0));
	WALK_CHECK(strlen(n.name) <= n.namesz && (n.align == 4 || n.align == 8));
	WALK_CHECK(n.desc_offset <= w->size && n.descsz <= w->size - n.desc_offset);
	WALK_CHECK(n.descsz == 0 || memcmp(n.desc, w->data + n.desc_offset, n.descsz) == 0);
	const pfelf_ehdr *h = pfelf_header(w->f);
	WALK_CHECK(n.source < (n.in_segment ? h->phnum : h->shnum));
	if (n.type == NT_GNU_BUILD_ID && strcmp(n.name, "GNU") == 0 && *build_id_len < 0)
		*build_id_len = (int)n.descsz;
	walk_mix(w, n.type ^ ((uint64_t)n.descsz << 32) ^ n.desc_offset);
	walk_mix_str(w, n.name);
}

static void walk_build_ids(struct walk *w, int expect)
{
	const uint8_t *id = NULL;
	int ret = pfelf_build_id(w->f, &id);
	walk_mix(w, (uint64_t)(int64_t)ret);
	if (expect >= 0)
		WALK_CHECK(ret == expect && (ret == 0 || id != NULL));
	else
		WALK_CHECK(ret == -ENOENT);
	char buf[256];
	ret = pfelf_go_build_id(w->f, buf, sizeof(buf));
	walk_mix(w, (uint64_t)(int64_t)ret);
	WALK_CHECK(ret == -ENOENT || ret == -ENOSPC || (ret >= 0 && (size_t)ret == strlen(buf)));
}

static void walk_properties(struct walk *w)
{
	int n = pfelf_gnu_property_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || file_error(n));
	pfelf_gnu_property p;
	for (int i = 0; i < n && i < MAX_NOTES; i++) {
		WALK_CHECK(pfelf_gnu_property_get(w->f, (uint32_t)i, &p) == 0);
		WALK_CHECK(p.data != NULL || p.datasz == 0);
		uint64_t sum = 0;
		for (uint32_t k = 0; k < p.datasz; k++)
			sum = sum * 31 + p.data[k];
		walk_mix(w, sum ^ p.type ^ p.value);
		if (p.datasz != 4 && p.datasz != 8)
			WALK_CHECK(p.value == 0);
	}
	if (n >= 0)
		WALK_CHECK(pfelf_gnu_property_get(w->f, (uint32_t)n, &p) == -ENOENT);
}

static void walk_core(struct walk *w)
{
	int n = pfelf_core_thread_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || file_error(n));
	n = pfelf_core_file_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || file_error(n));
	pfelf_core_file c;
	for (int i = 0; i < n && i < MAX_NOTES; i++) {
		WALK_CHECK(pfelf_core_file_get(w->f, (uint32_t)i, &c) == 0 && c.path != NULL);
		walk_mix(w, c.start ^ c.end ^ c.offset ^ c.page_size);
		walk_mix_str(w, c.path);
	}
	if (n >= 0)
		WALK_CHECK(pfelf_core_file_get(w->f, (uint32_t)n, &c) == -ENOENT);
}

void walk_notes(struct walk *w)
{
	int n = pfelf_note_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK(n >= 0 || file_error(n));
	WALK_CHECK(pfelf_note_count(w->f) == n);
	int build_id = -1;
	for (int i = 0; i < n && i < MAX_NOTES; i++)
		check_note(w, (uint32_t)i, &build_id);
	pfelf_note note;
	if (n >= 0) {
		WALK_CHECK(pfelf_note_get(w->f, (uint32_t)n, &note) == -ENOENT);
		if (n <= MAX_NOTES)
			walk_build_ids(w, build_id);
	}
	walk_properties(w);
	walk_core(w);
}

/* A string the library returns: 0 and a string, or an allowed error. */
static void check_string(struct walk *w, int ret, const char *s)
{
	walk_mix(w, (uint64_t)(int64_t)ret);
	WALK_CHECK(ret == 0 || ret == -ENOENT || ret == -EINVAL);
	if (ret == 0) {
		WALK_CHECK(s != NULL);
		walk_mix_str(w, s);
	}
}

void walk_dynamic(struct walk *w)
{
	int n = pfelf_dynamic_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)n);
	WALK_CHECK((n >= 0 && n <= MAX_DYN) || file_error(n));
	uint64_t tag, val, flags1 = 0;
	uint32_t needed = 0;
	bool has_flags1 = false;
	for (int i = 0; i < n; i++) {
		WALK_CHECK(pfelf_dynamic_entry(w->f, (uint32_t)i, &tag, &val) == 0);
		walk_mix(w, tag ^ (val << 1));
		needed += tag == DT_NEEDED;
		if (tag == DT_FLAGS_1 && !has_flags1) {
			has_flags1 = true;
			flags1 = val;
		}
		if (tag == DT_NEEDED && i < 256) {
			const char *s = NULL;
			int ret = pfelf_dynamic_string(w->f, val, &s);
			check_string(w, ret, s);
		}
	}
	if (n >= 0)
		WALK_CHECK(pfelf_dynamic_entry(w->f, (uint32_t)n, &tag, &val) == -ENOENT);
	int nn = pfelf_needed_count(w->f);
	walk_mix(w, (uint64_t)(int64_t)nn);
	WALK_CHECK(n < 0 ? nn == n : nn >= 0 && (uint32_t)nn == needed);
	const char *s = NULL;
	for (int i = 0; i < nn && i < 256; i++) {
		int ret = pfelf_needed(w->f, (uint32_t)i, &s);
		check_string(w, ret, s);
	}
	if (nn >= 0)
		WALK_CHECK(pfelf_needed(w->f, (uint32_t)nn, &s) == -ENOENT);
	int ret = pfelf_soname(w->f, &s);
	check_string(w, ret, s);
	ret = pfelf_rpath(w->f, &s);
	check_string(w, ret, s);
	ret = pfelf_runpath(w->f, &s);
	check_string(w, ret, s);
	ret = pfelf_interpreter(w->f, &s);
	check_string(w, ret, s);
	ret = pfelf_dynamic_flags_1(w->f, &val);
	walk_mix(w, (uint64_t)(int64_t)ret);
	if (n >= 0)
		WALK_CHECK(has_flags1 ? ret == 0 && val == flags1 : ret == -ENOENT);
}

/* CRC-32 (IEEE, reflected), as .gnu_debuglink stores it. */
static uint32_t crc32_of(const uint8_t *p, size_t n)
{
	static uint32_t table[256];
	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;
			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++)
		c = table[(c ^ p[i]) & 0xff] ^ (c >> 8);
	return c ^ 0xffffffffu;
}

void walk_links_go(struct walk *w)
{
	const char *name = NULL;
	uint32_t crc = 0;
	int ret = pfelf_debuglink(w->f, &name, &crc);
	check_string(w, ret, name);
	const uint8_t *id = NULL;
	ret = pfelf_debugaltlink(w->f, &name, &id);
	walk_mix(w, (uint64_t)(int64_t)ret);
	WALK_CHECK(ret >= 0 || ret == -ENOENT || ret == -EINVAL);
	if (ret >= 0)
		WALK_CHECK(name != NULL && (ret == 0 || id != NULL));
	WALK_CHECK(pfelf_file_crc32(w->f, &crc) == 0 && crc == crc32_of(w->data, w->size));
	int go = pfelf_is_go(w->f);
	walk_mix(w, (uint64_t)(int64_t)go);
	WALK_CHECK(go == 0 || go == 1 || file_error(go));
	char buf[128];
	ret = pfelf_go_version(w->f, buf, sizeof(buf));
	walk_mix(w, (uint64_t)(int64_t)ret);
	if (ret > 0 && (size_t)ret != strlen(buf) && walk_known_bug("go-version-nul"))
		ret = (int)strlen(buf);
	WALK_CHECK(ret == -ENOENT || ret == -EINVAL || ret == -ENOSPC ||
	           (ret >= 0 && (size_t)ret == strlen(buf)));
	uint64_t off = 0, size = 0;
	ret = pfelf_go_pclntab(w->f, &off, &size);
	walk_mix(w, (uint64_t)(int64_t)ret);
	WALK_CHECK(ret == 0 || ret == -ENOENT || file_error(ret));
	if (ret == 0 && off <= w->size && size <= w->size - off)
		walk_range(w, off, size);
}

static void walk_decompress(struct walk *w, uint32_t i, const pfelf_chdr *ch, size_t *budget)
{
	bool known = ch->type == PFELF_COMPRESS_ZLIB || ch->type == PFELF_COMPRESS_ZSTD ||
	             ch->type == PFELF_COMPRESS_XZ;
	if (ch->size > MAX_INFLATE || ch->size > *budget) {
		uint8_t b[1];
		ssize_t r = pfelf_section_decompress(w->f, i, b, 0);
		WALK_CHECK(r == (known ? -E2BIG : -ENOTSUP));
		return;
	}
	*budget -= (size_t)ch->size;
	size_t len = (size_t)ch->size;
	uint8_t *buf = malloc(len ? len : 1);
	WALK_CHECK(buf != NULL);
	ssize_t r = pfelf_section_decompress(w->f, i, buf, len);
	walk_mix(w, (uint64_t)r);
	if (!known) {
		WALK_CHECK(r == -ENOTSUP);
	} else {
		WALK_CHECK(r == (ssize_t)len || r == -EINVAL);
		if (r == (ssize_t)len && len > 0) {
			walk_mix(w, buf[0] ^ ((uint64_t)buf[len - 1] << 8));
			WALK_CHECK(pfelf_section_decompress(w->f, i, buf, len - 1) == -E2BIG);
		}
	}
	free(buf);
}

void walk_compressed(struct walk *w)
{
	int n = pfelf_section_count(w->f);
	size_t budget = INFLATE_BUDGET;
	for (int i = 0; i < n && i < MAX_CHDR; i++) {
		pfelf_chdr ch;
		int ret = pfelf_section_chdr(w->f, (uint32_t)i, &ch);
		walk_mix(w, (uint64_t)(int64_t)ret);
		WALK_CHECK(ret == 0 || ret == -ENODATA || ret == -EINVAL);
		if (ret != 0)
			continue;
		WALK_CHECK(ch.data_size == 0 ||
		           (ch.data_offset <= w->size && ch.data_size <= w->size - ch.data_offset));
		walk_mix(w,
		         ch.type ^ ch.size ^ ch.align ^ ch.data_offset ^ ch.data_size ^ ch.legacy);
		walk_names_compress(w, ch.type);
		walk_decompress(w, (uint32_t)i, &ch, &budget);
	}
}
