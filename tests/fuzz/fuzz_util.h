// fuzz_util: what the libFuzzer harnesses share: a private scratch folder for the files
// the readers open by path, and the invariants every error must keep.
#ifndef TT_FUZZ_UTIL_H
#define TT_FUZZ_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "core/core.h"

// The harness's scratch folder (made once, on /dev/shm when there is one).
const char *fuzz_dir(void);
// Writes bytes to fuzz_dir()/name and returns that path (a static buffer per call site is
// not needed: the path is stored in one of a few rotating buffers).
const char *fuzz_write(const char *name, const void *data, size_t n);
// An error message is one line, not empty, and its status is not TT_OK.
void fuzz_check_error(tt_status st, const tt_error *err);
// Stops the process as a crash (libFuzzer saves the input) with a message.
void fuzz_fail(const char *what) __attribute__((noreturn));
// Splits data at its first NUL byte: *a/*na before, *b/*nb after (nb 0 when there is none).
void fuzz_split(const uint8_t *data, size_t n, const uint8_t **a, size_t *na, const uint8_t **b, size_t *nb);

#endif
