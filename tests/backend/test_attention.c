// The causal attention ops of the OpenBLAS backend (src/backend/openblas_attention.c):
// the scores, pattern and z against naive loops in double, at head counts with grouped
// keys, head widths and lengths around the block size (T = 1, 5, 63, 64, 65, 130, 200);
// the three ops and every choice of wanted outputs give the same bits, and so do the
// separate ops the engine runs when it records (scale, causal_mask, softmax); and 2 and 3
// threads give the bits of 1.
#include <cblas.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend/backend.h"
#include "ops_util.h"

static void same_bits(const float *a, const float *b, size_t n, const char *what, int T) {
  for (size_t i = 0; i < n; i++)
    if (memcmp(&a[i], &b[i], sizeof *a) != 0)
      fail_msg("T=%d %s: entry %zu differs: %.9g vs %.9g", T, what, i, a[i], b[i]);
}

typedef struct {
  int H, G, T, D;
} shape;
static const shape shapes[] = {{2, 1, 1, 8},  {3, 3, 5, 7},    {4, 2, 63, 16}, {2, 2, 64, 64},
                               {3, 1, 65, 8}, {2, 2, 130, 24}, {4, 2, 200, 33}};

// Every output of one shape on backend be: [0] raw, [1] pattern, [2] z from causal_attention
// with everything wanted; then the other modes are checked against them here.
static void run_shape(tt_backend *be, const shape *s, const float *qh, const float *kh, const float *vh, float alpha,
                      float *outs[3]) {
  int H = s->H, G = s->G, T = s->T, D = s->D;
  size_t nq = (size_t)H * T * D, nk = (size_t)G * T * D, ns = (size_t)H * T * T;
  tt_error err = {0};
  tt_buf q = up(be, qh, nq), k = up(be, kh, nk), v = up(be, vh, nk);
  tt_buf raw = up(be, NULL, ns), pat = up(be, NULL, ns), z = up(be, NULL, nq);
  assert_int_equal(be->causal_attention(be, raw, pat, z, q, k, v, H, G, T, D, alpha, &err), TT_OK);
  outs[0] = down(be, raw, ns), outs[1] = down(be, pat, ns), outs[2] = down(be, z, nq);
  // z alone (nothing else wanted), z with the pattern only, z with raw only
  for (int mode = 0; mode < 3; mode++) {
    tt_buf z2 = up(be, NULL, nq), p2 = up(be, NULL, ns), r2 = up(be, NULL, ns);
    assert_int_equal(be->causal_attention(be, mode == 2 ? r2 : (tt_buf){0}, mode == 1 ? p2 : (tt_buf){0}, z2, q, k, v,
                                          H, G, T, D, alpha, &err),
                     TT_OK);
    float *got = down(be, z2, nq);
    same_bits(got, outs[2], nq,
              mode == 0   ? "z, nothing else wanted"
              : mode == 1 ? "z, pattern wanted"
                          : "z, raw wanted",
              T);
    free(got);
    if (mode == 1) got = down(be, p2, ns), same_bits(got, outs[1], ns, "pattern without raw", T), free(got);
    if (mode == 2) got = down(be, r2, ns), same_bits(got, outs[0], ns, "raw without pattern", T), free(got);
    be->release(be, &z2), be->release(be, &p2), be->release(be, &r2);
  }
  // op by op, as the engine runs them when it records: scores, scale, mask, softmax, mix
  tt_buf r3 = up(be, NULL, ns), sc = up(be, NULL, ns), m3 = up(be, NULL, ns), p3 = up(be, NULL, ns),
         z3 = up(be, NULL, nq);
  assert_int_equal(be->causal_scores(be, r3, q, k, H, G, T, D, &err), TT_OK);
  assert_int_equal(be->scale(be, sc, r3, alpha, ns, &err), TT_OK);
  assert_int_equal(be->causal_mask(be, m3, sc, H, T, &err), TT_OK);
  assert_int_equal(be->softmax(be, p3, m3, H * T, T, &err), TT_OK);
  assert_int_equal(be->causal_mix(be, z3, p3, v, H, G, T, D, &err), TT_OK);
  float *got = down(be, r3, ns);
  same_bits(got, outs[0], ns, "causal_scores", T), free(got);
  got = down(be, p3, ns), same_bits(got, outs[1], ns, "softmax of the masked scores", T), free(got);
  got = down(be, z3, nq), same_bits(got, outs[2], nq, "causal_mix", T), free(got);
  tt_buf all[] = {q, k, v, raw, pat, z, r3, sc, m3, p3, z3};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++) be->release(be, &all[i]);
}

// raw, pattern and z against double loops from the definitions.
static void check_naive(const shape *s, const float *q, const float *k, const float *v, float alpha, float *outs[3]) {
  int H = s->H, G = s->G, T = s->T, D = s->D, R = H / G;
  double *p = malloc((size_t)T * sizeof *p);
  for (int h = 0; h < H; h++) {
    const float *qh = q + (size_t)h * T * D, *kh = k + (size_t)(h / R) * T * D, *vh = v + (size_t)(h / R) * T * D;
    for (int i = 0; i < T; i++) {
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < T; j++) {
        double r = 0, mag = 0;
        for (int d = 0; d < D; d++)
          r += (double)qh[i * D + d] * kh[j * D + d], mag += fabs((double)qh[i * D + d] * kh[j * D + d]);
        double got = outs[0][((size_t)h * T + i) * T + j];
        if (!(fabs(got - r) <= 1e-6 * mag + 1e-30))
          fail_msg("T=%d raw[%d][%d][%d] = %.9g, want %.9g", T, h, i, j, got, r);
        p[j] = alpha * r;
        if (j <= i && p[j] > mx) mx = p[j];
      }
      for (int j = 0; j <= i; j++) p[j] = exp(p[j] - mx), sum += p[j];
      for (int j = 0; j < T; j++) {
        double want = j <= i ? p[j] / sum : 0.0, got = outs[1][((size_t)h * T + i) * T + j];
        if (!(fabs(got - want) <= 2e-6 * want + 1e-9) || (j > i && got != 0.0f))
          fail_msg("T=%d pattern[%d][%d][%d] = %.9g, want %.9g", T, h, i, j, got, want);
      }
      for (int d = 0; d < D; d++) {
        double want = 0, mag = 0;
        for (int j = 0; j <= i; j++) want += p[j] / sum * vh[j * D + d], mag += fabs(p[j] / sum * vh[j * D + d]);
        double got = outs[2][((size_t)h * T + i) * D + d];
        if (!(fabs(got - want) <= 1e-5 * mag + 1e-12))
          fail_msg("T=%d z[%d][%d][%d] = %.9g, want %.9g", T, h, i, d, got, want);
      }
    }
  }
  free(p);
}

static void test_causal_attention(void **state) {
  (void)state;
  for (size_t si = 0; si < sizeof shapes / sizeof *shapes; si++) {
    const shape *s = &shapes[si];
    size_t nq = (size_t)s->H * s->T * s->D, nk = (size_t)s->G * s->T * s->D, ns = (size_t)s->H * s->T * s->T;
    float *q = malloc(nq * sizeof *q), *k = malloc(nk * sizeof *k), *v = malloc(nk * sizeof *v);
    for (size_t i = 0; i < nq; i++) q[i] = frand(-2.0f, 2.0f);
    for (size_t i = 0; i < nk; i++) k[i] = frand(-2.0f, 2.0f), v[i] = frand(-1.0f, 1.0f);
    float alpha = 1.0f / sqrtf((float)s->D);
    float *outs[3][3];
    for (int threads = 1; threads <= 3; threads++) {
      openblas_set_num_threads(threads);
      tt_backend *be;
      tt_error err = {0};
      assert_int_equal(tt_backend_create("openblas", &be, NULL, 0, &err), TT_OK);
      run_shape(be, s, q, k, v, alpha, outs[threads - 1]);
      tt_backend_destroy(be);
    }
    check_naive(s, q, k, v, alpha, outs[0]);
    for (int t = 1; t < 3; t++) {
      same_bits(outs[t][0], outs[0][0], ns, t == 1 ? "raw, 2 threads vs 1" : "raw, 3 threads vs 1", s->T);
      same_bits(outs[t][1], outs[0][1], ns, t == 1 ? "pattern, 2 threads vs 1" : "pattern, 3 threads vs 1", s->T);
      same_bits(outs[t][2], outs[0][2], nq, t == 1 ? "z, 2 threads vs 1" : "z, 3 threads vs 1", s->T);
    }
    for (int t = 0; t < 3; t++)
      for (int i = 0; i < 3; i++) free(outs[t][i]);
    free(q), free(k), free(v);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_causal_attention)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
