// backward_llama: one Llama block reversed (the steps of forward_llama.c and attend.c,
// last to first): SwiGLU (down, act(gate)·up, gate and up), RMSNorm 2, residual, o
// projection, z, pattern, softmax, mask, scale, raw scores (grouped-query heads), RoPE (the
// rotation back), the q/k/v projections, RMSNorm 1, residual. Gradients are recorded as
// grad.<hook>; the weight gradients accumulate in e->dw. The forward tensors come from the
// tape. Host backends only (the engine refuses gradients elsewhere), so an op may add into a
// buffer an earlier op wrote. Shape legend in engine_internal.h.
#include "engine_internal.h"

#define TAPE(l, suffix, n) tt_workspace_tape(e, (l), (suffix), (n))

static tt_status back_swiglu(tt_engine *e, int l, tt_buf g, tt_buf *dx, tt_error *err);
static tt_status back_attention(tt_engine *e, int l, tt_buf g, tt_buf *dx, tt_error *err);
static tt_status back_projection(tt_engine *e, tt_buf d_heads, tt_buf x, tt_buf w, tt_buf dw, tt_buf db, int heads,
                                 tt_buf dx, bool add, tt_error *err);

tt_status tt_backward_llama_block(tt_engine *e, int l, tt_buf *g, tt_error *err) {
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_layer_bufs *dw = &e->dw.layers[l];
  int T = e->run.T, C = e->C;
  tt_buf d_h, d_branch, d_mid;  // (T,C) each
  TRY(OFFER(l, "hook_mlp_out", *g, T, C));
  TRY(back_swiglu(e, l, *g, &d_h, err));
  TRY(tt_backward_norm(e, l, &LN2, d_h, w->ln2_w, dw->ln2_w, &d_branch, err));
  TRY(tt_backward_residual(e, l, "hook_resid_mid", *g, d_branch, &d_mid, err));
  TRY(OFFER(l, "hook_attn_out", d_mid, T, C));
  TRY(back_attention(e, l, d_mid, &d_h, err));
  TRY(tt_backward_norm(e, l, &LN1, d_h, w->ln1_w, dw->ln1_w, &d_branch, err));
  return tt_backward_residual(e, l, "hook_resid_pre", d_mid, d_branch, g, err);
}

// An optional bias's gradient: db (n) += Σ_t d (T,n), when the model has the bias.
static tt_status bias_grad(tt_engine *e, tt_buf db, tt_buf d, int n, tt_error *err) {
  if (!tt_buf_is_set(db)) return TT_OK;
  RUN(e->be->add_row_sums(e->be, db, d, e->run.T, n, err));
  return TT_OK;
}

// g (T,C) = d hook_mlp_out → d hook_post (T,F) → d hook_pre_linear = d_post·act(gate),
// d hook_pre = act'(gate)·(d_post·up) → dx (T,C) = d_gate·W_gate + d_up·W_up into ln2's out.
static tt_status back_swiglu(tt_engine *e, int l, tt_buf g, tt_buf *dx, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_layer_bufs *dw = &e->dw.layers[l];
  int T = e->run.T, C = e->C, F = e->F;
  size_t n = (size_t)T * F;
  tt_buf x = TAPE(l, LN2.out, (size_t)T * C), gate = TAPE(l, "mlp.hook_pre", n);
  tt_buf up = TAPE(l, "mlp.hook_pre_linear", n), post = TAPE(l, "mlp.hook_post", n);
  RUN(be->matmul_tn(be, dw->down_w, g, post, 1, T, C, F, false, err));  // d W_down (C,F) = gᵀ·post
  TRY(bias_grad(e, dw->down_b, g, C, err));
  tt_buf d_post = OUT(l, "mlp.hook_post", T, F);  // (T,F) = g · W_down
  RUN(be->matmul(be, d_post, g, w->down_w, (tt_buf){0}, T, C, F, false, err));
  tt_buf act = tt_workspace_slot(e, "act", n);  // (T,F) act(gate), recomputed
  TRY(be->activation(be, act, gate, n, e->cfg->activation, err));
  tt_buf d_up = OUT(l, "mlp.hook_pre_linear", T, F);  // (T,F) = d_post · act(gate)
  RUN(be->mul(be, d_up, d_post, act, n, err));
  TRY(be->mul(be, act, d_post, up, n, err));     // act now holds d act(gate) = d_post · up
  tt_buf d_gate = OUT(l, "mlp.hook_pre", T, F);  // (T,F) = act'(gate) · d act
  RUN(be->activation_backward(be, d_gate, (tt_buf){0}, gate, act, n, e->cfg->activation, err));
  RUN(be->matmul_tn(be, dw->gate_w, d_gate, x, 1, T, F, C, false, err));  // d W_gate (F,C) = d_gateᵀ·x
  RUN(be->matmul_tn(be, dw->up_w, d_up, x, 1, T, F, C, false, err));      // d W_up (F,C) = d_upᵀ·x
  TRY(bias_grad(e, dw->gate_b, d_gate, F, err));
  TRY(bias_grad(e, dw->up_b, d_up, F, err));
  *dx = OUT(l, LN2.out, T, C);  // (T,C) = d_gate·W_gate + d_up·W_up
  RUN(be->matmul(be, *dx, d_gate, w->gate_w, (tt_buf){0}, T, F, C, false, err));
  tt_buf part = tt_workspace_slot(e, "hook_attn_out", (size_t)T * C);  // (T,C) not in use here
  TRY(be->matmul(be, part, d_up, w->up_w, (tt_buf){0}, T, F, C, false, err));
  RUN(be->add(be, *dx, *dx, part, (size_t)T * C, err));
  return TT_OK;
}

// d_heads (heads,T,D) of one projection x·Wᵀ + b → d W (heads·D, C) += d_flatᵀ·x, d b,
// dx (T,C) = d_flat·W (added to dx with add).
static tt_status back_projection(tt_engine *e, tt_buf d_heads, tt_buf x, tt_buf w, tt_buf dw, tt_buf db, int heads,
                                 tt_buf dx, bool add, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C, D = e->D, N = heads * D;
  tt_buf d_flat = tt_workspace_slot(e, "merged", (size_t)T * N);  // (T, heads·D)
  TRY(be->merge_heads(be, d_flat, d_heads, T, heads, D, err));
  TRY(be->matmul_tn(be, dw, d_flat, x, 1, T, N, C, false, err));
  TRY(bias_grad(e, db, d_flat, N, err));
  if (!add) return be->matmul(be, dx, d_flat, w, (tt_buf){0}, T, N, C, false, err);
  tt_buf part = tt_workspace_slot(e, "hook_attn_out", (size_t)T * C);  // (T,C)
  TRY(be->matmul(be, part, d_flat, w, (tt_buf){0}, T, N, C, false, err));
  return be->add(be, dx, dx, part, (size_t)T * C, err);
}

// g (T,C) = d hook_attn_out → d z → d pattern, d v → d scores → d rot_q, d rot_k → d q, d k
// (rotated back) → dx (T,C) into ln1's out.
static tt_status back_attention(tt_engine *e, int l, tt_buf g, tt_buf *dx, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_layer_bufs *dw = &e->dw.layers[l];
  int T = e->run.T, C = e->C, H = e->H, G = e->G, D = e->D, R = H / G;
  size_t hd = (size_t)H * T * D, gd = (size_t)G * T * D, htt = (size_t)H * T * T;
  tt_buf x = TAPE(l, LN1.out, (size_t)T * C);
  tt_buf rq = TAPE(l, "attn.hook_rot_q", hd), rk = TAPE(l, "attn.hook_rot_k", gd), v = TAPE(l, "attn.hook_v", gd);
  tt_buf pattern = TAPE(l, "attn.hook_pattern", htt), z = TAPE(l, "attn.hook_z", hd);
  tt_buf merged = tt_workspace_slot(e, "merged", hd);  // (T,H·D) the forward's z, heads side by side
  TRY(be->merge_heads(be, merged, z, T, H, D, err));
  RUN(be->matmul_tn(be, dw->o_w, g, merged, 1, T, C, H * D, false, err));  // d W_o (C,H·D) = gᵀ·merged
  TRY(bias_grad(e, dw->o_b, g, C, err));
  RUN(be->matmul(be, merged, g, w->o_w, (tt_buf){0}, T, C, H * D, false, err));  // d merged = g·W_o
  tt_buf d_z = OUT(l, "attn.hook_z", H, T, D);
  RUN(be->unmerge_heads(be, d_z, merged, T, H, D, err));
  tt_buf d_pattern = OUT(l, "attn.hook_pattern", H, T, T);  // (H,T,T) = d_z · vᵀ per group
  RUN(be->matmul_batched(be, d_pattern, d_z, v, G, R * T, D, T, true, 1.0f, err));
  tt_buf d_v = OUT(l, "attn.hook_v", G, T, D);  // (G,T,D) = Σ over the group's heads patternᵀ · d_z
  RUN(be->matmul_tn(be, d_v, pattern, d_z, G, R * T, T, D, false, err));
  tt_buf d_masked = OUT(l, "attn.hook_attn_scores", H, T, T);  // 0 where masked (pattern is 0 there)
  RUN(be->softmax_backward(be, d_masked, pattern, d_pattern, H * T, T, err));
  tt_buf d_scaled = OUT(l, "attn.hook_attn_scores_scaled", H, T, T);
  RUN(tt_engine_copy(e, d_scaled, d_masked, htt, err));
  tt_buf d_raw = OUT(l, "attn.hook_attn_scores_raw", H, T, T);  // = d_scaled · attn_scale
  RUN(be->scale(be, d_raw, d_scaled, tt_config_attn_scale(e->cfg, l, D), htt, err));
  tt_buf d_rq = OUT(l, "attn.hook_rot_q", H, T, D);  // (H,T,D) = d_raw · rot_k per group
  RUN(be->matmul_batched(be, d_rq, d_raw, rk, G, R * T, T, D, false, 1.0f, err));
  tt_buf d_rk = OUT(l, "attn.hook_rot_k", G, T, D);  // (G,T,D) = Σ d_rawᵀ · rot_q
  RUN(be->matmul_tn(be, d_rk, d_raw, rq, G, R * T, T, D, false, err));
  tt_buf d_q = OUT(l, "attn.hook_q", H, T, D);  // the rotation back: R(−angle)
  RUN(be->rope(be, d_q, d_rq, e->w.rope_inverse, H, T, D, err));
  tt_buf d_k = OUT(l, "attn.hook_k", G, T, D);
  RUN(be->rope(be, d_k, d_rk, e->w.rope_inverse, G, T, D, err));
  *dx = OUT(l, LN1.out, T, C);  // (T,C) = d_q·W_q + d_k·W_k + d_v·W_v
  TRY(back_projection(e, d_q, x, w->q_w, dw->q_w, dw->q_b, H, *dx, false, err));
  TRY(back_projection(e, d_k, x, w->k_w, dw->k_w, dw->k_b, G, *dx, true, err));
  RUN(back_projection(e, d_v, x, w->v_w, dw->v_w, dw->v_b, G, *dx, true, err));
  return TT_OK;
}
