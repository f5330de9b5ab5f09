// Trace pools (src/trace/pool.c): a pooled trace writes into the pages the last destroyed
// one gave back (page faults counted by getrusage), a re-trace into another prompt's old
// memory is bit for bit a fresh trace, and a pool outlives its release while a trace uses it.
// A tensor's new memory is faulted in when it is handed out, pooled or not (before the
// op's threads write it: src/core/pages.c), where the kernel can (MADV_POPULATE_WRITE).
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <cmocka.h>

#include "../core/resident.h"
#include "session/session.h"
#include "trace/trace.h"

enum { N = 2 << 20 };  // floats: an 8 MiB tensor, 2048 pages of 4 KiB or 4 huge ones of 2 MiB
// Fresh memory: at least one fault per 2 MiB but the first, which the allocation may have
// written to time it (src/core/pages.c).
enum { FRESH_FAULTS = 3 };
static const int64_t shape[1] = {N};

static long minor_faults(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_minflt;
}

// Records one 8 MiB tensor into tr and writes every byte of it: the page faults the writing
// took (the reserve's own, for the name, the index and the tensor's new pages, are left
// out); in *missing when not NULL, the tensor's pages not resident before the write. Run
// with MALLOC_PERTURB_ unset or 0 (tests/trace/meson.build): otherwise malloc writes into
// every chunk it hands out, and no write finds a fresh page.
static long record_and_touch(tt_trace *tr, float **data, size_t *missing) {
  tt_recorder rec = tt_trace_recorder(tr);
  *data = rec.reserve(rec.ctx, "blocks.0.mlp.hook_pre", TT_F32, 1, shape);
  assert_non_null(*data);
  if (missing) *missing = pages_missing(*data, (size_t)N * sizeof(float));
  long before = minor_faults();
  memset(*data, 0x3f, (size_t)N * sizeof(float));
  return minor_faults() - before;
}

// A fresh tensor's pages: faulted in by the reserve where the kernel populates (every page
// resident before the write), else by the write (at least FRESH_FAULTS).
static void check_fresh(tt_trace *tr, float **data) {
  size_t missing;
  long in_write = record_and_touch(tr, data, &missing);
  if (kernel_populates())
    assert_int_equal(missing, 0);
  else
    assert_true(in_write >= FRESH_FAULTS);
}

static void test_second_trace_reuses_pages(void **state) {
  (void)state;
  tt_trace_pool *pool = tt_trace_pool_create();
  tt_trace *a = tt_trace_create_pooled(pool);
  float *pa, *pb, *pc;
  check_fresh(a, &pa);
  tt_trace_destroy(a);
  assert_true(tt_trace_pool_bytes(pool) >= (size_t)N * sizeof(float));
  // Every page already there: no fault. The kernel may still fault a resident page now and
  // then (a page migrated or a huge page split under another process's load: CI saw 4
  // once in many runs), so a second and third pooled trace get their chance; fresh memory
  // never takes fewer than FRESH_FAULTS.
  tt_trace *b = NULL;
  long reused = -1;
  for (int attempt = 0; attempt < 3 && reused != 0; attempt++) {
    if (b) tt_trace_destroy(b);
    b = tt_trace_create_pooled(pool);
    reused = record_and_touch(b, &pb, NULL);
    assert_ptr_equal(pa, pb);
  }
  assert_int_equal(reused, 0);
  assert_int_equal(tt_trace_pool_bytes(pool), 0);  // b holds the block now
  tt_trace *c = tt_trace_create();                 // without a pool, the same tensor takes new pages
  check_fresh(c, &pc);
  tt_trace_destroy(c);
  tt_trace_destroy(b);
  tt_trace_pool_release(pool);
}

static void test_pool_outlives_release(void **state) {
  (void)state;
  tt_trace_pool *pool = tt_trace_pool_create();
  tt_trace *a = tt_trace_create_pooled(pool);
  tt_trace_pool_release(pool);  // a still holds it
  float *p;
  record_and_touch(a, &p, NULL);
  assert_true(p[N - 1] > 0.7f);
  tt_trace_destroy(a);  // frees the pool with a's block
}

// A session's re-trace of a shorter prompt takes the blocks of a longer one (logits and
// probabilities, (T,V) each): every tensor bit for bit as in a trace made on fresh memory.
static void test_retrace_same_bits(void **state) {
  (void)state;
  tt_session *s;
  tt_error err = {0};
  tt_session_opts opts = {0};
  if (tt_session_open(&opts, &s, &err)) fail_msg("%s", err.msg);
  tt_trace *first, *reused, *fresh;
  if (tt_session_trace(s,
                       "A longer prompt whose logits and probabilities leave quite different numbers behind in memory",
                       NULL, 0, &first, &err))
    fail_msg("%s", err.msg);
  tt_trace_destroy(first);
  size_t kept = tt_trace_pool_bytes(s->pool);
  assert_true(kept >= 2 * 8 * 50257 * sizeof(float));
  if (tt_session_trace(s, "The quick brown fox jumps over the lazy dog", NULL, 0, &reused, &err))
    fail_msg("%s", err.msg);
  assert_true(tt_trace_pool_bytes(s->pool) < kept);  // it took blocks
  if (tt_session_trace(s, "The quick brown fox jumps over the lazy dog", NULL, 0, &fresh, &err))
    fail_msg("%s", err.msg);
  assert_int_equal(tt_trace_count(reused), tt_trace_count(fresh));
  for (size_t i = 0; i < tt_trace_count(fresh); i++) {
    const tt_tensor *x = tt_trace_get(reused, i), *y = tt_trace_get(fresh, i);
    assert_string_equal(x->name, y->name);
    if (strcmp(x->name, "tokens") == 0 || tt_tensor_nbytes(x) == 0) continue;
    assert_int_equal(tt_tensor_nbytes(x), tt_tensor_nbytes(y));
    assert_memory_equal(x->data, y->data, tt_tensor_nbytes(x));
  }
  tt_trace_destroy(fresh);
  tt_session_close(s);  // before its last trace: the pool stays until that one goes
  tt_trace_destroy(reused);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_second_trace_reuses_pages),
                                     cmocka_unit_test(test_pool_outlives_release),
                                     cmocka_unit_test(test_retrace_same_bits)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
