// lens: ln_final and the unembedding applied to every stream of a trace (see lens.h).
#include <cblas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lens.h"

bool tt_lens_row_hook(const tt_config *cfg, int r, char *buf, size_t len) {
  if (r < 0 || r > cfg->n_layer) return false;
  if (r == 0)
    snprintf(buf, len, "blocks.0.hook_resid_pre");
  else
    snprintf(buf, len, "blocks.%d.%s", r - 1, cfg->post_ln ? "ln2.hook_out" : "hook_resid_post");
  return true;
}

// The trace's config, checked against the model's shapes.
static tt_status check_model(const tt_model *m, const tt_trace *tr, tt_config *cfg, tt_error *err) {
  if (!tt_trace_config(tr, cfg)) return tt_fail(err, TT_ERR_FORMAT, "the trace has no readable model config");
  const tt_config *mc = &m->cfg;
  const struct {
    const char *key;
    int trace, model;
  } dims[] = {{"n_embd", cfg->n_embd, mc->n_embd},
              {"vocab_size", cfg->vocab_size, mc->vocab_size},
              {"n_layer", cfg->n_layer, mc->n_layer}};
  for (size_t i = 0; i < sizeof dims / sizeof *dims; i++)
    if (dims[i].trace != dims[i].model)
      return tt_fail(err, TT_ERR_FORMAT, "model folder %s does not match the trace: %s %d, the trace's is %d", m->dir,
                     dims[i].key, dims[i].model, dims[i].trace);
  return TT_OK;
}

// out (T,C) = ln_final(x): (x − mean) / √(σ² + ε) · γ + β, or x / √(mean(x²) + ε) · γ for
// RMSNorm; in double, stored as float.
static void final_norm(const tt_model *m, const tt_config *cfg, const tt_tensor *x, int T, int C, float *out) {
  bool rms = cfg->norm == TT_NORM_RMSNORM;
  for (int t = 0; t < T; t++) {
    double mean = 0, var = 0;
    for (int c = 0; c < C; c++) mean += tt_tensor_get(x, (int64_t)t * C + c);
    mean = rms ? 0 : mean / C;
    for (int c = 0; c < C; c++) {
      double d = tt_tensor_get(x, (int64_t)t * C + c) - mean;
      var += d * d;
    }
    double scale = sqrt(var / C + cfg->ln_eps);
    for (int c = 0; c < C; c++) {
      double n = (tt_tensor_get(x, (int64_t)t * C + c) - mean) / scale;
      out[(size_t)t * C + c] = (float)(n * m->lnf_w[c] + (rms || !m->lnf_b ? 0 : m->lnf_b[c]));
    }
  }
}

typedef struct {
  float z;
  int32_t id;
} scored;

static int by_score(const void *a, const void *b) {  // larger first, then lower id
  const scored *x = a, *y = b;
  if (x->z != y->z) return x->z > y->z ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

// The K largest of z (V) into ids, most probable first (ties: the lower id first): an
// insertion into the K kept for small K, a sort of all V otherwise (pairs: V scratch).
static void top_ids(const float *z, int V, int K, int32_t *ids, scored *pairs) {
  if (K > 32) {
    for (int v = 0; v < V; v++) pairs[v] = (scored){z[v], v};
    qsort(pairs, (size_t)V, sizeof *pairs, by_score);
    for (int k = 0; k < K; k++) ids[k] = pairs[k].id;
    return;
  }
  for (int k = 0; k < K; k++) ids[k] = -1;
  for (int v = 0; v < V; v++) {
    int at = K;
    while (at > 0 && (ids[at - 1] < 0 || z[v] > z[ids[at - 1]])) at--;
    if (at == K) continue;
    memmove(ids + at + 1, ids + at, sizeof *ids * (size_t)(K - 1 - at));
    ids[at] = v;
  }
}

// The top K of z (V) with their probabilities p = softmax(z).
static void top_k(const float *z, int V, int K, int32_t *ids, float *probs, scored *pairs) {
  double mx = -INFINITY, sum = 0;
  for (int v = 0; v < V; v++) mx = z[v] > mx ? z[v] : mx;
  for (int v = 0; v < V; v++) sum += exp((double)z[v] - mx);
  top_ids(z, V, K, ids, pairs);
  for (int k = 0; k < K; k++) probs[k] = (float)(exp((double)z[ids[k]] - mx) / sum);
}

// max |logits − hook_logits| / max |hook_logits| over every cell.
static double relative_diff(const float *logits, const tt_tensor *ref, size_t n) {
  double mx = 0, ma = 0;
  for (size_t i = 0; i < n; i++) {
    double r = tt_tensor_get(ref, (int64_t)i), d = fabs(logits[i] - r);
    mx = d > mx ? d : mx;
    ma = fabs(r) > ma ? fabs(r) : ma;
  }
  return ma > 0 ? mx / ma : mx;
}

static tt_status alloc_lens(tt_lens *l, int rows, int T, int K, int V, tt_error *err) {
  memset(l, 0, sizeof *l);
  *l = (tt_lens){.n_rows = rows, .T = T, .K = K, .V = V, .final_diff = -1};
  size_t n = (size_t)rows * T * K;
  l->row_hook = calloc((size_t)rows, sizeof *l->row_hook);
  l->ids = malloc(n * sizeof *l->ids);
  l->probs = malloc(n * sizeof *l->probs);
  if (l->row_hook && l->ids && l->probs) return TT_OK;
  tt_lens_free(l);
  return tt_fail(err, TT_ERR_NOMEM, "out of memory");
}

// One row: the stream tensor (T,C) → norm → logits (T,V) → top K per position.
static tt_status lens_row(const tt_model *m, const tt_config *cfg, const tt_trace *tr, int r, tt_lens *l, float *h,
                          float *logits, scored *pairs, tt_error *err) {
  int T = l->T, C = cfg->n_embd, V = l->V;
  tt_lens_row_hook(cfg, r, l->row_hook[r], sizeof l->row_hook[r]);
  const tt_tensor *x = tt_trace_find(tr, l->row_hook[r]);
  if (!x)
    return tt_fail(err, TT_ERR_ARG,
                   "the trace has no %s (the lens needs every block's stream: record 'blocks.*.hook_resid_*')",
                   l->row_hook[r]);
  if (x->ndim != 2 || x->shape[0] != T || x->shape[1] != C)
    return tt_fail(err, TT_ERR_FORMAT, "%s is not (%d, %d)", x->name, T, C);
  final_norm(m, cfg, x, T, C, h);                                                                             // (T,C)
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, T, V, C, 1.0f, h, C, m->lm_head, C, 0.0f, logits, V);  // (T,V)
  for (int t = 0; t < T; t++)
    top_k(logits + (size_t)t * V, V, l->K, l->ids + tt_lens_at(l, r, t, 0), l->probs + tt_lens_at(l, r, t, 0), pairs);
  return TT_OK;
}

tt_status tt_lens_compute(const tt_model *m, const tt_trace *tr, int K, tt_lens *out, tt_error *err) {
  memset(out, 0, sizeof *out);
  tt_config cfg;
  tt_status st = check_model(m, tr, &cfg, err);
  if (st) return st;
  int T = tt_trace_n_tokens(tr), V = cfg.vocab_size, C = cfg.n_embd, rows = cfg.n_layer + 1;
  if (K < 1 || K > V) return tt_fail(err, TT_ERR_ARG, "-k %d is outside 1..%d (the vocabulary)", K, V);
  if (T < 1) return tt_fail(err, TT_ERR_FORMAT, "the trace has no tokens");
  if ((st = alloc_lens(out, rows, T, K, V, err))) return st;
  float *h = malloc(sizeof *h * (size_t)T * C), *logits = malloc(sizeof *logits * (size_t)T * V);
  scored *pairs = malloc(sizeof *pairs * (size_t)V);  // (V) the sort's scratch
  if (!h || !logits || !pairs) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (int r = 0; r < rows && !st; r++) st = lens_row(m, &cfg, tr, r, out, h, logits, pairs, err);
  const tt_tensor *ref = tt_trace_find(tr, "hook_logits");
  if (!st && ref && tt_tensor_numel(ref) == (int64_t)T * V) {
    out->final_diff = relative_diff(logits, ref, (size_t)T * V);  // logits hold the last row
    if (out->final_diff > 1e-3)
      st = tt_fail(err, TT_ERR_FORMAT,
                   "model folder %s does not match the trace: its ln_final and unembedding give logits %.3g (relative) "
                   "away from the trace's hook_logits",
                   m->dir, out->final_diff);
  }
  free(h);
  free(logits);
  free(pairs);
  if (st) tt_lens_free(out);
  return st;
}

void tt_lens_free(tt_lens *l) {
  free(l->row_hook);
  free(l->ids);
  free(l->probs);
  memset(l, 0, sizeof *l);
}
