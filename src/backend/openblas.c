// openblas: the host backend. Buffers are plain malloc'd floats (tt_buf.handle is the
// float* of the allocation; weights used in place are read-only views), matrix products
// go to cblas_sgemm and everything else is a plain loop. Shape legend: T tokens, C width, H heads, D = C/H, F FFN width, V vocabulary.
#include <cblas.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "host_kernels.h"
#include "openblas_internal.h"
#include "mid_m.h"
#include "panels.h"
#include "small_m.h"

// Products with few rows or little work run faster on one thread than on two (the
// threads' start-up and the split cost more than they save: measured on 2 cores, M = 4..16
// rows ran 1.1-3.6x faster on one thread); larger ones use every thread.
#define MIN_SPLIT_WORK 4.0e6  // M·K·N below which a product stays on one thread
static void set_threads(openblas_impl *im, int want) {
  if (want != im->threads) {
    openblas_set_num_threads(want);
    im->threads = want;
  }
}

void tt_openblas_pick_threads(tt_backend *be, int M, int K, int N) {
  openblas_impl *im = be->impl;
  double work = (double)M * (double)K * (double)N;
  int want = (M < 32 || work < MIN_SPLIT_WORK) ? 1 : im->max_threads;
  set_threads(im, want);
  if (want > 1) tt_host_pool_park(im->pool);  // OpenBLAS's threads get the cores, not our spinning ones
}

void tt_openblas_single_thread(tt_backend *be) {
  set_threads(be->impl, 1);
}

// ---- parts of a loop on the pool's threads ------------------------------------------
typedef struct {
  tt_range_body body;
  void *args;
  size_t n, part;
} range_job;

static void range_item(void *ctx, int i, int thread) {
  (void)thread;
  const range_job *j = ctx;
  size_t b = (size_t)i * j->part, e = b + j->part < j->n ? b + j->part : j->n;
  j->body(j->args, b, e);
}

void tt_openblas_parallel_parts(tt_backend *be, size_t n, size_t min_part, size_t align, size_t parts_per_thread,
                                tt_range_body body, void *args) {
  openblas_impl *im = be->impl;
  int threads = tt_host_pool_threads(im->pool);
  if (threads == 1 || n < 2 * min_part || n < 2 * align) {
    body(args, 0, n);
    return;
  }
  size_t parts = (size_t)threads * parts_per_thread;
  if (n / parts < min_part) parts = n / min_part;
  size_t part = (n + parts - 1) / parts;
  part = (part + align - 1) / align * align;
  range_job j = {body, args, n, part};
  tt_host_pool_run(im->pool, (int)((n + part - 1) / part), range_item, &j);
}

void tt_openblas_parallel_for(tt_backend *be, size_t n, size_t min_part, size_t align, tt_range_body body, void *args) {
  // a few parts per thread: a busy core's share moves to the other
  tt_openblas_parallel_parts(be, n, min_part, align, 4, body, args);
}

const char *tt_openblas_better_coretype(void) {
  if (getenv("OPENBLAS_CORETYPE")) return NULL;
  const char *core = openblas_get_corename();
  static const char *const modern[] = {"haswell", "zen", "skylakex", "cooperlake", "sapphirerapids"};
  char lower[32] = "";
  for (size_t i = 0; core && core[i] && i + 1 < sizeof lower; i++) lower[i] = (char)tolower((unsigned char)core[i]);
  for (size_t i = 0; i < sizeof modern / sizeof *modern; i++)
    if (strcmp(lower, modern[i]) == 0) return NULL;
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("avx512dq"))
    return "SkylakeX";
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "Haswell";
#endif
  return NULL;
}

// ---- memory ---------------------------------------------------------------------------
static tt_status host_alloc(tt_backend *be, size_t n, tt_buf *out, tt_error *err) {
  (void)be;
  // malloc commits pages lazily: workspace that is never touched costs no memory.
  float *p = malloc((n ? n : 1) * sizeof(float));
  if (!p)
    return tt_fail(err, TT_ERR_NOMEM, "openblas: cannot allocate %zu floats (%.1f MiB)", n,
                   (double)n * 4.0 / 1048576.0);
  *out = (tt_buf){.handle = p, .n = n};
  return TT_OK;
}

static void host_release(tt_backend *be, tt_buf *buf) {
  (void)be;
  if (buf->panels) {
    tt_openblas_release_panels(buf);
    return;
  }
  free(buf->handle);
  *buf = (tt_buf){0};
}

static tt_buf host_wrap(tt_backend *be, float *host, size_t n) {
  (void)be;
  return (tt_buf){host, 0, n, NULL, false, false};
}

static tt_buf host_wrap_read_only(tt_backend *be, const float *host, size_t n) {
  (void)be;
  return (tt_buf){NULL, 0, n, host, false, false};
}

static tt_status host_upload(tt_backend *be, tt_buf dst, const float *src, size_t n, tt_error *err) {
  (void)be, (void)err;
  NEED(dst, n);
  if (out_of(dst) != src) memmove(out_of(dst), src, n * sizeof(float));
  return TT_OK;
}

static tt_status host_download(tt_backend *be, tt_buf src, float *dst, size_t n, tt_error *err) {
  (void)be, (void)err;
  NEED(src, n);
  if (in(src) != dst) memmove(dst, in(src), n * sizeof(float));
  return TT_OK;
}

// ---- matrix products ----------------------------------------------------------------
_Static_assert(TT_MID_M_MIN == TT_SMALL_M_MAX + 1, "every row count has one kernel");
// Rows [r0, r1) of out (M,N) = bias (N).
typedef struct {
  float *o;
  const float *bias;
  int N;
} bias_rows_args;

static void bias_rows_body(void *args, size_t r0, size_t r1) {
  const bias_rows_args *p = args;
  for (size_t i = r0; i < r1; i++) memcpy(p->o + i * p->N, p->bias, (size_t)p->N * sizeof(float));
}

// Columns of a mid-M product (mid_m.c): range i of `part` columns, on the thread's scratch.
typedef struct {
  float *o;
  const float *ap, *b, *bias;
  int M, K, N;
  size_t part;
  float *bpack;  // TT_MID_M_B_FLOATS per pool thread
} mid_m_args;

static void mid_m_item(void *ctx, int i, int thread) {
  const mid_m_args *p = ctx;
  size_t c0 = (size_t)i * p->part, c1 = c0 + p->part < (size_t)p->N ? c0 + p->part : (size_t)p->N;
  tt_mid_m_cols(p->o, p->ap, p->b, p->bias, p->M, p->K, p->N, (int)c0, (int)c1,
                p->bpack + (size_t)thread * TT_MID_M_B_FLOATS);
}

// 64-byte aligned memory for n floats (NULL when out of memory).
static float *aligned_floats(size_t n) {
  size_t bytes = (n * sizeof(float) + 63) / 64 * 64;
  return aligned_alloc(64, bytes ? bytes : 64);
}

float *tt_openblas_scratch(float **buf, size_t *floats, size_t need) {
  if (need > *floats) {
    free(*buf);
    *buf = aligned_floats(need);
    *floats = *buf ? need : 0;
  }
  return *buf;
}

// out (M,N) = a (M,K) · b (K,N) + bias with mid_m: a packed once, the columns split into
// one range per thread (a column's bits do not depend on the split). False, and nothing
// written, when its scratch cannot be had.
static bool mid_m_matmul(tt_backend *be, float *o, const float *a, const float *b, const float *bias, int M, int K,
                         int N) {
  openblas_impl *im = be->impl;
  int threads = tt_host_pool_threads(im->pool);
  tt_openblas_scratch(&im->mid_a, &im->mid_a_floats, tt_mid_m_a_floats(M, K));
  if (!im->mid_b) im->mid_b = aligned_floats((size_t)threads * TT_MID_M_B_FLOATS);
  if (!im->mid_a || !im->mid_b) return false;
  tt_mid_m_pack_a(im->mid_a, a, M, K);
  int parts = (double)M * K * N < MIN_SPLIT_WORK ? 1 : threads;
  size_t part = ((size_t)N + parts - 1) / parts;
  part = (part + TT_MID_M_COL_ALIGN - 1) / TT_MID_M_COL_ALIGN * TT_MID_M_COL_ALIGN;
  mid_m_args args = {o, im->mid_a, b, bias, M, K, N, part, im->mid_b};
  tt_openblas_single_thread(be);
  tt_host_pool_run(im->pool, (int)(((size_t)N + part - 1) / part), mid_m_item, &args);
  return true;
}

// out (M,N) = a (M,K) · b (K,N) + bias (N); b is (N,K) with trans_b. out must not alias a or b.
// A weight in panels (pack_weight, AVX-512) goes to panels.c at every M (GPT-2 small's
// block products, one core: ~170-180 GFLOP/s from M = 16 up, against the Haswell kernels'
// ~100 and the SkylakeX kernels' ~180; at M = 1 it streams 35 GB/s against small_m's 27).
// Up to TT_SMALL_M_MAX rows go to the small-M kernel (small_m.c); up to TT_MID_M_MAX, b as
// stored, to mid_m.c on AVX-512 (GPT-2 small's block products at T = 64, one core: ~102
// GFLOP/s against cblas_sgemm's ~92; with trans_b, the unembedding, it was slower than
// OpenBLAS, and at 256 rows level with it); the rest to cblas_sgemm.
static tt_status host_matmul(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, tt_buf bias, int M, int K, int N,
                             bool trans_b, tt_error *err) {
  NEED(out, (size_t)M * N);
  NEED(a, (size_t)M * K);
  NEED(b, (size_t)K * N);
  float *o = out_of(out);
  if (tt_buf_is_set(bias)) NEED(bias, N);
  if (b.panels && trans_b == b.trans_b)  // the product the panels were made for: a · P, P (K,N)
    return tt_openblas_panels_matmul(be, o, in(a), in(b), tt_buf_is_set(bias) ? in(bias) : NULL, M, K, N, err);
  if (b.panels) {  // the backward pass's a · Pᵀ: P (N,K) in row-major order again, as a b with trans_b
    const float *p = tt_openblas_unpacked(be, in(b), N, K);
    if (!p) return tt_fail(err, TT_ERR_NOMEM, "openblas: cannot unpack a (%d, %d) weight", N, K);
    b = (tt_buf){.read_only = p, .n = (size_t)N * K};
    trans_b = true;
  }
  if (M <= TT_SMALL_M_MAX)  // bound by reading b: our kernel reads it once for all rows
    return tt_openblas_small_m_matmul(be, o, in(a), in(b), tt_buf_is_set(bias) ? in(bias) : NULL, M, K, N, trans_b,
                                      err);
  openblas_impl *im = be->impl;
  if (!trans_b && M <= TT_MID_M_MAX && im->mid_m &&
      mid_m_matmul(be, o, in(a), in(b), tt_buf_is_set(bias) ? in(bias) : NULL, M, K, N))
    return TT_OK;
  float beta = 0.0f;
  if (tt_buf_is_set(bias)) {  // every row of out starts as the bias: sgemm adds the product
    bias_rows_args rows = {.o = o, .bias = in(bias), .N = N};
    tt_openblas_parallel_for(be, (size_t)M, (16384 + (size_t)N - 1) / (size_t)N, 1, bias_rows_body, &rows);
    beta = 1.0f;
  }
  tt_openblas_pick_threads(be, M, K, N);
  cblas_sgemm(CblasRowMajor, CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, M, N, K, 1.0f, in(a), K, in(b),
              trans_b ? K : N, beta, o, N);
  return TT_OK;
}

// for i < batch: out[i] (M,N) = alpha · a[i] (M,K) · b[i] (K,N)  (b[i] is (N,K) with trans_b).
// With several threads the products run side by side, each on one thread (the heads'
// products are small: one product split over two threads gains less than two at once).
typedef struct {
  float *out;
  const float *a, *b;
  int M, K, N;
  bool trans_b;
  float alpha;
} batched_args;

static void batched_item(void *ctx, int i, int thread) {
  (void)thread;
  const batched_args *p = ctx;
  int M = p->M, K = p->K, N = p->N;
  const float *ai = p->a + (size_t)i * M * K, *bi = p->b + (size_t)i * K * N;
  float *oi = p->out + (size_t)i * M * N;
  if (M <= TT_SMALL_M_MAX) {
    tt_small_m_matmul(oi, ai, bi, NULL, M, K, N, p->trans_b, p->alpha);
    return;
  }
  cblas_sgemm(CblasRowMajor, CblasNoTrans, p->trans_b ? CblasTrans : CblasNoTrans, M, N, K, p->alpha, ai, K, bi,
              p->trans_b ? K : N, 0.0f, oi, N);
}

static tt_status host_matmul_batched(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, int batch, int M, int K, int N,
                                     bool trans_b, float alpha, tt_error *err) {
  (void)err;
  NEED(out, (size_t)batch * M * N);
  NEED(a, (size_t)batch * M * K);
  NEED(b, (size_t)batch * K * N);
  openblas_impl *im = be->impl;
  batched_args args = {out_of(out), in(a), in(b), M, K, N, trans_b, alpha};
  int threads = tt_host_pool_threads(im->pool);
  if (threads > 1 && batch >= threads && (double)batch * M * K * N >= 1.0e6) {
    tt_openblas_single_thread(be);
    tt_host_pool_run(im->pool, batch, batched_item, &args);
    return TT_OK;
  }
  tt_openblas_pick_threads(be, M, K, N);
  for (int i = 0; i < batch; i++) batched_item(&args, i, 0);
  return TT_OK;
}

// ---- element-wise and row-wise ops --------------------------------------------------
// Each runs over parts of its rows (or elements) on the pool's threads; a row's or an
// element's result is the same whichever part holds it, so every thread count gives the
// same bits.

// out (T,C) = table rows ids[t].
static tt_status host_embed(tt_backend *be, tt_buf out, tt_buf table, const int32_t *ids, int T, int C, tt_error *err) {
  (void)be, (void)err;
  NEED(out, (size_t)T * C);
  for (int t = 0; t < T; t++) {
    NEED(table, table.panels ? tt_panels_floats(C, ids[t] + 1) : ((size_t)ids[t] + 1) * C);
    if (table.panels)  // the unembedding packed (tied): row ids[t] is a column there
      tt_panels_column(out_of(out) + (size_t)t * C, in(table), C, ids[t]);
    else
      memcpy(out_of(out) + (size_t)t * C, in(table) + (size_t)ids[t] * C, (size_t)C * sizeof(float));
  }
  return TT_OK;
}

typedef struct {
  float *o;
  const float *x, *y;
  float alpha;
  tt_act_kind act;
} elementwise_args;

static void add_body(void *args, size_t b, size_t e) {
  const elementwise_args *a = args;
  for (size_t i = b; i < e; i++) a->o[i] = a->x[i] + a->y[i];
}

static tt_status host_add(tt_backend *be, tt_buf out, tt_buf a, tt_buf b, size_t n, tt_error *err) {
  (void)err;
  NEED(out, n);
  NEED(a, n);
  NEED(b, n);
  elementwise_args args = {.o = out_of(out), .x = in(a), .y = in(b)};
  tt_openblas_parallel_for(be, n, MIN_PART_FLOATS, ALIGN_FLOATS, add_body, &args);
  return TT_OK;
}

static void scale_body(void *args, size_t b, size_t e) {
  const elementwise_args *a = args;
  for (size_t i = b; i < e; i++) a->o[i] = a->alpha * a->x[i];
}

static tt_status host_scale(tt_backend *be, tt_buf out, tt_buf x, float alpha, size_t n, tt_error *err) {
  (void)err;
  NEED(out, n);
  NEED(x, n);
  elementwise_args args = {.o = out_of(out), .x = in(x), .alpha = alpha};
  tt_openblas_parallel_for(be, n, MIN_PART_FLOATS, ALIGN_FLOATS, scale_body, &args);
  return TT_OK;
}

typedef struct {
  float *o;
  const float *x;
  int T, cols;
} rows_args;

// Rows [b, e) of (H·T, T): row r is query r % T of its head.
static void causal_mask_body(void *args, size_t b, size_t e) {
  const rows_args *a = args;
  for (size_t r = b; r < e; r++) {
    int i = (int)(r % (size_t)a->T);
    float *o = a->o + r * a->T;
    const float *v = a->x + r * a->T;
    for (int j = 0; j <= i; j++) o[j] = v[j];
    for (int j = i + 1; j < a->T; j++) o[j] = -INFINITY;
  }
}

// out (H,T,T) = x with -inf where column > row.
static tt_status host_causal_mask(tt_backend *be, tt_buf out, tt_buf x, int H, int T, tt_error *err) {
  (void)err;
  NEED(out, (size_t)H * T * T);
  NEED(x, (size_t)H * T * T);
  rows_args args = {out_of(out), in(x), T, T};
  tt_openblas_parallel_for(be, (size_t)H * T, tt_openblas_min_rows((size_t)T), 1, causal_mask_body, &args);
  return TT_OK;
}

// The softmax of one row; *mx and *sum (when not NULL) get the max and the sum of exp(v −
// max) of its first n entries, as tt_host_max and tt_host_exp_sum compute them over the
// whole row when it has no trailing -inf.
static void softmax_row_stats(float *o, const float *v, size_t cols, float *mx_out, float *sum_out) {
  size_t n = cols - tt_host_trailing_neg_inf(v, cols);
  for (size_t j = n; j < cols; j++) o[j] = 0.0f;
  float mx = n ? tt_host_max(v, n) : -INFINITY, sum = 0.0f;
  if (mx == -INFINITY) {  // all -inf
    for (size_t j = 0; j < n; j++) o[j] = 0.0f;
  } else {
    sum = tt_host_exp_sub_sum(o, v, mx, n);  // exp(-inf) is exactly 0
    float inv = 1.0f / sum;
    for (size_t j = 0; j < n; j++) o[j] *= inv;
  }
  if (mx_out) *mx_out = mx, *sum_out = sum;
}

void tt_openblas_softmax_row(float *o, const float *v, size_t cols) {
  softmax_row_stats(o, v, cols, NULL, NULL);
}

static void softmax_body(void *args, size_t b, size_t e) {
  const rows_args *a = args;
  for (size_t r = b; r < e; r++) tt_openblas_softmax_row(a->o + r * a->cols, a->x + r * a->cols, (size_t)a->cols);
}

// Row-wise softmax of x (rows, cols), max-subtracted (tt_openblas_softmax_row).
static tt_status host_softmax(tt_backend *be, tt_buf out, tt_buf x, int rows, int cols, tt_error *err) {
  (void)err;
  NEED(out, (size_t)rows * cols);
  NEED(x, (size_t)rows * cols);
  rows_args args = {out_of(out), in(x), 0, cols};
  tt_openblas_parallel_for(be, (size_t)rows, tt_openblas_min_rows((size_t)cols), 1, softmax_body, &args);
  return TT_OK;
}

typedef struct {
  float *out, *nrm, *mean, *scale;
  const float *x;
  int C;
  tt_norm_params p;
} norm_args;

// One row of the norm: nrm (cols) = (x − mean) / scale, the statistics in double (two
// passes, tt_host_mean_var); then, with out and p->gamma, out = nrm·γ + β. *mean_out and
// *scale_out (when not NULL) get the statistics. nrm may be x; out may be x or nrm. Not
// inlined, so that the engine's rows and a trace's rule (tt_openblas_norm_row) run the
// same instructions.
static __attribute__((noinline)) void norm_row_stats(float *nrm, float *out, const float *x, size_t cols,
                                                     const tt_norm_params *p, float *mean_out, float *scale_out) {
  double m, var;
  tt_host_mean_var(x, cols, !p->rms, &m, &var);
  double scale = sqrt(var + (double)p->eps), inv = 1.0 / scale;
  for (size_t i = 0; i < cols; i++) nrm[i] = (float)(((double)x[i] - m) * inv);
  const float *g = p->gamma, *b = p->beta;
  if (out && g && b)
    for (size_t i = 0; i < cols; i++) out[i] = nrm[i] * g[i] + b[i];
  else if (out && g)
    for (size_t i = 0; i < cols; i++) out[i] = nrm[i] * g[i];
  if (mean_out) *mean_out = (float)m, *scale_out = (float)scale;
}

void tt_openblas_norm_row(float *out, const float *x, size_t cols, const tt_norm_params *p) {
  norm_row_stats(out, out, x, cols, p, NULL, NULL);
}

// Rows [rb, re) of the norm (norm_row_stats).
static void norm_body(void *args, size_t rb, size_t re) {
  const norm_args *a = args;
  size_t C = (size_t)a->C;
  for (size_t t = rb; t < re; t++)
    norm_row_stats(a->nrm + t * C, a->out + t * C, a->x + t * C, C, &a->p, &a->mean[t], &a->scale[t]);
}

// LayerNorm / RMSNorm over rows of x (T,C).
static tt_status host_norm(tt_backend *be, tt_buf out, tt_buf normalized, tt_buf mean, tt_buf scale, tt_buf x,
                           tt_buf gamma, tt_buf beta, int T, int C, float eps, bool rms, tt_error *err) {
  (void)err;
  NEED(out, (size_t)T * C);
  if (tt_buf_is_set(normalized)) NEED(normalized, (size_t)T * C);
  NEED(mean, T);
  NEED(scale, T);
  NEED(x, (size_t)T * C);
  NEED(gamma, C);
  const float *b = (!rms && tt_buf_is_set(beta)) ? in(beta) : NULL;
  if (b) NEED(beta, C);
  float *nrm = tt_buf_is_set(normalized) ? out_of(normalized) : out_of(out);  // unset: each row made in out
  norm_args args = {out_of(out), nrm, out_of(mean), out_of(scale), in(x), C, {eps, rms, in(gamma), b}};
  tt_openblas_parallel_for(be, (size_t)T, tt_openblas_min_rows((size_t)C), 1, norm_body, &args);
  return TT_OK;
}

// o (n) = act(v) element by element; o may be v.
static void activate(float *o, const float *v, size_t n, tt_act_kind act) {
  const float k_tanh = 0.7978845608028654f;  // sqrt(2/pi)
  const float k_erf = 0.7071067811865476f;   // 1/sqrt(2)
  switch (act) {
  case TT_ACT_GELU_TANH:  // GPT-2's "gelu_new"
    // 0.5·a·(1 + tanh(y)) = a·sigmoid(2y), y = √(2/π)·(a + 0.044715·a³)
    tt_host_sigmoid_gate(o, v, n, 2.0f * k_tanh, 0.044715f);
    return;
  case TT_ACT_GELU_ERF:
    for (size_t i = 0; i < n; i++) o[i] = 0.5f * v[i] * (1.0f + erff(v[i] * k_erf));
    return;
  case TT_ACT_RELU:
    for (size_t i = 0; i < n; i++) o[i] = v[i] > 0.0f ? v[i] : 0.0f;
    return;
  case TT_ACT_SILU:
    tt_host_sigmoid_gate(o, v, n, 1.0f, 0.0f);
    return;
  case TT_ACT_IDENTITY:
    if (o != v) memmove(o, v, n * sizeof(float));
    return;
  }
}

static void activation_body(void *args, size_t b, size_t e) {
  const elementwise_args *a = args;
  activate(a->o + b, a->x + b, e - b, a->act);
}

// The row functions of the activations (tt_backend.activation_row): activate itself.
static void gelu_tanh_row(float *o, const float *v, size_t n) {
  activate(o, v, n, TT_ACT_GELU_TANH);
}
static void gelu_erf_row(float *o, const float *v, size_t n) {
  activate(o, v, n, TT_ACT_GELU_ERF);
}
static void relu_row(float *o, const float *v, size_t n) {
  activate(o, v, n, TT_ACT_RELU);
}
static void silu_row(float *o, const float *v, size_t n) {
  activate(o, v, n, TT_ACT_SILU);
}
static void identity_row(float *o, const float *v, size_t n) {
  activate(o, v, n, TT_ACT_IDENTITY);
}

static tt_row_fn host_activation_row(tt_act_kind act) {
  switch (act) {
  case TT_ACT_GELU_TANH:
    return gelu_tanh_row;
  case TT_ACT_GELU_ERF:
    return gelu_erf_row;
  case TT_ACT_RELU:
    return relu_row;
  case TT_ACT_SILU:
    return silu_row;
  case TT_ACT_IDENTITY:
    return identity_row;
  }
  return NULL;
}

static tt_status host_activation(tt_backend *be, tt_buf out, tt_buf x, size_t n, tt_act_kind act, tt_error *err) {
  NEED(out, n);
  NEED(x, n);
  if (act != TT_ACT_GELU_TANH && act != TT_ACT_GELU_ERF && act != TT_ACT_RELU && act != TT_ACT_SILU &&
      act != TT_ACT_IDENTITY)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "openblas: unknown activation %d", (int)act);
  elementwise_args args = {.o = out_of(out), .x = in(x), .act = act};
  tt_openblas_parallel_for(be, n, MIN_PART_FLOATS, ALIGN_FLOATS, activation_body, &args);
  return TT_OK;
}

typedef struct {
  float *dst[3];  // q, k, v (H,T,D); merge: dst[0] (T,C)
  const float *src;
  int T, H, D;
} heads_args;

// Rows [b, e) of qkv (T,3C) → q, k, v (H,T,D).
static void split_heads_body(void *args, size_t b, size_t e) {
  const heads_args *a = args;
  size_t C = (size_t)a->H * a->D, D = (size_t)a->D;
  for (size_t t = b; t < e; t++) {
    const float *row = a->src + t * 3 * C;
    for (int part = 0; part < 3; part++)
      for (int h = 0; h < a->H; h++)
        memcpy(a->dst[part] + ((size_t)h * a->T + t) * D, row + part * C + h * D, D * sizeof(float));
  }
}

// qkv (T,3C) → q, k, v (H,T,D) each.
static tt_status host_split_heads(tt_backend *be, tt_buf q, tt_buf k, tt_buf v, tt_buf qkv, int T, int H, int D,
                                  tt_error *err) {
  (void)err;
  size_t C = (size_t)H * D;
  NEED(q, (size_t)T * C);
  NEED(k, (size_t)T * C);
  NEED(v, (size_t)T * C);
  NEED(qkv, (size_t)T * 3 * C);
  heads_args args = {{out_of(q), out_of(k), out_of(v)}, in(qkv), T, H, D};
  tt_openblas_parallel_for(be, (size_t)T, tt_openblas_min_rows(3 * C), 1, split_heads_body, &args);
  return TT_OK;
}

// Rows [b, e) of out (T,C) from z (H,T,D).
static void merge_heads_body(void *args, size_t b, size_t e) {
  const heads_args *a = args;
  size_t C = (size_t)a->H * a->D, D = (size_t)a->D;
  for (size_t t = b; t < e; t++)
    for (int h = 0; h < a->H; h++)
      memcpy(a->dst[0] + t * C + h * D, a->src + ((size_t)h * a->T + t) * D, D * sizeof(float));
}

// z (H,T,D) → out (T,C).
static tt_status host_merge_heads(tt_backend *be, tt_buf out, tt_buf z, int T, int H, int D, tt_error *err) {
  (void)err;
  size_t C = (size_t)H * D;
  NEED(out, (size_t)T * C);
  NEED(z, (size_t)T * C);
  heads_args args = {{out_of(out)}, in(z), T, H, D};
  tt_openblas_parallel_for(be, (size_t)T, tt_openblas_min_rows(C), 1, merge_heads_body, &args);
  return TT_OK;
}

typedef struct {
  float *loss, *probs;
  const float *logits;
  const int32_t *ids;
  int T, V;
} nll_args;

// −log p of the next token from the row's max and sum of exp(row − max).
static float nll_of(float target, float mx, float sum) {  // target: the next token's logit
  return (float)((double)mx + log((double)sum) - (double)target);
}

static void nll_body(void *args, size_t b, size_t e) {
  const nll_args *a = args;
  for (size_t t = b; t < e; t++) {
    const float *row = a->logits + t * a->V;
    float mx = tt_host_max(row, (size_t)a->V);
    a->loss[t] = nll_of(row[a->ids[t + 1]], mx, tt_host_exp_sum(row, mx, (size_t)a->V));
  }
}

// Rows [b, e): the softmax and, but for the last row, the loss from the same max and sum
// (the sum of the stored exps is the one tt_host_exp_sum makes: the same floats, in the
// same lanes). A row with a trailing -inf (never a logit row of a finite model) gets the
// loss from nll_body's loop, so every row's bits are the two ops'. What the loss reads of a
// row is read before the softmax writes it: probs may be the logits.
static void softmax_nll_body(void *args, size_t b, size_t e) {
  const nll_args *a = args;
  size_t V = (size_t)a->V;
  for (size_t t = b; t < e; t++) {
    const float *row = a->logits + t * V;
    bool next = (int)t + 1 < a->T, masked = next && row[V - 1] == -INFINITY;
    if (masked) nll_body(args, t, t + 1);
    float target = next ? row[a->ids[t + 1]] : 0.0f, mx, sum;
    softmax_row_stats(a->probs + t * V, row, V, &mx, &sum);
    if (next && !masked) a->loss[t] = nll_of(target, mx, sum);
  }
}

static tt_status host_softmax_nll(tt_backend *be, tt_buf probs, tt_buf loss, tt_buf logits, const int32_t *ids, int T,
                                  int V, tt_error *err) {
  (void)err;
  NEED(probs, (size_t)T * V);
  NEED(logits, (size_t)T * V);
  NEED(loss, T > 1 ? T - 1 : 0);
  nll_args args = {T > 1 ? out_of(loss) : NULL, out_of(probs), in(logits), ids, T, V};
  tt_openblas_parallel_for(be, (size_t)T, tt_openblas_min_rows((size_t)V), 1, softmax_nll_body, &args);
  return TT_OK;
}

// loss (T-1): logsumexp(logits[t]) - logits[t][ids[t+1]].
static tt_status host_nll(tt_backend *be, tt_buf loss, tt_buf logits, const int32_t *ids, int T, int V, tt_error *err) {
  (void)err;
  NEED(loss, T > 1 ? T - 1 : 0);
  NEED(logits, (size_t)T * V);
  if (T < 2) return TT_OK;
  nll_args args = {.loss = out_of(loss), .logits = in(logits), .ids = ids, .T = T, .V = V};
  tt_openblas_parallel_for(be, (size_t)T - 1, tt_openblas_min_rows((size_t)V), 1, nll_body, &args);
  return TT_OK;
}

static void host_destroy(tt_backend *be) {
  if (!be) return;
  openblas_impl *im = be->impl;
  if (im)
    tt_host_pool_destroy(im->pool), free(im->scratch), free(im->mid_a), free(im->mid_b), free(im->segments),
        free(im->unpacked), free(im->panels_a);
  free(be->impl);
  free(be);
}

tt_status tt_backend_openblas_create(tt_backend **out, tt_error *err) {
  *out = NULL;
  tt_backend *be = calloc(1, sizeof *be);
  openblas_impl *im = calloc(1, sizeof *im);
  if (!be || !im) {
    free(be);
    free(im);
    return tt_fail(err, TT_ERR_NOMEM, "openblas: out of memory creating the backend");
  }
  im->max_threads = openblas_get_num_threads();
  if (im->max_threads < 1) im->max_threads = 1;
  im->threads = im->max_threads;
  im->mid_m = tt_mid_m_available();
  tt_status st = tt_host_pool_create(im->max_threads, &im->pool, err);
  if (st != TT_OK) {
    free(be);
    free(im);
    return st;
  }
  be->name = "openblas";
  char *cfg = openblas_get_config();
  snprintf(be->device, sizeof be->device, "CPU, %d thread%s (%s%s%s)", im->max_threads, im->max_threads == 1 ? "" : "s",
           cfg ? cfg : "OpenBLAS", openblas_get_corename() ? ", " : "",
           openblas_get_corename() ? openblas_get_corename() : "");
  be->host_memory = true;
  be->impl = im;
  be->alloc = host_alloc;
  be->release = host_release;
  be->wrap = host_wrap;
  be->wrap_read_only = host_wrap_read_only;
  be->upload = host_upload;
  be->download = host_download;
  be->finish = NULL;
  be->matmul = host_matmul;
  if (tt_panels_available()) be->pack_weight = tt_openblas_pack_weight;
  be->matmul_batched = host_matmul_batched;
  be->embed = host_embed;
  be->add = host_add;
  be->scale = host_scale;
  be->causal_mask = host_causal_mask;
  be->softmax = host_softmax;
  be->softmax_row = tt_openblas_softmax_row;
  be->norm_row = tt_openblas_norm_row;
  be->norm = host_norm;
  be->activation = host_activation;
  be->activation_row = host_activation_row;
  be->split_heads = host_split_heads;
  be->merge_heads = host_merge_heads;
  be->nll = host_nll;
  be->softmax_nll = host_softmax_nll;
  tt_openblas_set_backward(be);
  tt_openblas_set_llama(be);
  tt_openblas_set_attention(be);
  be->destroy = host_destroy;
  *out = be;
  return TT_OK;
}
