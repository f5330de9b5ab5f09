// backward: the backward pass of L = mean over t = 0..T−2 of hook_loss[t], bottom-up: the
// forward pass's steps in reverse order, one function per step (loss → logits → final norm
// → per block, last to first: FFN out, activation, FFN in, LayerNorm 2, residual, output
// projection, z, pattern, softmax, mask, scale, raw scores, heads, fused Q/K/V, LayerNorm 1,
// residual → positions → embedding). Each tensor's gradient is recorded as grad.<hook> with
// the hook's shape, through the same OUT/RUN lines as forward.c (run.prefix is "grad."); the
// forward tensors it reads are on the tape (workspace.c); the weight gradients are in e->dw
// (grads.c): each weight matrix's product writes its gradient, the sums add into gradients
// cleared first (tt_grads_clear). Nothing is allocated here.
// Shape legend: T tokens, C width, H heads, D = C/H, F FFN width, V vocabulary.
#include "engine_internal.h"

// The forward tensor of hook suffix in layer l, from the tape.
#define TAPE(l, suffix, n) tt_workspace_tape(e, (l), (suffix), (n))

// Where a step writes the gradient of its input: the hook (layer, suffix); with suffix NULL
// the scratch slot (a gradient the caller adds to another before naming it); with suffix ""
// the next stream slot, unnamed (the caller offers it under its names).
typedef struct {
  int layer;
  const char *suffix;
} grad_dst;
static const grad_dst SCRATCH = {-1, NULL};
static const grad_dst STREAM = {-1, ""};

static tt_buf dst_buf(tt_engine *e, grad_dst d, size_t T, size_t C) {
  if (!d.suffix) return tt_workspace_slot(e, "merged", T * C);
  if (!d.suffix[0]) return tt_workspace_slot(e, "hook_resid_pre", T * C);
  return OUT(d.layer, d.suffix, T, C);
}

static tt_status back_head(tt_engine *e, tt_buf *g, tt_error *err);
static tt_status back_block(tt_engine *e, int l, tt_buf *g, tt_error *err);
static tt_status back_norm(tt_engine *e, int l, const norm_hooks *hk, tt_buf d_out, tt_buf gamma, tt_buf d_gamma,
                           tt_buf d_beta, grad_dst dst, tt_buf *dx, tt_error *err);
static tt_status back_residual(tt_engine *e, int l, const char *suffix, tt_buf g, tt_buf branch, tt_buf *out,
                               tt_error *err);
static tt_status back_mlp(tt_engine *e, int l, tt_buf g, grad_dst dst, tt_buf *dx, tt_error *err);
static tt_status back_attention(tt_engine *e, int l, tt_buf g, grad_dst dst, tt_buf *dx, tt_error *err);
static tt_status back_embed(tt_engine *e, tt_buf g, tt_error *err);

// The hook whose gradient is the stream's between block l and block l + 1 (or the head).
static grad_dst block_output(const tt_engine *e, int l) {
  return (grad_dst){l, e->cfg->post_ln ? "ln2.hook_out" : "hook_resid_post"};
}

tt_status tt_backward(tt_engine *e, tt_error *err) {
  int L = e->cfg->n_layer;
  e->run.prefix = "grad.";
  e->run.taping = false;
  tt_workspace_reset(e);
  RUN(tt_grads_clear(e, err));
  tt_buf g;  // (T,C) the stream's gradient, in a stream slot
  TRY(back_head(e, &g, err));
  for (int l = L - 1; l >= 0; l--) {
    TRY(OFFER(block_output(e, l).layer, block_output(e, l).suffix, g, e->run.T, e->C));
    TRY(e->cfg->arch == TT_ARCH_LLAMA ? tt_backward_llama_block(e, l, &g, err) : back_block(e, l, &g, err));
  }
  if (L == 0) TRY(OFFER(0, "hook_resid_pre", g, e->run.T, e->C));
  TRY(back_embed(e, g, err));
  return tt_grads_offer(e, err);
}

// ---- loss, probabilities, logits, final norm ---------------------------------------------
// Entries of d_logits below 2⁻¹⁰⁰ (≈ 7.9e-31: probabilities a confident model all but rules
// out) are written as 0. Kept, their products with the stream's values fall below FLT_MIN,
// and a subnormal number costs the CPU a microcode assist in every product it enters: the
// head's two products ran 1.5 times slower (15,617 such entries at T = 64). A weight gradient
// sums T − 1 such terms, so the change is below 1e-28 in absolute terms; the trace records
// the values the products used.
#define GRAD_LOGITS_TINY 0x1p-100f

// g (T,C) out: the gradient of the stream entering the final norm (unnamed: it lives in a
// stream slot, as the blocks need, not in the norm output slot of post-LN's ln2.hook_out).
static tt_status back_head(tt_engine *e, tt_buf *g, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C, V = e->V;
  tt_buf probs = TAPE(-1, "hook_probs", (size_t)T * V), h = TAPE(-1, "ln_final.hook_out", (size_t)T * C);
  tt_buf d_logits = OUT(-1, "hook_logits", T, V);  // (T,V) = (probs − onehot(next)) / (T−1); last row 0
  RUN(be->nll_backward(be, d_logits, probs, e->run.ids, T, V, GRAD_LOGITS_TINY, err));
  // d W_U (V,C) += d_logitsᵀ · h   (tied: the same gradient as the embedding's lookup)
  RUN(be->matmul_tn(be, e->dw.lm_head, d_logits, h, 1, T, V, C, false, err));
  tt_buf d_h = OUT(-1, "ln_final.hook_out", T, C);  // (T,C) = d_logits · W_U
  RUN(be->matmul(be, d_h, d_logits, e->w.lm_head, (tt_buf){0}, T, V, C, false, err));
  return back_norm(e, -1, &LN_FINAL, d_h, e->w.lnf_w, e->dw.lnf_w, e->dw.lnf_b, STREAM, g, err);
}

// ---- one block, reversed ------------------------------------------------------------------------
// g (T,C): the gradient of the block's output in, of its input (blocks.L.hook_resid_pre) out.
static tt_status back_block(tt_engine *e, int l, tt_buf *g, tt_error *err) {
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_layer_bufs *dw = &e->dw.layers[l];
  int T = e->run.T, C = e->C;
  tt_buf d_h, d_branch, d_mid, d_post;  // (T,C) each
  if (!e->cfg->post_ln) {               // x + attn(ln1(x)), then + mlp(ln2(·)), reversed
    TRY(OFFER(l, "hook_mlp_out", *g, T, C));
    TRY(back_mlp(e, l, *g, (grad_dst){l, "ln2.hook_out"}, &d_h, err));
    TRY(back_norm(e, l, &LN2, d_h, w->ln2_w, dw->ln2_w, dw->ln2_b, SCRATCH, &d_branch, err));
    TRY(back_residual(e, l, "hook_resid_mid", *g, d_branch, &d_mid, err));
    TRY(OFFER(l, "hook_attn_out", d_mid, T, C));
    TRY(back_attention(e, l, d_mid, (grad_dst){l, "ln1.hook_out"}, &d_h, err));
    TRY(back_norm(e, l, &LN1, d_h, w->ln1_w, dw->ln1_w, dw->ln1_b, SCRATCH, &d_branch, err));
    return back_residual(e, l, "hook_resid_pre", d_mid, d_branch, g, err);
  }
  // post-LN: ln1(x + attn(x)), then ln2(· + mlp(·)), reversed
  TRY(back_norm(e, l, &LN2, *g, w->ln2_w, dw->ln2_w, dw->ln2_b, (grad_dst){l, "hook_resid_post"}, &d_post, err));
  TRY(OFFER(l, "hook_mlp_out", d_post, T, C));
  TRY(back_mlp(e, l, d_post, SCRATCH, &d_branch, err));
  TRY(back_residual(e, l, "ln1.hook_out", d_post, d_branch, &d_h, err));
  TRY(back_norm(e, l, &LN1, d_h, w->ln1_w, dw->ln1_w, dw->ln1_b, (grad_dst){l, "hook_resid_mid"}, &d_mid, err));
  TRY(OFFER(l, "hook_attn_out", d_mid, T, C));
  TRY(back_attention(e, l, d_mid, SCRATCH, &d_branch, err));
  return back_residual(e, l, "hook_resid_pre", d_mid, d_branch, g, err);
}

// ---- normalization, reversed -----------------------------------------------------------------
// d_out (T,C) → d_normalized (T,C) = d_out·γ, dx (T,C) into dst; d_γ, d_β (C) accumulate.
static tt_status back_norm(tt_engine *e, int l, const norm_hooks *hk, tt_buf d_out, tt_buf gamma, tt_buf d_gamma,
                           tt_buf d_beta, grad_dst dst, tt_buf *dx, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C;
  tt_buf nrm = TAPE(l, hk->normalized, (size_t)T * C), scale = TAPE(l, hk->scale, (size_t)T);
  tt_buf d_nrm = OUT(l, hk->normalized, T, C);  // (T,C)
  *dx = dst_buf(e, dst, (size_t)T, (size_t)C);  // (T,C)
  RUN(be->norm_backward(be, *dx, d_nrm, d_gamma, d_beta, d_out, nrm, scale, gamma, T, C,
                        e->cfg->norm == TT_NORM_RMSNORM, err));
  return TT_OK;
}

tt_status tt_backward_norm(tt_engine *e, int l, const norm_hooks *hk, tt_buf d_out, tt_buf gamma, tt_buf d_gamma,
                           tt_buf *dx, tt_error *err) {
  return back_norm(e, l, hk, d_out, gamma, d_gamma, (tt_buf){0}, SCRATCH, dx, err);
}

tt_status tt_backward_residual(tt_engine *e, int l, const char *suffix, tt_buf g, tt_buf branch, tt_buf *out,
                               tt_error *err) {
  return back_residual(e, l, suffix, g, branch, out, err);
}

// ---- residual, reversed ----------------------------------------------------------------------
// The gradient of hook `suffix` (T,C), the residual's input: g (through the skip) + branch
// (through the sublayer), or branch alone when residual connections are off.
static tt_status back_residual(tt_engine *e, int l, const char *suffix, tt_buf g, tt_buf branch, tt_buf *out,
                               tt_error *err) {
  size_t n = (size_t)e->run.T * e->C;
  *out = OUT(l, suffix, e->run.T, e->C);  // (T,C)
  RUN(e->cfg->residual ? e->be->add(e->be, *out, g, branch, n, err) : tt_engine_copy(e, *out, branch, n, err));
  return TT_OK;
}

// ---- feed-forward, reversed ------------------------------------------------------------------
// g (T,C) = d hook_mlp_out → d hook_post (T,F) → d hook_pre (T,F) → dx (T,C) into dst.
static tt_status back_mlp(tt_engine *e, int l, tt_buf g, grad_dst dst, tt_buf *dx, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_layer_bufs *dw = &e->dw.layers[l];
  int T = e->run.T, C = e->C, F = e->F;
  const char *in_hook = e->cfg->post_ln ? LN1.out : LN2.out;
  tt_buf x = TAPE(l, in_hook, (size_t)T * C);
  tt_buf pre = TAPE(l, "mlp.hook_pre", (size_t)T * F), post = TAPE(l, "mlp.hook_post", (size_t)T * F);
  tt_buf d_post = OUT(l, "mlp.hook_post", T, F);  // (T,F) = g · W_outᵀ
  RUN(be->matmul(be, d_post, g, w->fc_proj_w, (tt_buf){0}, T, C, F, true, err));
  tt_buf d_pre = OUT(l, "mlp.hook_pre", T, F);  // (T,F) = act'(pre) · d_post
  // Not recorded, post is not on the tape: act(pre) (T,F) is made again beside d_pre, into
  // the post slot (where d_post is when that is not recorded either: read before written).
  tt_buf remade = {0};
  if (!tt_buf_is_set(post)) post = remade = tt_workspace_slot(e, "mlp.hook_post", (size_t)T * F);
  RUN(be->activation_backward(be, d_pre, remade, pre, d_post, (size_t)T * F, e->cfg->activation, err));
  RUN(be->matmul_tn(be, dw->fc_proj_w, post, g, 1, T, F, C, false, err));  // d W_out (F,C) = postᵀ·g
  RUN(be->add_row_sums(be, dw->fc_proj_b, g, T, C, err));                  // d b_out (C) += Σ_t g
  RUN(be->matmul_tn(be, dw->fc_w, x, d_pre, 1, T, C, F, false, err));      // d W_in (C,F) = xᵀ·d_pre
  RUN(be->add_row_sums(be, dw->fc_b, d_pre, T, F, err));                   // d b_in (F) += Σ_t d_pre
  *dx = dst_buf(e, dst, (size_t)T, (size_t)C);                             // (T,C) = d_pre · W_inᵀ
  RUN(be->matmul(be, *dx, d_pre, w->fc_w, (tt_buf){0}, T, F, C, true, err));
  return TT_OK;
}

// ---- attention, reversed ---------------------------------------------------------------------
// g (T,C) = d hook_attn_out → d z → d pattern, d v → d scores → d q, d k → d qkv → dx into dst.
static tt_status back_attention(tt_engine *e, int l, tt_buf g, grad_dst dst, tt_buf *dx, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_layer_bufs *dw = &e->dw.layers[l];
  int T = e->run.T, C = e->C, H = e->H, D = e->D;
  size_t tc = (size_t)T * C, htt = (size_t)H * T * T;
  // x (T,C) the attention's input: ln1's output (pre-LN); the block's input (post-LN), which is
  // the previous block's ln2 output or, in block 0, the embedding step's
  tt_buf x = !e->cfg->post_ln ? TAPE(l, LN1.out, tc) : l > 0 ? TAPE(l - 1, LN2.out, tc) : TAPE(0, "hook_resid_pre", tc);
  tt_buf q = TAPE(l, "attn.hook_q", tc), k = TAPE(l, "attn.hook_k", tc), v = TAPE(l, "attn.hook_v", tc);
  tt_buf pattern = TAPE(l, "attn.hook_pattern", htt), z = TAPE(l, "attn.hook_z", tc);
  tt_buf merged = tt_workspace_slot(e, "merged", tc);  // (T,C) the forward's z, heads side by side
  TRY(be->merge_heads(be, merged, z, T, H, D, err));
  RUN(be->matmul_tn(be, dw->attn_proj_w, merged, g, 1, T, C, C, false, err));       // d W_O (C,C) = mergedᵀ·g
  RUN(be->add_row_sums(be, dw->attn_proj_b, g, T, C, err));                         // d b_O (C) += Σ_t g
  RUN(be->matmul(be, merged, g, w->attn_proj_w, (tt_buf){0}, T, C, C, true, err));  // d merged (T,C) = g·W_Oᵀ
  tt_buf d_z = OUT(l, "attn.hook_z", H, T, D);                                      // (H,T,D) the heads of d merged
  RUN(be->unmerge_heads(be, d_z, merged, T, H, D, err));
  tt_buf d_pattern = OUT(l, "attn.hook_pattern", H, T, T);  // (H,T,T) = d_z · vᵀ, every entry
  RUN(be->matmul_batched(be, d_pattern, d_z, v, H, T, D, T, true, 1.0f, err));
  tt_buf d_v = OUT(l, "attn.hook_v", H, T, D);  // (H,T,D) = patternᵀ · d_z
  RUN(be->matmul_tn(be, d_v, pattern, d_z, H, T, T, D, false, err));
  tt_buf d_masked = OUT(l, "attn.hook_attn_scores", H, T, T);  // (H,T,T) softmax's backward; 0 where masked
  RUN(be->softmax_backward(be, d_masked, pattern, d_pattern, H * T, T, err));
  // (H,T,T) the mask passes what it kept (masked entries are already exactly 0: pattern is 0 there)
  tt_buf d_scaled = OUT(l, "attn.hook_attn_scores_scaled", H, T, T);
  RUN(tt_engine_copy(e, d_scaled, d_masked, htt, err));
  tt_buf d_raw = OUT(l, "attn.hook_attn_scores_raw", H, T, T);  // (H,T,T) = d_scaled · attn_scale
  RUN(be->scale(be, d_raw, d_scaled, tt_config_attn_scale(e->cfg, l, D), htt, err));
  tt_buf d_q = OUT(l, "attn.hook_q", H, T, D);  // (H,T,D) = d_raw · k
  RUN(be->matmul_batched(be, d_q, d_raw, k, H, T, T, D, false, 1.0f, err));
  tt_buf d_k = OUT(l, "attn.hook_k", H, T, D);  // (H,T,D) = d_rawᵀ · q
  RUN(be->matmul_tn(be, d_k, d_raw, q, H, T, T, D, false, err));
  tt_buf d_qkv = OUT(l, "attn.hook_qkv", T, 3 * C);  // (T,3C) the three side by side again
  RUN(be->join_heads(be, d_qkv, d_q, d_k, d_v, T, H, D, err));
  RUN(be->matmul_tn(be, dw->attn_w, x, d_qkv, 1, T, C, 3 * C, false, err));  // d W_QKV (C,3C) = xᵀ·d_qkv
  RUN(be->add_row_sums(be, dw->attn_b, d_qkv, T, 3 * C, err));               // d b_QKV (3C) += Σ_t d_qkv
  *dx = dst_buf(e, dst, (size_t)T, (size_t)C);                               // (T,C) = d_qkv · W_QKVᵀ
  RUN(be->matmul(be, *dx, d_qkv, w->attn_w, (tt_buf){0}, T, 3 * C, C, true, err));
  return TT_OK;
}

// ---- positions and embedding, reversed ---------------------------------------------------------
// g (T,C) = d blocks.0.hook_resid_pre: the gradient of both summands, the positions' rows
// (learned: d W_pos[0..T) += g) and the embedding's (d W_E[ids[t]] += g[t]).
static tt_status back_embed(tt_engine *e, tt_buf g, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C;
  size_t n = (size_t)T * C;
  if (tt_config_adds_positions(e->cfg)) TRY(OFFER(-1, "hook_pos_embed", g, T, C));
  if (e->cfg->positions == TT_POS_LEARNED) {
    tt_buf rows = tt_buf_view(e->dw.positions, 0, n);  // (T,C) the rows this prompt used
    RUN(be->add(be, rows, rows, g, n, err));
  }
  TRY(OFFER(-1, "hook_embed", g, T, C));
  RUN(be->embed_backward(be, e->dw.wte, g, e->run.ids, T, C, err));
  return TT_OK;
}
