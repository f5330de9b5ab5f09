// decode: generation with a KV cache. The prefill is the forward pass of the prompt (its
// hooks under their usual names) that also keeps every layer's K and V rows (after RoPE,
// one per key/value head: G of them); decode step S runs the same forward pass (forward.c's
// or forward_llama.c's steps and attend.c's, the same backend ops) for one new token at
// position prompt + S, with hook names prefixed "decode.S.", and its attention's two
// products read the cached rows instead of recomputing them. The cache is allocated once
// (for max_T positions), nothing during a step. Shape legend in engine_internal.h.
#include <stdio.h>
#include <stdlib.h>

#include "engine_internal.h"

struct tt_kv_cache {
  tt_buf all;       // layer l: K (G,max_T,D) at 2·l, then V (G,max_T,D) at 2·l + 1
  int n;            // rows cached (positions 0..n-1); 0 before a prefill
  int prompt_T;     // the prefill's tokens: decode step S is position prompt_T + S
  char prefix[32];  // "decode.S." of the step running
};

static size_t cache_floats(const tt_engine *e) {
  return (size_t)e->G * e->max_T * e->D;  // one of K or V of one layer
}

// Layer l's cached K (which 0) or V (which 1) of key/value head h: rows 0..rows-1, (rows,D).
static tt_buf cache_rows(const tt_engine *e, int l, int which, int h, int rows) {
  size_t base = (size_t)(2 * l + which) * cache_floats(e) + (size_t)h * e->max_T * e->D;
  return tt_buf_view(e->kv->all, base, (size_t)rows * e->D);
}

tt_status tt_engine_enable_cache(tt_engine *e, tt_error *err) {
  if (e->kv) return TT_OK;
  if (!e->cfg->causal)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "generation needs causal attention: with causal=false every token sees the later ones, so "
                   "the cached keys and values would change with each new token");
  if (!(e->kv = calloc(1, sizeof *e->kv))) return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  size_t n = 2 * (size_t)(e->cfg->n_layer ? e->cfg->n_layer : 1) * cache_floats(e);
  if (e->be->alloc(e->be, n, &e->kv->all, err) != TT_OK) {
    free(e->kv);
    e->kv = NULL;
    return tt_fail_prefix(err, "engine: the KV cache for %d positions", e->max_T);
  }
  return TT_OK;
}

void tt_kv_release(tt_engine *e) {
  if (!e->kv) return;
  if (e->kv->all.handle) e->be->release(e->be, &e->kv->all);
  free(e->kv);
  e->kv = NULL;
}

tt_status tt_kv_store(tt_engine *e, int l, tt_buf k, tt_buf v, tt_error *err) {
  int T = e->run.T, D = e->D;
  size_t rows = (size_t)T * D, at = (size_t)e->run.pos0 * D;
  for (int h = 0; h < e->G; h++)
    for (int which = 0; which < 2; which++) {
      tt_buf dst = tt_buf_view(cache_rows(e, l, which, h, e->max_T), at, rows);  // (T,D) rows pos0..
      TRY(tt_engine_copy(e, dst, tt_buf_view(which ? v : k, (size_t)h * rows, rows), rows, err));
    }
  return TT_OK;
}

// Query heads gR..gR+R−1 (R = H/G) of q (H,1,D) are one (R,D) matrix against key/value
// head g's Tk cached rows, and their rows of raw and pattern (H,1,Tk) are one (R,Tk) matrix.
tt_status tt_decode_scores(tt_engine *e, int l, tt_buf raw, tt_buf q, tt_error *err) {
  int D = e->D, R = e->H / e->G, Tk = e->run.pos0 + 1;
  for (int g = 0; g < e->G; g++)
    TRY(e->be->matmul_batched(e->be, tt_buf_view(raw, (size_t)g * R * Tk, (size_t)R * Tk),
                              tt_buf_view(q, (size_t)g * R * D, (size_t)R * D), cache_rows(e, l, 0, g, Tk), 1, R, D, Tk,
                              true, 1.0f, err));
  return tt_engine_flush(e, err);
}

tt_status tt_decode_mix(tt_engine *e, int l, tt_buf z, tt_buf pattern, tt_error *err) {
  int D = e->D, R = e->H / e->G, Tk = e->run.pos0 + 1;
  for (int g = 0; g < e->G; g++)
    TRY(e->be->matmul_batched(e->be, tt_buf_view(z, (size_t)g * R * D, (size_t)R * D),
                              tt_buf_view(pattern, (size_t)g * R * Tk, (size_t)R * Tk), cache_rows(e, l, 1, g, Tk), 1,
                              R, Tk, D, false, 1.0f, err));
  return TT_OK;
}

tt_status tt_engine_prefill(tt_engine *e, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err) {
  if (!e->kv) return tt_fail(err, TT_ERR_ARG, "engine: a prefill needs tt_engine_enable_cache first");
  e->kv->n = 0;
  TRY(tt_engine_pass(e, &(tt_pass){.ids = ids, .T = T, .rec = rec, .keep_kv = true}, err));
  e->kv->n = e->kv->prompt_T = T;
  return TT_OK;
}

tt_status tt_engine_decode(tt_engine *e, int32_t id, const tt_recorder *rec, tt_error *err) {
  if (!e->kv || e->kv->n == 0) return tt_fail(err, TT_ERR_ARG, "engine: a decode step needs a prefill first");
  struct tt_kv_cache *kv = e->kv;
  snprintf(kv->prefix, sizeof kv->prefix, "decode.%d.", kv->n - kv->prompt_T);
  tt_pass p = {.ids = &id, .T = 1, .pos0 = kv->n, .rec = rec, .prefix = kv->prefix, .keep_kv = true, .decoding = true};
  TRY(tt_engine_pass(e, &p, err));
  kv->n++;
  return TT_OK;
}

int tt_engine_cached(const tt_engine *e) {
  return e->kv ? e->kv->n : 0;
}

tt_status tt_engine_last_logits(tt_engine *e, float *out, tt_error *err) {
  if (!tt_buf_is_set(e->logits) || e->logits.n < (size_t)e->V)
    return tt_fail(err, TT_ERR_ARG, "engine: no run has computed logits yet");
  return e->be->download(e->be, tt_buf_view(e->logits, e->logits.n - (size_t)e->V, (size_t)e->V), out, (size_t)e->V,
                         err);
}
