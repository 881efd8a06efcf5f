/*
 * list_sections: print the sections of an ELF file, one line each:
 * "[index] type name", the type spelled as readelf spells it.
 *
 * A user of the installed library builds it with
 *     cc list_sections.c $(pkg-config --cflags --libs pfelf) -o list_sections
 * and needs nothing of this source tree (tests/mount/test_install.py does
 * exactly that against a `meson install --destdir` of the build).
 */
#include <pfelf.h>

#include <stdio.h>
#include <string.h>

static int print_section(pfelf_file *f, uint32_t index)
{
	const pfelf_shdr *sh;
	char type[32];
	int ret = pfelf_section(f, index, &sh);
	if (ret < 0)
		return ret;
	ret = pfelf_section_type_name_os(sh->type, pfelf_header(f)->machine, pfelf_header(f)->osabi,
	                                 type, sizeof(type));
	if (ret < 0)
		return ret;
	printf("[%u] %s %s\n", index, type, sh->name);
	return 0;
}

static int list(const char *path)
{
	pfelf_file *f;
	int ret = pfelf_open(path, 0, &f);
	if (ret < 0)
		return ret;
	int n = pfelf_section_count(f);
	ret = n < 0 ? n : 0;
	for (int i = 1; i < n && ret == 0; i++)
		ret = print_section(f, (uint32_t)i);
	pfelf_close(f);
	return ret;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s ELF-FILE\n(pfelf %s, headers %s)\n", argv[0],
		        pfelf_version(), PFELF_VERSION_STRING);
		return 2;
	}
	int ret = list(argv[1]);
	if (ret < 0) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(-ret));
		return 1;
	}
	return 0;
}
