/* The xz stream of a .gnu_debugdata section (xz.c), for compress.c. */
#ifndef PFELF_XZ_I_H
#define PFELF_XZ_I_H

#include "pfelf_i.h"

/* The header of section s, a .gnu_debugdata one (type PFELF_COMPRESS_XZ,
 * size from the stream's index, the whole section as the stream): 0;
 * -EINVAL (not exactly one well-formed xz stream), -EIO, -ENOMEM. */
int pfelf__xz_chdr(pfelf_file *f, const pfelf_shdr *s, pfelf_chdr *out) PFELF_HIDDEN;

/* Decode the xz stream src into exactly want bytes of dst, the decoder's
 * memory bounded by PFELF_XZ_MEMLIMIT: 0; -EINVAL (corrupt, cut, longer
 * or shorter than want, more than one stream, over the memory limit),
 * -ENOMEM. */
int pfelf__xz_decode(const uint8_t *src, size_t srclen, uint8_t *dst, size_t want) PFELF_HIDDEN;

#endif /* PFELF_XZ_I_H */
