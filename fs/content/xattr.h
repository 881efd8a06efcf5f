/*
 * The read-only extended attributes of section and segment files: their
 * header fields as text under user.elf.* (docs/elffs.1, EXTENDED
 * ATTRIBUTES). Other nodes have none.
 */
#ifndef ELFFS_XATTR_H
#define ELFFS_XATTR_H

#include "node/nodes.h"
#include "text/xattrtab.h"

#include <pfelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the values are made of: a copy of the header of the section or
 * segment a node serves, read from its view when asked. */
struct xattr_hdr {
	uint16_t machine; /* e_machine, for the names of types and flags */
	uint8_t osabi;    /* EI_OSABI, for the flag letters */
	union {
		pfelf_shdr sh; /* NK_SECTION (sh.name unused) */
		pfelf_phdr ph; /* NK_SEGMENT */
	};
	bool compressed; /* NK_SECTION: ch_type and ch_size are set */
	uint32_t ch_type;
	uint64_t ch_size;
};

/* Whether name is an attribute nodes of kind kind may have (one that needs
 * their header): user.elf.* of a section or segment file. */
bool xattr_is_ours(enum node_kind kind, const char *name);

/*
 * The NUL-separated list of attribute names of a node of kind kind
 * (user.elf.ch_type and user.elf.ch_size only for a compressed section),
 * into buf (when size allows); returns the length of the whole list.
 */
size_t xattr_list(enum node_kind kind, bool compressed, char *buf, size_t size);

/*
 * The value of attribute name of a node of kind kind whose header is h
 * into buf (at least XATTR_VALUE_MAX bytes; no NUL counted); its length,
 * or -ENODATA.
 */
int xattr_value(enum node_kind kind, const struct xattr_hdr *h, const char *name, char *buf);

#endif /* ELFFS_XATTR_H */
