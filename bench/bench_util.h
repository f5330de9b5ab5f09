// bench_util: what the benchmark programs share: a monotonic clock and plain cblas_sgemm
// timed on buffers of a given shape (one set per batch entry, as the engine has them).
#ifndef TT_BENCH_UTIL_H
#define TT_BENCH_UTIL_H

#include <cblas.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static inline double bench_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

// Seconds for batch products (M,K)·(K,N) ((N,K) with trans_b) by cblas_sgemm, best of reps.
static inline double bench_sgemm_seconds(int batch, int M, int K, int N, bool trans_b, int reps) {
  size_t na = (size_t)batch * M * K, nb = (size_t)batch * K * N, no = (size_t)batch * M * N;
  float *a = malloc(na * sizeof *a), *b = malloc(nb * sizeof *b), *o = malloc(no * sizeof *o);
  if (!a || !b || !o) abort();
  for (size_t i = 0; i < na; i++) a[i] = (float)(i % 13) * 0.01f;
  for (size_t i = 0; i < nb; i++) b[i] = (float)(i % 7) * 0.01f;
  memset(o, 0, no * sizeof *o);
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    double t0 = bench_now();
    for (int i = 0; i < batch; i++)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K, 1.0f,
                  a + (size_t)i * M * K, K, b + (size_t)i * K * N, trans_b ? K : N, 0.0f, o + (size_t)i * M * N, N);
    double dt = bench_now() - t0;
    best = dt < best ? dt : best;
  }
  free(a), free(b), free(o);
  return best;
}

#endif
