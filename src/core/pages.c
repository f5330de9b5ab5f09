// pages: memory for large buffers that are written once through, such as a trace's
// tensors. A fresh 4 KiB page costs a fault each (1.5 us on the development VM: 25 ms for
// 64 MiB); mappings of 2 MiB and more are aligned to 2 MiB and asked to be backed by huge
// pages (MADV_HUGEPAGE, honoured where transparent huge pages are "madvise" or "always"),
// one fault per 2 MiB: 64 MiB in 6 ms. Smaller buffers come from the C allocator.
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "core.h"

#define HUGE_BYTES ((size_t)2 << 20)
#define PAGE_BYTES ((size_t)4096)

static size_t mapped_bytes(size_t bytes) {
  return (bytes + PAGE_BYTES - 1) / PAGE_BYTES * PAGE_BYTES;
}

void *tt_pages_alloc(size_t bytes) {
  if (bytes < HUGE_BYTES) return aligned_alloc(64, bytes ? (bytes + 63) / 64 * 64 : 64);
  size_t len = mapped_bytes(bytes);
  // Over-map by 2 MiB and trim both ends so that the buffer starts on a 2 MiB boundary.
  unsigned char *raw = mmap(NULL, len + HUGE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) return NULL;
  uintptr_t start = ((uintptr_t)raw + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1);
  unsigned char *p = (unsigned char *)start;
  if (p > raw) munmap(raw, (size_t)(p - raw));
  size_t tail = (size_t)(raw + len + HUGE_BYTES - (p + len));
  if (tail) munmap(p + len, tail);
  madvise(p, len, MADV_HUGEPAGE);  // a hint: where refused the pages are small ones
  return p;
}

void tt_pages_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes < HUGE_BYTES)
    free(p);
  else
    munmap(p, mapped_bytes(bytes));
}
