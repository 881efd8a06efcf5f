/*
 * pfelf: a zero-copy ELF reader over one shared read-only mapping.
 *
 * The file is mapped once (MAP_SHARED, PROT_READ) and every handle of the
 * same file (same device, inode, size, mtime and ctime) shares that mapping
 * through a process-wide, thread-safe, refcounted registry. The mapping is
 * made on a handle's first zero-copy use (pfelf_get_ref, a view, advice);
 * until then the handle reads its headers and tables with pread(2) from a
 * descriptor of its own, so opening a file to read its section headers
 * costs no mmap/munmap. When mmap is
 * impossible, or PFELF_OPEN_NOMMAP is given, the same API is served with
 * pread(2); a caller's memory buffer is a third backend. Callers cannot tell
 * the backends apart except by asking pfelf_backend().
 *
 * Conventions
 *  - Functions return 0 or a count on success and a negative errno on
 *    failure: -ENOEXEC (not ELF), -EINVAL (malformed or bad argument),
 *    -EIO (bytes that were there at open are gone: the file shrank),
 *    -EFAULT (a virtual address no PT_LOAD covers), -ENOMEM, -ENOENT
 *    (no such section), or the errno of a failed system call.
 *  - There is no global error state. A handle may be used by many threads
 *    at once; tables are parsed on first use under the handle's lock.
 *  - Lifetimes: every pointer a function returns says how long it lives.
 *    Pointers "owned by the handle" live until pfelf_close() of that handle.
 *  - pfelf itself never dereferences a mapping in a way that a file
 *    truncated after open can turn into SIGBUS: tables are copied out of
 *    the mapping by the kernel (which reports EFAULT, not a signal).
 *    Pointers into the mapping that pfelf hands to the caller (pfelf_ref,
 *    zero-copy views) are the caller's to dereference: hand them to the
 *    kernel (write, writev, vmsplice) to stay safe, or ask for a copy.
 */
#ifndef PFELF_H
#define PFELF_H

/* The API in four parts, each usable once this header is included. */
#include "pfelf_file.h"    /* the handle: open, headers, sections, segments, data, names */
#include "pfelf_meta.h"    /* symbols, notes, dynamic, debug links, Go, compression, costs */
#include "pfelf_archive.h" /* ar archives and member handles */
#include "pfelf_reloc.h"   /* relocation entries and type names */

#endif /* PFELF_H */
