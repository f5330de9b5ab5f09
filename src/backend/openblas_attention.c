// openblas_attention: causal attention of a whole pass (backend.h: causal_scores,
// causal_mix, causal_attention), in blocks of TT_ATTN_BLOCK_ROWS query rows of one head,
// the blocks spread over the pool's threads with one-thread sgemm each. A block's rows
// attend only to keys up to the block's last row, so the products above the diagonal's
// blocks are made only when the raw scores are wanted, and the pattern·v sum stops there
// (the pattern is exactly 0 beyond). Every op makes the same calls for the same block, so
// a pass that records everything gives the bits of one that records nothing, on any
// number of threads.
// Shape legend: H query heads, G key/value heads, T tokens, D head width; a block holds
// rows [r0, r1) of one head.
#include <cblas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "openblas_internal.h"

typedef struct {
  float *raw, *pattern, *z;  // unset outputs are NULL
  const float *q, *k, *v;    // (H,T,D), (G,T,D), (G,T,D)
  const float *pattern_in;   // causal_mix: the given pattern (H,T,T)
  float *scratch;            // per thread: 2 blocks (ROWS,T) and one row (T)
  size_t scratch_floats;
  int H, R, T, D, blocks;  // R = H / G query heads per key/value head
  float alpha;
  bool scores_only;  // causal_scores
} attn_job;

enum { ROWS = TT_ATTN_BLOCK_ROWS };

// s (rows r0..r1 of head h, ld T) = q·kᵀ against keys [c0, c1).
static void block_scores(const attn_job *j, int h, int r0, int r1, int c0, int c1, float *s) {
  int T = j->T, D = j->D;
  const float *qh = j->q + ((size_t)h * T + r0) * D, *kh = j->k + ((size_t)(h / j->R) * T + c0) * D;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, r1 - r0, c1 - c0, D, 1.0f, qh, D, kh, D, 0.0f, s + c0, T);
}

// Rows [r0, r1) of head h's raw scores into s (ld T): against the keys up to r1, then,
// when every entry is wanted, against the rest.
static void block_raw(const attn_job *j, int h, int r0, int r1, float *s, bool every) {
  block_scores(j, h, r0, r1, 0, r1, s);
  if (every && r1 < j->T) block_scores(j, h, r0, r1, r1, j->T, s);
}

// z rows [r0, r1) of head h = p (the block's pattern rows, ld T) · v rows [0, r1).
static void block_mix(const attn_job *j, int h, int r0, int r1, const float *p) {
  int T = j->T, D = j->D;
  const float *vh = j->v + (size_t)(h / j->R) * T * D;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, r1 - r0, D, r1, 1.0f, p, T, vh, D, 0.0f,
              j->z + ((size_t)h * T + r0) * D, D);
}

// Rows [r0, r1) of head h's pattern from their raw scores s (ld T): row i is the softmax of
// alpha·s with −inf beyond column i (tt_openblas_softmax_row on the first i + 1 entries,
// which skips a masked row's trailing −inf); p gets zeros up to column `width`.
static void block_pattern(const attn_job *j, int r0, int r1, const float *s, float *p, float *row, int width) {
  int T = j->T;
  for (int i = r0; i < r1; i++) {
    const float *si = s + (size_t)(i - r0) * T;
    float *pi = p + (size_t)(i - r0) * T;
    for (int c = 0; c <= i; c++) row[c] = j->alpha * si[c];  // the scaled and masked row
    tt_openblas_softmax_row(pi, row, (size_t)i + 1);
    for (int c = i + 1; c < width; c++) pi[c] = 0.0f;
  }
}

// Item i: the largest blocks first (each head's last block has the most keys).
static void attn_item(void *ctx, int i, int thread) {
  const attn_job *j = ctx;
  int h = i % j->H, b = j->blocks - 1 - i / j->H, T = j->T;
  int r0 = b * ROWS, r1 = r0 + ROWS < T ? r0 + ROWS : T;
  float *own = j->scratch + (size_t)thread * j->scratch_floats;
  float *s_own = own, *p_own = own + (size_t)ROWS * T, *row = own + (size_t)2 * ROWS * T;
  size_t at = ((size_t)h * T + r0) * T;  // the block's first row in (H,T,T)
  if (j->pattern_in) {                   // causal_mix
    block_mix(j, h, r0, r1, j->pattern_in + at);
    return;
  }
  float *s = j->raw ? j->raw + at : s_own;
  block_raw(j, h, r0, r1, s, j->raw != NULL);
  if (j->scores_only) return;
  float *p = j->pattern ? j->pattern + at : p_own;
  block_pattern(j, r0, r1, s, p, row, j->pattern ? T : r1);
  block_mix(j, h, r0, r1, p);
}

// Runs job j over every block on the pool's threads (OpenBLAS on one thread each).
static tt_status run_blocks(tt_backend *be, attn_job *j, tt_error *err) {
  openblas_impl *im = be->impl;
  int threads = tt_host_pool_threads(im->pool);
  size_t need = (size_t)(2 * ROWS + 1) * j->T;
  if (!j->pattern_in && !j->scores_only && need > im->scratch_floats) {
    float *grown = realloc(im->scratch, need * threads * sizeof(float));
    if (!grown)
      return tt_fail(err, TT_ERR_NOMEM, "openblas: cannot allocate the attention's blocks (%.1f MiB)",
                     (double)need * threads * 4.0 / 1048576.0);
    im->scratch = grown, im->scratch_floats = need;
  }
  j->scratch = im->scratch, j->scratch_floats = im->scratch_floats;
  j->blocks = (j->T + ROWS - 1) / ROWS;
  tt_openblas_single_thread(be);
  tt_host_pool_run(im->pool, j->H * j->blocks, attn_item, j);
  return TT_OK;
}

static tt_status host_causal_scores(tt_backend *be, tt_buf raw, tt_buf q, tt_buf k, int H, int G, int T, int D,
                                    tt_error *err) {
  NEED(raw, (size_t)H * T * T);
  NEED(q, (size_t)H * T * D);
  NEED(k, (size_t)G * T * D);
  attn_job j = {.raw = out_of(raw), .q = in(q), .k = in(k), .H = H, .R = H / G, .T = T, .D = D, .scores_only = true};
  return run_blocks(be, &j, err);
}

static tt_status host_causal_mix(tt_backend *be, tt_buf z, tt_buf pattern, tt_buf v, int H, int G, int T, int D,
                                 tt_error *err) {
  NEED(z, (size_t)H * T * D);
  NEED(pattern, (size_t)H * T * T);
  NEED(v, (size_t)G * T * D);
  attn_job j = {.z = out_of(z), .v = in(v), .pattern_in = in(pattern), .H = H, .R = H / G, .T = T, .D = D};
  return run_blocks(be, &j, err);
}

static tt_status host_causal_attention(tt_backend *be, tt_buf raw, tt_buf pattern, tt_buf z, tt_buf q, tt_buf k,
                                       tt_buf v, int H, int G, int T, int D, float alpha, tt_error *err) {
  size_t scores = (size_t)H * T * T;
  if (tt_buf_is_set(raw)) NEED(raw, scores);
  if (tt_buf_is_set(pattern)) NEED(pattern, scores);
  NEED(z, (size_t)H * T * D);
  NEED(q, (size_t)H * T * D);
  NEED(k, (size_t)G * T * D);
  NEED(v, (size_t)G * T * D);
  attn_job j = {.raw = tt_buf_is_set(raw) ? out_of(raw) : NULL,
                .pattern = tt_buf_is_set(pattern) ? out_of(pattern) : NULL,
                .z = out_of(z),
                .q = in(q),
                .k = in(k),
                .v = in(v),
                .H = H,
                .R = H / G,
                .T = T,
                .D = D,
                .alpha = alpha};
  return run_blocks(be, &j, err);
}

// tt_scores_fn: raw (H,T,T) = q·kᵀ per head, block by block with the calls attn_item makes
// (so the bits of causal_scores), on this thread with OpenBLAS on one; without every, only
// the blocks on and below the diagonal.
static void causal_scores_here(float *raw, const float *q, const float *k, int H, int G, int T, int D, bool every) {
  attn_job j = {.raw = raw, .q = q, .k = k, .H = H, .R = H / G, .T = T, .D = D};
  int threads = openblas_get_num_threads();
  if (threads != 1) openblas_set_num_threads(1);
  for (int h = 0; h < H; h++)
    for (int r0 = 0; r0 < T; r0 += ROWS)
      block_raw(&j, h, r0, r0 + ROWS < T ? r0 + ROWS : T, raw + ((size_t)h * T + r0) * T, every);
  if (threads != 1) openblas_set_num_threads(threads);
}

void tt_openblas_set_attention(tt_backend *be) {
  be->causal_scores_fn = causal_scores_here;
  be->causal_scores = host_causal_scores;
  be->causal_mix = host_causal_mix;
  be->causal_attention = host_causal_attention;
}
