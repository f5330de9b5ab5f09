// attend: the part of attention both blocks share, from the heads to z: rotary positions
// on q and k (RoPE), the raw scores, the scale, the ALiBi bias, the causal mask, the
// softmax and the weighted sum of the values. Grouped-query attention: G key/value heads
// each serve R = H/G consecutive query heads, so query heads gR..gR+R−1 (contiguous in
// (H,T,D)) form one (R·T, D) matrix against key head g: one batched product over G.
// A decode step (one query at position pos0) takes the same steps; only its two products
// read the KV cache (decode.c) instead of this run's k and v, and its Tk = pos0 + 1 keys
// are the cached rows.
// Shape legend in engine_internal.h.
#include <math.h>

#include "engine_internal.h"

static tt_status step_rotary(tt_engine *e, int l, tt_buf *q, tt_buf *k, tt_error *err);
static tt_status step_pattern(tt_engine *e, int l, tt_buf raw, int Tk, tt_buf *pattern, tt_error *err);
static tt_status step_alibi(tt_engine *e, int l, tt_buf scaled, int Tk, tt_buf *biased, tt_error *err);
static tt_status finish_z(tt_engine *e, int l, tt_buf z, tt_error *err);
static bool in_blocks(const tt_engine *e);
static tt_status step_causal_blocks(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf v, tt_buf *z, tt_error *err);

tt_status tt_attend(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf v, tt_buf *z, tt_error *err) {
  tt_backend *be = e->be;
  bool decoding = e->run.decoding;
  int T = e->run.T, H = e->H, G = e->G, D = e->D, R = H / G, Tk = decoding ? e->run.pos0 + 1 : T;
  if (e->cfg->positions == TT_POS_ROPE) TRY(step_rotary(e, l, &q, &k, err));
  if (e->run.keep_kv) TRY(tt_kv_store(e, l, k, v, err));  // after RoPE: the cache holds rotated keys
  if (in_blocks(e)) {
    TRY(step_causal_blocks(e, l, q, k, v, z, err));
    return finish_z(e, l, *z, err);
  }
  tt_buf raw = OUT(l, "attn.hook_attn_scores_raw", H, T, Tk);  // (H,T,Tk) = q·kᵀ per head
  if (decoding)
    TRY(tt_decode_scores(e, l, raw, q, err));
  else
    RUN(be->matmul_batched(be, raw, q, k, G, R * T, D, T, true, 1.0f, err));
  tt_buf pattern;  // (H,T,Tk)
  TRY(step_pattern(e, l, raw, Tk, &pattern, err));
  *z = OUT(l, "attn.hook_z", H, T, D);  // (H,T,D) = pattern·v, per key/value group
  if (decoding)
    TRY(tt_decode_mix(e, l, *z, pattern, err));
  else
    TRY(be->matmul_batched(be, *z, pattern, v, G, R * T, T, D, false, 1.0f, err));
  return finish_z(e, l, *z, err);
}

// Knocked-out heads (ttrace_ablate): z = 0; then z goes to the recorder.
static tt_status finish_z(tt_engine *e, int l, tt_buf z, tt_error *err) {
  int T = e->run.T, D = e->D;
  for (int h = 0; h < e->H; h++)
    if (tt_config_ablated(e->cfg, l, h))
      TRY(e->be->scale(e->be, tt_buf_view(z, (size_t)h * T * D, (size_t)T * D),
                       tt_buf_view(z, (size_t)h * T * D, (size_t)T * D), 0.0f, (size_t)T * D, err));
  return tt_engine_flush(e, err);
}

// A whole causal pass without ALiBi on a backend with the causal ops: attention in blocks
// of query rows, only the blocks on and below the diagonal where nobody keeps the rest.
static bool in_blocks(const tt_engine *e) {
  const tt_backend *be = e->be;
  return !e->run.decoding && e->cfg->causal && e->cfg->positions != TT_POS_ALIBI && be->causal_scores &&
         be->causal_mix && be->causal_attention;
}

// q (H,T,D), k, v (G,T,D) → the scores, the pattern and z (H,T,D) with the backend's causal
// ops. The raw scores are offered as a product rule on the recorded q and k, the scaled and
// masked scores and the pattern as rules on the raw ones (a trace keeps them so); when
// nobody stores the scaled and masked scores and no recorder times each op, all in one op,
// each block while it is in cache, raw and pattern written only where they are kept. Else
// op by op in the order of step_pattern. The same products and row softmax either way (the
// one op scales and masks each row as the rule does), so recording changes no bit.
static tt_status step_causal_blocks(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf v, tt_buf *z, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H, G = e->G, D = e->D;
  float alpha = tt_config_attn_scale(e->cfg, l, D);
  const char *raw_hook = "attn.hook_attn_scores_raw";
  tt_dims scores = TT_DIMS(H, T, T);
  bool raw_kept, scaled_kept, masked_kept, pattern_kept;
  bool rope = e->cfg->positions == TT_POS_ROPE;  // q and k are then the rotated ones
  tt_buf raw = tt_engine_out_scores(e, l, raw_hook, scores, rope ? "attn.hook_rot_q" : "attn.hook_q",
                                    rope ? "attn.hook_rot_k" : "attn.hook_k", &raw_kept);  // (H,T,T) = q·kᵀ per head
  tt_buf scaled = tt_engine_out_rule(e, l, "attn.hook_attn_scores_scaled", scores, raw_hook, alpha, false,
                                     TT_ROWS_AS_IS, &scaled_kept);  // (H,T,T) = raw · attn_scale
  tt_buf masked = tt_engine_out_rule(e, l, "attn.hook_attn_scores", scores, raw_hook, alpha, true, TT_ROWS_AS_IS,
                                     &masked_kept);  // (H,T,T) −∞ above the diagonal
  tt_buf pattern = tt_engine_out_rule(e, l, "attn.hook_pattern", scores, raw_hook, alpha, true, TT_ROWS_SOFTMAX,
                                      &pattern_kept);  // (H,T,T) row softmax of the masked scores
  *z = OUT(l, "attn.hook_z", H, T, D);                 // (H,T,D) = pattern·v
  if (!scaled_kept && !masked_kept && !tt_engine_timed(e)) {
    RUN(be->causal_attention(be, raw_kept ? raw : (tt_buf){0}, pattern_kept ? pattern : (tt_buf){0}, *z, q, k, v, H, G,
                             T, D, alpha, err));
    return TT_OK;
  }
  // op by op, each timed, each output handed over before the next op may reuse its slot
  tt_engine_name_op(e, l, raw_hook);
  TRY(be->causal_scores(be, raw, q, k, H, G, T, D, err));
  TRY(tt_engine_flush_buf(e, raw, err));
  tt_engine_name_op(e, l, "attn.hook_attn_scores_scaled");
  TRY(be->scale(be, scaled, raw, alpha, (size_t)H * T * T, err));
  TRY(tt_engine_flush_buf(e, scaled, err));
  tt_engine_name_op(e, l, "attn.hook_attn_scores");
  TRY(be->causal_mask(be, masked, scaled, H, T, err));
  TRY(tt_engine_flush_buf(e, masked, err));
  tt_engine_name_op(e, l, "attn.hook_pattern");
  TRY(be->softmax(be, pattern, masked, H * T, T, err));
  TRY(tt_engine_flush_buf(e, pattern, err));
  tt_engine_name_op(e, l, "attn.hook_z");
  RUN(be->causal_mix(be, *z, pattern, v, H, G, T, D, err));
  return TT_OK;
}

// q (H,T,D), k (G,T,D) → hook_rot_q, hook_rot_k: each pair (i, i + D/2) of a head's row t
// rotated by the angle p·θ^(−2i/D) at the row's absolute position p = pos0 + t (Hugging
// Face's rotate-half layout).
static tt_status step_rotary(tt_engine *e, int l, tt_buf *q, tt_buf *k, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H, G = e->G, D = e->D;
  tt_buf table = tt_buf_view(e->w.rope, (size_t)e->run.pos0 * D, (size_t)T * D);  // (T,D) rows pos0..
  tt_buf rq = OUT(l, "attn.hook_rot_q", H, T, D);                                 // (H,T,D)
  RUN(be->rope(be, rq, *q, table, H, T, D, err));
  tt_buf rk = OUT(l, "attn.hook_rot_k", G, T, D);  // (G,T,D)
  RUN(be->rope(be, rk, *k, table, G, T, D, err));
  *q = rq;
  *k = rk;
  return TT_OK;
}

// raw (H,T,Tk) → scaled = raw · attn_scale, (ALiBi), masked, the pattern (H,T,Tk). A
// decode step's one query is the last position: the causal mask hides none of its keys.
static tt_status step_pattern(tt_engine *e, int l, tt_buf raw, int Tk, tt_buf *pattern, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H;
  size_t n = (size_t)H * T * Tk;
  float alpha = tt_config_attn_scale(e->cfg, l, e->D);
  const char *raw_hook = "attn.hook_attn_scores_raw";
  tt_dims scores = TT_DIMS(H, T, Tk);
  tt_buf scaled = tt_engine_out_rule(e, l, "attn.hook_attn_scores_scaled", scores, raw_hook, alpha, false,
                                     TT_ROWS_AS_IS, NULL);  // (H,T,Tk) = raw · attn_scale
  RUN(be->scale(be, scaled, raw, alpha, n, err));
  bool alibi = e->cfg->positions == TT_POS_ALIBI, mask = e->cfg->causal && !e->run.decoding;
  if (alibi) TRY(step_alibi(e, l, scaled, Tk, &scaled, err));
  tt_buf masked = alibi ? OUT(l, "attn.hook_attn_scores", H, T, Tk)
                        : tt_engine_out_rule(e, l, "attn.hook_attn_scores", scores, raw_hook, alpha, mask,
                                             TT_ROWS_AS_IS, NULL);  // (H,T,Tk) −∞ above the diagonal
  RUN(mask ? be->causal_mask(be, masked, scaled, H, T, err) : tt_engine_copy(e, masked, scaled, n, err));
  *pattern = OUT(l, "attn.hook_pattern", H, T, Tk);  // (H,T,Tk) softmax of each row
  RUN(be->softmax(be, *pattern, masked, H * T, Tk, err));
  return TT_OK;
}

// hook_alibi (H,T,Tk) = −m_h·|i−j| for query positions i = Tk−T.. and keys j < Tk; *biased
// (H,T,Tk) = scaled + hook_alibi (not a hook: the masked scores that follow show it).
// Above the diagonal the mask hides the bias; without the mask it is symmetric in i and j.
static tt_status step_alibi(tt_engine *e, int l, tt_buf scaled, int Tk, tt_buf *biased, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H;
  size_t n = (size_t)H * T * Tk;
  tt_buf bias = OUT(l, "attn.hook_alibi", H, T, Tk);  // (H,T,Tk)
  RUN(be->alibi(be, bias, e->w.alibi_slopes, H, T, Tk, err));
  tt_buf sum = tt_workspace_slot(e, "hook_attn_scores", n);  // the slot raw used: free now
  TRY(be->add(be, sum, scaled, bias, n, err));
  *biased = sum;
  return TT_OK;
}

// ---- the tables ------------------------------------------------------------------------
void tt_alibi_slopes(float *slopes, int H) {
  int n = 1;
  while (n * 2 <= H) n *= 2;  // the largest power of two ≤ H
  for (int h = 0; h < n; h++) slopes[h] = (float)pow(2.0, -8.0 * (h + 1) / n);
  for (int i = 0; n + i < H; i++) slopes[n + i] = (float)pow(2.0, -8.0 * (2 * i + 1) / (2 * n));
}

void tt_rope_table(float *table, int rows, int D, double theta, int offset) {
  int half = D / 2;
  for (int p = 0; p < rows; p++)
    for (int i = 0; i < half; i++) {
      double angle = (double)(p + offset) * pow(theta, -2.0 * i / D);
      table[(size_t)p * D + i] = (float)cos(angle);
      table[(size_t)p * D + half + i] = (float)sin(angle);
    }
}
