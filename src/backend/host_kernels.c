// host_kernels: vectorizable exp-based loops and sums for the OpenBLAS backend.
// exp(x) = 2^n · e^r with n = round(x / ln 2), r = x - n·ln 2 in [-ln2/2, ln2/2] and e^r
// from Cephes' degree-7 polynomial (relative error about 1e-7). Plain C: the compiler
// turns each loop into SIMD code; on x86-64 an AVX-512 or AVX2 copy is chosen at run time
// when the CPU has it (no FMA contraction in C11 mode, so every copy gives the same bits).
#include "host_kernels.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define TT_MULTIVERSION __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define TT_MULTIVERSION
#endif

static inline float exp_poly(float x) {
  const float lo = -87.0f, hi = 88.0f;
  float xc = x < lo ? lo : (x > hi ? hi : x);
  const float magic = 12582912.0f;  // 1.5 · 2^23: adding it rounds to an integer
  float t = xc * 1.44269504088896341f + magic;
  float n = t - magic;
  uint32_t tb, mb;
  memcpy(&tb, &t, sizeof tb);
  memcpy(&mb, &magic, sizeof mb);
  int32_t ni = (int32_t)(tb - mb);  // n as an integer, in [-126, 127]
  float r = xc - n * 0.693359375f - n * -2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  uint32_t sb = (uint32_t)(ni + 127) << 23;
  float scale;
  memcpy(&scale, &sb, sizeof scale);
  float y = p * scale;
  y = x < lo ? 0.0f : y;
  return x > hi ? INFINITY : y;
}

// Sums are kept in double, in SUM_LANES partial sums (entry i in lane i mod SUM_LANES:
// four 8-double vectors in flight, not one chain of adds), then added in halves: the same
// floats give the same sum in both functions below, and a row's prefix gives the whole
// row's sum when the rest is zeros. (8 lanes ran these at 60 % of this speed.)
enum { SUM_LANES = 32 };

static inline double sum_lanes_double(double *acc) {
  for (int w = SUM_LANES / 2; w >= 1; w /= 2)
    for (int k = 0; k < w; k++) acc[k] += acc[k + w];
  return acc[0];
}

// Σ x over the SUM_LANES partial sums, in double.
static inline double sum_double(const float *x, size_t n) {
  double acc[SUM_LANES] = {0};
  size_t i = 0;
  for (; i + SUM_LANES <= n; i += SUM_LANES)
    for (int k = 0; k < SUM_LANES; k++) acc[k] += x[i + k];
  for (; i < n; i++) acc[i % SUM_LANES] += x[i];
  return sum_lanes_double(acc);
}

TT_MULTIVERSION
void tt_host_mean_var(const float *x, size_t n, bool centered, double *mean, double *var) {
  double acc[SUM_LANES] = {0}, m = centered ? sum_double(x, n) / (double)n : 0.0;
  size_t i = 0;
  for (; i + SUM_LANES <= n; i += SUM_LANES)
    for (int k = 0; k < SUM_LANES; k++) {
      double d = (double)x[i + k] - m;
      acc[k] += d * d;
    }
  for (; i < n; i++) {
    double d = (double)x[i] - m;
    acc[i % SUM_LANES] += d * d;
  }
  *mean = m;
  *var = sum_lanes_double(acc) / (double)n;
}

TT_MULTIVERSION
float tt_host_exp_sub_sum(float *o, const float *x, float sub, size_t n) {
  for (size_t i = 0; i < n; i++) o[i] = exp_poly(x[i] - sub);
  // Summed in double: a float sum of 50257 mostly tiny terms drops them (each is below half
  // an ulp of the running sum) and underestimates a vocabulary row's total by ~1e-4.
  return (float)sum_double(o, n);
}

TT_MULTIVERSION
float tt_host_exp_sum(const float *x, float sub, size_t n) {
  double acc[SUM_LANES] = {0};  // in double, as above
  size_t i = 0;
  for (; i + SUM_LANES <= n; i += SUM_LANES)
    for (int k = 0; k < SUM_LANES; k++) acc[k] += exp_poly(x[i + k] - sub);
  for (; i < n; i++) acc[i % SUM_LANES] += exp_poly(x[i] - sub);
  return (float)sum_lanes_double(acc);
}

TT_MULTIVERSION
float tt_host_max(const float *x, size_t n) {
  // 32 partial maxima: four vectors of compare-and-select in flight, not one chain of them
  // (a 64 × 50257 softmax spent 20 % of its time here with 8)
  enum { L = 32 };
  float m[L];
  for (int k = 0; k < L; k++) m[k] = -INFINITY;
  size_t i = 0;
  for (; i + L <= n; i += L)
    for (int k = 0; k < L; k++) m[k] = x[i + k] > m[k] ? x[i + k] : m[k];
  for (; i < n; i++) m[0] = x[i] > m[0] ? x[i] : m[0];
  float r = m[0];
  for (int k = 1; k < L; k++) r = m[k] > r ? m[k] : r;
  return r;
}

TT_MULTIVERSION
void tt_host_sigmoid_gate(float *o, const float *x, size_t n, float k, float c) {
  for (size_t i = 0; i < n; i++) {
    float a = x[i];
    o[i] = a / (1.0f + exp_poly(-k * (a + c * a * a * a)));
  }
}

TT_MULTIVERSION
size_t tt_host_trailing_neg_inf(const float *x, size_t n) {
  size_t end = n;
  while (end >= 8) {  // whole blocks of 8 first: one branch per block
    int all = 1;
    for (int k = 1; k <= 8; k++) all &= x[end - k] == -INFINITY;
    if (!all) break;
    end -= 8;
  }
  while (end > 0 && x[end - 1] == -INFINITY) end--;
  return n - end;
}

TT_MULTIVERSION
void tt_host_sigmoid_gate_backward(float *dx, float *y, const float *x, const float *dy, size_t n, float k, float c) {
  for (size_t i = 0; i < n; i++) {  // dy[i] is read before y[i] (which may be it) is written
    float a = x[i], g = dy[i], e = exp_poly(-k * (a + c * a * a * a)), s = 1.0f / (1.0f + e);
    float t = e < INFINITY ? e * s : 1.0f;  // 1 − σ as e·σ: no cancellation where σ is near 1
    dx[i] = g * (s + a * s * t * k * (1.0f + 3.0f * c * a * a));
    if (y) y[i] = a / (1.0f + e);  // as tt_host_sigmoid_gate writes it
  }
}
