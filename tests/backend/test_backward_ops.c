// The backward pass's ops of a backend against naive loops (double accumulation) on several
// shapes, odd ones included; the activations' derivatives against central differences of
// their definitions. A backend without them (OpenCL, for now) is skipped.
#include <float.h>
#include <math.h>
#include <string.h>

#include "ops_util.h"

// Runs a backend call (which may name E, its tt_error*) and fails the test with its message.
#define OK(call)                                   \
  do {                                             \
    tt_error err_ = {0};                           \
    if ((call) != TT_OK) fail_msg("%s", err_.msg); \
  } while (0)
#define E (&err_)

static void skip_without_backward(tt_backend *be) {
  if (!be->matmul_tn) skip();
}

static void check_matmul_tn(tt_backend *be, int batch, int M, int K, int N, bool accumulate) {
  size_t na = (size_t)batch * M * K, nb = (size_t)batch * M * N, no = (size_t)batch * K * N;
  float *a = rand_vec(na, -1, 1), *b = rand_vec(nb, -1, 1), *o0 = rand_vec(no, -1, 1);
  double *want = malloc(no * sizeof *want);
  for (int i = 0; i < batch; i++)
    for (int k = 0; k < K; k++)
      for (int n = 0; n < N; n++) {
        double s = accumulate ? o0[((size_t)i * K + k) * N + n] : 0.0;
        for (int m = 0; m < M; m++) s += (double)a[((size_t)i * M + m) * K + k] * b[((size_t)i * M + m) * N + n];
        want[((size_t)i * K + k) * N + n] = s;
      }
  tt_buf ba = up(be, a, na), bb = up(be, b, nb), out = up(be, o0, no);
  OK(be->matmul_tn(be, out, ba, bb, batch, M, K, N, accumulate, E));
  float *got = down(be, out, no);
  char what[96];
  snprintf(what, sizeof what, "matmul_tn %dx(%d,%d,%d)%s", batch, M, K, N, accumulate ? " accumulate" : "");
  assert_close(got, want, no, 1e-5 * sqrt((double)M), what);
  be->release(be, &ba), be->release(be, &bb), be->release(be, &out);
  free(a), free(b), free(o0), free(want), free(got);
}

static void test_matmul_tn(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  static const int shapes[][4] = {{1, 1, 1, 1}, {1, 5, 7, 3}, {1, 17, 60, 180}, {3, 9, 9, 5}, {12, 64, 64, 64}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int acc = 0; acc < 2; acc++) check_matmul_tn(be, shapes[s][0], shapes[s][1], shapes[s][2], shapes[s][3], acc);
}

static void test_zero_row_sums(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  const int M = 13, N = 37;
  float *x = rand_vec((size_t)M * N, -1, 1), *o0 = rand_vec(N, -1, 1);
  double *want = malloc(N * sizeof *want), zeros[37] = {0};
  for (int n = 0; n < N; n++) {
    want[n] = o0[n];
    for (int m = 0; m < M; m++) want[n] += x[m * N + n];
  }
  tt_buf bx = up(be, x, (size_t)M * N), out = up(be, o0, N);
  OK(be->add_row_sums(be, out, bx, M, N, E));
  float *got = down(be, out, N);
  assert_close(got, want, N, 1e-6, "add_row_sums");
  free(got);
  OK(be->zero(be, out, N, E));
  got = down(be, out, N);
  assert_close(got, zeros, N, 0, "zero");
  be->release(be, &bx), be->release(be, &out);
  free(x), free(o0), free(want), free(got);
}

// The norm's backward from its definition: y = n·γ + β, n = (x − μ)/s, differentiated by hand
// through μ and s as independent sums (not the closed form the backend uses).
static void naive_norm_backward(const float *x, const float *g, const float *dy, int T, int C, bool rms, double eps,
                                double *dx, double *dn, double *dg, double *db) {
  for (int i = 0; i < C; i++) dg[i] = db[i] = 0.0;
  for (int t = 0; t < T; t++) {
    const float *v = x + (size_t)t * C;
    double mu = 0.0, var = 0.0;
    if (!rms) {
      for (int i = 0; i < C; i++) mu += v[i];
      mu /= C;
    }
    for (int i = 0; i < C; i++) var += (v[i] - mu) * (v[i] - mu);
    var /= C;
    double s = sqrt(var + eps), ds = 0.0, dmu = 0.0;
    for (int i = 0; i < C; i++) {
      double n = (v[i] - mu) / s, d_n = dy[t * C + i] * g[i];
      dn[t * C + i] = d_n;
      dg[i] += dy[t * C + i] * n;
      db[i] += rms ? 0.0 : dy[t * C + i];
      ds += -d_n * (v[i] - mu) / (s * s);  // n depends on s
      dmu += -d_n / s;                     // and on μ directly
    }
    for (int i = 0; i < C; i++) {
      double dvar_dx = 2.0 * (v[i] - mu) / C;  // s = √(var + ε); var's own dependence on μ sums to 0
      dx[t * C + i] = dn[t * C + i] / s + ds * dvar_dx / (2.0 * s) + (rms ? 0.0 : dmu / C);
    }
  }
}

static void check_norm_backward(tt_backend *be, int T, int C, bool rms) {
  size_t n = (size_t)T * C;
  const float eps = 1e-5f;
  float *x = rand_vec(n, -2, 2), *g = rand_vec(C, 0.5f, 1.5f), *b = rand_vec(C, -1, 1), *dy = rand_vec(n, -1, 1);
  float *dg0 = rand_vec(C, -1, 1), *db0 = rand_vec(C, -1, 1);
  double *wdx = malloc(n * sizeof *wdx), *wdn = malloc(n * sizeof *wdn), *wdg = malloc(C * sizeof *wdg),
         *wdb = malloc(C * sizeof *wdb);
  naive_norm_backward(x, g, dy, T, C, rms, eps, wdx, wdn, wdg, wdb);
  for (int i = 0; i < C; i++) wdg[i] += dg0[i], wdb[i] += db0[i];  // both accumulate
  tt_buf bx = up(be, x, n), bg = up(be, g, C), bb = up(be, b, C), bdy = up(be, dy, n);
  tt_buf out = up(be, NULL, n), nrm = up(be, NULL, n), mean = up(be, NULL, T), sc = up(be, NULL, T);
  tt_buf dx = up(be, NULL, n), dn = up(be, NULL, n), dg = up(be, dg0, C), db = up(be, db0, C);
  OK(be->norm(be, out, nrm, mean, sc, bx, bg, bb, T, C, eps, rms, E));
  OK(be->norm_backward(be, dx, dn, dg, db, bdy, nrm, sc, bg, T, C, rms, E));
  float *gdx = down(be, dx, n), *gdn = down(be, dn, n), *gdg = down(be, dg, C), *gdb = down(be, db, C);
  char what[64];
  snprintf(what, sizeof what, "norm_backward %dx%d%s dx", T, C, rms ? " rms" : "");
  assert_close(gdx, wdx, n, 1e-4, what);
  assert_close(gdn, wdn, n, 1e-6, "norm_backward d_normalized");
  assert_close(gdg, wdg, C, 1e-5, "norm_backward d_gamma");
  assert_close(gdb, wdb, C, 1e-5, "norm_backward d_beta (untouched for rms)");
  tt_buf bufs[] = {bx, bg, bb, bdy, out, nrm, mean, sc, dx, dn, dg, db};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) be->release(be, &bufs[i]);
  free(x), free(g), free(b), free(dy), free(dg0), free(db0), free(wdx), free(wdn), free(wdg), free(wdb);
  free(gdx), free(gdn), free(gdg), free(gdb);
}

static void test_norm_backward(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  static const int shapes[][2] = {{1, 2}, {4, 60}, {7, 13}, {3, 768}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (int rms = 0; rms < 2; rms++) check_norm_backward(be, shapes[s][0], shapes[s][1], rms);
}

static void test_activation_backward(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  const size_t n = 997;
  const tt_act_kind acts[] = {TT_ACT_GELU_TANH, TT_ACT_GELU_ERF, TT_ACT_RELU, TT_ACT_SILU, TT_ACT_IDENTITY};
  float *x = rand_vec(n, -6, 6), *dy = rand_vec(n, -1, 1);
  x[0] = 0.5f, x[1] = -20.0f, x[2] = 20.0f, x[3] = -100.0f, x[4] = 100.0f;  // ±100: exp saturates
  double *want = malloc(n * sizeof *want), h = 1e-5;
  for (size_t k = 0; k < sizeof acts / sizeof *acts; k++) {
    for (size_t i = 0; i < n; i++)  // central differences of the definition (ReLU's kink is never hit)
      want[i] = (naive_act(x[i] + h, acts[k]) - naive_act(x[i] - h, acts[k])) / (2 * h) * dy[i];
    tt_buf bx = up(be, x, n), bdy = up(be, dy, n), out = up(be, NULL, n);
    OK(be->activation_backward(be, out, (tt_buf){0}, bx, bdy, n, acts[k], E));
    float *got = down(be, out, n);
    char what[64];
    snprintf(what, sizeof what, "activation_backward %d", (int)acts[k]);
    assert_close(got, want, n, 1e-6, what);
    // With y, in place over dy: the same dx, and y bit for bit the forward's act(x)
    tt_buf dx2 = up(be, NULL, n), fwd = up(be, NULL, n);
    OK(be->activation_backward(be, dx2, bdy, bx, bdy, n, acts[k], E));
    OK(be->activation(be, fwd, bx, n, acts[k], E));
    float *got2 = down(be, dx2, n), *y = down(be, bdy, n), *yf = down(be, fwd, n);
    if (memcmp(got2, got, n * sizeof *got) != 0) fail_msg("%s: dx differs when y is written over dy", what);
    if (memcmp(y, yf, n * sizeof *y) != 0) fail_msg("%s: y is not the forward's act(x) bit for bit", what);
    be->release(be, &bx), be->release(be, &bdy), be->release(be, &out), be->release(be, &dx2), be->release(be, &fwd);
    free(got), free(got2), free(y), free(yf);
  }
  free(x), free(dy), free(want);
}

static void test_softmax_backward(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  const int rows = 9, cols = 31;
  size_t n = (size_t)rows * cols;
  float *y = rand_vec(n, 0, 1), *dy = rand_vec(n, -1, 1);
  for (int r = 0; r < rows; r++)
    for (int j = r + 1; j < cols; j++) y[r * cols + j] = 0.0f;  // masked entries: 0 in, 0 out
  double *want = malloc(n * sizeof *want);
  for (int r = 0; r < rows; r++)  // dx_j = Σ_i dy_i ∂y_i/∂x_j, ∂y_i/∂x_j = y_i(δ_ij − y_j)
    for (int j = 0; j < cols; j++) {
      double s = 0.0;
      for (int i = 0; i < cols; i++) s += dy[r * cols + i] * y[r * cols + i] * ((i == j) - y[r * cols + j]);
      want[r * cols + j] = s;
    }
  tt_buf by = up(be, y, n), bdy = up(be, dy, n), out = up(be, NULL, n);
  OK(be->softmax_backward(be, out, by, bdy, rows, cols, E));
  float *got = down(be, out, n);
  assert_close(got, want, n, 1e-6, "softmax_backward");
  for (int r = 0; r < rows; r++)
    for (int j = r + 1; j < cols; j++) assert_true(got[r * cols + j] == 0.0f);
  be->release(be, &by), be->release(be, &bdy), be->release(be, &out);
  free(y), free(dy), free(want), free(got);
}

static void test_unmerge_join_heads(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  const int T = 5, H = 3, D = 7, C = H * D;
  size_t n = (size_t)T * C;
  float *x = rand_vec(n, -1, 1), *q = rand_vec(n, -1, 1), *k = rand_vec(n, -1, 1), *v = rand_vec(n, -1, 1);
  double *wz = malloc(n * sizeof *wz), *wqkv = malloc(3 * n * sizeof *wqkv);
  for (int h = 0; h < H; h++)
    for (int t = 0; t < T; t++)
      for (int d = 0; d < D; d++) {
        size_t head = ((size_t)h * T + t) * D + d;
        wz[head] = x[t * C + h * D + d];
        wqkv[t * 3 * C + h * D + d] = q[head];
        wqkv[t * 3 * C + C + h * D + d] = k[head];
        wqkv[t * 3 * C + 2 * C + h * D + d] = v[head];
      }
  tt_buf bx = up(be, x, n), bq = up(be, q, n), bk = up(be, k, n), bv = up(be, v, n);
  tt_buf z = up(be, NULL, n), qkv = up(be, NULL, 3 * n);
  OK(be->unmerge_heads(be, z, bx, T, H, D, E));
  OK(be->join_heads(be, qkv, bq, bk, bv, T, H, D, E));
  float *gz = down(be, z, n), *gqkv = down(be, qkv, 3 * n);
  assert_close(gz, wz, n, 0, "unmerge_heads");
  assert_close(gqkv, wqkv, 3 * n, 0, "join_heads");
  tt_buf bufs[] = {bx, bq, bk, bv, z, qkv};
  for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++) be->release(be, &bufs[i]);
  free(x), free(q), free(k), free(v), free(wz), free(wqkv), free(gz), free(gqkv);
}

static void test_nll_backward(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  const int T = 6, V = 97;
  size_t n = (size_t)T * V;
  float *p = rand_vec(n, 0, 1);
  int32_t ids[6] = {3, 96, 0, 3, 50, 7};
  double *want = malloc(n * sizeof *want);
  for (int t = 0; t < T; t++)
    for (int v = 0; v < V; v++) want[t * V + v] = t == T - 1 ? 0.0 : (p[t * V + v] - (v == ids[t + 1])) / (T - 1);
  p[1] = 4e-38f;  // ÷ (T−1) would be subnormal: written as 0 with tiny = FLT_MIN
  p[2] = 1e-30f;  // 1.7e-31 after ÷ (T−1): 0 with tiny = 2⁻¹⁰⁰, kept with tiny = FLT_MIN
  p[V] = 0.25f;   // row 1: in place, each row's true-token entry is read before it is written
  for (int v = 0; v < 3; v++) want[v] = (p[v] - (v == ids[1])) / (T - 1);
  want[V] = (p[V] - (0 == ids[2])) / (T - 1);
  want[1] = 0.0;
  const float tiny[] = {FLT_MIN, 0x1p-100f};
  for (int k = 0; k < 2; k++) {
    for (int in_place = 0; in_place < 2; in_place++) {
      tt_buf bp = up(be, p, n), out = in_place ? bp : up(be, p, n);  // out starts non-zero: the last row is written
      OK(be->nll_backward(be, out, bp, ids, T, V, tiny[k], E));
      float *got = down(be, out, n);
      want[2] = k == 1 ? 0.0 : p[2] / (T - 1);
      assert_close(got, want, n, 1e-6, "nll_backward");
      for (size_t i = 0; i < n; i++)
        if (fpclassify(got[i]) == FP_SUBNORMAL) fail_msg("nll_backward: entry %zu is subnormal (%g)", i, got[i]);
      if (k == 1 && got[2] != 0.0f) fail_msg("nll_backward: 1.7e-31 kept with tiny = 2^-100 (%g)", got[2]);
      if (k == 0 && got[2] == 0.0f) fail_msg("nll_backward: 1.7e-31 dropped with tiny = FLT_MIN");
      be->release(be, &bp);
      if (!in_place) be->release(be, &out);
      free(got);
    }
  }
  free(p), free(want);
}

static void test_embed_backward(void **state) {
  tt_backend *be = ((fixture *)*state)->be;
  skip_without_backward(be);
  const int T = 5, C = 9, rows = 11;
  int32_t ids[5] = {4, 0, 4, 10, 4};  // a token three times gets all three rows
  float *dx = rand_vec((size_t)T * C, -1, 1), *table = rand_vec((size_t)rows * C, -1, 1);
  double *want = malloc((size_t)rows * C * sizeof *want);
  for (int i = 0; i < rows * C; i++) want[i] = table[i];
  for (int t = 0; t < T; t++)
    for (int c = 0; c < C; c++) want[ids[t] * C + c] += dx[t * C + c];
  tt_buf bdx = up(be, dx, (size_t)T * C), bt = up(be, table, (size_t)rows * C);
  OK(be->embed_backward(be, bt, bdx, ids, T, C, E));
  float *got = down(be, bt, (size_t)rows * C);
  assert_close(got, want, (size_t)rows * C, 1e-6, "embed_backward");
  be->release(be, &bdx), be->release(be, &bt);
  free(dx), free(table), free(want), free(got);
}

int main(int argc, char **argv) {
  if (argc > 1) backend_name = argv[1];
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_matmul_tn),        cmocka_unit_test(test_zero_row_sums),
      cmocka_unit_test(test_norm_backward),    cmocka_unit_test(test_activation_backward),
      cmocka_unit_test(test_softmax_backward), cmocka_unit_test(test_unmerge_join_heads),
      cmocka_unit_test(test_nll_backward),     cmocka_unit_test(test_embed_backward),
  };
  return cmocka_run_group_tests_name(backend_name, tests, setup, teardown);
}
