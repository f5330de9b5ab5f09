// The small-M products (src/backend/small_m.c) against a naive loop in double, with every
// kernel this CPU has (plain, AVX2+FMA, AVX-512 and AVX-512 tuned for cores that run it in
// 256-bit halves: both on every AVX-512 CPU), at every M they serve (1..16), with and
// without trans_b, bias and a scale, on widths that exercise the vector tails and the
// K-blocks (K = 1, 7, 64, 65, 130, 768, 1000, 2100; N = 1, 5, 31, 33, 37, 100, 2304), and
// products without trans_b in K segments (small_m.h; K = 384, 385, 1000, 3072).
// Tolerance: |got - want| <= 8·ε·√K·Σ_k |alpha·a_mk·b_kn| + ε·|bias_n| (ε = 2^-23): float
// accumulation in another order, far below any wrong element or missing term.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend/small_m.h"

static uint64_t rng = 0x243f6a8885a308d3ull;
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

static const char *isa_name(tt_small_m_isa isa) {
  static const char *const names[] = {"scalar", "avx2", "avx512", "avx512-halves", "avx512-intel"};
  return names[isa];
}

// out (M,N) = alpha · a · b + bias as the backend computes it over K segments: each
// segment's partial product (P_0 into out, P_s into parts), then their sum in order.
static void segmented(tt_small_m_isa isa, float *out, const float *a, const float *b, const float *bias, int M, int K,
                      int N, float alpha) {
  int S = tt_small_m_segments(K);
  float *parts = malloc(((size_t)(S - 1) * M * N + 1) * sizeof *parts);
  for (int s = S - 1; s >= 0; s--)  // any order: each partial is its own
    assert_true(tt_small_m_segment_isa_cols(isa, s ? parts + (size_t)(s - 1) * M * N : out, a, b, M, K, N, s, 0, N));
  assert_true(tt_small_m_sum_segments_isa(isa, out, parts, bias, M, N, S, alpha, 0, N));
  free(parts);
}

// One product with one kernel (whole, or over K segments without trans_b); fails with the
// first element out of tolerance.
static void check_product(tt_small_m_isa isa, int M, int K, int N, bool trans_b, bool with_bias, float alpha,
                          bool segments) {
  float *a = rand_vec((size_t)M * K), *b = rand_vec((size_t)K * N), *bias = rand_vec((size_t)N);
  float *got = malloc((size_t)M * N * sizeof *got);
  for (size_t i = 0; i < (size_t)M * N; i++) got[i] = NAN;  // every element must be written
  if (segments)
    segmented(isa, got, a, b, with_bias ? bias : NULL, M, K, N, alpha);
  else
    assert_true(tt_small_m_matmul_isa(isa, got, a, b, with_bias ? bias : NULL, M, K, N, trans_b, alpha));
  const double eps = 1.0 / 8388608.0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double s = 0.0, mag = 0.0;
      for (int k = 0; k < K; k++) {
        double p = (double)alpha * a[(size_t)m * K + k] * (trans_b ? b[(size_t)n * K + k] : b[(size_t)k * N + n]);
        s += p, mag += fabs(p);
      }
      double bn = with_bias ? bias[n] : 0.0, want = s + bn;
      double tol = 8.0 * eps * sqrt((double)K) * mag + eps * fabs(bn);
      double g = got[(size_t)m * N + n];
      if (!(fabs(g - want) <= tol))
        fail_msg("%s M=%d K=%d N=%d%s%s%s alpha=%g: out[%d][%d] = %.9g, want %.9g (tolerance %.3g)", isa_name(isa), M,
                 K, N, trans_b ? " trans_b" : "", with_bias ? " bias" : "", segments ? " segments" : "", (double)alpha,
                 m, n, g, want, tol);
    }
  free(a), free(b), free(bias), free(got);
}

static void check(tt_small_m_isa isa, int M, int K, int N, bool trans_b, bool with_bias, float alpha) {
  check_product(isa, M, K, N, trans_b, with_bias, alpha, false);
}

static int n_kernels_run;

static void check_isa(tt_small_m_isa isa) {
  static const int shapes[][2] = {{1, 1}, {7, 5}, {64, 31}, {65, 33}, {130, 100}};
  float probe = 0.0f, one = 1.0f;
  if (!tt_small_m_matmul_isa(isa, &probe, &one, &one, NULL, 1, 1, 1, false, 1.0f)) {
    printf("# %s: not on this CPU, skipped\n", isa_name(isa));
    return;
  }
  n_kernels_run++;
  for (int M = 1; M <= TT_SMALL_M_MAX; M++) {
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int tb = 0; tb < 2; tb++)
        for (int bias = 0; bias < 2; bias++) check(isa, M, shapes[s][0], shapes[s][1], tb, bias, bias ? 1.0f : 0.125f);
    // The engine's shapes: (C, 3C) with bias, and the unembedding's (V, C) rows, trans_b.
    check(isa, M, 768, 2304, false, true, 1.0f);
    check(isa, M, 1000, 100, false, true, 0.5f);  // blocks of b's rows with a short last one
    check(isa, M, 768, 301, true, false, 1.0f);
    check(isa, M, 2100, 37, true, true, 0.5f);  // K past one 1024-wide chunk of a's lanes, and a tail
    // K in segments: one, two (the last one row), three with a short last, and GPT-2's 3072
    static const int seg_k[][2] = {{384, 70}, {385, 37}, {1000, 100}, {3072, 33}};
    for (size_t s = 0; s < sizeof seg_k / sizeof *seg_k; s++)
      check_product(isa, M, seg_k[s][0], seg_k[s][1], false, s % 2 == 0, s % 2 ? 0.5f : 1.0f, true);
  }
  printf("# %s: M = 1..%d checked\n", isa_name(isa), TT_SMALL_M_MAX);
}

static void test_scalar(void **state) {
  (void)state;
  check_isa(TT_ISA_SCALAR);
}
static void test_avx2(void **state) {
  (void)state;
  check_isa(TT_ISA_AVX2);
}
static void test_avx512(void **state) {
  (void)state;
  check_isa(TT_ISA_AVX512);
}
static void test_avx512_halves(void **state) {
  (void)state;
  check_isa(TT_ISA_AVX512_HALVES);
}
static void test_avx512_intel(void **state) {
  (void)state;
  check_isa(TT_ISA_AVX512_INTEL);
}

static bool available(tt_small_m_isa isa) {
  float probe = 0.0f, one = 1.0f;
  return tt_small_m_matmul_isa(isa, &probe, &one, &one, NULL, 1, 1, 1, false, 1.0f);
}

// The run-time choice is the widest kernel set the CPU has (one of the three AVX-512 sets
// wherever AVX-512 is), and the default entry point gives the same bits as that set, with
// and without trans_b at 6 and 12 rows, where the AVX-512 sets take different kernels.
static void test_dispatch(void **state) {
  (void)state;
  tt_small_m_isa best = tt_small_m_best_isa();
  assert_true(available(TT_ISA_SCALAR) && available(best));
  assert_int_equal(available(TT_ISA_AVX512), available(TT_ISA_AVX512_HALVES));
  assert_int_equal(available(TT_ISA_AVX512), available(TT_ISA_AVX512_INTEL));
  tt_small_m_isa widest = available(TT_ISA_AVX512) ? TT_ISA_AVX512
                          : available(TT_ISA_AVX2) ? TT_ISA_AVX2
                                                   : TT_ISA_SCALAR;
  if (widest == TT_ISA_AVX512)
    assert_true(best == TT_ISA_AVX512 || best == TT_ISA_AVX512_HALVES || best == TT_ISA_AVX512_INTEL);
  else
    assert_int_equal(best, widest);
  float *a = rand_vec(12 * 500), *b = rand_vec(500 * 200), *x = malloc(12 * 200 * sizeof *x),
        *y = malloc(12 * 200 * sizeof *y);
  for (int M = 6; M <= 12; M += 6)
    for (int tb = 0; tb < 2; tb++) {
      tt_small_m_matmul(x, a, b, NULL, M, 500, 200, tb, 1.0f);
      assert_true(tt_small_m_matmul_isa(best, y, a, b, NULL, M, 500, 200, tb, 1.0f));
      assert_memory_equal(x, y, (size_t)M * 200 * sizeof *x);
    }
  printf("# dispatch: %s\n", isa_name(best));
  free(a), free(b), free(x), free(y);
}

// Column ranges (the parts threads compute): every range split of a product, with every
// kernel, gives the bits of the whole product, and writes nothing outside its columns.
static void test_column_ranges(void **state) {
  (void)state;
  static const int shapes[][2] = {{65, 97}, {768, 2304}, {130, 1001}, {0, 200}};  // K, N
  const int A = TT_SMALL_M_COL_ALIGN;
  for (int isa = TT_ISA_SCALAR; isa <= TT_ISA_AVX512_INTEL; isa++) {
    if (!available((tt_small_m_isa)isa)) continue;
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int M = 1; M <= TT_SMALL_M_MAX; M += 5)
        for (int tb = 0; tb < 2; tb++) {
          int K = shapes[s][0], N = shapes[s][1];
          float *a = rand_vec((size_t)M * K), *b = rand_vec((size_t)K * N), *bias = rand_vec((size_t)N);
          float *whole = malloc((size_t)M * N * sizeof *whole), *parts = malloc((size_t)M * N * sizeof *parts);
          assert_true(tt_small_m_matmul_isa((tt_small_m_isa)isa, whole, a, b, bias, M, K, N, tb, 0.5f));
          for (int step = A; step <= 3 * A; step += A) {  // ranges of 1, 2 and 3 alignments
            for (size_t i = 0; i < (size_t)M * N; i++) parts[i] = NAN;
            for (int c0 = 0; c0 < N; c0 += step) {
              int c1 = c0 + step < N ? c0 + step : N;
              assert_true(
                  tt_small_m_matmul_isa_cols((tt_small_m_isa)isa, parts, a, b, bias, M, K, N, tb, 0.5f, c0, c1));
              for (int m = 0; m < M; m++)  // nothing right of c1 yet
                for (int n = c1; n < N; n++)
                  if (!isnan(parts[(size_t)m * N + n]))
                    fail_msg("%s M=%d K=%d N=%d: range [%d,%d) wrote column %d", isa_name((tt_small_m_isa)isa), M, K, N,
                             c0, c1, n);
            }
            if (memcmp(parts, whole, (size_t)M * N * sizeof *whole) != 0)
              fail_msg("%s M=%d K=%d N=%d%s: ranges of %d columns differ from the whole product",
                       isa_name((tt_small_m_isa)isa), M, K, N, tb ? " trans_b" : "", step);
          }
          free(a), free(b), free(bias), free(whole), free(parts);
        }
  }
}

// Segments in column ranges give the bits of whole segments, and the sum of the segments
// in column ranges the bits of the whole sum (threads take both in any split).
static void test_segment_ranges(void **state) {
  (void)state;
  const int M = 11, K = 1000, N = 2304, A = TT_SMALL_M_COL_ALIGN, S = tt_small_m_segments(K);
  assert_int_equal(S, 3);
  float *a = rand_vec((size_t)M * K), *b = rand_vec((size_t)K * N), *bias = rand_vec((size_t)N);
  float *whole = malloc((size_t)M * N * sizeof *whole), *ranged = malloc((size_t)M * N * sizeof *ranged);
  float *parts = malloc((size_t)(S - 1) * M * N * sizeof *parts);
  segmented(tt_small_m_best_isa(), whole, a, b, bias, M, K, N, 0.75f);
  for (int s = 0; s < S; s++)
    for (int c0 = 0; c0 < N; c0 += 5 * A)
      tt_small_m_segment_cols(s ? parts + (size_t)(s - 1) * M * N : ranged, a, b, M, K, N, s, c0,
                              c0 + 5 * A < N ? c0 + 5 * A : N);
  for (int c0 = 0; c0 < N; c0 += 16) tt_small_m_sum_segments(ranged, parts, bias, M, N, S, 0.75f, c0, c0 + 16);
  assert_memory_equal(whole, ranged, (size_t)M * N * sizeof *whole);
  free(a), free(b), free(bias), free(whole), free(ranged), free(parts);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_scalar),        cmocka_unit_test(test_avx2),
                                     cmocka_unit_test(test_avx512),        cmocka_unit_test(test_avx512_halves),
                                     cmocka_unit_test(test_avx512_intel),  cmocka_unit_test(test_dispatch),
                                     cmocka_unit_test(test_column_ranges), cmocka_unit_test(test_segment_ranges)};
  int failed = cmocka_run_group_tests(tests, NULL, NULL);
  return failed ? failed : (n_kernels_run > 0 ? 0 : 1);
}
