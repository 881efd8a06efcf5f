/* Whether a file of libdebuginfod's cache is the one asked for (debuginfod_verify.h). */
#include "buildid/debuginfod_verify.h"
#include "buildid/buildid_read.h"
#include "source/source.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pfelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void dbgd_hex_of(const uint8_t *id, unsigned len, char *out)
{
	for (unsigned i = 0; i < len; i++)
		snprintf(out + 2 * i, 3, "%02x", id[i]);
	out[2 * len] = '\0';
}

/* Whether f's own build id is id[0..len); else why says which it has. */
static int check_id(pfelf_file *f, const uint8_t *id, unsigned len, char *why, size_t n)
{
	const uint8_t *bid;
	int bl = pfelf_build_id(f, &bid);
	if (bl >= 0 && (unsigned)bl == len && memcmp(bid, id, len) == 0)
		return 0;
	char got[2 * BID_MAX + 1] = "none";
	if (bl > 0 && bl <= BID_MAX)
		dbgd_hex_of(bid, (unsigned)bl, got);
	snprintf(why, n, "its build id is %s", got);
	return -EIO;
}

/* Whether every section with bytes and every segment of f (size bytes)
 * lies inside the file. */
static int check_inside(pfelf_file *f, off_t size, char *why, size_t n)
{
	int count = pfelf_section_count(f);
	for (int i = 1; i < count; i++) {
		const pfelf_shdr *s;
		if (pfelf_section(f, (uint32_t)i, &s) == 0 && s->type != SHT_NOBITS &&
		    (s->status & PFELF_ST_OUT_OF_FILE)) {
			snprintf(why, n, "section %s lies past its end (%jd bytes: partial)",
			         s->name, (intmax_t)size);
			return -EIO;
		}
	}
	count = pfelf_segment_count(f);
	for (int i = 0; i < count; i++) {
		const pfelf_phdr *p;
		if (pfelf_segment(f, (uint32_t)i, &p) == 0 && (p->status & PFELF_ST_OUT_OF_FILE)) {
			snprintf(why, n, "segment %d lies past its end (%jd bytes: partial)", i,
			         (intmax_t)size);
			return -EIO;
		}
	}
	return 0;
}

int dbgd_verify(int fd, const uint8_t *id, unsigned len, bool debug, char *why, size_t n)
{
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(why, n, "not a regular file");
		return -EIO;
	}
	pfelf_file *f;
	int ret = pfelf_open_fd(fd, PFELF_OPEN_NOMMAP, &f);
	if (ret < 0) {
		snprintf(why, n, "not an ELF file pfelf accepts (%s)", strerror(-ret));
		return -EIO;
	}
	ret = check_id(f, id, len, why, n);
	if (ret == 0)
		ret = check_inside(f, st.st_size, why, n);
	const pfelf_shdr *info;
	if (ret == 0 && debug &&
	    (pfelf_section_by_name(f, ".debug_info", &info) < 0 || info->type == SHT_NOBITS ||
	     info->size == 0)) {
		snprintf(why, n, "no .debug_info with bytes (not a debug file)");
		ret = -EIO;
	}
	pfelf_close(f);
	return ret;
}

/* Remove name from dirfd while it is still the file of identity st. */
static void remove_if_still(int dirfd, const char *name, const struct stat *st)
{
	struct stat now;
	if (fstatat(dirfd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == st->st_dev &&
	    now.st_ino == st->st_ino)
		unlinkat(dirfd, name, 0);
}

int dbgd_verify_again(int dirfd, const char *name, const uint8_t *id, unsigned len, bool debug,
                      struct stat *st, char *why, size_t n)
{
	int fd = src_openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return fd;
	int ret = fstat(fd, st) < 0 ? -errno : dbgd_verify(fd, id, len, debug, why, n);
	if (ret == -EIO)
		remove_if_still(dirfd, name, st);
	close(fd);
	return ret;
}
