// openblas_backward: the host backend's ops for the backward pass. Products go to
// cblas_sgemm; sums over rows and the derivatives are loops accumulated in double, split
// by rows or columns over the backend's threads (the same bits on any number of them).
// Shape legend: T tokens, C width, H heads, D = C/H, V vocabulary.
#include <cblas.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "host_kernels.h"
#include "openblas_internal.h"

static tt_status host_zero(tt_backend *be, tt_buf out, size_t n, tt_error *err) {
  (void)be, (void)err;
  NEED(out, n);
  memset(out_of(out), 0, n * sizeof(float));
  return TT_OK;
}

// Output rows per cblas_sgemm call of matmul_tn: OpenBLAS packs all of aᵀ (K,M) for one call
// (12 MiB for the head's weight gradient at T = 64: 50257 × 64 floats), so a product with
// many output rows is made in blocks whose packed part stays within 1 MiB. As fast (measured
// on the head's shape, 2 threads: 33–36 ms either way).
static int tn_block_rows(int M) {
  int rows = (1 << 20) / (int)(M * sizeof(float));
  return rows < 256 ? 256 : rows;
}

// for i < batch: out[i] (K,N) (+)= a[i]ᵀ · b[i], a[i] (M,K), b[i] (M,N).
static tt_status host_matmul_tn(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N,
                                bool accumulate, tt_error *err) {
  (void)err;
  NEED(out, (size_t)batch * K * N);
  NEED(a, (size_t)batch * M * K);
  NEED(b, (size_t)batch * M * N);
  tt_openblas_pick_threads(be, K, M, N);
  int rows = tn_block_rows(M);
  for (int i = 0; i < batch; i++) {
    const float *ai = in(a) + (size_t)i * M * K, *bi = in(b) + (size_t)i * M * N;
    float *oi = out_of(out) + (size_t)i * K * N;
    for (int k = 0; k < K; k += rows)  // out rows k.. (r,N) = a[:, k..]ᵀ · b
      cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, K - k < rows ? K - k : rows, N, M, 1.0f, ai + k, K, bi, N,
                  accumulate ? 1.0f : 0.0f, oi + (size_t)k * N, N);
  }
  return TT_OK;
}

// Column sums go over the rows in order, COLS columns at a time in double accumulators, so
// each row's part is one contiguous, vectorized pass (the same sums, term for term, as a
// loop down each column).
enum { COLS = 256 };

typedef struct {
  float *sum, *sum_xy;  // (N): += Σ_m x, and (with y) += Σ_m x·y; either may be NULL
  const float *x, *y;   // (M,N) each; y NULL: no products
  int M, N;
} column_sums_args;

// Columns [b, e) (whole COLS blocks but the last) of column_sums_args.
static void column_sums_body(void *args, size_t b, size_t e) {
  const column_sums_args *a = args;
  for (size_t j0 = b; j0 < e; j0 += COLS) {
    size_t n = e - j0 < COLS ? e - j0 : COLS;
    double s[COLS] = {0}, sxy[COLS] = {0};
    for (int m = 0; m < a->M; m++) {
      const float *x = a->x + (size_t)m * a->N + j0;
      for (size_t j = 0; j < n; j++) s[j] += x[j];
      if (a->y) {
        const float *y = a->y + (size_t)m * a->N + j0;
        for (size_t j = 0; j < n; j++) sxy[j] += (double)x[j] * y[j];
      }
    }
    for (size_t j = 0; j < n; j++) {
      if (a->sum) a->sum[j0 + j] += (float)s[j];
      if (a->sum_xy) a->sum_xy[j0 + j] += (float)sxy[j];
    }
  }
}

// The column sums on every core, by blocks of COLS columns.
static void column_sums(tt_backend *be, const column_sums_args *a) {
  tt_openblas_parallel_for(be, (size_t)a->N, tt_openblas_min_rows((size_t)a->M), COLS, column_sums_body, (void *)a);
}

// out (N) += Σ_m x[m] (M,N).
static tt_status host_add_row_sums(tt_backend *be, tt_buf out, tt_buf x, int M, int N, tt_error *err) {
  (void)err;
  NEED(out, N);
  NEED(x, (size_t)M * N);
  column_sums(be, &(column_sums_args){out_of(out), NULL, in(x), NULL, M, N});
  return TT_OK;
}

// One row of the norm's backward: dn (C) = d_out·γ and dx (C); returns nothing.
static void norm_backward_row(float *dx, float *dn, const float *dout, const float *nrm, const float *g, float scale,
                              int C, bool rms) {
  double sum_dn = 0.0, sum_dn_n = 0.0;
  for (int i = 0; i < C; i++) {
    dn[i] = dout[i] * g[i];
    sum_dn += dn[i];
    sum_dn_n += (double)dn[i] * nrm[i];
  }
  double mean_dn = rms ? 0.0 : sum_dn / C, mean_dn_n = sum_dn_n / C;
  for (int i = 0; i < C; i++) dx[i] = (float)(((double)dn[i] - mean_dn - (double)nrm[i] * mean_dn_n) / scale);
}

typedef struct {
  float *dx, *dn;
  const float *dout, *nrm, *g, *scale;
  int C;
  bool rms;
} norm_rows_args;

static void norm_rows_body(void *args, size_t b, size_t e) {
  const norm_rows_args *a = args;
  for (size_t t = b; t < e; t++) {
    size_t o = t * (size_t)a->C;
    norm_backward_row(a->dx + o, a->dn + o, a->dout + o, a->nrm + o, a->g, a->scale[t], a->C, a->rms);
  }
}

static tt_status host_norm_backward(tt_backend *be, tt_buf dx, tt_buf d_normalized, tt_buf d_gamma, tt_buf d_beta,
                                    tt_buf d_out, tt_buf normalized, tt_buf scale, tt_buf gamma, int T, int C, bool rms,
                                    tt_error *err) {
  (void)err;
  size_t n = (size_t)T * C;
  NEED(dx, n);
  NEED(d_normalized, n);
  NEED(d_out, n);
  NEED(normalized, n);
  NEED(scale, T);
  NEED(gamma, C);
  NEED(d_gamma, C);
  if (!rms) NEED(d_beta, C);
  norm_rows_args rows = {out_of(dx), out_of(d_normalized), in(d_out), in(normalized), in(gamma), in(scale), C, rms};
  tt_openblas_parallel_for(be, (size_t)T, tt_openblas_min_rows((size_t)C), 1, norm_rows_body, &rows);
  // d_gamma (C) += Σ_t d_out·normalized; d_beta (C) += Σ_t d_out
  column_sums(be, &(column_sums_args){rms ? NULL : out_of(d_beta), out_of(d_gamma), in(d_out), in(normalized), T, C});
  return TT_OK;
}

// act'(a) in double.
static double act_derivative(double a, tt_act_kind act) {
  switch (act) {
  case TT_ACT_GELU_TANH: {  // 0.5·a·(1 + tanh(u)), u = √(2/π)·(a + 0.044715·a³)
    double k = 0.7978845608028654, th = tanh(k * (a + 0.044715 * a * a * a));
    return 0.5 * (1.0 + th) + 0.5 * a * (1.0 - th * th) * k * (1.0 + 3.0 * 0.044715 * a * a);
  }
  case TT_ACT_GELU_ERF:  // Φ(a) + a·φ(a)
    return 0.5 * (1.0 + erf(a * 0.7071067811865476)) + a * exp(-0.5 * a * a) * 0.3989422804014327;
  case TT_ACT_RELU:
    return a > 0.0 ? 1.0 : 0.0;
  case TT_ACT_SILU: {  // σ(a)·(1 + a·(1 − σ(a)))
    double s = 1.0 / (1.0 + exp(-a));
    return s * (1.0 + a * (1.0 - s));
  }
  case TT_ACT_IDENTITY:
    return 1.0;
  }
  return NAN;
}

typedef struct {
  float *dx, *y;  // y NULL: dx only
  const float *x, *dy;
  float k, c;
} gate_backward_args;

static void gate_backward_body(void *args, size_t b, size_t e) {
  const gate_backward_args *a = args;
  tt_host_sigmoid_gate_backward(a->dx + b, a->y ? a->y + b : NULL, a->x + b, a->dy + b, e - b, a->k, a->c);
}

static tt_status host_activation_backward(tt_backend *be, tt_buf dx, tt_buf y, tt_buf x, tt_buf dy, size_t n,
                                          tt_act_kind act, tt_error *err) {
  NEED(dx, n);
  NEED(x, n);
  NEED(dy, n);
  bool with_y = tt_buf_is_set(y);
  if (with_y) NEED(y, n);
  if ((unsigned)act > TT_ACT_IDENTITY)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "openblas: unknown activation %d", (int)act);
  // GELU (tanh form) and SiLU as the forward computes them (host_activation): vectorized
  if (act == TT_ACT_GELU_TANH || act == TT_ACT_SILU) {
    bool gelu = act == TT_ACT_GELU_TANH;
    gate_backward_args args = {out_of(dx),
                               with_y ? out_of(y) : NULL,
                               in(x),
                               in(dy),
                               gelu ? 2.0f * 0.7978845608028654f : 1.0f,
                               gelu ? 0.044715f : 0.0f};
    tt_openblas_parallel_for(be, n, MIN_PART_FLOATS, ALIGN_FLOATS, gate_backward_body, &args);
    return TT_OK;
  }
  for (size_t i = 0; i < n; i++) out_of(dx)[i] = (float)(act_derivative(in(x)[i], act) * in(dy)[i]);
  return with_y ? be->activation(be, y, x, n, act, err) : TT_OK;  // after dx: y may be dy
}

typedef struct {
  float *dx;
  const float *y, *dy;
  size_t cols;
} softmax_backward_args;

static void softmax_backward_body(void *args, size_t b, size_t e) {
  const softmax_backward_args *a = args;
  for (size_t r = b; r < e; r++) {
    const float *p = a->y + r * a->cols, *g = a->dy + r * a->cols;
    float *o = a->dx + r * a->cols;
    double dot = 0.0;
    for (size_t j = 0; j < a->cols; j++) dot += (double)p[j] * g[j];
    for (size_t j = 0; j < a->cols; j++) o[j] = (float)((double)p[j] * ((double)g[j] - dot));
  }
}

static tt_status host_softmax_backward(tt_backend *be, tt_buf dx, tt_buf y, tt_buf dy, int rows, int cols,
                                       tt_error *err) {
  (void)err;
  size_t n = (size_t)rows * cols;
  NEED(dx, n);
  NEED(y, n);
  NEED(dy, n);
  softmax_backward_args args = {out_of(dx), in(y), in(dy), (size_t)cols};
  tt_openblas_parallel_for(be, (size_t)rows, tt_openblas_min_rows((size_t)cols), 1, softmax_backward_body, &args);
  return TT_OK;
}

// x (T,C) → z (H,T,D).
static tt_status host_unmerge_heads(tt_backend *be, tt_buf z, tt_buf x, int T, int H, int D, tt_error *err) {
  (void)be, (void)err;
  size_t C = (size_t)H * D;
  NEED(z, (size_t)T * C);
  NEED(x, (size_t)T * C);
  for (int h = 0; h < H; h++)
    for (int t = 0; t < T; t++)
      memcpy(out_of(z) + ((size_t)h * T + t) * D, in(x) + (size_t)t * C + (size_t)h * D, (size_t)D * sizeof(float));
  return TT_OK;
}

// q, k, v (H,T,D) → qkv (T,3C).
static tt_status host_join_heads(tt_backend *be, tt_buf qkv, tt_buf q, tt_buf k, tt_buf v, int T, int H, int D,
                                 tt_error *err) {
  (void)be, (void)err;
  size_t C = (size_t)H * D;
  NEED(qkv, (size_t)T * 3 * C);
  NEED(q, (size_t)T * C);
  NEED(k, (size_t)T * C);
  NEED(v, (size_t)T * C);
  const float *src[3] = {in(q), in(k), in(v)};
  for (int t = 0; t < T; t++) {
    float *row = out_of(qkv) + (size_t)t * 3 * C;
    for (int part = 0; part < 3; part++)
      for (int h = 0; h < H; h++)
        memcpy(row + part * C + (size_t)h * D, src[part] + ((size_t)h * T + t) * D, (size_t)D * sizeof(float));
  }
  return TT_OK;
}

typedef struct {
  float *d_logits;
  const float *probs;
  const int32_t *ids;
  int T, V;
  float tiny;
} nll_backward_args;

static void nll_backward_body(void *args, size_t b, size_t e) {
  const nll_backward_args *a = args;
  size_t V = (size_t)a->V;
  float inv = 1.0f / (float)(a->T - 1);
  for (size_t t = b; t < e; t++) {
    float *o = a->d_logits + t * V;
    const float *p = a->probs + t * V;
    if ((int)t == a->T - 1) {
      memset(o, 0, V * sizeof(float));
      continue;
    }
    float p_next = p[a->ids[t + 1]];  // read first: o may be p (in place)
    for (size_t v = 0; v < V; v++) {
      float g = p[v] * inv;
      o[v] = g < a->tiny ? 0.0f : g;
    }
    o[a->ids[t + 1]] = (p_next - 1.0f) * inv;
  }
}

static tt_status host_nll_backward(tt_backend *be, tt_buf d_logits, tt_buf probs, const int32_t *ids, int T, int V,
                                   float tiny, tt_error *err) {
  (void)err;
  TT_ASSERT(T >= 2);
  NEED(d_logits, (size_t)T * V);
  NEED(probs, (size_t)T * V);
  nll_backward_args args = {out_of(d_logits), in(probs), ids, T, V, tiny};
  tt_openblas_parallel_for(be, (size_t)T, tt_openblas_min_rows((size_t)V), 1, nll_backward_body, &args);
  return TT_OK;
}

static tt_status host_embed_backward(tt_backend *be, tt_buf d_table, tt_buf dx, const int32_t *ids, int T, int C,
                                     tt_error *err) {
  (void)be, (void)err;
  NEED(dx, (size_t)T * C);
  for (int t = 0; t < T; t++) {
    NEED(d_table, ((size_t)ids[t] + 1) * C);
    float *row = out_of(d_table) + (size_t)ids[t] * C;
    const float *g = in(dx) + (size_t)t * C;
    for (int c = 0; c < C; c++) row[c] += g[c];
  }
  return TT_OK;
}

void tt_openblas_set_backward(tt_backend *be) {
  be->zero = host_zero;
  be->matmul_tn = host_matmul_tn;
  be->add_row_sums = host_add_row_sums;
  be->norm_backward = host_norm_backward;
  be->activation_backward = host_activation_backward;
  be->softmax_backward = host_softmax_backward;
  be->unmerge_heads = host_unmerge_heads;
  be->join_heads = host_join_heads;
  be->nll_backward = host_nll_backward;
  be->embed_backward = host_embed_backward;
}
