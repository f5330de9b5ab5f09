// attend: the part of attention both blocks share, from the heads to z: rotary positions
// on q and k (RoPE), the raw scores, the scale, the ALiBi bias, the causal mask, the
// softmax and the weighted sum of the values. Grouped-query attention: G key/value heads
// each serve R = H/G consecutive query heads, so query heads gR..gR+R−1 (contiguous in
// (H,T,D)) form one (R·T, D) matrix against key head g: one batched product over G.
// Shape legend in engine_internal.h.
#include <math.h>

#include "engine_internal.h"

static tt_status step_rotary(tt_engine *e, int l, tt_buf *q, tt_buf *k, tt_error *err);
static tt_status step_scores(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf *masked, tt_error *err);
static tt_status step_alibi(tt_engine *e, int l, tt_buf scaled, tt_buf *biased, tt_error *err);

tt_status tt_attend(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf v, tt_buf *z, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H, G = e->G, D = e->D, R = H / G;
  if (e->cfg->positions == TT_POS_ROPE) TRY(step_rotary(e, l, &q, &k, err));
  tt_buf masked;  // (H,T,T)
  TRY(step_scores(e, l, q, k, &masked, err));
  tt_buf pattern = OUT(l, "attn.hook_pattern", H, T, T);  // (H,T,T) softmax of each row
  RUN(be->softmax(be, pattern, masked, H * T, T, err));
  *z = OUT(l, "attn.hook_z", H, T, D);  // (H,T,D) = pattern·v, per key/value group
  TRY(be->matmul_batched(be, *z, pattern, v, G, R * T, T, D, false, 1.0f, err));
  for (int h = 0; h < H; h++)  // knocked-out heads (ttrace_ablate): z = 0
    if (tt_config_ablated(e->cfg, l, h))
      TRY(be->scale(be, tt_buf_view(*z, (size_t)h * T * D, (size_t)T * D),
                    tt_buf_view(*z, (size_t)h * T * D, (size_t)T * D), 0.0f, (size_t)T * D, err));
  TRY(tt_engine_flush(e, err));
  return TT_OK;
}

// q (H,T,D), k (G,T,D) → hook_rot_q, hook_rot_k: each pair (i, i + D/2) of a head's row t
// rotated by the angle t·θ^(−2i/D) (Hugging Face's rotate-half layout).
static tt_status step_rotary(tt_engine *e, int l, tt_buf *q, tt_buf *k, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H, G = e->G, D = e->D;
  tt_buf rq = OUT(l, "attn.hook_rot_q", H, T, D);  // (H,T,D)
  RUN(be->rope(be, rq, *q, e->w.rope, H, T, D, err));
  tt_buf rk = OUT(l, "attn.hook_rot_k", G, T, D);  // (G,T,D)
  RUN(be->rope(be, rk, *k, e->w.rope, G, T, D, err));
  *q = rq;
  *k = rk;
  return TT_OK;
}

// q (H,T,D), k (G,T,D) → raw (H,T,T) = q·kᵀ, scaled = raw · attn_scale, (ALiBi), masked.
static tt_status step_scores(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf *masked, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H, G = e->G, D = e->D, R = H / G;
  size_t htt = (size_t)H * T * T;
  tt_buf raw = OUT(l, "attn.hook_attn_scores_raw", H, T, T);  // (H,T,T) = q·kᵀ per head
  RUN(be->matmul_batched(be, raw, q, k, G, R * T, D, T, true, 1.0f, err));
  tt_buf scaled = OUT(l, "attn.hook_attn_scores_scaled", H, T, T);  // (H,T,T) = raw · attn_scale
  RUN(be->scale(be, scaled, raw, tt_config_attn_scale(e->cfg, l, D), htt, err));
  if (e->cfg->positions == TT_POS_ALIBI) TRY(step_alibi(e, l, scaled, &scaled, err));
  *masked = OUT(l, "attn.hook_attn_scores", H, T, T);  // (H,T,T) −∞ above the diagonal
  RUN(e->cfg->causal ? be->causal_mask(be, *masked, scaled, H, T, err) : tt_engine_copy(e, *masked, scaled, htt, err));
  return TT_OK;
}

// hook_alibi (H,T,T) = −m_h·|i−j|; *biased (H,T,T) = scaled + hook_alibi (not a hook: the
// masked scores that follow show it). Above the diagonal the mask hides the bias; without
// the mask it is symmetric in i and j.
static tt_status step_alibi(tt_engine *e, int l, tt_buf scaled, tt_buf *biased, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, H = e->H;
  size_t htt = (size_t)H * T * T;
  tt_buf bias = OUT(l, "attn.hook_alibi", H, T, T);  // (H,T,T)
  RUN(be->alibi(be, bias, e->w.alibi_slopes, H, T, err));
  tt_buf sum = tt_workspace_slot(e, "hook_attn_scores", htt);  // the slot raw used: free now
  TRY(be->add(be, sum, scaled, bias, htt, err));
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
