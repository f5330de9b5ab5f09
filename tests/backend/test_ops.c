// Every op of a backend against a naive loop (double accumulation), on several shapes
// including odd ones, plus the in-place (aliased) forms the interface allows.
// The backend under test is named by argv[1] ("openblas" when absent).
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "backend/backend.h"

#include "ops_util.h"

// ---- matmul ----------------------------------------------------------------------------------
static void check_matmul(tt_backend *be, int M, int K, int N, bool trans_b, bool with_bias) {
  float *a = rand_vec((size_t)M * K, -1, 1), *b = rand_vec((size_t)K * N, -1, 1), *bias = rand_vec(N, -1, 1);
  double *want = malloc((size_t)M * N * sizeof *want);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = with_bias ? bias[j] : 0.0;
      for (int k = 0; k < K; k++) s += (double)a[i * K + k] * (trans_b ? b[j * K + k] : b[k * N + j]);
      want[i * N + j] = s;
    }
  tt_buf ba = up(be, a, (size_t)M * K), bb = up(be, b, (size_t)K * N), bbias = up(be, bias, N);
  tt_buf out = up(be, NULL, (size_t)M * N);
  tt_error err = {0};
  assert_int_equal(be->matmul(be, out, ba, bb, with_bias ? bbias : (tt_buf){0}, M, K, N, trans_b, &err), TT_OK);
  float *got = down(be, out, (size_t)M * N);
  char what[96];
  snprintf(what, sizeof what, "matmul %dx%dx%d%s%s", M, K, N, trans_b ? " trans_b" : "", with_bias ? " bias" : "");
  assert_close(got, want, (size_t)M * N, 1e-5 * sqrt((double)K), what);
  be->release(be, &ba), be->release(be, &bb), be->release(be, &bbias), be->release(be, &out);
  free(a), free(b), free(bias), free(want), free(got);
}

static void test_matmul(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  // K past 384: small-M products in K segments (8 at K = 3000), shared by the threads
  static const int shapes[][3] = {{1, 1, 1},     {4, 12, 36},   {5, 7, 3},      {17, 60, 180},
                                  {3, 129, 65},  {64, 96, 384}, {33, 50, 1001}, {128, 40, 3100},
                                  {129, 20, 70}, {3, 800, 200}, {9, 1000, 33},  {16, 3000, 70}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int tb = 0; tb < 2; tb++)
      for (int bias = 0; bias < 2; bias++) check_matmul(be, shapes[s][0], shapes[s][1], shapes[s][2], tb, bias);
}

static void check_batched(tt_backend *be, int batch, int M, int K, int N, bool trans_b, float alpha) {
  size_t na = (size_t)batch * M * K, nb = (size_t)batch * K * N, no = (size_t)batch * M * N;
  float *a = rand_vec(na, -1, 1), *b = rand_vec(nb, -1, 1);
  double *want = malloc(no * sizeof *want);
  for (int p = 0; p < batch; p++)
    for (int i = 0; i < M; i++)
      for (int j = 0; j < N; j++) {
        double s = 0.0;
        const float *ap = a + (size_t)p * M * K, *bp = b + (size_t)p * K * N;
        for (int k = 0; k < K; k++) s += (double)ap[i * K + k] * (trans_b ? bp[j * K + k] : bp[k * N + j]);
        want[(size_t)p * M * N + i * N + j] = alpha * s;
      }
  tt_buf ba = up(be, a, na), bb = up(be, b, nb), out = up(be, NULL, no);
  tt_error err = {0};
  assert_int_equal(be->matmul_batched(be, out, ba, bb, batch, M, K, N, trans_b, alpha, &err), TT_OK);
  float *got = down(be, out, no);
  char what[96];
  snprintf(what, sizeof what, "batched %dx(%dx%dx%d)%s", batch, M, K, N, trans_b ? " trans_b" : "");
  assert_close(got, want, no, 1e-5 * sqrt((double)K), what);
  be->release(be, &ba), be->release(be, &bb), be->release(be, &out);
  free(a), free(b), free(want), free(got);
}

static void test_matmul_batched(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  check_batched(be, 1, 1, 1, 1, true, 1.0f);
  check_batched(be, 5, 7, 12, 7, true, 0.2886751f);
  check_batched(be, 5, 7, 7, 12, false, 1.0f);
  check_batched(be, 3, 33, 17, 33, true, 0.5f);
  check_batched(be, 12, 16, 64, 16, true, 0.125f);
}

// ---- embed, add, scale, mask ----------------------------------------------------------------
static void test_embed(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  const int rows = 11, C = 13, T = 6;
  const int32_t ids[6] = {3, 0, 10, 3, 7, 1};
  float *table = rand_vec((size_t)rows * C, -2, 2);
  double want[6 * 13];
  for (int t = 0; t < T; t++)
    for (int c = 0; c < C; c++) want[t * C + c] = table[ids[t] * C + c];
  tt_buf bt = up(be, table, (size_t)rows * C), out = up(be, NULL, (size_t)T * C);
  tt_error err = {0};
  assert_int_equal(be->embed(be, out, bt, ids, T, C, &err), TT_OK);
  float *got = down(be, out, (size_t)T * C);
  assert_close(got, want, (size_t)T * C, 0.0, "embed");
  be->release(be, &bt), be->release(be, &out);
  free(table), free(got);
}

static void test_add_scale(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  const size_t n = 1001;
  float *a = rand_vec(n, -3, 3), *b = rand_vec(n, -3, 3);
  double *sum = malloc(n * sizeof *sum), *scaled = malloc(n * sizeof *scaled);
  for (size_t i = 0; i < n; i++) sum[i] = (double)a[i] + b[i], scaled[i] = 0.375 * a[i];
  tt_buf ba = up(be, a, n), bb = up(be, b, n), out = up(be, NULL, n);
  tt_error err = {0};
  assert_int_equal(be->add(be, out, ba, bb, n, &err), TT_OK);
  float *got = down(be, out, n);
  assert_close(got, sum, n, 1e-7, "add");
  free(got);
  assert_int_equal(be->scale(be, out, ba, 0.375f, n, &err), TT_OK);
  got = down(be, out, n);
  assert_close(got, scaled, n, 1e-7, "scale");
  free(got);
  // In place: a += b, then a *= 0.375 (of the sum).
  assert_int_equal(be->add(be, ba, ba, bb, n, &err), TT_OK);
  got = down(be, ba, n);
  assert_close(got, sum, n, 1e-7, "add in place");
  free(got);
  for (size_t i = 0; i < n; i++) scaled[i] = 0.375 * (float)sum[i];
  assert_int_equal(be->scale(be, ba, ba, 0.375f, n, &err), TT_OK);
  got = down(be, ba, n);
  assert_close(got, scaled, n, 1e-7, "scale in place");
  // A view in the middle of a buffer: scale elements [100, 200) of b into [300, 400) of out.
  assert_int_equal(be->scale(be, tt_buf_view(out, 300, 100), tt_buf_view(bb, 100, 100), 2.0f, 100, &err), TT_OK);
  float *g2 = down(be, out, n);
  for (int i = 0; i < 100; i++) assert_true(g2[300 + i] == 2.0f * b[100 + i]);
  be->release(be, &ba), be->release(be, &bb), be->release(be, &out);
  free(a), free(b), free(sum), free(scaled), free(got), free(g2);
}

static void test_causal_mask(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  const int H = 3, T = 7;
  size_t n = (size_t)H * T * T;
  float *x = rand_vec(n, -5, 5);
  double *want = malloc(n * sizeof *want);
  for (int h = 0; h < H; h++)
    for (int i = 0; i < T; i++)
      for (int j = 0; j < T; j++) want[(h * T + i) * T + j] = j > i ? -INFINITY : x[(h * T + i) * T + j];
  tt_buf bx = up(be, x, n), out = up(be, NULL, n);
  tt_error err = {0};
  assert_int_equal(be->causal_mask(be, out, bx, H, T, &err), TT_OK);
  float *got = down(be, out, n);
  assert_close(got, want, n, 0.0, "causal_mask");
  free(got);
  assert_int_equal(be->causal_mask(be, bx, bx, H, T, &err), TT_OK);
  got = down(be, bx, n);
  assert_close(got, want, n, 0.0, "causal_mask in place");
  be->release(be, &bx), be->release(be, &out);
  free(x), free(want), free(got);
}

// ---- softmax, norm, activation -------------------------------------------------------------
static void naive_softmax(const float *x, double *want, int rows, int cols) {
  for (int r = 0; r < rows; r++) {
    double mx = -INFINITY, s = 0.0;
    for (int j = 0; j < cols; j++) mx = fmax(mx, x[r * cols + j]);
    for (int j = 0; j < cols; j++) s += isinf(x[r * cols + j]) ? 0.0 : exp(x[r * cols + j] - mx);
    for (int j = 0; j < cols; j++) want[r * cols + j] = isinf(x[r * cols + j]) ? 0.0 : exp(x[r * cols + j] - mx) / s;
  }
}

static void check_softmax(tt_backend *be, int rows, int cols, float range, bool masked, bool in_place) {
  size_t n = (size_t)rows * cols;
  float *x = rand_vec(n, -range, range);
  if (masked)  // a causal pattern: -inf above the diagonal of each cols x cols square
    for (int r = 0; r < rows; r++)
      for (int j = (r % cols) + 1; j < cols; j++) x[r * cols + j] = -INFINITY;
  double *want = malloc(n * sizeof *want);
  naive_softmax(x, want, rows, cols);
  tt_buf bx = up(be, x, n), out = in_place ? bx : up(be, NULL, n);
  tt_error err = {0};
  assert_int_equal(be->softmax(be, out, bx, rows, cols, &err), TT_OK);
  float *got = down(be, out, n);
  assert_close(got, want, n, 1e-6, "softmax");
  for (size_t i = 0; i < n; i++)
    if (isinf(x[i])) assert_true(got[i] == 0.0f);  // exactly zero, not tiny
  for (int r = 0; r < rows; r++) {
    double s = 0.0;
    for (int j = 0; j < cols; j++) s += got[r * cols + j];
    assert_true(fabs(s - 1.0) < 1e-5);
  }
  be->release(be, &bx);
  if (!in_place) be->release(be, &out);
  free(x), free(want), free(got);
}

static void test_softmax(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  check_softmax(be, 1, 1, 1, false, false);
  check_softmax(be, 7, 5, 3, false, false);
  check_softmax(be, 21, 7, 10, true, false);
  check_softmax(be, 21, 7, 10, true, true);
  check_softmax(be, 74, 37, 10, true, false);  // causal rows of odd length: every prefix length
  check_softmax(be, 3, 50257, 20, false, false);
  check_softmax(be, 4, 33, 80, false, true);  // large logits: only max subtraction keeps this finite
}

// A row ending in k entries of -inf (a causal row) gives, bit for bit, the softmax of its
// first cols - k entries alone followed by k zeros; an -inf inside a row is a zero too.
// cols = 37: prefixes of every length across the host kernels' blocks of 8.
static void test_softmax_masked_prefix(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  if (strcmp(backend_name, "openblas") != 0) skip();  // the host kernels' exactness, not every device's
  enum { COLS = 37 };
  float *x = rand_vec((size_t)COLS * COLS, -10, 10);
  for (int r = 0; r < COLS; r++)
    for (int j = COLS - r; j < COLS; j++) x[r * COLS + j] = -INFINITY;  // row r: r trailing -inf
  x[20 * COLS + 3] = -INFINITY;                                         // and one inside row 20
  tt_buf bx = up(be, x, (size_t)COLS * COLS), out = up(be, NULL, (size_t)COLS * COLS);
  tt_error err = {0};
  assert_int_equal(be->softmax(be, out, bx, COLS, COLS, &err), TT_OK);
  float *got = down(be, out, (size_t)COLS * COLS);
  for (int r = 0; r < COLS; r++) {
    int n = COLS - r;
    tt_buf px = up(be, x + r * COLS, (size_t)n), po = up(be, NULL, (size_t)n);
    assert_int_equal(be->softmax(be, po, px, 1, n, &err), TT_OK);
    float *alone = down(be, po, (size_t)n);
    assert_memory_equal(got + r * COLS, alone, (size_t)n * sizeof(float));
    for (int j = n; j < COLS; j++) assert_true(got[r * COLS + j] == 0.0f && !signbit(got[r * COLS + j]));
    be->release(be, &px), be->release(be, &po);
    free(alone);
  }
  assert_true(got[20 * COLS + 3] == 0.0f);
  be->release(be, &bx), be->release(be, &out);
  free(x), free(got);
}

static void check_norm(tt_backend *be, int T, int C, bool rms, bool in_place) {
  size_t n = (size_t)T * C;
  float *x = rand_vec(n, -2, 3), *g = rand_vec(C, 0.5f, 1.5f), *b = rand_vec(C, -1, 1);
  const float eps = 1e-5f;
  double *wm = malloc(T * sizeof *wm), *ws = malloc(T * sizeof *ws), *wn = malloc(n * sizeof *wn),
         *wo = malloc(n * sizeof *wo);
  for (int t = 0; t < T; t++) {
    double m = 0.0, v = 0.0;
    if (!rms) {
      for (int c = 0; c < C; c++) m += x[t * C + c];
      m /= C;
    }
    for (int c = 0; c < C; c++) v += (x[t * C + c] - m) * (x[t * C + c] - m);
    v /= C;
    wm[t] = m;
    ws[t] = sqrt(v + eps);
    for (int c = 0; c < C; c++) {
      wn[t * C + c] = (x[t * C + c] - m) / ws[t];
      wo[t * C + c] = wn[t * C + c] * g[c] + (rms ? 0.0 : b[c]);
    }
  }
  tt_buf bx = up(be, x, n), bg = up(be, g, C), bb = up(be, b, C);
  tt_buf out = in_place ? bx : up(be, NULL, n), nrm = up(be, NULL, n), mean = up(be, NULL, T), sc = up(be, NULL, T);
  tt_error err = {0};
  assert_int_equal(be->norm(be, out, nrm, mean, sc, bx, bg, bb, T, C, eps, rms, &err), TT_OK);
  float *go = down(be, out, n), *gn = down(be, nrm, n), *gm = down(be, mean, T), *gs = down(be, sc, T);
  assert_close(gm, wm, T, 1e-6, "norm mean");
  assert_close(gs, ws, T, 1e-6, "norm scale");
  assert_close(gn, wn, n, 1e-5, "norm normalized");
  assert_close(go, wo, n, 1e-5, "norm out");
  be->release(be, &bx), be->release(be, &bg), be->release(be, &bb), be->release(be, &nrm);
  be->release(be, &mean), be->release(be, &sc);
  if (!in_place) be->release(be, &out);
  free(x), free(g), free(b), free(wm), free(ws), free(wn), free(wo), free(go), free(gn), free(gm), free(gs);
}

static void test_norm(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  static const int shapes[][2] = {{1, 1}, {1, 8}, {4, 60}, {7, 13}, {3, 768}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int rms = 0; rms < 2; rms++)
      for (int ip = 0; ip < 2; ip++) check_norm(be, shapes[s][0], shapes[s][1], rms, ip);
}

static void test_activation(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  const size_t n = 997;
  const tt_act_kind acts[] = {TT_ACT_GELU_TANH, TT_ACT_GELU_ERF, TT_ACT_RELU, TT_ACT_SILU, TT_ACT_IDENTITY};
  float *x = rand_vec(n, -6, 6);
  x[0] = 0.0f, x[1] = -20.0f, x[2] = 20.0f;
  double *want = malloc(n * sizeof *want);
  for (size_t k = 0; k < sizeof acts / sizeof *acts; k++) {
    for (size_t i = 0; i < n; i++) want[i] = naive_act(x[i], acts[k]);
    tt_buf bx = up(be, x, n), out = up(be, NULL, n);
    tt_error err = {0};
    assert_int_equal(be->activation(be, out, bx, n, acts[k], &err), TT_OK);
    float *got = down(be, out, n);
    char what[64];
    snprintf(what, sizeof what, "activation %d", (int)acts[k]);
    assert_close(got, want, n, 2e-6, what);
    free(got);
    assert_int_equal(be->activation(be, bx, bx, n, acts[k], &err), TT_OK);
    got = down(be, bx, n);
    assert_close(got, want, n, 2e-6, what);
    be->release(be, &bx), be->release(be, &out);
    free(got);
  }
  free(x), free(want);
}

// The host's activation_row gives every element the bits the op gives it, for runs that
// start and end anywhere (a trace calls it on rows of F floats, the op on each thread's
// part): rows of 1..40 floats at every offset mod 16 of a buffer the op computed whole,
// with the clamps of the exp (±100), zeros, tiny values and infinities among them.
static void test_activation_rows(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  if (!be->activation_row) skip();  // a device backend keeps mlp.hook_post as bytes
  const size_t n = 40000;           // more than one thread's part
  const tt_act_kind acts[] = {TT_ACT_GELU_TANH, TT_ACT_GELU_ERF, TT_ACT_RELU, TT_ACT_SILU, TT_ACT_IDENTITY};
  float *x = rand_vec(n, -12, 12);
  const float special[] = {0.0f, -0.0f, 100.0f, -100.0f, 1e-30f, -1e-30f, INFINITY, -INFINITY, 88.5f, -87.5f};
  for (size_t i = 0; i < n; i += 97) x[i] = special[(i / 97) % (sizeof special / sizeof *special)];
  float *row = malloc(64 * sizeof *row);
  for (size_t k = 0; k < sizeof acts / sizeof *acts; k++) {
    tt_row_fn fn = be->activation_row(acts[k]);
    assert_non_null(fn);
    tt_buf bx = up(be, x, n), out = up(be, NULL, n);
    tt_error err = {0};
    assert_int_equal(be->activation(be, out, bx, n, acts[k], &err), TT_OK);
    float *whole = down(be, out, n);
    for (size_t at = 0, len = 1; at + len <= n; at += len, len = len % 40 + 1) {
      fn(row, x + at, len);
      assert_memory_equal(row, whole + at, len * sizeof *row);
      memcpy(row + 1, x + at, len * sizeof *row);  // in place, at another alignment
      fn(row + 1, row + 1, len);
      assert_memory_equal(row + 1, whole + at, len * sizeof *row);
    }
    be->release(be, &bx), be->release(be, &out);
    free(whole);
  }
  free(row), free(x);
}

// ---- heads, loss -----------------------------------------------------------------------------
static void test_split_merge_heads(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  const int T = 5, H = 3, D = 7, C = H * D;
  size_t n = (size_t)T * C;
  float *qkv = rand_vec(3 * n, -1, 1);
  double *wq = malloc(n * sizeof *wq), *wk = malloc(n * sizeof *wk), *wv = malloc(n * sizeof *wv),
         *wm = malloc(n * sizeof *wm);
  for (int h = 0; h < H; h++)
    for (int t = 0; t < T; t++)
      for (int d = 0; d < D; d++) {
        wq[(h * T + t) * D + d] = qkv[t * 3 * C + h * D + d];
        wk[(h * T + t) * D + d] = qkv[t * 3 * C + C + h * D + d];
        wv[(h * T + t) * D + d] = qkv[t * 3 * C + 2 * C + h * D + d];
      }
  for (int t = 0; t < T; t++)
    for (int c = 0; c < C; c++) wm[t * C + c] = wv[((c / D) * T + t) * D + c % D];
  tt_buf b = up(be, qkv, 3 * n), q = up(be, NULL, n), k = up(be, NULL, n), v = up(be, NULL, n), m = up(be, NULL, n);
  tt_error err = {0};
  assert_int_equal(be->split_heads(be, q, k, v, b, T, H, D, &err), TT_OK);
  assert_int_equal(be->merge_heads(be, m, v, T, H, D, &err), TT_OK);
  float *gq = down(be, q, n), *gk = down(be, k, n), *gv = down(be, v, n), *gm = down(be, m, n);
  assert_close(gq, wq, n, 0, "split q");
  assert_close(gk, wk, n, 0, "split k");
  assert_close(gv, wv, n, 0, "split v");
  assert_close(gm, wm, n, 0, "merge");
  be->release(be, &b), be->release(be, &q), be->release(be, &k), be->release(be, &v), be->release(be, &m);
  free(qkv), free(wq), free(wk), free(wv), free(wm), free(gq), free(gk), free(gv), free(gm);
}

static void check_nll(tt_backend *be, int T, int V, float range) {
  float *logits = rand_vec((size_t)T * V, -range, range);
  int32_t *ids = malloc(T * sizeof *ids);
  for (int t = 0; t < T; t++) ids[t] = (int32_t)((t * 7919 + 3) % V);
  double *want = malloc(T * sizeof *want);
  for (int t = 0; t + 1 < T; t++) {
    double mx = -INFINITY, s = 0.0;
    for (int j = 0; j < V; j++) mx = fmax(mx, logits[t * V + j]);
    for (int j = 0; j < V; j++) s += exp(logits[t * V + j] - mx);
    want[t] = mx + log(s) - logits[t * V + ids[t + 1]];
  }
  tt_buf bl = up(be, logits, (size_t)T * V), loss = up(be, NULL, T);
  tt_error err = {0};
  assert_int_equal(be->nll(be, loss, bl, ids, T, V, &err), TT_OK);
  float *got = down(be, loss, T - 1);
  assert_close(got, want, T - 1, 1e-6, "nll");
  be->release(be, &bl), be->release(be, &loss);
  free(logits), free(ids), free(want), free(got);
}

static void test_nll(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  check_nll(be, 2, 3, 1);
  check_nll(be, 6, 50257, 10);
  check_nll(be, 4, 100, 300);  // large logits
}

// ---- factory ---------------------------------------------------------------------------------
static void test_factory(void **state) {
  (void)state;
  tt_backend *be = NULL;
  tt_error err = {0};
  char note[512];
  assert_int_equal(tt_backend_create("openblas", &be, note, sizeof note, &err), TT_OK);
  assert_string_equal(be->name, "openblas");
  assert_true(be->host_memory);
  assert_true(be->device[0] != 0);
  tt_backend_destroy(be);
  assert_int_equal(tt_backend_create("auto", &be, note, sizeof note, &err), TT_OK);
  assert_non_null(be);
  if (strcmp(be->name, "openblas") == 0) assert_true(note[0] != 0);  // says why it fell back
  tt_backend_destroy(be);
  assert_int_equal(tt_backend_create("cuda", &be, note, sizeof note, &err), TT_ERR_ARG);
  assert_null(be);
  assert_non_null(strstr(err.msg, "cuda"));
}

// ---- view sizes ------------------------------------------------------------------------------
// Runs fn(be) in a child process; true when the child was stopped by abort() (TT_ASSERT).
static bool aborts(tt_backend *be, void (*fn)(tt_backend *be)) {
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) {
    fn(be);
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

static tt_status add_into_short_view(tt_backend *be) {
  tt_buf a = up(be, NULL, 8), b = up(be, NULL, 8), out = up(be, NULL, 8);
  tt_error err = {0};
  return be->add(be, tt_buf_view(out, 0, 3), a, b, 8, &err);  // out holds 3 of the 8 floats
}
static void add_short(tt_backend *be) {
  (void)add_into_short_view(be);
}
static void matmul_short_b(tt_backend *be) {
  tt_buf a = up(be, NULL, 6), b = up(be, NULL, 12), out = up(be, NULL, 8);
  tt_error err = {0};
  (void)be->matmul(be, out, a, tt_buf_view(b, 0, 5), (tt_buf){0}, 2, 3, 4, false, &err);  // b needs 12
}
static void view_past_end(tt_backend *be) {
  tt_buf a = up(be, NULL, 8);
  (void)tt_buf_view(a, 6, 4);  // floats 6..9 of 8
}
static void write_read_only(tt_backend *be) {
  static const float weights[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  tt_buf w = be->wrap_read_only(be, weights, 8), a = up(be, NULL, 8);
  tt_error err = {0};
  (void)be->scale(be, w, a, 2.0f, 8, &err);  // a weight as an op's output
}

// A view too small for an op is a bug in the caller: host backends stop at a TT_ASSERT
// (OpenCL returns TT_ERR_ARG from need()); a view past its parent and a write through a
// read-only weight view stop too.
static void test_view_sizes(void **state) {
  fixture *f = *state;
  if (!f->be->host_memory) {
    assert_int_equal(add_into_short_view(f->be), TT_ERR_ARG);
    return;
  }
  assert_true(aborts(f->be, add_short));
  assert_true(aborts(f->be, matmul_short_b));
  assert_true(aborts(f->be, view_past_end));
  assert_true(aborts(f->be, write_read_only));
}

int main(int argc, char **argv) {
  if (argc > 1) backend_name = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul),
      cmocka_unit_test(test_matmul_batched),
      cmocka_unit_test(test_embed),
      cmocka_unit_test(test_add_scale),
      cmocka_unit_test(test_causal_mask),
      cmocka_unit_test(test_softmax),
      cmocka_unit_test(test_softmax_masked_prefix),
      cmocka_unit_test(test_norm),
      cmocka_unit_test(test_activation),
      cmocka_unit_test(test_activation_rows),
      cmocka_unit_test(test_split_merge_heads),
      cmocka_unit_test(test_nll),
      cmocka_unit_test(test_factory),
      cmocka_unit_test(test_view_sizes),
  };
  return cmocka_run_group_tests_name(backend_name, tests, setup, teardown);
}
