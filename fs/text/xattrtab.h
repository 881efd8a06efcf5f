/*
 * Read-only extended attributes as a table: each attribute a name and how
 * its value is written from the object it describes (a number of the
 * object in decimal, hex or octal, or a text a function writes). One list
 * writer and one lookup by name serve every table: the section and
 * segment headers (content/xattr.c), archive members (content/arview.c)
 * and the build-id index (tree/buildid_fs.c).
 */
#ifndef ELFFS_XATTRTAB_H
#define ELFFS_XATTRTAB_H

#include <stddef.h>

/* The room a value has (a buffer given for a value is at least that). */
#define XATTR_VALUE_MAX 128

enum xattr_form {
	XATTR_DEC,  /* the number in decimal */
	XATTR_HEX,  /* the number in hex, 0x before */
	XATTR_OCT,  /* the number in octal */
	XATTR_TEXT, /* what text writes */
};

struct xattr_field {
	const char *name; /* the whole name: "user.ar.size" */
	enum xattr_form form;
	size_t offset, size; /* of the unsigned number in the object */
	/* XATTR_TEXT: the value of obj into buf (XATTR_VALUE_MAX bytes); its
	 * length (no NUL counted), -ENOSPC when cut to fit, or -ENODATA when
	 * obj has none */
	int (*text)(const void *obj, char *buf);
};

/* An unsigned number: member of struct type, in form. */
#define XATTR_NUMBER(name, form, type, member)                                                     \
	{                                                                                          \
		(name), (form), offsetof(type, member), sizeof(((type *)0)->member), NULL          \
	}

/* A text written by fn. */
#define XATTR_WRITTEN(name, fn)                                                                    \
	{                                                                                          \
		(name), XATTR_TEXT, 0, 0, (fn)                                                     \
	}

struct xattr_table {
	const struct xattr_field *fields;
	size_t n;
};

#define XATTR_TABLE(fields)                                                                        \
	{                                                                                          \
		(fields), sizeof(fields) / sizeof((fields)[0])                                     \
	}

/* The names of t, NUL-separated, put after the len bytes of the list in
 * buf (each when it fits in size; buf NULL: none); the length of the list
 * with them. */
size_t xattr_table_list(const struct xattr_table *t, char *buf, size_t size, size_t len);

/* The field of t named name, or NULL. */
const struct xattr_field *xattr_table_find(const struct xattr_table *t, const char *name);

/* The value of attribute name of obj by t into buf (XATTR_VALUE_MAX
 * bytes): its length (no NUL counted; a text cut to fit counts what was
 * written), or -ENODATA when t has no such name or obj no such value. */
int xattr_table_value(const struct xattr_table *t, const void *obj, const char *name, char *buf);

#endif /* ELFFS_XATTRTAB_H */
