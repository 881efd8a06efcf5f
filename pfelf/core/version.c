/* The version of the library that runs (pfelf_version.h: the headers'). */
#include "pfelf.h"

PFELF_API const char *pfelf_version(void)
{
	return PFELF_VERSION_STRING;
}
