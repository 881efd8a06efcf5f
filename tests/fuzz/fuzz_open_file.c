/*
 * libFuzzer target: the input is written once to a memfd, then opened and
 * walked two ways: pfelf_open of its path (mmap backend) and pfelf_open_fd
 * with PFELF_OPEN_NOMMAP (pread backend). pfelf promises that callers
 * cannot tell backends apart, so the two opens must agree and the two walks
 * must give the same digest (fuzz_open_memory walks the memory backend; the
 * replay of this target also compares it, every input being few there).
 * Afterwards the shared-mapping registry must be empty: nothing leaked a
 * mapping.
 */
#include "fuzz.h"
#include "walk.h"

#include <errno.h>
#include <stdlib.h>

static struct walk_memfd input = {.fd = -1};

static void setup(void)
{
	if (input.fd >= 0)
		return;
	walk_memfd_open(&input, "pfelf-fuzz");
	pfelf_file *f = NULL;
	/* The /proc path is a symbolic link: refused with NOFOLLOW. */
	WALK_CHECK(pfelf_open(input.path, PFELF_OPEN_NOFOLLOW, &f) == -ELOOP && f == NULL);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	setup();
	return 0;
}

/* Walk f (or check its open error); returns the digest, 0 on error. */
static uint64_t walk_opened(int ret, pfelf_file *f, enum pfelf_backend want, const uint8_t *data,
                            size_t size)
{
	if (ret < 0) {
		WALK_CHECK(f == NULL);
		walk_check_open_error(ret, data, size);
		return 0;
	}
	WALK_CHECK(ret == 0 && f != NULL && pfelf_backend(f) == want);
	return walk_and_close(f, data, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	setup();
	walk_memfd_write(&input, data, size);
	pfelf_file *f = NULL;
	int r_mmap = pfelf_open(input.path, 0, &f);
	uint64_t d_mmap = walk_opened(r_mmap, f, PFELF_BACKEND_MMAP, data, size);
	f = NULL;
	int r_pread = pfelf_open_fd(input.fd, PFELF_OPEN_NOMMAP, &f);
	uint64_t d_pread = walk_opened(r_pread, f, PFELF_BACKEND_PREAD, data, size);
	WALK_CHECK(r_mmap == r_pread && d_mmap == d_pread);
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* Without libFuzzer (the replay), the memory backend as well. */
	uint64_t d_mem = 0;
	int r_mem = walk_memory_input(data, size, &d_mem);
	WALK_CHECK(r_mem == r_mmap && (r_mem < 0 || d_mem == d_mmap));
#endif
	pfelf_registry_stats st;
	pfelf_registry_stats_get(&st);
	WALK_CHECK(st.mappings == 0 && st.mapped_bytes == 0 && st.handles == 0);
	return 0;
}
