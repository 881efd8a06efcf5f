/* The order of a binary's debug information (debugsel.h). */
#include "buildid/debugsel.h"
#include "buildid/buildid_index.h"
#include "buildid/dbgfile.h"
#include "buildid/debuginfod.h"
#include "base/elffs.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The global debug directory below SOURCE (SOURCE seen as a system root). */
#define DEBUG_ROOT "usr/lib/debug"

static void say(struct dsel *s, enum dsrc k, enum dstate st, const char *fmt, ...)
        __attribute__((format(printf, 4, 5)));

static void say(struct dsel *s, enum dsrc k, enum dstate st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->why[k], sizeof(s->why[k]), fmt, ap);
	va_end(ap);
	s->st[k] = st;
}

bool dsel_go_debug(pfelf_file *f)
{
	static const char *const names[] = {".go.buildinfo", ".gopclntab",
	                                    ".data.rel.ro.gopclntab"};
	const pfelf_shdr *sh;
	char id[8];
	int nsec = pfelf_section_count(f);
	for (size_t i = 0; nsec > 0 && i < sizeof(names) / sizeof(names[0]); i++)
		if (pfelf_section_by_name(f, names[i], &sh) == 0)
			return true;
	int ret = pfelf_go_build_id(f, id, sizeof(id));
	if (ret >= 0 || ret == -ENOSPC)
		return true;
	return nsec <= 0 && pfelf_is_go(f) == 1; /* no section names to go by */
}

void dsel_go_look(pfelf_file *f, struct dfacts *out)
{
	pfelf_go_table t;
	int ret = out->go ? pfelf_go_table_get(f, &t) : 0;
	if (ret < 0) {
		out->go = false;
		out->go_err = ret;
	}
}

int dsel_facts(pfelf_file *f, const char *path, bool nested, struct dfacts *out)
{
	memset(out, 0, sizeof(*out));
	out->path = path;
	if (nested)
		return 0;
	struct bid_file b;
	int ret = bid_read_handle(f, &b);
	if (ret == -ENOMEM)
		return ret;
	if (ret == 1) {
		memcpy(out->id, b.id, b.len);
		out->idlen = b.len;
	}
	const char *name;
	if (pfelf_debuglink(f, &name, &out->crc) == 0) {
		size_t n = strlen(name);
		out->link_long = n > NAME_MAX;
		if (!out->link_long)
			memcpy(out->link, name, n + 1);
	}
	uint32_t index;
	pfelf_chdr ch;
	out->mini = pfelf_gnu_debugdata(f, &index, &ch) == 0;
	out->go = dsel_go_debug(f);
	return 0;
}

void dsel_facts_of_id(const uint8_t *id, unsigned len, struct dfacts *out)
{
	memset(out, 0, sizeof(*out));
	out->idlen = len <= BID_MAX ? len : 0;
	memcpy(out->id, id, out->idlen);
}

/* ------------------------------------------------------------ the sources */

static void step_buildid(const struct dfacts *f, bool look, struct dsel *s)
{
	if (!f->idlen || !elffs.buildid || elffs.single_name)
		return; /* no id, no index (a single-file mount, -o buildid=off) */
	char *buf = malloc(PATH_MAX);
	if (!buf) {
		say(s, DS_BUILDID, DST_NO, "build id: %s", strerror(ENOMEM));
		return;
	}
	uint32_t slot, serial;
	int n = bidx_find(f->id, f->idlen, true, look, buf, PATH_MAX, &slot, &serial);
	if (n > 10) { /* "../../<path>/elf" */
		snprintf(s->where, sizeof(s->where), "%.*s", n - 10, buf + 6);
		s->slot = slot;
		s->serial = serial;
		s->st[DS_BUILDID] = DST_YES;
	} else if (n == -EAGAIN) {
		say(s, DS_BUILDID, DST_UNKNOWN,
		    "build id: not looked up yet (at the first use of %s or of debug)",
		    elffs.buildid);
	} else if (n == -ENOENT) {
		say(s, DS_BUILDID, DST_NO, "build id: no separate debug file with it in SOURCE");
	} else {
		say(s, DS_BUILDID, DST_NO, "build id: %s", strerror(n < 0 ? -n : EIO));
	}
	free(buf);
}

static void step_debuginfod(const struct dfacts *f, bool look, struct dsel *s)
{
	if (!f->idlen || !elffs.buildid || elffs.single_name || !dbgd_enabled())
		return;
	int e = look ? dbgd_fetch(f->id, f->idlen, true) : dbgd_known(f->id, f->idlen, true);
	if (e >= 0 && dbgd_entry_name((uint32_t)e, s->where, sizeof(s->where)) >= 0) {
		s->entry = (uint32_t)e;
		s->st[DS_DEBUGINFOD] = DST_YES;
	} else if (!look && e == -ENOENT)
		say(s, DS_DEBUGINFOD, DST_UNKNOWN,
		    "debuginfod: not asked yet (a lookup of debug asks)");
	else if (e == -ENOENT)
		say(s, DS_DEBUGINFOD, DST_NO, "debuginfod: no server has it");
	else {
		s->fetch_err = e < 0 ? e : -EIO;
		say(s, DS_DEBUGINFOD, DST_NO, "debuginfod: %s", strerror(-s->fetch_err));
	}
}

/* Whether a debug link's name is one file name: never a path that leads
 * out of the directory it is searched in. */
static bool file_name(const struct dfacts *f)
{
	return !f->link_long && f->link[0] && !strchr(f->link, '/') && strcmp(f->link, ".") != 0 &&
	       strcmp(f->link, "..") != 0;
}

/* The directories the debug link of the binary at path (in dir, dlen
 * bytes of it) is searched in, in gdb's order: beside it, .debug/ beside
 * it, the global debug directory and its directory. */
static int link_dir(const char *path, size_t dlen, int k, char *buf, size_t size)
{
	const char *slash = dlen ? "/" : "";
	int n = k == 0   ? snprintf(buf, size, "%.*s", (int)dlen, path)
	        : k == 1 ? snprintf(buf, size, "%.*s%s.debug", (int)dlen, path, slash)
	                 : snprintf(buf, size, DEBUG_ROOT "%s%.*s", slash, (int)dlen, path);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* One candidate of the debug link (directory dir): 1 taken, 0 not (why
 * said, the first reason kept), -1 not known without looking. */
static int link_candidate(const struct dfacts *f, const char *dir, bool look, struct dsel *s)
{
	int fd = dbgf_open_dir(dir);
	uint32_t crc = 0;
	int ret = fd < 0 ? -ENOENT : dbgf_crc(fd, f->link, look, &crc);
	if (fd >= 0)
		close(fd);
	const char *slash = dir[0] ? "/" : "";
	bool first = s->st[DS_DEBUGLINK] != DST_NO;
	if (ret == 0 && crc == f->crc) {
		snprintf(s->where, sizeof(s->where), "%s%s%s", dir, slash, f->link);
		return 1;
	}
	if (ret == -EAGAIN) {
		say(s, DS_DEBUGLINK, DST_UNKNOWN,
		    "debuglink: %s%s%s: CRC not checked yet (a lookup of debug checks it)", dir,
		    slash, f->link);
		return -1;
	}
	if (ret == 0 && first)
		say(s, DS_DEBUGLINK, DST_NO,
		    "debuglink: %s%s%s: CRC 0x%08" PRIx32 " in the file, 0x%08" PRIx32 " wanted",
		    dir, slash, f->link, crc, f->crc);
	else if (ret != -ENOENT && first)
		say(s, DS_DEBUGLINK, DST_NO, "debuglink: %s%s%s: %s", dir, slash, f->link,
		    ret == -ENOEXEC  ? "not an ELF file"
		    : ret == -ESTALE ? "changed while it was read"
		                     : strerror(-ret));
	return 0;
}

static void step_debuglink(const struct dfacts *f, bool look, struct dsel *s)
{
	if ((!f->link[0] && !f->link_long) || !f->path)
		return;
	if (!file_name(f)) {
		say(s, DS_DEBUGLINK, DST_NO, "debuglink: %s: not a file name",
		    f->link_long ? "(a name over 255 bytes)" : f->link);
		return;
	}
	const char *slash = strrchr(f->path, '/');
	size_t dlen = slash ? (size_t)(slash - f->path) : 0;
	char *dir = malloc(PATH_MAX);
	if (!dir) {
		say(s, DS_DEBUGLINK, DST_NO, "debuglink: %s", strerror(ENOMEM));
		return;
	}
	int got = 0;
	for (int k = 0; k < 3 && got == 0; k++)
		if (link_dir(f->path, dlen, k, dir, PATH_MAX) == 0)
			got = link_candidate(f, dir, look, s);
	free(dir);
	if (got == 1)
		s->st[DS_DEBUGLINK] = DST_YES;
	else if (got == 0 && s->st[DS_DEBUGLINK] != DST_NO)
		say(s, DS_DEBUGLINK, DST_NO,
		    "debuglink: %s: not found beside it, in .debug/ or under " DEBUG_ROOT "/",
		    f->link);
}

static void step_mini(const struct dfacts *f, bool look, struct dsel *s)
{
	(void)look;
	if (f->mini)
		s->st[DS_MINI] = DST_YES;
	else if (f->mini_err)
		say(s, DS_MINI, DST_NO, DSEL_MINI_NAME ": %s", strerror(-f->mini_err));
}

static void step_go(const struct dfacts *f, bool look, struct dsel *s)
{
	(void)look;
	if (f->go)
		s->st[DS_GO] = DST_YES;
	else if (f->go_err)
		say(s, DS_GO, DST_NO, DSEL_GO_NAME ": %s",
		    f->go_err == -ENOENT   ? "no pclntab found"
		    : f->go_err == -EINVAL ? "its pclntab does not hold together"
		                           : strerror(-f->go_err));
}

static void (*const steps[DS_NSRC])(const struct dfacts *, bool, struct dsel *) = {
        step_buildid, step_debuginfod, step_debuglink, step_mini, step_go,
};

int dsel_resolve(const struct dfacts *f, bool look, enum dsrc first, struct dsel *out)
{
	memset(out, 0, sizeof(*out));
	out->pick = DS_NSRC;
	for (unsigned k = first; k < DS_NSRC; k++) {
		steps[k](f, look, out);
		if (out->st[k] == DST_YES) {
			out->pick = (enum dsrc)k;
			break;
		}
		out->undecided |= out->st[k] == DST_UNKNOWN;
	}
	return 0;
}

/* ------------------------------------------------------------ the targets */

/* "../" once more than the directories of path: from the binary's own
 * directory of the mount to the mount's root. */
static int up_of(const char *path, char *buf, size_t size)
{
	size_t n = 1;
	for (const char *p = path; *p; p++)
		n += *p == '/';
	if (3 * n + 1 > size)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++)
		memcpy(buf + 3 * i, "../", 3);
	buf[3 * n] = '\0';
	return (int)(3 * n);
}

int dsel_target(const struct dsel *s, const struct dfacts *f, bool from_index, char *buf,
                size_t size)
{
	char up[PATH_MAX];
	if (s->pick == DS_NSRC)
		return -ENOENT;
	if (!f->path && (from_index ? s->pick >= DS_MINI : s->pick < DS_MINI))
		return -ENOENT; /* a binary's own file, or a path from its directory */
	if (from_index)
		snprintf(up, sizeof(up), "../../");
	else if (f->path && up_of(f->path, up, sizeof(up)) < 0)
		return -ENAMETOOLONG;
	int n;
	const char *file = s->pick == DS_MINI ? DSEL_MINI_NAME : DSEL_GO_NAME;
	if (s->pick == DS_BUILDID || s->pick == DS_DEBUGLINK)
		n = snprintf(buf, size, "%s%s/elf", up, s->where);
	else if (s->pick == DS_DEBUGINFOD && from_index)
		n = snprintf(buf, size, "../" DSEL_REMOTE_DIR "/%s/elf", s->where);
	else if (s->pick == DS_DEBUGINFOD)
		n = snprintf(buf, size, "%s%s/" DSEL_REMOTE_DIR "/%s/elf", up, elffs.buildid,
		             s->where);
	else if (from_index)
		n = snprintf(buf, size, "../../%s/%s", f->path, file);
	else
		n = snprintf(buf, size, "%s", file);
	return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : n;
}

const char *dsel_source_file(const struct dsel *s)
{
	return s->pick == DS_BUILDID || s->pick == DS_DEBUGLINK ? s->where : NULL;
}
