/*
 * libFuzzer target: pfelf_open_memory on the input, then the whole walk
 * (walk.c): every answer checked against the input and the contract.
 */
#include "fuzz.h"
#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t digest;
	(void)walk_memory_input(data, size, &digest);
	return 0;
}
