/*
 * The libFuzzer entry points the targets define and the replay runner
 * calls. Declared here so that the targets compile with
 * -Wmissing-prototypes and so that replay.c can link any one target.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stddef.h>
#include <stdint.h>

/* Run one input: every target defines it. Always returns 0. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Optional one-time setup (fuzz_open_file). */
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* The structure-aware mutator (mutate.c, used by fuzz_structure). */
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* libFuzzer's own byte-level mutator; replay.c brings a small stand-in. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

#endif /* FUZZ_H */
