/* The table of a binary's entries and what each one needs from a parse. */
#include "content/entries.h"
#include "content/debugview.h"
#include "buildid/debugsel.h"
#include "content/info.h"
#include "content/minidbg.h"
#include "content/symview.h"

#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BUILD_ID_MAX 1024 /* bytes of id shown; real ids are 16 to 20 */

/* ------------------------------------------------------------- when present */

static bool has_buildid(const struct bview *v)
{
	return v && v->buildid;
}

/* Listed once the view is made (not for a binary whose view was refused). */
static bool has_view(const struct bview *v)
{
	return v && !v->refused;
}

/* Every binary's, but for a header pfelf refused (then elf, header and
 * info only: v->refused). */
static bool has_tables(const struct bview *v)
{
	return !v || !v->refused;
}

/* A refused header's e_ehsize bytes when its class gave them and they lie
 * in the file (pfelf_header: 0 where it could not read them). */
static bool has_header(const struct bview *v)
{
	return !v || !v->refused || (v->eh.ehsize > 0 && v->eh.ehsize <= v->fsize);
}

static bool has_compressed(const struct bview *v)
{
	return v && v->ncomp;
}

/* MiniDebugInfo, followed once: not inside itself (nor an archive's member). */
static bool has_debugdata(const struct bview *v)
{
	return v && v->ddata && !v->outer;
}

/* Go's tables: a binary's own (not an archive member's, nor a view nested in another). */
static bool has_go(const struct bview *v)
{
	return v && v->is_go && !v->outer;
}

/* ------------------------------------------------------------ node shapes */

static int header_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	view_header_range(v, aux, size);
	return 0;
}

/* elf: the whole source file, as a range from the mapping. */
static int elf_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	*size = v->fsize;
	*aux = 0;
	return 0;
}

static int sections_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	*size = v->nsec ? v->nsec - 1 : 0;
	*aux = 0;
	return 0;
}

static int segments_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	*size = v->nseg;
	*aux = 0;
	return 0;
}

static int symdir_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	(void)v; /* 0: counting needs the name table, which lookups avoid */
	*size = 0;
	*aux = 0;
	return 0;
}

static int buildid_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	*size = v->buildid_len;
	*aux = 0;
	return 0;
}

static int decdir_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	*size = v->ncomp;
	*aux = 0;
	return 0;
}

/* MiniDebugInfo whose stream's index reads (its section is compressed:
 * entries.c's list): minidebuginfo.debug. */
static bool has_minidbg(const struct bview *v)
{
	for (uint32_t i = 0; has_debugdata(v) && i < v->ncomp; i++)
		if (v->comp[i] == v->ddata)
			return true;
	return false;
}

/* gnu_debugdata/: as a binary's directory (its size: the most rows). */
static int debugdata_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	(void)v;
	*size = entries_n;
	*aux = 0;
	return 0;
}

/* go/: its files (go_rows.c), at most three. */
static int godir_shape(const struct bview *v, uint64_t *size, uint64_t *aux)
{
	(void)v;
	*size = go_entries_n;
	*aux = 0;
	return 0;
}

static const char *buildid_text(const struct bview *v, size_t *len)
{
	*len = v->buildid_len;
	return v->buildid;
}

/* ------------------------------------------------- files of the directories */

static int section_range(const struct bview *v, uint64_t index, uint64_t *off, uint64_t *len)
{
	const pfelf_shdr *sh;
	if (index > UINT32_MAX || pfelf_section(v->f, (uint32_t)index, &sh) < 0)
		return -EIO;
	view_section_range(sh, off, len);
	return 0;
}

static int section_file(struct bview *v, const char *name, struct entry_file *out)
{
	int i = view_find_section(v, name);
	uint64_t off;
	pfelf_chdr ch;
	if (i < 0 || section_range(v, (uint64_t)i, &off, &out->size) < 0)
		return -ENOENT;
	out->aux = (uint64_t)i;
	out->compressed = entry_compressed(v, (uint32_t)i, &ch);
	return 0;
}

static int sections_count(struct bview *v, size_t *n)
{
	*n = v->nsec ? v->nsec - 1 : 0;
	return 0;
}

static const char *section_name(struct bview *v, size_t i)
{
	return v->secname[i + 1];
}

static int segment_range(const struct bview *v, uint64_t index, uint64_t *off, uint64_t *len)
{
	const pfelf_phdr *ph;
	if (index > UINT32_MAX || pfelf_segment(v->f, (uint32_t)index, &ph) < 0)
		return -EIO;
	view_segment_range(ph, off, len);
	return 0;
}

static int segment_file(struct bview *v, const char *name, struct entry_file *out)
{
	int i = view_find_segment(v, name);
	uint64_t off;
	if (i < 0 || segment_range(v, (uint64_t)i, &off, &out->size) < 0)
		return -ENOENT;
	out->aux = (uint64_t)i;
	return 0;
}

static int segments_count(struct bview *v, size_t *n)
{
	*n = v->nseg;
	return 0;
}

static const char *segment_name(struct bview *v, size_t i)
{
	return v->segname[i];
}

static int symbol_file(struct bview *v, const char *name, struct entry_file *out)
{
	return symview_lookup(v, name, &out->aux, &out->size);
}

static int symbols_count(struct bview *v, size_t *n)
{
	const struct symfile *files;
	uint32_t k = 0;
	int ret = symview_files(v, &files, &k);
	*n = k;
	return ret;
}

/* After symbols_count: the name table is built and kept by the core. */
static const char *symbol_name(struct bview *v, size_t i)
{
	return view_core(v)->sym->files[i].name;
}

static int decomp_file(struct bview *v, const char *name, struct entry_file *out)
{
	int i = view_find_section(v, name);
	pfelf_chdr ch;
	if (i <= 0 || !entry_compressed(v, (uint32_t)i, &ch))
		return -ENOENT;
	out->size = ch.size;
	out->aux = (uint64_t)i;
	return 0;
}

static int decomp_count(struct bview *v, size_t *n)
{
	*n = v->ncomp;
	return 0;
}

static const char *decomp_name(struct bview *v, size_t i)
{
	return v->secname[v->comp[i]];
}

/* ------------------------------------------------------------------ the table */

const struct bin_entry entries[] = {
        {.name = "info",
         .usage = "info                   a text summary (class, data, type, machine, entry, ...)",
         .kind = NK_INFO,
         .bytes = EB_TEXT,
         .text = TEXT_INFO,
         .tail = info_node_tail},
        {.name = "header",
         .usage = "header                 the raw ELF header: e_ehsize bytes at offset 0",
         .kind = NK_HEADER,
         .bytes = EB_RANGE,
         .present = has_header,
         .shape = header_shape},
        {.name = "elf",
         .usage = "elf                    the whole source file, byte for byte",
         .kind = NK_ELF,
         .bytes = EB_RANGE,
         .shape = elf_shape},
        {.name = "sections",
         .usage = "sections/<name>        one file per section header but index 0",
         .kind = NK_SECTIONS,
         .bytes = EB_DIR,
         .present = has_tables,
         .shape = sections_shape,
         .file_kind = NK_SECTION,
         .file_bytes = EB_INDEXED,
         .lookup = section_file,
         .count = sections_count,
         .name_at = section_name,
         .file_range = section_range},
        {.name = "segments",
         .usage = "segments/<NN>-<TYPE>   one file per program header",
         .kind = NK_SEGMENTS,
         .bytes = EB_DIR,
         .present = has_tables,
         .shape = segments_shape,
         .file_kind = NK_SEGMENT,
         .file_bytes = EB_INDEXED,
         .lookup = segment_file,
         .count = segments_count,
         .name_at = segment_name,
         .file_range = segment_range},
        {.name = "symbols",
         .usage = "symbols                every symbol of .symtab and .dynsym",
         .kind = NK_SYMBOLS,
         .bytes = EB_TEXT,
         .present = has_tables,
         .text = TEXT_SYMBOLS},
        {.name = "symbol",
         .usage = "symbol/<name>          the bytes of each defined symbol",
         .kind = NK_SYMDIR,
         .bytes = EB_DIR,
         .present = has_tables,
         .shape = symdir_shape,
         .file_kind = NK_SYMBOL,
         .file_bytes = EB_RANGE,
         .lookup = symbol_file,
         .count = symbols_count,
         .name_at = symbol_name},
        {.name = "build-id",
         .usage = "build-id               the GNU build id in hex (when there is one)",
         .kind = NK_BUILDID,
         .bytes = EB_COPY,
         .present = has_buildid,
         .shape = buildid_shape,
         .copy = buildid_text},
        {.name = "decompressed",
         .usage = "decompressed/<name>    compressed sections decompressed (when there are some)",
         .kind = NK_DECDIR,
         .bytes = EB_DIR,
         .present = has_compressed,
         .shape = decdir_shape,
         .file_kind = NK_DECOMP,
         .file_bytes = EB_DECOMP,
         .lookup = decomp_file,
         .count = decomp_count,
         .name_at = decomp_name},
        {.name = "relocations",
         .usage = "relocations            every REL, RELA and RELR entry, as readelf -rW",
         .kind = NK_RELOCS,
         .bytes = EB_TEXT,
         .present = has_view,
         .text = TEXT_RELOCS},
        {.name = "gnu_debugdata",
         .usage = "gnu_debugdata/         the view of the ELF file inside .gnu_debugdata "
                  "(MiniDebugInfo)",
         .kind = NK_DDATA,
         .bytes = EB_VIEW,
         .present = has_debugdata,
         .shape = debugdata_shape},
        {.name = "minidebuginfo.debug",
         .usage = "minidebuginfo.debug    MiniDebugInfo as a debug file (.symtab, DWARF)",
         .kind = NK_MINIDBG,
         .bytes = EB_MADE,
         .present = has_minidbg,
         .make = minidbg_make,
         .make_guess = minidbg_guess,
         .lookup_only = true},
        {.name = "debug",
         .usage = "debug                  symlink to the elf of the best debug information",
         .kind = NK_DEBUG,
         .bytes = EB_LINK,
         .present = debug_listed,
         .link = debug_link,
         .lookup_only = true},
        {.name = "go",
         .usage = "go/<name>              Go's tables: buildinfo, functions, debug (Go binaries)",
         .kind = NK_GODIR,
         .bytes = EB_DIR,
         .present = has_go,
         .shape = godir_shape,
         .file_kind = NK_DIR, /* rows of their own: go_entries[] */
         .lookup = go_dir_lookup,
         .count = go_dir_count,
         .name_at = go_dir_name_at},
};

const size_t entries_n = sizeof(entries) / sizeof(entries[0]);

/* ------------------------------------------------------ made at parse */

/* The build id as hex and a newline (build-id's bytes, info's line). */
static int build_id(struct vcore *v)
{
	const uint8_t *id;
	int n = pfelf_build_id(v->f, &id);
	if (n <= 0)
		return 0;
	if (n > BUILD_ID_MAX)
		n = BUILD_ID_MAX;
	v->buildid = malloc(2 * (size_t)n + 2);
	if (!v->buildid)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		snprintf(v->buildid + 2 * i, 3, "%02x", id[i]);
	v->buildid[2 * n] = '\n';
	v->buildid[2 * n + 1] = '\0';
	v->buildid_len = 2 * (size_t)n + 1;
	return 0;
}

bool entry_compressed(const struct bview *v, uint32_t index, pfelf_chdr *ch)
{
	return index > 0 && index < v->nsec && pfelf_section_chdr(v->f, index, ch) == 0;
}

/* The indexes of the compressed sections (decompressed/, info). */
static int compressed(struct vcore *v)
{
	for (uint32_t i = 1; i < v->nsec; i++) {
		pfelf_chdr ch;
		if (pfelf_section_chdr(v->f, i, &ch) != 0)
			continue;
		if (v->ncomp % 64 == 0) {
			uint32_t *c = realloc(v->comp, (v->ncomp + 64) * sizeof(*c));
			if (!c)
				return -ENOMEM;
			v->comp = c;
		}
		v->comp[v->ncomp++] = i;
	}
	return 0;
}

/* The .gnu_debugdata section with bytes (gnu_debugdata/; its stream is
 * read at the first lookup inside). */
static void debugdata(struct vcore *v)
{
	const pfelf_shdr *sh;
	if (pfelf_section_by_name(v->f, PFELF_GNU_DEBUGDATA, &sh) == 0 && sh->type != SHT_NOBITS &&
	    sh->size > 0 && !(sh->status & PFELF_ST_OUT_OF_FILE))
		v->ddata = sh->index;
}

int entries_build(struct vcore *v)
{
	v->is_go = dsel_go_debug(v->f);
	int ret = build_id(v);
	if (ret == 0)
		debugdata(v);
	return ret < 0 ? ret : compressed(v);
}

int entries_refused(struct vcore *v, const char *why)
{
	size_t len = strlen(why) + 1;
	int ret = view_charge(v, len);
	if (ret == 0 && !(v->refused = malloc(len))) {
		view_uncharge(v, len);
		ret = -ENOMEM;
	}
	if (ret == 0)
		memcpy(v->refused, why, len);
	return ret;
}

void entries_free(struct vcore *v)
{
	free(v->buildid);
	free(v->comp);
	free(v->refused);
}
