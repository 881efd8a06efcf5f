/*
 * libFuzzer target with a structure-aware mutator (mutate.c): inputs are
 * real ELF files whose header fields, table entries and string tables the
 * mutator sets to boundary values, so that fuzzing reaches past the header
 * checks. Each input is opened from memory and walked (walk.c).
 */
#include "fuzz.h"
#include "walk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t digest;
	(void)walk_memory_input(data, size, &digest);
	return 0;
}
