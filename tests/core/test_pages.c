// Large write-once buffers (src/core/pages.c): every size comes back 64-byte aligned and
// writable to its last byte; from 2 MiB on it starts on a 2 MiB boundary; where the kernel
// offers transparent huge pages for the asking and the first one was fast, writing 8 MiB
// takes a few faults rather than one per 4 KiB page; a holder that found them slow gets
// small pages.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "core/core.h"

#define MIB ((size_t)1 << 20)

static long minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

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

// Faults taken writing every byte of 8 MiB from a holder in state *huge.
static long faults_writing_8_mib(tt_huge_pages *huge, long *fallbacks) {
  size_t n = 8 * MIB;
  unsigned char *p = tt_pages_alloc(n, huge);
  assert_non_null(p);
  long before_fallbacks = thp_fallbacks(), before = minor_faults();
  memset(p, 0x5a, n);
  long faults = minor_faults() - before;
  *fallbacks = thp_fallbacks() - before_fallbacks;
  tt_pages_free(p, n);
  assert_true(faults >= 1 && faults <= (long)(n / 4096) + 8);
  return faults;
}

static void test_large_buffer_takes_few_faults(void **state) {
  (void)state;
  tt_huge_pages huge = TT_HUGE_UNTRIED;
  long fallbacks, faults = faults_writing_8_mib(&huge, &fallbacks);
  assert_int_not_equal(huge, TT_HUGE_UNTRIED);  // the first buffer decided
  if (huge_pages_offered() && huge == TT_HUGE_FAST && fallbacks == 0)
    assert_true(faults <= 16);  // 4 huge pages (the first already written)
  else
    printf("huge pages not used (THP off, slow or memory fragmented): %ld faults for 8 MiB\n", faults);
}

static void test_slow_huge_pages_give_small_ones(void **state) {
  (void)state;
  tt_huge_pages huge = TT_HUGE_SLOW;
  long fallbacks, faults = faults_writing_8_mib(&huge, &fallbacks);
  assert_int_equal(huge, TT_HUGE_SLOW);
  assert_true(faults >= 2048 * 3 / 4);  // one per 4 KiB page
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_every_size_aligned_and_writable),
                                     cmocka_unit_test(test_large_buffer_takes_few_faults),
                                     cmocka_unit_test(test_slow_huge_pages_give_small_ones)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
