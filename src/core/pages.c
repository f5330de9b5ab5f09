// pages: memory for large buffers that are written once through, such as a trace's
// tensors. A fresh 4 KiB page costs a fault each (1.3-1.5 us on the Zen 4 VM: 25 ms for
// 64 MiB); mappings of 2 MiB and more are aligned to 2 MiB and asked to be backed by huge
// pages (MADV_HUGEPAGE, honoured where transparent huge pages are "madvise" or "always"),
// one fault per 2 MiB: 64 MiB in 6 ms. Smaller buffers come from the C allocator.
// Huge pages are not fast everywhere: on one Intel VM each took 40-80 ms (the kernel
// compacting memory to find 2 MiB), 20-40 times the small pages' cost. So a holder's first
// huge page is touched and timed here, and a slow one turns them off for that holder.
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

#define HUGE_BYTES ((size_t)2 << 20)
// What 512 small faults cost on the slowest host measured (1.3 s/GiB); a huge page that
// takes longer to fault in than the small pages it replaces is not worth asking for.
#define SLOW_HUGE_NS 2600000ull

// The system's page size (4 KiB on x86-64, up to 64 KiB on arm64).
static size_t page_bytes(void) {
  long page = sysconf(_SC_PAGESIZE);
  return page > 0 ? (size_t)page : 4096;
}

// bytes rounded up to whole pages, so that the tail trimmed after them starts on a page.
static size_t mapped_bytes(size_t bytes) {
  size_t n = page_bytes();
  return (bytes + n - 1) / n * n;
}

// The first huge page of p's len bytes (asked for) written and timed: its verdict in *huge,
// and small pages for the rest of the mapping when it was slow.
static void try_huge(unsigned char *p, size_t len, tt_huge_pages *huge) {
  uint64_t t0 = tt_now_ns();
  *(volatile unsigned char *)p = 0;
  if (tt_now_ns() - t0 <= SLOW_HUGE_NS) {
    *huge = TT_HUGE_FAST;
  } else {
    *huge = TT_HUGE_SLOW;
    madvise(p, len, MADV_NOHUGEPAGE);
  }
}

void *tt_pages_alloc(size_t bytes, tt_huge_pages *huge) {
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
  // Hints: where refused, the pages are what the system's setting gives.
  madvise(p, len, *huge == TT_HUGE_SLOW ? MADV_NOHUGEPAGE : MADV_HUGEPAGE);
  if (*huge == TT_HUGE_UNTRIED) try_huge(p, len, huge);
  return p;
}

// Two threads that write the first bytes of one new 2 MiB region at once both take the
// fault: each has a huge page allocated and zeroed, and the loser's is freed again (on a
// VM, handed back to its host). A trace's tensors are written so, each thread its part of
// an op's output, so the trace faults its new memory in first on the thread that asks for
// it. Zen 5 guest, two cores, first traces against record none, three alternated rounds:
// T = 64 1.32-1.41 -> 1.02-1.26, T = 256 1.01-1.33 -> 1.06-1.12 (faults per trace 31 -> 18
// and 111-129 -> 71, the one-core counts); T = 1024 level (faults 530 -> 284).
bool tt_pages_populate(void *p, size_t bytes) {
#ifdef MADV_POPULATE_WRITE
  uintptr_t n = page_bytes(), start = (uintptr_t)p & ~(n - 1);
  uintptr_t end = ((uintptr_t)p + bytes + n - 1) & ~(n - 1);
  return !bytes || madvise((void *)start, end - start, MADV_POPULATE_WRITE) == 0;
#else
  (void)p, (void)bytes;
  return false;
#endif
}

void tt_pages_free(void *p, size_t bytes) {
  if (!p) return;
  if (bytes < HUGE_BYTES)
    free(p);
  else
    munmap(p, mapped_bytes(bytes));
}
