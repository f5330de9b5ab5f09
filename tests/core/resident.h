// Residency probes for tests of new memory (src/core/pages.c): whether the kernel
// populates on request, and how many pages of a range are not resident yet (mincore).
#ifndef TT_TESTS_RESIDENT_H
#define TT_TESTS_RESIDENT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/core.h"

// Whether this kernel populates memory on request (MADV_POPULATE_WRITE, Linux 5.14).
static inline bool kernel_populates(void) {
  tt_huge_pages small = TT_HUGE_SLOW;
  void *p = tt_pages_alloc(1, &small);
  bool ok = p && tt_pages_populate(p, 1);
  tt_pages_free(p, 1);
  return ok;
}

// The pages (of the system's size) of [p, p + bytes) that are not resident; SIZE_MAX
// when mincore fails.
static inline size_t pages_missing(const void *p, size_t bytes) {
  size_t page = (size_t)sysconf(_SC_PAGESIZE);
  uintptr_t start = (uintptr_t)p & ~(uintptr_t)(page - 1);
  size_t n = ((uintptr_t)p + bytes - start + page - 1) / page, missing = 0;
  unsigned char *vec = malloc(n ? n : 1);
  if (!vec || mincore((void *)start, n * page, vec) != 0) {
    free(vec);
    return SIZE_MAX;
  }
  for (size_t i = 0; i < n; i++) missing += !(vec[i] & 1);
  free(vec);
  return missing;
}

#endif
