// The weights in column panels (src/backend/panels.c, src/backend/openblas_panels.c):
// - pack and unpack are inverses, and the pad columns of the last panel are zero;
// - a's row blocks (tt_panels_pack_a) hold every element where panels.h says, at every M
//   from 1 to 40 and K with and without a whole 16 (a full block is transposed 16 k's at a time);
// - products against a naive loop in double at every M from 1 to 17 and at 23, 24, 25, 33
//   and 40 (the row blocks of 12 and their tails), K = 0, 1, 7, 31, 32, 33, 100, 768
//   (the chunks of 32 panel rows and a tail), N = 1, 5, 31, 32, 33, 100, 2304 (the last
//   panel partly padding), with and without bias; every element written;
// - the same bits for a row whatever M and whatever range of panels computes it (panels.h);
// - tt_panels_pack_transposed of wᵀ gives w's panels, and tt_panels_column reads wᵀ's rows back;
// - through the OpenBLAS backend (pack_weight, on 1 and 2 threads), w (K,N) and (N,K) with
//   trans_b: the forward's product with bias and the backward's transposed one (the weight
//   unpacked) against naive loops; embed's rows from a table packed with trans_b.
// Tolerance: |got − want| <= 8·ε·√K·Σ_k |a_mk·w_kn| + ε·|bias_n| (ε = 2^-23), as for small_m.
// Without AVX-512 only pack and unpack run (the backend then has no pack_weight).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <cmocka.h>

#include "backend/backend.h"
#include "backend/panels.h"

static uint64_t rng = 0x13198a2e03707344ull;
static float frand(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (float)((rng >> 11) * (2.0 / 9007199254740992.0) - 1.0);
}

static float *rand_vec(size_t n) {
  float *v = malloc((n ? n : 1) * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = frand();
  return v;
}

static float *packed(const float *w, int K, int N) {
  float *p = aligned_alloc(64, (tt_panels_floats(K, N) + 16) * sizeof *p);
  tt_panels_pack(p, w, K, N);
  return p;
}

// got (M,N) against a (M,K) · w + bias, w (K,N); with trans, w is (N,K) and the product a · wᵀ.
static void expect_product(const char *what, const float *got, const float *a, const float *w, const float *bias, int M,
                           int K, int N, bool trans) {
  const double eps = 1.0 / 8388608.0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double s = 0.0, mag = 0.0;
      for (int k = 0; k < K; k++) {
        double p = (double)a[(size_t)m * K + k] * (trans ? w[(size_t)n * K + k] : w[(size_t)k * N + n]);
        s += p, mag += fabs(p);
      }
      double bn = bias ? bias[n] : 0.0, want = s + bn, tol = 8.0 * eps * sqrt((double)K) * mag + eps * fabs(bn);
      double g = got[(size_t)m * N + n];
      if (!(fabs(g - want) <= tol))
        fail_msg("%s M=%d K=%d N=%d%s: out[%d][%d] = %.9g, want %.9g (tolerance %.3g)", what, M, K, N,
                 bias ? " bias" : "", m, n, g, want, tol);
    }
}

static void test_pack_unpack(void **state) {
  (void)state;
  static const int shapes[][2] = {{1, 1}, {3, 31}, {5, 32}, {7, 33}, {40, 100}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int K = shapes[s][0], N = shapes[s][1];
    float *w = rand_vec((size_t)K * N), *p = packed(w, K, N), *back = malloc((size_t)K * N * sizeof *back);
    tt_panels_unpack(back, p, K, N);
    assert_memory_equal(back, w, (size_t)K * N * sizeof *w);
    float *wt = malloc((size_t)K * N * sizeof *wt), *pt = aligned_alloc(64, tt_panels_floats(K, N) * sizeof *pt);
    for (int k = 0; k < K; k++)  // wt (N,K) = wᵀ: its transposed panels are w's panels
      for (int n = 0; n < N; n++) wt[(size_t)n * K + k] = w[(size_t)k * N + n];
    tt_panels_pack_transposed(pt, wt, K, N);
    assert_memory_equal(pt, p, tt_panels_floats(K, N) * sizeof *p);
    float *row = malloc((size_t)K * sizeof *row);
    for (int n = 0; n < N; n++) {  // row n of wt, read back from its panels
      tt_panels_column(row, pt, K, n);
      assert_memory_equal(row, wt + (size_t)n * K, (size_t)K * sizeof *row);
    }
    free(wt), free(pt), free(row);
    for (int k = 0; k < K; k++)  // the element (k, n) in its panel; the pad is zero
      for (int n = 0; n < tt_panels_count(N) * TT_PANEL_COLS; n++) {
        float v = p[(size_t)(n / TT_PANEL_COLS) * K * TT_PANEL_COLS + (size_t)k * TT_PANEL_COLS + n % TT_PANEL_COLS];
        assert_true(n < N ? v == w[(size_t)k * N + n] : v == 0.0f);
      }
    free(w), free(p), free(back);
  }
}

// a (M,K) in row blocks (tt_panels_pack_a), packed in two calls (blocks [0, 1) and the rest).
static float *rows_in_blocks(const float *a, int M, int K) {
  float *ap = aligned_alloc(64, ((size_t)M * K / 16 + 1) * 16 * sizeof *ap);  // a multiple of 64 bytes
  tt_panels_pack_a(ap, a, M, K, 0, 1);
  tt_panels_pack_a(ap, a, M, K, 1, tt_panels_row_blocks(M));
  return ap;
}

// The row blocks' layout, element by element, at M = 1..40 and K = 0, 1, 15, 16, 17, 100.
static void test_rows_in_blocks(void **state) {
  (void)state;
  static const int Ks[] = {0, 1, 15, 16, 17, 100};
  for (int M = 1; M <= 40; M++)
    for (size_t k = 0; k < sizeof Ks / sizeof *Ks; k++) {
      int K = Ks[k];
      float *a = rand_vec((size_t)M * K), *ap = rows_in_blocks(a, M, K);
      for (int m = 0; m < M; m++) {
        int r0 = m / TT_PANEL_ROWS * TT_PANEL_ROWS, r = M - r0 < TT_PANEL_ROWS ? M - r0 : TT_PANEL_ROWS;
        for (int i = 0; i < K; i++)
          if (ap[(size_t)r0 * K + (size_t)i * r + (m - r0)] != a[(size_t)m * K + i])
            fail_msg("M=%d K=%d: row %d, k %d misplaced in its block", M, K, m, i);
      }
      free(a), free(ap);
    }
}

static void check_product(int M, int K, int N, bool with_bias) {
  float *a = rand_vec((size_t)M * K), *w = rand_vec((size_t)K * N), *bias = rand_vec((size_t)N);
  float *p = packed(w, K, N), *got = malloc((size_t)M * N * sizeof *got), *ap = rows_in_blocks(a, M, K);
  for (size_t i = 0; i < (size_t)M * N; i++) got[i] = NAN;  // every element must be written
  tt_panels_matmul(got, ap, p, with_bias ? bias : NULL, M, K, N, 0, tt_panels_count(N));
  expect_product("panels", got, a, w, with_bias ? bias : NULL, M, K, N, false);
  free(a), free(w), free(bias), free(p), free(got), free(ap);
}

static void test_products(void **state) {
  (void)state;
  if (!tt_panels_available()) skip();
  static const int Ks[] = {0, 1, 7, 31, 32, 33, 100, 768}, Ns[] = {1, 5, 31, 32, 33, 100};
  static const int Ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 23, 24, 25, 33, 40};
  for (size_t m = 0; m < sizeof Ms / sizeof *Ms; m++) {
    for (size_t k = 0; k < sizeof Ks / sizeof *Ks; k++)
      for (size_t n = 0; n < sizeof Ns / sizeof *Ns; n++) check_product(Ms[m], Ks[k], Ns[n], (k + n) % 2 == 0);
    check_product(Ms[m], 768, 2304, true);  // GPT-2 small's (C, 3C)
  }
}

// Row r of a 40-row product, computed as 40 rows, as row r alone, and over two ranges of panels.
static void test_same_bits(void **state) {
  (void)state;
  if (!tt_panels_available()) skip();
  const int M = 40, K = 100, N = 100, P = tt_panels_count(N);
  float *a = rand_vec((size_t)M * K), *w = rand_vec((size_t)K * N), *bias = rand_vec((size_t)N), *p = packed(w, K, N);
  float *whole = malloc((size_t)M * N * sizeof *whole), *split = malloc((size_t)M * N * sizeof *split);
  float *row = malloc((size_t)N * sizeof *row), *ap = rows_in_blocks(a, M, K);
  tt_panels_matmul(whole, ap, p, bias, M, K, N, 0, P);
  tt_panels_matmul(split, ap, p, bias, M, K, N, 1, P);
  tt_panels_matmul(split, ap, p, bias, M, K, N, 0, 1);
  assert_memory_equal(split, whole, (size_t)M * N * sizeof *whole);
  for (int r = 0; r < M; r++) {
    tt_panels_matmul(row, a + (size_t)r * K, p, bias, 1, K, N, 0, P);  // one row packs as itself
    assert_memory_equal(row, whole + (size_t)r * N, (size_t)N * sizeof *row);
  }
  free(a), free(w), free(bias), free(p), free(whole), free(split), free(row), free(ap);
}

// Through the backend, w packed: the forward's a · w + bias (w (K,N)) and the backward's
// d · wᵀ; with trans, w is (N,K), the forward's a · wᵀ + bias and the backward's d · w.
static void check_backend(tt_backend *be, int M, int K, int N, bool trans) {
  float *a = rand_vec((size_t)M * K), *w = rand_vec((size_t)K * N), *bias = rand_vec((size_t)N);
  float *d = rand_vec((size_t)M * N), *out = malloc((size_t)M * N * sizeof *out), *dx = malloc((size_t)M * K * 4);
  tt_error err = {0};
  tt_buf pw;
  assert_int_equal(be->pack_weight(be, w, K, N, trans, &pw, &err), TT_OK);
  assert_true(pw.panels);
  tt_buf o = be->wrap(be, out, (size_t)M * N), x = be->wrap_read_only(be, a, (size_t)M * K);
  assert_int_equal(be->matmul(be, o, x, pw, be->wrap_read_only(be, bias, (size_t)N), M, K, N, trans, &err), TT_OK);
  expect_product(trans ? "backend a·wᵀ (w packed with trans_b)" : "backend a·w", out, a, w, bias, M, K, N, trans);
  tt_buf g = be->wrap_read_only(be, d, (size_t)M * N), dxb = be->wrap(be, dx, (size_t)M * K);
  assert_int_equal(be->matmul(be, dxb, g, pw, (tt_buf){0}, M, N, K, !trans, &err), TT_OK);
  expect_product(trans ? "backend d·w (w packed with trans_b)" : "backend d·wᵀ", dx, d, w, NULL, M, N, K, !trans);
  if (trans) {  // w (N,K) as an embedding table: its rows gathered from the panels
    int32_t ids[3] = {0, N - 1, N / 2};
    float *rows = malloc((size_t)3 * K * sizeof *rows);
    assert_int_equal(be->embed(be, be->wrap(be, rows, (size_t)3 * K), pw, ids, 3, K, &err), TT_OK);
    for (int t = 0; t < 3; t++) assert_memory_equal(rows + (size_t)t * K, w + (size_t)ids[t] * K, (size_t)K * 4);
    free(rows);
  }
  be->release(be, &pw);
  free(a), free(w), free(bias), free(d), free(out), free(dx);
}

static void test_backend(void **state) {
  (void)state;
  if (!tt_panels_available()) skip();
  for (int threads = 1; threads <= 2; threads++) {
    openblas_set_num_threads(threads);
    tt_backend *be;
    tt_error err = {0};
    assert_int_equal(tt_backend_create("openblas", &be, NULL, 0, &err), TT_OK);
    assert_non_null(be->pack_weight);
    static const int shapes[][3] = {{1, 768, 2304}, {16, 768, 3072}, {17, 3072, 768},
                                    {64, 33, 100},  {200, 7, 65},    {70, 100, 40}};
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int trans = 0; trans < 2; trans++) check_backend(be, shapes[s][0], shapes[s][1], shapes[s][2], trans);
    tt_backend_destroy(be);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_pack_unpack), cmocka_unit_test(test_rows_in_blocks),
                                     cmocka_unit_test(test_products), cmocka_unit_test(test_same_bits),
                                     cmocka_unit_test(test_backend)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
