// The mid-M products (src/backend/mid_m.c) against a naive loop in double, at every row
// count they serve (17..128: whole and partial 12-row tiles), with and without bias, on
// widths that exercise the column tails (N = 1, 5, 31, 33, 100, 513, 1100: partial 32-wide
// panels, more than one 512-column block) and the K-blocks (K = 1, 7, 255, 256, 257, 700:
// partial and several 256-row blocks); and column ranges: every split gives the bits of the
// whole product and writes nothing outside its columns. Skipped on a CPU without AVX-512.
// Tolerance: |got - want| <= 8·ε·√K·Σ_k |a_mk·b_kn| + ε·|bias_n| (ε = 2^-23): float
// accumulation in another order, far below any wrong element or missing term.
#include <string.h>

#include "backend/mid_m.h"
#include "ops_util.h"

static float *aligned_floats(size_t n) {
  return aligned_alloc(64, ((n ? n : 1) * sizeof(float) + 63) / 64 * 64);
}

// out (M,N) = a · b + bias through the kernel, columns [c0, c1) only.
static void product(float *out, const float *a, const float *b, const float *bias, int M, int K, int N, int c0,
                    int c1) {
  float *ap = aligned_floats(tt_mid_m_a_floats(M, K)), *bpack = aligned_floats(TT_MID_M_B_FLOATS);
  tt_mid_m_pack_a(ap, a, M, K);
  tt_mid_m_cols(out, ap, b, bias, M, K, N, c0, c1, bpack);
  free(ap), free(bpack);
}

// One product; fails with the first element out of tolerance.
static void check(int M, int K, int N, bool with_bias) {
  float *a = rand_vec((size_t)M * K, -1, 1), *b = rand_vec((size_t)K * N, -1, 1), *bias = rand_vec((size_t)N, -1, 1);
  float *got = malloc((size_t)M * N * sizeof *got);
  for (size_t i = 0; i < (size_t)M * N; i++) got[i] = NAN;  // every element must be written
  product(got, a, b, with_bias ? bias : NULL, M, K, N, 0, N);
  const double eps = 1.0 / 8388608.0;
  for (int m = 0; m < M; m++)
    for (int n = 0; n < N; n++) {
      double s = 0.0, mag = 0.0;
      for (int k = 0; k < K; k++) {
        double p = (double)a[(size_t)m * K + k] * b[(size_t)k * N + n];
        s += p, mag += fabs(p);
      }
      double bn = with_bias ? bias[n] : 0.0, want = s + bn;
      double tol = 8.0 * eps * sqrt((double)K) * mag + eps * fabs(bn);
      double g = got[(size_t)m * N + n];
      if (!(fabs(g - want) <= tol))
        fail_msg("M=%d K=%d N=%d%s: out[%d][%d] = %.9g, want %.9g (tolerance %.3g)", M, K, N, with_bias ? " bias" : "",
                 m, n, g, want, tol);
    }
  free(a), free(b), free(bias), free(got);
}

static void test_against_naive(void **state) {
  (void)state;
  if (!tt_mid_m_available()) {
    printf("# no AVX-512 on this CPU: skipped\n");
    return;
  }
  static const int shapes[][2] = {{1, 1}, {7, 5}, {255, 31}, {256, 33}, {257, 100}, {700, 513}};  // K, N
  static const int rows[] = {17, 18, 23, 24, 25, 31, 36, 47, 64, 65, 100, 127, 128};
  for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
    for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
      for (int bias = 0; bias < 2; bias++) check(rows[i], shapes[s][0], shapes[s][1], bias);
  }
  check(17, 768, 1100, true);  // the engine's widths: three column blocks, three K blocks
  check(64, 768, 1100, true);
  check(128, 300, 1100, false);
  printf("# M = %d..%d checked\n", TT_MID_M_MIN, TT_MID_M_MAX);
}

// Every range split of a product gives the bits of the whole one, and a range writes
// nothing right of its end; K = 0 gives the bias.
static void test_column_ranges(void **state) {
  (void)state;
  if (!tt_mid_m_available()) return;
  static const int shapes[][3] = {{17, 65, 97}, {64, 300, 1100}, {100, 257, 513}, {20, 0, 40}};  // M, K, N
  const int A = TT_MID_M_COL_ALIGN;
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    int M = shapes[s][0], K = shapes[s][1], N = shapes[s][2];
    float *a = rand_vec((size_t)M * K, -1, 1), *b = rand_vec((size_t)K * N, -1, 1), *bias = rand_vec((size_t)N, -1, 1);
    float *whole = malloc((size_t)M * N * sizeof *whole), *parts = malloc((size_t)M * N * sizeof *parts);
    product(whole, a, b, bias, M, K, N, 0, N);
    for (int step = A; step <= 17 * A; step += 4 * A) {  // ranges of 1, 5, 9, 13 and 17 alignments
      for (size_t i = 0; i < (size_t)M * N; i++) parts[i] = NAN;
      for (int c0 = 0; c0 < N; c0 += step) {
        int c1 = c0 + step < N ? c0 + step : N;
        product(parts, a, b, bias, M, K, N, c0, c1);
        for (int m = 0; m < M; m++)
          for (int n = c1; n < N; n++)
            if (!isnan(parts[(size_t)m * N + n]))
              fail_msg("M=%d K=%d N=%d: range [%d,%d) wrote column %d", M, K, N, c0, c1, n);
      }
      if (memcmp(parts, whole, (size_t)M * N * sizeof *whole) != 0)
        fail_msg("M=%d K=%d N=%d: ranges of %d columns differ from the whole product", M, K, N, step);
    }
    for (int n = 0; K == 0 && n < N; n++) assert_memory_equal(&whole[n], &bias[n], sizeof(float));
    free(a), free(b), free(bias), free(whole), free(parts);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_against_naive),
      cmocka_unit_test(test_column_ranges),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
