// ops_util: what the backend op tests share: the backend under test (argv[1]), a seeded
// random source, the fixture that creates the backend, upload/download and the tolerance check
// (static inline: a test uses what it needs).
#ifndef TT_TEST_OPS_UTIL_H
#define TT_TEST_OPS_UTIL_H
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "backend/backend.h"

static const char *backend_name __attribute__((unused)) = "openblas";

// ---- helpers -----------------------------------------------------------------------------
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static inline float frand(float lo, float hi) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return lo + (hi - lo) * (float)((rng_state >> 11) * (1.0 / 9007199254740992.0));
}
static inline float *rand_vec(size_t n, float lo, float hi) {
  float *v = malloc((n ? n : 1) * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = frand(lo, hi);
  return v;
}

typedef struct {
  tt_backend *be;
} fixture;

static inline int setup(void **state) {
  static fixture f;
  tt_error err = {0};
  if (tt_backend_create(backend_name, &f.be, NULL, 0, &err) != TT_OK) {
    fprintf(stderr, "cannot create backend %s: %s\n", backend_name, err.msg);
    return -1;
  }
  *state = &f;
  return 0;
}
static inline int teardown(void **state) {
  fixture *f = *state;
  tt_backend_destroy(f->be);
  return 0;
}

// A device buffer holding a copy of host (n floats).
static inline tt_buf up(tt_backend *be, const float *host, size_t n) {
  tt_buf b;
  tt_error err = {0};
  assert_int_equal(be->alloc(be, n, &b, &err), TT_OK);
  if (host) assert_int_equal(be->upload(be, b, host, n, &err), TT_OK);
  return b;
}
static inline float *down(tt_backend *be, tt_buf b, size_t n) {
  float *h = malloc((n ? n : 1) * sizeof *h);
  tt_error err = {0};
  assert_int_equal(be->download(be, b, h, n, &err), TT_OK);
  if (be->finish) assert_int_equal(be->finish(be, &err), TT_OK);
  return h;
}

// Max |got - want| ≤ tol · max(1, max |want|); infinities must match exactly.
static inline void assert_close(const float *got, const double *want, size_t n, double tol, const char *what) {
  double scale = 1.0, worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(want[i]) && fabs(want[i]) > scale) scale = fabs(want[i]);
  for (size_t i = 0; i < n; i++) {
    if (isinf(want[i]) || isinf(got[i])) {
      if (got[i] != (float)want[i]) fail_msg("%s[%zu]: got %g, want %g", what, i, got[i], want[i]);
      continue;
    }
    double d = fabs((double)got[i] - want[i]);
    if (!(d <= worst)) worst = d, at = i;
  }
  if (!(worst <= tol * scale))
    fail_msg("%s: max error %g at %zu (got %g, want %g), allowed %g", what, worst, at, got[at], want[at], tol * scale);
}

// The activations from their definitions, in double.
static inline double naive_act(double x, tt_act_kind a) {
  switch (a) {
  case TT_ACT_GELU_TANH:
    return 0.5 * x * (1.0 + tanh(sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
  case TT_ACT_GELU_ERF:
    return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
  case TT_ACT_RELU:
    return x > 0 ? x : 0;
  case TT_ACT_SILU:
    return x / (1.0 + exp(-x));
  case TT_ACT_IDENTITY:
    return x;
  }
  return NAN;
}

#endif
