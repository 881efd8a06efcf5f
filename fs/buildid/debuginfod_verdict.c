/* What libdebuginfod's answer means for a lookup (debuginfod_verdict.h). */
#include "buildid/debuginfod_verdict.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The line of log[0..n) that starts with prefix, from *at on: its text
 * after the prefix (up to the end of line) in *text, *len; false if none. */
static bool next_line(const char *log, size_t n, size_t *at, const char *prefix, const char **text,
                      size_t *len)
{
	size_t pl = strlen(prefix);
	while (*at < n) {
		const char *start = log + *at;
		const char *nl = memchr(start, '\n', n - *at);
		size_t ll = nl ? (size_t)(nl - start) : n - *at;
		*at += ll + 1;
		if (ll >= pl && memcmp(start, prefix, pl) == 0) {
			*text = start + pl;
			*len = ll - pl;
			return true;
		}
	}
	return false;
}

static bool has_404(const char *log, size_t n)
{
	static const char mark[] = "The requested URL returned error: 404";
	const char *t;
	size_t len, at = 0;
	while (next_line(log, n, &at, "url ", &t, &len))
		if (len >= sizeof(mark) - 1 && memmem(t, len, mark, sizeof(mark) - 1))
			return true;
	return false;
}

void dbgd_verdict_of(int ret, const char *log, size_t n, struct dbgd_verdict *v)
{
	v->err = ret >= 0                             ? 0
	         : ret == -ETIME || ret == -ETIMEDOUT ? -ETIMEDOUT
	         : ret == -ENOMEM || ret == -ENOENT   ? ret
	                                              : -EIO;
	v->drop_negative = false;
	v->why[0] = '\0';
	v->url[0] = '\0';
	const char *t;
	size_t len, at = 0;
	/* the last words of the transfer ("url N <curl's error>") */
	const char *words = NULL;
	size_t wlen = 0;
	while (next_line(log, n, &at, "url ", &t, &len)) {
		size_t i = 0;
		while (i < len && t[i] >= '0' && t[i] <= '9')
			i++;
		if (i == 0 || i >= len || t[i] != ' ')
			continue;
		i++; /* "url N <the URL>" names it, "url N <words>" says what failed */
		if ((len - i >= 7 && memcmp(t + i, "http://", 7) == 0) ||
		    (len - i >= 8 && memcmp(t + i, "https://", 8) == 0)) {
			snprintf(v->url, sizeof(v->url), "%.*s", (int)(len - i), t + i);
			continue;
		}
		words = t + i;
		wlen = len - i;
	}
	if (words)
		snprintf(v->why, sizeof(v->why), "%.*s", (int)wlen, words);
	at = 0;
	if (ret == -ENOENT && !has_404(log, n) &&
	    next_line(log, n, &at, "server response ", &t, &len)) {
		v->err = -EIO; /* the servers failed; none said it has not the file */
		v->drop_negative = true;
		if (!words)
			snprintf(v->why, sizeof(v->why), "%.*s", (int)len, t);
	}
}

size_t dbgd_verdict_cache_dir(const char *log, size_t n, char *buf, size_t size)
{
	const char *t;
	size_t len, at = 0;
	if (!next_line(log, n, &at, "checking cache dir ", &t, &len) || len + 1 > size ||
	    memchr(t, '\0', len))
		return 0;
	memcpy(buf, t, len);
	buf[len] = '\0';
	return len;
}
