// Large write-once buffers (src/core/pages.c): every size comes back 64-byte aligned and
// writable to its last byte; from 2 MiB on it starts on a 2 MiB boundary; where the kernel
// offers transparent huge pages for the asking and the first one was fast, 8 MiB written
// lie on huge pages (4 of 2 MiB rather than 2048 of 4 KiB); a holder that found them slow
// gets small pages. tt_pages_populate faults a range in without changing a byte of it, and
// an arena's chunks of 2 MiB and more are faulted in as far as they hand out, every earlier
// allocation's bytes kept.
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/core.h"
#include "resident.h"

#define MIB ((size_t)1 << 20)

static void test_every_size_aligned_and_writable(void **state) {
  (void)state;
  const size_t sizes[] = {0, 1, 63, 64, 4095, 4097, 2 * MIB - 1, 2 * MIB, 2 * MIB + 1, 9 * MIB + 123};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) {
    size_t n = sizes[i];
    tt_huge_pages huge = i % 2 ? TT_HUGE_SLOW : TT_HUGE_UNTRIED;
    unsigned char *p = tt_pages_alloc(n, &huge);
    assert_non_null(p);
    assert_int_equal((uintptr_t)p % 64, 0);
    if (n >= 2 * MIB) assert_int_equal((uintptr_t)p % (2 * MIB), 0);
    for (size_t j = 0; j < n; j++) p[j] = (unsigned char)(j * 7 + i);
    for (size_t j = 0; j < n; j++)
      if (p[j] != (unsigned char)(j * 7 + i)) fail_msg("size %zu: byte %zu changed", n, j);
    tt_pages_free(p, n);
  }
  tt_pages_free(NULL, 5 * MIB);  // nothing to free: no effect
}

// The system's transparent huge pages setting is "always" or "madvise" (the bracketed word).
static int huge_pages_offered(void) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char line[128] = {0};
  if (!f) return 0;
  int ok = fgets(line, sizeof line, f) && (strstr(line, "[always]") || strstr(line, "[madvise]"));
  fclose(f);
  return ok;
}

// /proc/vmstat's count of huge-page faults that fell back to small pages (memory too
// fragmented to find 2 MiB), or -1 when unreadable.
static long thp_fallbacks(void) {
  FILE *f = fopen("/proc/vmstat", "r");
  char key[64];
  long v, found = -1;
  if (!f) return -1;
  while (fscanf(f, "%63s %ld", key, &v) == 2)
    if (strcmp(key, "thp_fault_fallback") == 0) found = v;
  fclose(f);
  return found;
}

// The huge pages (KiB) backing the mapping that holds p, from /proc/self/smaps (what the
// process's fault count cannot say under a sanitizer, whose shadow pages fault too); -1
// when unreadable.
static long huge_kib_at(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  char line[512];
  long kib = -1;
  bool inside = false;
  if (!f) return -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2)  // a mapping's first line: "lo-hi perms ..."
      inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (inside && sscanf(line, "AnonHugePages: %ld kB", &kib) == 1)
      break;
  }
  fclose(f);
  return kib;
}

// Every byte of 8 MiB from a holder in state *huge written: the huge pages behind it (KiB),
// and in *fallbacks the huge-page faults the kernel could not serve meanwhile.
static long huge_kib_writing_8_mib(tt_huge_pages *huge, long *fallbacks) {
  size_t n = 8 * MIB;
  long before = thp_fallbacks();
  unsigned char *p = tt_pages_alloc(n, huge);
  assert_non_null(p);
  memset(p, 0x5a, n);
  long kib = huge_kib_at(p);
  *fallbacks = thp_fallbacks() - before;
  for (size_t i = 0; i < n; i += 4096) assert_int_equal(p[i], 0x5a);
  tt_pages_free(p, n);
  return kib;
}

static void test_large_buffer_on_huge_pages(void **state) {
  (void)state;
  tt_huge_pages huge = TT_HUGE_UNTRIED;
  long fallbacks, kib = huge_kib_writing_8_mib(&huge, &fallbacks);
  assert_int_not_equal(huge, TT_HUGE_UNTRIED);  // the first buffer decided
  if (huge_pages_offered() && huge == TT_HUGE_FAST && fallbacks == 0 && kib >= 0)
    assert_int_equal(kib, 8192);  // 4 huge pages
  else
    printf("huge pages not used (THP off, slow or memory fragmented): %ld KiB of 8192\n", kib);
}

static void test_slow_huge_pages_give_small_ones(void **state) {
  (void)state;
  tt_huge_pages huge = TT_HUGE_SLOW;
  long fallbacks, kib = huge_kib_writing_8_mib(&huge, &fallbacks);
  assert_int_equal(huge, TT_HUGE_SLOW);
  if (kib >= 0) assert_int_equal(kib, 0);
}

// Half of a fresh 9 MiB buffer written, then a range from mid-page to mid-page populated:
// every byte kept (what was written and the zeros of a fresh mapping), every page of the
// range resident, the pages past it not.
static void test_populate_keeps_every_byte(void **state) {
  (void)state;
  size_t n = 9 * MIB, page = (size_t)sysconf(_SC_PAGESIZE), half = n / 2 + 5;
  tt_huge_pages huge = TT_HUGE_SLOW;  // small pages: residency page by page
  unsigned char *p = tt_pages_alloc(n, &huge);
  assert_non_null(p);
  for (size_t j = 0; j < half; j++) p[j] = (unsigned char)(j * 13 + 1);
  size_t from = 1000, to = n - 3 * page - 100;
  tt_pages_populate(p + from, to - from);
  tt_pages_populate(p, 0);  // nothing
  if (kernel_populates()) {
    assert_int_equal(pages_missing(p, to), 0);
    assert_int_equal(pages_missing(p + n - page, page), 1);
  }
  for (size_t j = 0; j < n; j++)
    if (p[j] != (j < half ? (unsigned char)(j * 13 + 1) : 0)) fail_msg("byte %zu changed", j);
  tt_pages_free(p, n);
}

// Allocations of many sizes from an arena whose chunks grow past 2 MiB: each one resident
// as soon as it is handed out (where the kernel populates), and each one's bytes intact
// after all the others were made and written.
static void test_arena_allocations_populated(void **state) {
  (void)state;
  tt_arena *a = tt_arena_create(3 * MIB);
  assert_non_null(a);
  enum { COUNT = 40 };
  unsigned char *got[COUNT];
  size_t sizes[COUNT];
  bool populates = kernel_populates();
  for (int i = 0; i < COUNT; i++) {
    sizes[i] = (size_t)(i % 7) * 300000 + (size_t)i * 4099 + 1;
    got[i] = tt_arena_alloc(a, sizes[i], 64);
    assert_non_null(got[i]);
    if (populates && pages_missing(got[i], sizes[i]) != 0) fail_msg("allocation %d: not all resident", i);
    memset(got[i], i + 1, sizes[i]);
  }
  for (int i = 0; i < COUNT; i++)
    for (size_t j = 0; j < sizes[i]; j++)
      if (got[i][j] != (unsigned char)(i + 1)) fail_msg("allocation %d: byte %zu changed", i, j);
  tt_arena_destroy(a);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_size_aligned_and_writable), cmocka_unit_test(test_large_buffer_on_huge_pages),
      cmocka_unit_test(test_slow_huge_pages_give_small_ones), cmocka_unit_test(test_populate_keeps_every_byte),
      cmocka_unit_test(test_arena_allocations_populated)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
