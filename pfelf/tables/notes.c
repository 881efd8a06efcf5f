/* Notes: the SHT_NOTE sections (PT_NOTE segments for core files and files
 * without note sections), 4- or 8-byte aligned, copied on first use with
 * every name NUL-ended; and the notes pfelf knows: GNU build id, Go build
 * id, GNU properties, a core file's NT_PRSTATUS and NT_FILE. */
#include "tables/tables_i.h"

#include <stdlib.h>
#include <string.h>

#define NOTE_HDR        12
#define MAX_NOTES_BYTES ((size_t)64 << 20)

/* A growing copy of every note's name and descriptor. */
struct builder {
	struct pfelf__notes *n;
	size_t cap_notes;
	size_t cap_data;
};

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t ncap = *cap ? *cap : 16;
	while (ncap < need)
		ncap *= 2;
	void *q = realloc(*p, ncap * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = ncap;
	return 0;
}

/* Append one note whose header starts at raw[at]; its name and descriptor
 * have been checked to lie inside raw. */
static int add_note(struct builder *b, const uint8_t *name, const uint8_t *desc,
                    struct pfelf__note *note)
{
	struct pfelf__notes *n = b->n;
	size_t need = n->data_len + note->namesz + 1 + note->descsz;
	if (need > MAX_NOTES_BYTES)
		return -ENOSPC;
	int ret = grow((void **)&n->data, &b->cap_data, need, 1);
	if (ret == 0)
		ret = grow((void **)&n->notes, &b->cap_notes, (size_t)n->count + 1,
		           sizeof(*n->notes));
	if (ret < 0)
		return ret;
	note->name_at = n->data_len;
	memcpy(n->data + n->data_len, name, note->namesz);
	n->data[n->data_len + note->namesz] = 0;
	note->desc_at = n->data_len + note->namesz + 1;
	memcpy(n->data + note->desc_at, desc, note->descsz);
	n->data_len = need;
	n->notes[n->count++] = *note;
	return 0;
}

/* Parse the notes of one region; a malformed note ends it. */
static int parse_region(pfelf_file *f, struct builder *b, const uint8_t *raw, size_t len,
                        uint64_t off, struct pfelf__note proto)
{
	size_t a = proto.align;
	size_t pos = 0;
	while (len - pos >= NOTE_HDR) {
		struct pfelf__note note = proto;
		note.namesz = pfelf__u32(raw + pos, f->msb);
		note.descsz = pfelf__u32(raw + pos + 4, f->msb);
		note.type = pfelf__u32(raw + pos + 8, f->msb);
		size_t name_end = pos + NOTE_HDR + note.namesz;
		if (note.namesz > len || name_end > len)
			break;
		size_t desc = align_up(name_end, a);
		if (desc > len || note.descsz > len - desc)
			break;
		note.desc_offset = off + desc;
		int ret = add_note(b, raw + pos + NOTE_HDR, raw + desc, &note);
		if (ret < 0)
			return ret == -ENOSPC ? 0 : ret;
		size_t next = align_up(desc + note.descsz, a);
		if (next <= pos || next > len)
			break;
		pos = next;
	}
	return 0;
}

static int add_region(pfelf_file *f, struct builder *b, uint64_t off, uint64_t len, uint64_t align,
                      uint32_t source, bool segment)
{
	if (len == 0 || len > MAX_NOTES_BYTES || b->n->data_len > MAX_NOTES_BYTES - len)
		return 0;
	uint8_t *raw;
	int ret = pfelf__copy_table(f, off, len, &raw);
	if (ret < 0)
		return ret == -EINVAL ? 0 : ret;
	if (align > 8 || (align > 4 && align != 8)) {
		free(raw); /* readelf refuses other alignments */
		return 0;
	}
	struct pfelf__note proto = {
	        .source = source, .in_segment = segment, .align = align == 8 ? 8 : 4};
	ret = parse_region(f, b, raw, (size_t)len, off, proto);
	free(raw);
	return ret;
}

static int from_sections(pfelf_file *f, struct builder *b, bool *found)
{
	for (uint32_t i = 1; i < f->eh.shnum; i++) {
		const pfelf_shdr *s = &f->sh[i];
		if (s->type != SHT_NOTE)
			continue;
		*found = true;
		if (s->status & PFELF_ST_OUT_OF_FILE)
			continue;
		int ret = add_region(f, b, s->offset, s->size, s->addralign, i, false);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int from_segments(pfelf_file *f, struct builder *b)
{
	int n = pfelf_segment_count(f);
	if (n < 0)
		return n;
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		const pfelf_phdr *p = &f->ph[i];
		if (p->type != PT_NOTE || (p->status & PFELF_ST_OUT_OF_FILE))
			continue;
		int ret = add_region(f, b, p->offset, p->filesz, p->align, i, true);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int load_notes(pfelf_file *f, void *ctx)
{
	(void)ctx;
	struct pfelf__notes *n = &f->tables->notes;
	struct builder b = {.n = n};
	bool found = false;
	int ret = 0;
	if (f->eh.type != ET_CORE) {
		int sn = pfelf_section_count(f);
		ret = sn < 0 ? sn : from_sections(f, &b, &found);
	}
	if (ret == 0 && !found)
		ret = from_segments(f, &b);
	if (ret < 0) {
		free(n->notes);
		free(n->data);
		memset(n, 0, sizeof(*n));
	}
	return ret;
}

int pfelf__notes_get(pfelf_file *f, const struct pfelf__notes **out)
{
	int ret = pfelf__tables(f);
	if (ret == 0)
		ret = pfelf__tables_once(f, &f->tables->notes_state, load_notes, NULL);
	if (ret == 0)
		*out = &f->tables->notes;
	return ret;
}

PFELF_API int pfelf_note_count(pfelf_file *f)
{
	const struct pfelf__notes *n = NULL;
	int ret = pfelf__notes_get(f, &n);
	return ret < 0 ? ret : (int)n->count;
}

static void fill(const struct pfelf__notes *n, uint32_t i, pfelf_note *out)
{
	const struct pfelf__note *s = &n->notes[i];
	*out = (pfelf_note){
	        .type = s->type,
	        .namesz = s->namesz,
	        .descsz = s->descsz,
	        .name = (const char *)n->data + s->name_at,
	        .desc = n->data + s->desc_at,
	        .desc_offset = s->desc_offset,
	        .source = s->source,
	        .in_segment = s->in_segment,
	        .align = s->align,
	};
}

PFELF_API int pfelf_note_get(pfelf_file *f, uint32_t index, pfelf_note *out)
{
	const struct pfelf__notes *n = NULL;
	int ret = pfelf__notes_get(f, &n);
	if (ret < 0)
		return ret;
	if (index >= n->count)
		return -ENOENT;
	fill(n, index, out);
	return 0;
}

/* The nth note (from 0) named owner with that type: 0, -ENOENT or -errno. */
static int find_note(pfelf_file *f, const char *owner, uint32_t type, uint32_t nth, pfelf_note *out)
{
	const struct pfelf__notes *n = NULL;
	int ret = pfelf__notes_get(f, &n);
	if (ret < 0)
		return ret;
	for (uint32_t i = 0; i < n->count; i++) {
		fill(n, i, out);
		if (out->type == type && strcmp(out->name, owner) == 0 && nth-- == 0)
			return 0;
	}
	return -ENOENT;
}

PFELF_API int pfelf_build_id(pfelf_file *f, const uint8_t **id)
{
	pfelf_note note;
	int ret = find_note(f, "GNU", NT_GNU_BUILD_ID, 0, &note);
	if (ret < 0)
		return ret;
	if (note.descsz > INT32_MAX)
		return -EINVAL;
	*id = note.desc;
	return (int)note.descsz;
}

PFELF_API int pfelf_go_build_id(pfelf_file *f, char *buf, size_t buflen)
{
	pfelf_note note;
	int ret = find_note(f, "Go", NT_GO_BUILDID, 0, &note);
	if (ret < 0)
		return ret;
	size_t len = strnlen((const char *)note.desc, note.descsz);
	if (len >= buflen) {
		if (buflen > 0) {
			memcpy(buf, note.desc, buflen - 1);
			buf[buflen - 1] = 0;
		}
		return -ENOSPC;
	}
	memcpy(buf, note.desc, len);
	buf[len] = 0;
	return (int)len;
}

/* Walk the properties of every NT_GNU_PROPERTY_TYPE_0 note; stop at
 * number want (fill *out) or count them all. */
static int walk_properties(pfelf_file *f, uint32_t want, pfelf_gnu_property *out)
{
	pfelf_note note;
	uint32_t seen = 0;
	size_t a = f->is64 ? 8 : 4;
	for (uint32_t k = 0;; k++) {
		int ret = find_note(f, "GNU", NT_GNU_PROPERTY_TYPE_0, k, &note);
		if (ret == -ENOENT)
			break;
		if (ret < 0)
			return ret;
		size_t pos = 0;
		while (note.descsz - pos >= 8) {
			uint32_t type = pfelf__u32(note.desc + pos, f->msb);
			uint32_t sz = pfelf__u32(note.desc + pos + 4, f->msb);
			if (sz > note.descsz - pos - 8)
				break;
			if (seen++ == want) {
				const uint8_t *d = note.desc + pos + 8;
				*out = (pfelf_gnu_property){.type = type, .datasz = sz, .data = d};
				out->value = sz == 4   ? pfelf__u32(d, f->msb)
				             : sz == 8 ? pfelf__u64(d, f->msb)
				                       : 0;
				return 0;
			}
			pos = align_up(pos + 8 + sz, a);
			if (pos > note.descsz)
				break;
		}
	}
	if (want != UINT32_MAX)
		return -ENOENT;
	return seen > INT32_MAX ? -EINVAL : (int)seen;
}

PFELF_API int pfelf_gnu_property_count(pfelf_file *f)
{
	return walk_properties(f, UINT32_MAX, NULL);
}

PFELF_API int pfelf_gnu_property_get(pfelf_file *f, uint32_t index, pfelf_gnu_property *out)
{
	if (!out || index == UINT32_MAX)
		return -ENOENT;
	return walk_properties(f, index, out);
}

PFELF_API int pfelf_core_thread_count(pfelf_file *f)
{
	const struct pfelf__notes *n = NULL;
	int ret = pfelf__notes_get(f, &n);
	if (ret < 0)
		return ret;
	int count = 0;
	for (uint32_t i = 0; i < n->count; i++) {
		pfelf_note note;
		fill(n, i, &note);
		count += note.type == NT_PRSTATUS && strcmp(note.name, "CORE") == 0;
	}
	return count;
}

/* The NT_FILE note's layout: count, page size, count triples, count names. */
static int core_files(pfelf_file *f, uint32_t want, pfelf_core_file *out)
{
	pfelf_note note;
	int ret = find_note(f, "CORE", NT_FILE, 0, &note);
	if (ret == -ENOENT)
		return want == UINT32_MAX ? 0 : -ENOENT;
	if (ret < 0)
		return ret;
	struct pfelf_cursor c;
	pfelf__cursor_init(&c, note.desc, note.descsz, f->msb);
	uint64_t count = pfelf__getw(&c, f->is64), page = pfelf__getw(&c, f->is64);
	size_t w = f->is64 ? 8 : 4;
	if (!c.ok || count > (note.descsz - c.pos) / (3 * w) || count > INT32_MAX)
		return -EINVAL;
	const char *names = (const char *)note.desc + c.pos + count * 3 * w;
	size_t left = note.descsz - c.pos - count * 3 * w;
	for (uint64_t i = 0; i < count; i++) {
		const char *nul = memchr(names, 0, left);
		if (!nul)
			return -EINVAL;
		if (i == want) {
			pfelf__skip(&c, i * 3 * w);
			out->start = pfelf__getw(&c, f->is64);
			out->end = pfelf__getw(&c, f->is64);
			out->offset = pfelf__getw(&c, f->is64) * page;
			out->page_size = page;
			out->path = names;
			return 0;
		}
		left -= (size_t)(nul + 1 - names);
		names = nul + 1;
	}
	return want == UINT32_MAX ? (int)count : -ENOENT;
}

PFELF_API int pfelf_core_file_count(pfelf_file *f)
{
	return core_files(f, UINT32_MAX, NULL);
}

PFELF_API int pfelf_core_file_get(pfelf_file *f, uint32_t index, pfelf_core_file *out)
{
	if (!out || index == UINT32_MAX)
		return -ENOENT;
	return core_files(f, index, out);
}

/* ------------------------------------------------------------ the cost */

/* The bytes of the regions the notes come from (the SHT_NOTE sections
 * when there are some, else the PT_NOTE segments), those outside the
 * file left out. */
static uint64_t region_bytes(pfelf_file *f)
{
	uint64_t sec = 0, seg = 0;
	bool found = false;
	int ns = pfelf_section_count(f), np = pfelf_segment_count(f);
	for (int i = 1; i < ns; i++) {
		const pfelf_shdr *sh;
		if (pfelf_section(f, (uint32_t)i, &sh) < 0 || sh->type != SHT_NOTE)
			continue;
		found = true;
		if (!(sh->status & PFELF_ST_OUT_OF_FILE))
			sec = sh->size < UINT64_MAX - sec ? sec + sh->size : UINT64_MAX;
	}
	for (int i = 0; !found && i < np; i++) {
		const pfelf_phdr *ph;
		if (pfelf_segment(f, (uint32_t)i, &ph) == 0 && ph->type == PT_NOTE &&
		    !(ph->status & PFELF_ST_OUT_OF_FILE))
			seg = ph->filesz < UINT64_MAX - seg ? seg + ph->filesz : UINT64_MAX;
	}
	return found ? sec : seg;
}

PFELF_API int pfelf_cost_notes(pfelf_file *f, pfelf_notes_cost *out)
{
	if (!f || !out)
		return -EINVAL;
	int n = pfelf_note_count(f);
	uint64_t cap = 16; /* as grow() */
	while (n > 0 && cap < (uint64_t)n)
		cap <<= 1;
	out->array = cap * sizeof(struct pfelf__note);
	/* grow() doubles past what the notes need, which add_region keeps
	 * within MAX_NOTES_BYTES and within the bytes of their regions. */
	uint64_t region = region_bytes(f);
	out->data = 2 * (region < MAX_NOTES_BYTES ? region : MAX_NOTES_BYTES);
	return 0;
}
