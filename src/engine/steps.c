// steps: the GPT-2 forward pass, one function per step, in the order the hooks are
// recorded (see trace/hooks.h). Each step asks where to write (tt_engine_out), runs one
// backend op and hands the result over (tt_engine_done).
// Shape legend: T tokens, C width, H heads, D = C/H, F FFN width, V vocabulary.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "engine_internal.h"

#define CHECK(expr)                   \
  do {                                \
    tt_status st_ = (expr);           \
    if (st_ != TT_OK) return st_;     \
  } while (0)

// "blocks.L.<suffix>" (or just suffix when layer < 0) into buf.
static const char *hook_name(char *buf, size_t len, int layer, const char *suffix) {
  if (layer < 0)
    snprintf(buf, len, "%s", suffix);
  else
    snprintf(buf, len, "blocks.%d.%s", layer, suffix);
  return buf;
}

// The residual slot that does not hold `used` (used may be recorder memory).
static tt_buf other_resid(const tt_engine *e, tt_buf used) {
  const tt_buf r0 = e->ws.resid[0];
  return (used.handle == r0.handle && used.offset == r0.offset) ? e->ws.resid[1] : e->ws.resid[0];
}

// A copy of x (n floats) into out, through the backend (multiplying by 1 is exact).
static tt_status copy(tt_engine *e, tt_buf out, tt_buf x, size_t n, tt_error *err) {
  return e->be->scale(e->be, out, x, 1.0f, n, err);
}

// ---- tokens, embedding, positions --------------------------------------------------------
tt_status tt_step_tokens(tt_engine *e, tt_error *err) {
  (void)err;
  int64_t shape[1] = {e->T};
  int32_t *mem = e->rec ? e->rec->reserve(e->rec->ctx, "tokens", TT_I32, 1, shape) : NULL;
  if (mem) memcpy(mem, e->ids, (size_t)e->T * sizeof *mem);
  return TT_OK;
}

// hook_embed (T,C) = wte[ids]; hook_pos_embed (T,C) = the first T position rows;
// blocks.0.hook_resid_pre (T,C) = their sum (or the embedding alone without positions).
tt_status tt_step_embed(tt_engine *e, tt_buf *resid, tt_error *err) {
  int T = e->T, C = e->C;
  int64_t tc[2] = {T, C};
  tt_step_out emb = tt_engine_out(e, "hook_embed", 2, tc, e->ws.embed);
  CHECK(e->be->embed(e->be, emb.buf, e->wte, e->ids, T, C, err));
  CHECK(tt_engine_done(e, emb, err));
  tt_step_out pre;
  if (e->cfg->positions == TT_POS_NONE) {
    pre = tt_engine_out(e, "blocks.0.hook_resid_pre", 2, tc, e->ws.resid[0]);
    CHECK(copy(e, pre.buf, emb.buf, (size_t)T * C, err));
  } else {
    // The position rows are already a contiguous block of the table: no computation.
    tt_buf pos = tt_buf_view(e->positions, 0, (size_t)T * C);
    CHECK(tt_engine_offer(e, "hook_pos_embed", 2, tc, pos, err));
    pre = tt_engine_out(e, "blocks.0.hook_resid_pre", 2, tc, e->ws.resid[0]);
    CHECK(e->be->add(e->be, pre.buf, emb.buf, pos, (size_t)T * C, err));
  }
  CHECK(tt_engine_done(e, pre, err));
  *resid = pre.buf;
  return TT_OK;
}

// ---- normalization -------------------------------------------------------------------------
// <prefix>.hook_mean (T), hook_scale (T), hook_normalized (T,C), hook_out (T,C) of x (T,C).
static tt_status step_norm(tt_engine *e, int layer, const char *prefix, tt_buf x, tt_buf w, tt_buf b,
                           tt_buf *out, tt_error *err) {
  int T = e->T, C = e->C;
  int64_t t1[1] = {T}, tc[2] = {T, C};
  char name[96], suffix[48];
  snprintf(suffix, sizeof suffix, "%s.hook_mean", prefix);
  tt_step_out mean = tt_engine_out(e, hook_name(name, sizeof name, layer, suffix), 1, t1, e->ws.ln_mean);
  snprintf(suffix, sizeof suffix, "%s.hook_scale", prefix);
  tt_step_out scale = tt_engine_out(e, hook_name(name, sizeof name, layer, suffix), 1, t1, e->ws.ln_scale);
  snprintf(suffix, sizeof suffix, "%s.hook_normalized", prefix);
  tt_step_out nrm = tt_engine_out(e, hook_name(name, sizeof name, layer, suffix), 2, tc, e->ws.ln_norm);
  snprintf(suffix, sizeof suffix, "%s.hook_out", prefix);
  tt_step_out o = tt_engine_out(e, hook_name(name, sizeof name, layer, suffix), 2, tc, e->ws.ln_out);
  bool rms = e->cfg->norm == TT_NORM_RMSNORM;
  CHECK(e->be->norm(e->be, o.buf, nrm.buf, mean.buf, scale.buf, x, w, b, T, C, (float)e->cfg->ln_eps, rms, err));
  CHECK(tt_engine_done(e, mean, err));
  CHECK(tt_engine_done(e, scale, err));
  CHECK(tt_engine_done(e, nrm, err));
  CHECK(tt_engine_done(e, o, err));
  *out = o.buf;
  return TT_OK;
}

// ---- attention -----------------------------------------------------------------------------
// x (T,C) → hook_attn_out (T,C), through the fused projection, the heads and the output projection.
static tt_status step_attention(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err) {
  const tt_layer_bufs *w = &e->layers[l];
  int T = e->T, C = e->C, H = e->H, D = e->D;
  int64_t t3c[2] = {T, 3 * C}, htd[3] = {H, T, D}, htt[3] = {H, T, T}, tc[2] = {T, C};
  char name[96];

  // qkv (T,3C) = x (T,C) · attn_w (C,3C) + attn_b
  tt_step_out qkv = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_qkv"), 2, t3c, e->ws.qkv);
  CHECK(e->be->matmul(e->be, qkv.buf, x, w->attn_w, w->attn_b, T, C, 3 * C, false, err));
  CHECK(tt_engine_done(e, qkv, err));

  // q, k, v (H,T,D): the three thirds of qkv, head-major
  tt_step_out q = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_q"), 3, htd, e->ws.q);
  tt_step_out k = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_k"), 3, htd, e->ws.k);
  tt_step_out v = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_v"), 3, htd, e->ws.v);
  CHECK(e->be->split_heads(e->be, q.buf, k.buf, v.buf, qkv.buf, T, H, D, err));
  CHECK(tt_engine_done(e, q, err));
  CHECK(tt_engine_done(e, k, err));
  CHECK(tt_engine_done(e, v, err));

  // raw scores (H,T,T) = q (H,T,D) · kᵀ per head
  tt_step_out raw = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_attn_scores_raw"), 3, htt,
                                  e->ws.scores[0]);
  CHECK(e->be->matmul_batched(e->be, raw.buf, q.buf, k.buf, H, T, D, T, true, 1.0f, err));
  CHECK(tt_engine_done(e, raw, err));

  // scaled (H,T,T) = raw / √D (a plain copy when scaling is off)
  tt_step_out scaled = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_attn_scores_scaled"), 3,
                                     htt, e->ws.scores[1]);
  float alpha = e->cfg->scale_attn ? (float)(1.0 / sqrt((double)D)) : 1.0f;
  CHECK(e->be->scale(e->be, scaled.buf, raw.buf, alpha, (size_t)H * T * T, err));
  CHECK(tt_engine_done(e, scaled, err));

  // masked (H,T,T) = scaled with -inf above the diagonal (a plain copy without the mask)
  tt_step_out masked = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_attn_scores"), 3, htt,
                                     e->ws.scores[0]);
  if (e->cfg->causal)
    CHECK(e->be->causal_mask(e->be, masked.buf, scaled.buf, H, T, err));
  else
    CHECK(copy(e, masked.buf, scaled.buf, (size_t)H * T * T, err));
  CHECK(tt_engine_done(e, masked, err));

  // pattern (H,T,T) = softmax of each row
  tt_step_out pattern =
      tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_pattern"), 3, htt, e->ws.scores[1]);
  CHECK(e->be->softmax(e->be, pattern.buf, masked.buf, H * T, T, err));
  CHECK(tt_engine_done(e, pattern, err));

  // z (H,T,D) = pattern (H,T,T) · v (H,T,D) per head
  tt_step_out z = tt_engine_out(e, hook_name(name, sizeof name, l, "attn.hook_z"), 3, htd, e->ws.z);
  CHECK(e->be->matmul_batched(e->be, z.buf, pattern.buf, v.buf, H, T, T, D, false, 1.0f, err));
  CHECK(tt_engine_done(e, z, err));

  // attn_out (T,C) = heads side by side (T,C) · attn_proj_w (C,C) + attn_proj_b
  tt_buf merged = tt_buf_view(e->ws.merged, 0, (size_t)T * C);
  CHECK(e->be->merge_heads(e->be, merged, z.buf, T, H, D, err));
  tt_step_out o = tt_engine_out(e, hook_name(name, sizeof name, l, "hook_attn_out"), 2, tc, e->ws.attn_out);
  CHECK(e->be->matmul(e->be, o.buf, merged, w->attn_proj_w, w->attn_proj_b, T, C, C, false, err));
  CHECK(tt_engine_done(e, o, err));
  *out = o.buf;
  return TT_OK;
}

// ---- feed-forward --------------------------------------------------------------------------
// x (T,C) → hook_pre (T,F) → activation → hook_post (T,F) → hook_mlp_out (T,C).
static tt_status step_mlp(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err) {
  const tt_layer_bufs *w = &e->layers[l];
  int T = e->T, C = e->C, F = e->F;
  int64_t tf[2] = {T, F}, tc[2] = {T, C};
  char name[96];
  tt_step_out pre = tt_engine_out(e, hook_name(name, sizeof name, l, "mlp.hook_pre"), 2, tf, e->ws.mlp_pre);
  CHECK(e->be->matmul(e->be, pre.buf, x, w->fc_w, w->fc_b, T, C, F, false, err));
  CHECK(tt_engine_done(e, pre, err));
  tt_step_out post =
      tt_engine_out(e, hook_name(name, sizeof name, l, "mlp.hook_post"), 2, tf, e->ws.mlp_post);
  CHECK(e->be->activation(e->be, post.buf, pre.buf, (size_t)T * F, e->cfg->activation, err));
  CHECK(tt_engine_done(e, post, err));
  tt_step_out o = tt_engine_out(e, hook_name(name, sizeof name, l, "hook_mlp_out"), 2, tc, e->ws.mlp_out);
  CHECK(e->be->matmul(e->be, o.buf, post.buf, w->fc_proj_w, w->fc_proj_b, T, F, C, false, err));
  CHECK(tt_engine_done(e, o, err));
  *out = o.buf;
  return TT_OK;
}

// ---- residual ------------------------------------------------------------------------------
// The hook `suffix` (T,C) = a + b, or b alone when residual connections are off.
static tt_status step_residual(tt_engine *e, int l, const char *suffix, tt_buf a, tt_buf b, tt_buf *out,
                               tt_error *err) {
  size_t n = (size_t)e->T * e->C;
  int64_t tc[2] = {e->T, e->C};
  char name[96];
  tt_step_out o = tt_engine_out(e, hook_name(name, sizeof name, l, suffix), 2, tc, other_resid(e, a));
  if (e->cfg->residual)
    CHECK(e->be->add(e->be, o.buf, a, b, n, err));
  else
    CHECK(copy(e, o.buf, b, n, err));
  CHECK(tt_engine_done(e, o, err));
  *out = o.buf;
  return TT_OK;
}

// ---- one block ------------------------------------------------------------------------------
// resid (T,C) in: blocks.L.hook_resid_pre; out: blocks.L.hook_resid_post.
tt_status tt_step_block(tt_engine *e, int l, tt_buf *resid, tt_error *err) {
  const tt_layer_bufs *w = &e->layers[l];
  int64_t tc[2] = {e->T, e->C};
  char name[96];
  tt_buf x = *resid, h, attn, mid, mlp;
  // Block 0's resid_pre was recorded by the embedding step; later ones are the previous
  // block's resid_post, offered again under this block's name.
  if (l > 0) CHECK(tt_engine_offer(e, hook_name(name, sizeof name, l, "hook_resid_pre"), 2, tc, x, err));
  if (!e->cfg->post_ln) {
    // Pre-LN (GPT-2): x + attn(ln1(x)), then + mlp(ln2(·)).
    CHECK(step_norm(e, l, "ln1", x, w->ln1_w, w->ln1_b, &h, err));
    CHECK(step_attention(e, l, h, &attn, err));
    CHECK(step_residual(e, l, "hook_resid_mid", x, attn, &mid, err));
    CHECK(step_norm(e, l, "ln2", mid, w->ln2_w, w->ln2_b, &h, err));
    CHECK(step_mlp(e, l, h, &mlp, err));
    CHECK(step_residual(e, l, "hook_resid_post", mid, mlp, resid, err));
  } else {
    // Post-LN (the original Transformer): resid_mid = x + attn(x) is normalized by ln1,
    // resid_post = ln1.out + mlp(ln1.out) by ln2, and ln2's output leaves the block.
    CHECK(step_attention(e, l, x, &attn, err));
    CHECK(step_residual(e, l, "hook_resid_mid", x, attn, &mid, err));
    CHECK(step_norm(e, l, "ln1", mid, w->ln1_w, w->ln1_b, &h, err));
    CHECK(step_mlp(e, l, h, &mlp, err));
    CHECK(step_residual(e, l, "hook_resid_post", h, mlp, &x, err));
    CHECK(step_norm(e, l, "ln2", x, w->ln2_w, w->ln2_b, &h, err));
    // The norm slot is rewritten by the next norm: move the stream to a residual slot.
    if (h.handle == e->ws.ln_out.handle && h.offset == e->ws.ln_out.offset) {
      tt_buf dst = tt_buf_view(other_resid(e, x), 0, (size_t)e->T * e->C);
      CHECK(copy(e, dst, h, (size_t)e->T * e->C, err));
      h = dst;
    }
    *resid = h;
  }
  return TT_OK;
}

// ---- final norm, logits, probabilities, loss --------------------------------------------------
tt_status tt_step_head(tt_engine *e, tt_buf resid, tt_error *err) {
  int T = e->T, C = e->C, V = e->V;
  int64_t tv[2] = {T, V}, t1[1] = {T - 1};
  tt_buf h;
  CHECK(step_norm(e, -1, "ln_final", resid, e->lnf_w, e->lnf_b, &h, err));

  // logits (T,V) = ln_final.hook_out (T,C) · lm_headᵀ (C,V)
  tt_step_out logits = tt_engine_out(e, "hook_logits", 2, tv, e->ws.logits);
  CHECK(e->be->matmul(e->be, logits.buf, h, e->lm_head, (tt_buf){0}, T, C, V, true, err));
  CHECK(tt_engine_done(e, logits, err));

  // probs (T,V) = softmax of each row of the logits
  tt_step_out probs = tt_engine_out(e, "hook_probs", 2, tv, e->ws.probs);
  CHECK(e->be->softmax(e->be, probs.buf, logits.buf, T, V, err));
  CHECK(tt_engine_done(e, probs, err));

  // loss (T-1) = -log p(next token): needs a next token, so none for a single token
  if (T > 1) {
    tt_step_out loss = tt_engine_out(e, "hook_loss", 1, t1, e->ws.loss);
    CHECK(e->be->nll(e->be, loss.buf, logits.buf, e->ids, T, V, err));
    CHECK(tt_engine_done(e, loss, err));
  }
  return TT_OK;
}
