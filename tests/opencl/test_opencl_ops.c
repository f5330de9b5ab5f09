// test_opencl_ops: every OpenCL kernel against a naive loop (computed in double), on
// several shapes including odd sizes, views at non-zero offsets and aliased outputs.
// Exits 77 (meson: skipped) only when the machine has no OpenCL platform at all.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

#include "backend/backend.h"

static tt_backend *be;

// ---- helpers ----------------------------------------------------------------------
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static float frand(void) {  // uniform in [-1, 1)
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (float)((double)(rng >> 40) / (double)(1ull << 23) - 1.0);
}
static float *rand_vec(size_t n, float amp) {
  float *v = malloc((n ? n : 1) * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = amp * frand();
  return v;
}

// A device buffer of `pad + n + pad` floats holding v at offset pad (views with offsets).
static tt_buf put(const float *v, size_t n, size_t pad) {
  tt_error err;
  tt_buf b;
  assert_int_equal(be->alloc(be, n + 2 * pad, &b, &err), TT_OK);
  float *junk = rand_vec(n + 2 * pad, 100.0f);
  assert_int_equal(be->upload(be, b, junk, n + 2 * pad, &err), TT_OK);
  free(junk);
  tt_buf view = tt_buf_view(b, pad, n);
  if (n) assert_int_equal(be->upload(be, view, v, n, &err), TT_OK);
  return view;
}
static float *get(tt_buf b, size_t n) {
  tt_error err;
  float *v = malloc((n ? n : 1) * sizeof *v);
  assert_int_equal(be->download(be, b, v, n, &err), TT_OK);
  return v;
}
static void drop(tt_buf b) {
  tt_buf whole = {.handle = b.handle};
  be->release(be, &whole);
}

// max |got - want| <= 1e-4 * max(1, max |want|), the project's parity tolerance.
static void expect_close(const char *what, const float *got, const double *want, size_t n) {
  double peak = 1.0, worst = 0.0;
  size_t at = 0;
  for (size_t i = 0; i < n; i++) peak = fmax(peak, fabs(want[i]));
  for (size_t i = 0; i < n; i++) {
    double d = isinf(want[i]) && got[i] == want[i] ? 0.0 : fabs((double)got[i] - want[i]);
    if (isnan(d) || d > worst) {
      worst = isnan(d) ? INFINITY : d;
      at = i;
    }
  }
  if (worst > 1e-4 * peak)
    fail_msg("%s: max abs error %g at %zu (got %g, want %g; tolerance %g)", what, worst, at, (double)got[at], want[at],
             1e-4 * peak);
}
// Per element: |got - want| <= 1e-5 * max(1, |want|) (for the element-wise math).
static void expect_close_each(const char *what, const float *got, const double *want, size_t n) {
  for (size_t i = 0; i < n; i++) {
    double d = fabs((double)got[i] - want[i]);
    if (!(d <= 1e-5 * fmax(1.0, fabs(want[i]))))
      fail_msg("%s: element %zu is %.9g, want %.9g", what, i, (double)got[i], want[i]);
  }
}
static void expect_equal(const char *what, const float *got, const double *want, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!((double)got[i] == want[i])) fail_msg("%s: element %zu is %g, want %g", what, i, (double)got[i], want[i]);
}

// ---- matmul ---------------------------------------------------------------------------
static void check_gemm(int batch, int M, int K, int N, bool trans_b, bool with_bias, float alpha) {
  tt_error err;
  size_t na = (size_t)batch * M * K, nb = (size_t)batch * K * N, no = (size_t)batch * M * N;
  float *a = rand_vec(na, 1.0f), *b = rand_vec(nb, 1.0f), *bias = rand_vec((size_t)N, 1.0f);
  tt_buf da = put(a, na, 3), db = put(b, nb, 5), dbias = put(bias, (size_t)N, 1);
  float *zeros = calloc(no + 14, sizeof *zeros);
  tt_buf dout = put(zeros, no, 7);
  tt_buf after_out = tt_buf_view((tt_buf){.handle = dout.handle, .n = no + 14}, no + 7, 7);
  float *pad_before = get(after_out, 7);
  tt_status st;
  if (batch == 1 && alpha == 1.0f)
    st = be->matmul(be, dout, da, db, with_bias ? dbias : (tt_buf){0}, M, K, N, trans_b, &err);
  else
    st = be->matmul_batched(be, dout, da, db, batch, M, K, N, trans_b, alpha, &err);
  if (st != TT_OK) fail_msg("%s", err.msg);
  float *got = get(dout, no);
  double *want = malloc(no * sizeof *want);
  for (int g = 0; g < batch; g++)
    for (int m = 0; m < M; m++)
      for (int n = 0; n < N; n++) {
        double s = 0;
        for (int k = 0; k < K; k++) {
          double bv = trans_b ? b[(size_t)g * N * K + (size_t)n * K + k] : b[(size_t)g * K * N + (size_t)k * N + n];
          s += (double)a[(size_t)g * M * K + (size_t)m * K + k] * bv;
        }
        want[(size_t)g * M * N + (size_t)m * N + n] = alpha * s + (with_bias ? bias[n] : 0.0);
      }
  char what[128];
  snprintf(what, sizeof what, "gemm batch %d M %d K %d N %d trans_b %d bias %d", batch, M, K, N, trans_b, with_bias);
  expect_close(what, got, want, no);
  // What follows out is untouched.
  float *pad = get(after_out, 7);
  assert_memory_equal(pad, pad_before, 7 * sizeof *pad);
  free(pad), free(pad_before);
  free(a), free(b), free(bias), free(zeros), free(got), free(want);
  drop(da), drop(db), drop(dbias), drop(dout);
}

static void test_matmul(void **state) {
  (void)state;
  static const int shapes[][3] = {{1, 1, 1},    {3, 5, 7},     {64, 64, 64},  {65, 33, 129}, {4, 768, 70},
                                  {300, 77, 5}, {17, 16, 300}, {128, 17, 64}, {1, 100, 257}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int tb = 0; tb < 2; tb++)
      for (int bias = 0; bias < 2; bias++) check_gemm(1, shapes[s][0], shapes[s][1], shapes[s][2], tb, bias, 1.0f);
}

static void test_matmul_batched(void **state) {
  (void)state;
  // The attention products: scores (H,T,T) = Q·Kᵀ and z (H,T,D) = pattern·V.
  check_gemm(3, 37, 19, 37, true, false, 0.125f);
  check_gemm(3, 37, 37, 19, false, false, 1.0f);
  check_gemm(2, 300, 64, 300, true, false, 0.125f);
  check_gemm(2, 300, 300, 64, false, false, 1.0f);
  check_gemm(5, 1, 7, 1, false, false, -2.0f);
  check_gemm(4, 9, 13, 11, true, false, 1.0f);
}

static void test_matmul_zero_k(void **state) {
  (void)state;
  // K = 0: out is the bias alone.
  check_gemm(1, 3, 0, 5, false, true, 1.0f);
}

// ---- gathers and element-wise ----------------------------------------------------------
static void test_embed(void **state) {
  (void)state;
  const int rows = 50, C = 13;
  float *table = rand_vec((size_t)rows * C, 1.0f);
  tt_buf dt = put(table, (size_t)rows * C, 2);
  // T = 5 fits the first id buffer; T = 3000 grows it; then small again.
  static const int Ts[] = {5, 3000, 1};
  for (int r = 0; r < 3; r++) {
    int T = Ts[r];
    int32_t *ids = malloc((size_t)T * sizeof *ids);
    for (int t = 0; t < T; t++) ids[t] = (t * 7 + r) % rows;
    float *zeros = calloc((size_t)T * C + 2, sizeof *zeros);
    tt_buf dout = put(zeros, (size_t)T * C, 1);
    tt_error err;
    if (be->embed(be, dout, dt, ids, T, C, &err) != TT_OK) fail_msg("%s", err.msg);
    float *got = get(dout, (size_t)T * C);
    double *want = malloc((size_t)T * C * sizeof *want);
    for (int t = 0; t < T; t++)
      for (int c = 0; c < C; c++) want[(size_t)t * C + c] = table[(size_t)ids[t] * C + c];
    expect_equal("embed", got, want, (size_t)T * C);
    free(ids), free(zeros), free(got), free(want);
    drop(dout);
  }
  // An id past the table is refused before anything runs.
  int32_t bad[2] = {1, rows};
  tt_error err;
  tt_buf dout = put(table, 2 * (size_t)C, 0);
  assert_int_equal(be->embed(be, dout, tt_buf_view(dt, 0, (size_t)rows * C), bad, 2, C, &err), TT_ERR_ARG);
  drop(dout), drop(dt);
  free(table);
}

static void test_add_scale_aliasing(void **state) {
  (void)state;
  static const size_t sizes[] = {1, 255, 256, 257, 100003};
  for (size_t s = 0; s < 5; s++) {
    size_t n = sizes[s];
    float *a = rand_vec(n, 3.0f), *b = rand_vec(n, 3.0f);
    double *want = malloc(n * sizeof *want);
    tt_error err;
    // out = a + b into a separate buffer, then in place (out aliases a, then b).
    tt_buf da = put(a, n, 1), db = put(b, n, 2), dout = put(a, n, 0);
    assert_int_equal(be->add(be, dout, da, db, n, &err), TT_OK);
    for (size_t i = 0; i < n; i++) want[i] = (double)(a[i] + b[i]);
    float *got = get(dout, n);
    expect_equal("add", got, want, n);
    free(got);
    assert_int_equal(be->add(be, da, da, db, n, &err), TT_OK);
    got = get(da, n);
    expect_equal("add in place (out = a)", got, want, n);
    free(got);
    assert_int_equal(be->add(be, db, da, db, n, &err), TT_OK);  // b = (a + b) + b
    for (size_t i = 0; i < n; i++) want[i] = (double)((a[i] + b[i]) + b[i]);
    got = get(db, n);
    expect_equal("add in place (out = b)", got, want, n);
    free(got);
    // scale, then in place.
    assert_int_equal(be->scale(be, dout, da, 0.125f, n, &err), TT_OK);
    for (size_t i = 0; i < n; i++) want[i] = (double)(0.125f * (a[i] + b[i]));
    got = get(dout, n);
    expect_equal("scale", got, want, n);
    free(got);
    assert_int_equal(be->scale(be, da, da, 0.125f, n, &err), TT_OK);
    got = get(da, n);
    expect_equal("scale in place", got, want, n);
    free(got);
    free(a), free(b), free(want);
    drop(da), drop(db), drop(dout);
  }
}

static double act_ref(double x, tt_act_kind k) {
  switch (k) {
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

static void test_activation(void **state) {
  (void)state;
  const size_t n = 3001;
  float *x = rand_vec(n, 3.0f);  // where the activations differ most from each other
  x[0] = 0.0f, x[1] = -30.0f, x[2] = 30.0f, x[3] = -8.0f, x[4] = 8.0f;
  double *want = malloc(n * sizeof *want);
  for (int k = TT_ACT_GELU_TANH; k <= TT_ACT_IDENTITY; k++) {
    for (size_t i = 0; i < n; i++) want[i] = act_ref(x[i], (tt_act_kind)k);
    tt_error err;
    tt_buf dx = put(x, n, 3), dout = put(x, n, 0);
    assert_int_equal(be->activation(be, dout, dx, n, (tt_act_kind)k, &err), TT_OK);
    float *got = get(dout, n);
    char what[64];
    snprintf(what, sizeof what, "activation %d", k);
    expect_close(what, got, want, n);
    expect_close_each(what, got, want, n);
    free(got);
    assert_int_equal(be->activation(be, dx, dx, n, (tt_act_kind)k, &err), TT_OK);  // in place
    got = get(dx, n);
    snprintf(what, sizeof what, "activation %d in place", k);
    expect_close(what, got, want, n);
    free(got);
    drop(dx), drop(dout);
  }
  free(x), free(want);
}

static void test_causal_mask(void **state) {
  (void)state;
  static const int shapes[][2] = {{1, 1}, {3, 7}, {2, 300}};
  for (int s = 0; s < 3; s++) {
    int H = shapes[s][0], T = shapes[s][1];
    size_t n = (size_t)H * T * T;
    float *x = rand_vec(n, 5.0f);
    double *want = malloc(n * sizeof *want);
    for (int h = 0; h < H; h++)
      for (int r = 0; r < T; r++)
        for (int c = 0; c < T; c++) {
          size_t i = ((size_t)h * T + r) * T + c;
          want[i] = c > r ? -INFINITY : x[i];
        }
    tt_error err;
    tt_buf dx = put(x, n, 1), dout = put(x, n, 2);
    assert_int_equal(be->causal_mask(be, dout, dx, H, T, &err), TT_OK);
    float *got = get(dout, n);
    expect_equal("causal_mask", got, want, n);
    free(got);
    assert_int_equal(be->causal_mask(be, dx, dx, H, T, &err), TT_OK);
    got = get(dx, n);
    expect_equal("causal_mask in place", got, want, n);
    free(got), free(x), free(want);
    drop(dx), drop(dout);
  }
}

// ---- row reductions -------------------------------------------------------------------
static void softmax_ref(const float *x, double *out, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    const float *xr = x + (size_t)r * cols;
    double m = -INFINITY, s = 0;
    for (int c = 0; c < cols; c++) m = fmax(m, xr[c]);
    for (int c = 0; c < cols; c++) s += isinf(xr[c]) ? 0.0 : exp(xr[c] - m);
    for (int c = 0; c < cols; c++) out[(size_t)r * cols + c] = isinf(xr[c]) ? 0.0 : exp(xr[c] - m) / s;
  }
}

static void test_softmax(void **state) {
  (void)state;
  static const int shapes[][2] = {{1, 1}, {7, 5}, {300, 300}, {3, 1000}, {2, 50257}};
  for (int s = 0; s < 5; s++) {
    int rows = shapes[s][0], cols = shapes[s][1];
    size_t n = (size_t)rows * cols;
    float *x = rand_vec(n, 20.0f);
    // Causal-mask pattern for square inputs.
    if (rows == cols)
      for (int r = 0; r < rows; r++)
        for (int c = r + 1; c < cols; c++) x[(size_t)r * cols + c] = -INFINITY;
    double *want = malloc(n * sizeof *want);
    softmax_ref(x, want, rows, cols);
    tt_error err;
    tt_buf dx = put(x, n, 4), dout = put(x, n, 1);
    if (be->softmax(be, dout, dx, rows, cols, &err) != TT_OK) fail_msg("%s", err.msg);
    float *got = get(dout, n);
    expect_close("softmax", got, want, n);
    for (size_t i = 0; i < n; i++)
      if (isinf(x[i])) assert_true(got[i] == 0.0f);  // exactly 0 where masked
    for (int r = 0; r < rows; r++) {
      double sum = 0;
      for (int c = 0; c < cols; c++) sum += got[(size_t)r * cols + c];
      assert_true(fabs(sum - 1.0) < 1e-4);
    }
    free(got);
    assert_int_equal(be->softmax(be, dx, dx, rows, cols, &err), TT_OK);  // in place
    got = get(dx, n);
    expect_close("softmax in place", got, want, n);
    free(got), free(x), free(want);
    drop(dx), drop(dout);
  }
  // A row that is all -inf becomes all 0.
  float x[4] = {-INFINITY, -INFINITY, -INFINITY, -INFINITY};
  tt_error err;
  tt_buf dx = put(x, 4, 0);
  assert_int_equal(be->softmax(be, dx, dx, 1, 4, &err), TT_OK);
  float *got = get(dx, 4);
  for (int i = 0; i < 4; i++) assert_true(got[i] == 0.0f);
  free(got);
  drop(dx);
}

static void test_norm(void **state) {
  (void)state;
  static const int shapes[][2] = {{1, 1}, {5, 7}, {300, 768}, {3, 1000}};
  for (int s = 0; s < 4; s++)
    for (int rms = 0; rms < 2; rms++) {
      int T = shapes[s][0], C = shapes[s][1];
      size_t n = (size_t)T * C;
      float *x = rand_vec(n, 4.0f), *gamma = rand_vec((size_t)C, 2.0f), *beta = rand_vec((size_t)C, 1.0f);
      for (size_t i = 0; i < n; i++) x[i] += 3.0f;  // a mean far from 0
      const float eps = 1e-5f;
      double *w_out = malloc(n * sizeof(double)), *w_norm = malloc(n * sizeof(double));
      double *w_mean = malloc((size_t)T * sizeof(double)), *w_scale = malloc((size_t)T * sizeof(double));
      for (int t = 0; t < T; t++) {
        const float *xr = x + (size_t)t * C;
        double mu = 0, v = 0;
        if (!rms) {
          for (int c = 0; c < C; c++) mu += xr[c];
          mu /= C;
        }
        for (int c = 0; c < C; c++) v += (xr[c] - mu) * (xr[c] - mu);
        double sc = sqrt(v / C + eps);
        w_mean[t] = mu, w_scale[t] = sc;
        for (int c = 0; c < C; c++) {
          double nv = (xr[c] - mu) / sc;
          w_norm[(size_t)t * C + c] = nv;
          w_out[(size_t)t * C + c] = nv * gamma[c] + (rms ? 0.0 : beta[c]);
        }
      }
      tt_error err;
      tt_buf dx = put(x, n, 1), dg = put(gamma, (size_t)C, 2), db = put(beta, (size_t)C, 3);
      tt_buf dout = put(x, n, 1), dnorm = put(x, n, 2), dmean = put(x, (size_t)T, 3), dscale = put(x, (size_t)T, 4);
      if (be->norm(be, dout, dnorm, dmean, dscale, dx, dg, rms ? (tt_buf){0} : db, T, C, eps, rms, &err) != TT_OK)
        fail_msg("%s", err.msg);
      float *g_out = get(dout, n), *g_norm = get(dnorm, n), *g_mean = get(dmean, (size_t)T),
            *g_scale = get(dscale, (size_t)T);
      expect_close(rms ? "rmsnorm out" : "layernorm out", g_out, w_out, n);
      expect_close(rms ? "rmsnorm normalized" : "layernorm normalized", g_norm, w_norm, n);
      expect_close(rms ? "rmsnorm mean" : "layernorm mean", g_mean, w_mean, (size_t)T);
      expect_close(rms ? "rmsnorm scale" : "layernorm scale", g_scale, w_scale, (size_t)T);
      if (rms)
        for (int t = 0; t < T; t++) assert_true(g_mean[t] == 0.0f);
      free(g_out), free(g_norm), free(g_mean), free(g_scale);
      free(x), free(gamma), free(beta), free(w_out), free(w_norm), free(w_mean), free(w_scale);
      drop(dx), drop(dg), drop(db), drop(dout), drop(dnorm), drop(dmean), drop(dscale);
    }
}

static void test_heads(void **state) {
  (void)state;
  static const int shapes[][3] = {{1, 1, 1}, {5, 3, 7}, {300, 12, 64}, {4, 5, 3}};
  for (int s = 0; s < 4; s++) {
    int T = shapes[s][0], H = shapes[s][1], D = shapes[s][2], C = H * D;
    size_t n = (size_t)T * C;
    float *qkv = rand_vec(3 * n, 1.0f);
    tt_error err;
    tt_buf dqkv = put(qkv, 3 * n, 1), dq = put(qkv, n, 2), dk = put(qkv, n, 3), dv = put(qkv, n, 0);
    assert_int_equal(be->split_heads(be, dq, dk, dv, dqkv, T, H, D, &err), TT_OK);
    double *want = malloc(n * sizeof *want);
    tt_buf parts[3] = {dq, dk, dv};
    for (int p = 0; p < 3; p++) {
      for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++)
          for (int d = 0; d < D; d++)
            want[((size_t)h * T + t) * D + d] = qkv[(size_t)t * 3 * C + (size_t)p * C + (size_t)h * D + d];
      float *got = get(parts[p], n);
      expect_equal(p == 0 ? "split_heads q" : p == 1 ? "split_heads k" : "split_heads v", got, want, n);
      free(got);
    }
    // merge_heads(k) puts the k third of qkv back together.
    tt_buf dout = put(qkv, n, 5);
    assert_int_equal(be->merge_heads(be, dout, dk, T, H, D, &err), TT_OK);
    for (int t = 0; t < T; t++)
      for (int c = 0; c < C; c++) want[(size_t)t * C + c] = qkv[(size_t)t * 3 * C + C + c];
    float *got = get(dout, n);
    expect_equal("merge_heads", got, want, n);
    free(got), free(want), free(qkv);
    drop(dqkv), drop(dq), drop(dk), drop(dv), drop(dout);
  }
}

static void test_nll(void **state) {
  (void)state;
  static const int shapes[][2] = {{2, 1}, {7, 1000}, {300, 301}, {3, 50257}};
  for (int s = 0; s < 4; s++) {
    int T = shapes[s][0], V = shapes[s][1];
    size_t n = (size_t)T * V;
    float *logits = rand_vec(n, 10.0f);
    int32_t *ids = malloc((size_t)T * sizeof *ids);
    for (int t = 0; t < T; t++) ids[t] = (t * 31 + 5) % V;
    double *want = malloc((size_t)T * sizeof *want);
    for (int t = 0; t + 1 < T; t++) {
      const float *r = logits + (size_t)t * V;
      double m = -INFINITY, sum = 0;
      for (int v = 0; v < V; v++) m = fmax(m, r[v]);
      for (int v = 0; v < V; v++) sum += exp(r[v] - m);
      want[t] = m + log(sum) - r[ids[t + 1]];
    }
    tt_error err;
    tt_buf dl = put(logits, n, 1), dloss = put(logits, (size_t)T - 1, 1);
    if (be->nll(be, dloss, dl, ids, T, V, &err) != TT_OK) fail_msg("%s", err.msg);
    float *got = get(dloss, (size_t)T - 1);
    expect_close("nll", got, want, (size_t)T - 1);
    free(got), free(logits), free(ids), free(want);
    drop(dl), drop(dloss);
  }
}

// ---- errors and description ---------------------------------------------------------
static void test_errors(void **state) {
  (void)state;
  tt_error err;
  tt_buf b;
  // Larger than any single allocation the device allows.
  assert_int_equal(be->alloc(be, (size_t)1 << 46, &b, &err), TT_ERR_NOMEM);
  assert_non_null(strstr(err.msg, "out of device memory"));
  // A view that runs past its buffer is refused with a message, not read on the device.
  float x[8] = {0};
  tt_buf d = put(x, 8, 0);
  tt_buf past = {.handle = d.handle, .offset = 4, .n = 8};
  assert_int_equal(be->add(be, past, d, d, 8, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "runs past"));
  assert_int_equal(be->add(be, d, tt_buf_view(d, 0, 4), d, 8, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "needs 8"));
  drop(d);
  // Device indices that do not exist.
  tt_backend *other = NULL;
  assert_int_not_equal(tt_backend_opencl_create(99, 0, &other, &err), TT_OK);
  assert_non_null(strstr(err.msg, "platform 99 does not exist"));
  assert_null(other);
  assert_int_not_equal(tt_backend_opencl_create(0, 999, &other, &err), TT_OK);
  assert_non_null(strstr(err.msg, "device 999 does not exist"));
}

static void test_description(void **state) {
  (void)state;
  assert_string_equal(be->name, "opencl");
  assert_false(be->host_memory);
  assert_non_null(strstr(be->device, " / "));
  assert_non_null(strstr(be->device, " CUs, "));
  assert_non_null(strstr(be->device, " MiB)"));
}

static int setup(void **state) {
  (void)state;
  tt_error err;
  if (tt_backend_opencl_create(-1, -1, &be, &err) != TT_OK) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  fprintf(stderr, "device: %s\n", be->device);
  return 0;
}
static int teardown(void **state) {
  (void)state;
  tt_backend_destroy(be);
  return 0;
}

int main(void) {
  cl_uint np = 0;
  cl_int rc = clGetPlatformIDs(0, NULL, &np);
  if (rc != CL_SUCCESS || np == 0) {
    printf("skipped: no OpenCL platform on this machine (install pocl-opencl-icd for OpenCL on the CPU)\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_description),    cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_matmul_batched), cmocka_unit_test(test_matmul_zero_k),
      cmocka_unit_test(test_embed),          cmocka_unit_test(test_add_scale_aliasing),
      cmocka_unit_test(test_activation),     cmocka_unit_test(test_causal_mask),
      cmocka_unit_test(test_softmax),        cmocka_unit_test(test_norm),
      cmocka_unit_test(test_heads),          cmocka_unit_test(test_nll),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, setup, teardown);
}
