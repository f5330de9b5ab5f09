// diff: the one rule for comparing tensors (trace.h): finite cells by |a - b|, the same
// infinity in both equal, finite on one side only counted apart, NaN counted apart; any
// dtype read by value; a mapping of indices into B.
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>

#include "trace/trace.h"

static void test_cells(void **state) {
  (void)state;
  assert_int_equal(tt_diff_cell(1, 2), TT_CELL_FINITE);
  assert_int_equal(tt_diff_cell(-INFINITY, -INFINITY), TT_CELL_SAME_INF);
  assert_int_equal(tt_diff_cell(INFINITY, INFINITY), TT_CELL_SAME_INF);
  assert_int_equal(tt_diff_cell(-INFINITY, 3), TT_CELL_ONE_SIDED);
  assert_int_equal(tt_diff_cell(3, -INFINITY), TT_CELL_ONE_SIDED);
  assert_int_equal(tt_diff_cell(NAN, 3), TT_CELL_ONE_SIDED);
  assert_int_equal(tt_diff_cell(NAN, NAN), TT_CELL_NONFINITE);
  assert_int_equal(tt_diff_cell(INFINITY, -INFINITY), TT_CELL_NONFINITE);
}

static void test_masked(void **state) {
  (void)state;
  // A masked score row: -inf in both (equal), -inf in A only, NaN in B only.
  float a[6] = {1.0f, -INFINITY, -INFINITY, 4.0f, -2.0f, 0.5f};
  float b[6] = {1.5f, -INFINITY, 7.0f, 4.0f, NAN, 0.25f};
  tt_tensor ta = {"a", TT_F32, 2, {2, 3}, a}, tb = {"b", TT_F32, 2, {2, 3}, b};
  tt_diff_stats s;
  tt_diff_tensors(&ta, &tb, NULL, NULL, &s);
  assert_int_equal(s.n, 6);
  assert_true(s.max_abs_a == 4.0);
  assert_true(s.max_diff == 0.5);
  assert_int_equal(s.max_at, 0);
  assert_int_equal(s.n_one_sided, 2);
  assert_int_equal(s.n_nonfinite, 0);
  assert_true(tt_diff_relative(&s) == 0.125);
  assert_false(tt_diff_identical(&s));
  tt_diff_tensors(&ta, &ta, NULL, NULL, &s);
  assert_true(tt_diff_identical(&s));  // -inf in both: equal
  assert_int_equal(s.n_one_sided, 0);
}

// F64, I64 and U8 are compared by value, not as zeros or as reinterpreted F32 bytes.
static void test_dtypes(void **state) {
  (void)state;
  double f64[3] = {1e-300, 2.5, -3};
  float f32[3] = {0, 2.5f, -3};
  int64_t i64[3] = {5000000000LL, 1, 2}, i64b[3] = {5000000001LL, 1, 2};
  uint8_t u8[3] = {1, 2, 200}, u8b[3] = {1, 2, 3};
  tt_tensor a = {"a", TT_F64, 1, {3}, f64}, b = {"b", TT_F32, 1, {3}, f32};
  tt_diff_stats s;
  tt_diff_tensors(&a, &b, NULL, NULL, &s);
  assert_true(s.max_diff == 1e-300);
  assert_false(tt_diff_identical(&s));
  tt_tensor c = {"c", TT_I64, 1, {3}, i64}, d = {"d", TT_I64, 1, {3}, i64b};
  tt_diff_tensors(&c, &d, NULL, NULL, &s);
  assert_true(s.max_diff == 1.0);
  assert_true(s.max_abs_a == 5e9);
  tt_tensor e = {"e", TT_U8, 1, {3}, u8}, f = {"f", TT_U8, 1, {3}, u8b};
  tt_diff_tensors(&e, &f, NULL, NULL, &s);
  assert_true(s.max_diff == 197.0);
  assert_int_equal(s.max_at, 2);
}

static int64_t reversed(void *ctx, int64_t i) {
  return *(const int64_t *)ctx - 1 - i;
}

static void test_mapping(void **state) {
  (void)state;
  float a[4] = {1, 2, 3, 4}, b[4] = {4, 3, 2, 1.5f};
  tt_tensor ta = {"a", TT_F32, 1, {4}, a}, tb = {"b", TT_F32, 1, {4}, b};
  int64_t n = 4;
  tt_diff_stats s;
  tt_diff_tensors(&ta, &tb, reversed, &n, &s);
  assert_true(s.max_diff == 0.5);
  assert_int_equal(s.max_at, 0);
  // No finite cell in both: nothing subtracted, max_at -1.
  float m[1] = {-INFINITY}, k[1] = {2};
  tt_tensor tm = {"m", TT_F32, 1, {1}, m}, tk = {"k", TT_F32, 1, {1}, k};
  tt_diff_tensors(&tm, &tk, NULL, NULL, &s);
  assert_int_equal(s.max_at, -1);
  assert_int_equal(s.n_one_sided, 1);
  assert_true(s.max_diff == 0 && s.max_abs_a == 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_cells), cmocka_unit_test(test_masked),
                                     cmocka_unit_test(test_dtypes), cmocka_unit_test(test_mapping)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
