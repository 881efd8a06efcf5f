/* Bytes of a file into the caller's memory: a checked range through the
 * handle's backend, a bounded table copy, pread to the end. */
#include "pfelf_i.h"

#include <stdlib.h>
#include <unistd.h>

int pfelf__read_range(pfelf_file *f, uint64_t off, void *buf, size_t len)
{
	if (!pfelf__range_ok(f->size, off, len))
		return -EINVAL;
	if (len == 0)
		return 0;
	return f->ops->read(f, off, buf, len);
}

int pfelf__read_spans(pfelf_file *f, const struct pfelf__span *s, unsigned n)
{
	if (n > PFELF__SPANS_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (!pfelf__range_ok(f->size, s[i].off, s[i].len))
			return -EINVAL;
	if (f->ops->read_spans && n > 1)
		return f->ops->read_spans(f, s, n);
	for (unsigned i = 0; i < n; i++) {
		int ret = s[i].len ? f->ops->read(f, s[i].off, s[i].buf, s[i].len) : 0;
		if (ret < 0)
			return ret;
	}
	return 0;
}

int pfelf__copy_table(pfelf_file *f, uint64_t off, uint64_t len, uint8_t **out)
{
	*out = NULL;
	if (len > PFELF__MAX_TABLE || !pfelf__range_ok(f->size, off, len))
		return -EINVAL;
	uint8_t *buf = malloc((size_t)len + 1);
	if (!buf)
		return -ENOMEM;
	int ret = pfelf__read_range(f, off, buf, (size_t)len);
	if (ret < 0) {
		free(buf);
		return ret;
	}
	buf[len] = 0;
	*out = buf;
	return 0;
}

int pfelf__pread_all(int fd, uint64_t off, void *buf, size_t len)
{
	uint8_t *p = buf;
	while (len > 0) {
		ssize_t n = pread(fd, p, len, (off_t)off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -EIO;
		p += n;
		off += (uint64_t)n;
		len -= (size_t)n;
	}
	return 0;
}
