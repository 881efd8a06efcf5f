/* The build id of one file from a few preads (buildid_read.h): pfelf's
 * scan, its answer in the index's terms. */
#include "buildid/buildid_read.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

int bid_read_with(bid_reader_fn read, void *src, uint64_t size, struct bid_file *out)
{
	pfelf_build_id_scan s;
	int ret = pfelf_scan_build_id(read, src, size, &s);
	memset(out, 0, sizeof(*out));
	out->preads = s.reads;
	out->badsize = s.badsize;
	out->badlen = s.badlen;
	if (ret == 1) {
		memcpy(out->id, s.id, s.len);
		out->len = s.len;
		out->debug = s.debug;
	}
	return ret;
}

static ssize_t fd_read(void *src, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pread(*(int *)src, buf, len, (off_t)off);
	return n < 0 ? -errno : n;
}

int bid_read(int fd, uint64_t size, struct bid_file *out)
{
	return bid_read_with(fd_read, &fd, size, out);
}

/* pfelf_read is safe if the file shrank (a mapping is never loaded from). */
static ssize_t handle_read(void *src, void *buf, size_t len, uint64_t off)
{
	ssize_t n = pfelf_read(src, off, buf, len);
	return n < 0 ? -EIO : n; /* bytes gone: no id (the view is replaced soon) */
}

int bid_read_handle(pfelf_file *f, struct bid_file *out)
{
	return bid_read_with(handle_read, f, pfelf_size(f), out);
}

void bid_hex(const uint8_t *id, unsigned len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = '\0';
}
