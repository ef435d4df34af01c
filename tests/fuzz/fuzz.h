/* The libFuzzer entry points every target in tests/fuzz defines. Built with --enable-fuzzing,
 * a target links libFuzzer's main (-fsanitize=fuzzer); otherwise replay.c's main runs the
 * committed corpus through it as a regression test of make check. */
#ifndef VOTECL_FUZZ_H
#define VOTECL_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message: a violated property is a finding, like a crash. */
#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fuzz_fail(__FILE__, __LINE__, #cond);                                                  \
    } while (0)

void fuzz_fail(const char *file, int line, const char *what) __attribute__((noreturn));

#endif
