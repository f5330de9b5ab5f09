// forward_llama: one Llama block (Hugging Face's LlamaDecoderLayer), in the order of its
// hooks: RMSNorm 1 → q, k, v projections (nn.Linear, grouped-query heads) → attend.c
// (RoPE, scores, mask, softmax, z) → o projection → residual → RMSNorm 2 → SwiGLU
// (gate, up, silu(gate)·up, down) → residual. The embedding and the head are forward.c's.
// Shape legend in engine_internal.h.
#include "engine_internal.h"

static tt_status step_attention(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err);
static tt_status step_heads(tt_engine *e, int l, const char *suffix, tt_buf x, tt_buf w, tt_buf b, int heads,
                            tt_buf *out, tt_error *err);
static tt_status step_swiglu(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err);

// x (T,C): blocks.L.hook_resid_pre in; x + attn(ln1(x)), then + mlp(ln2(·)) out.
tt_status tt_forward_llama_block(tt_engine *e, int l, tt_buf *x, tt_error *err) {
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_buf h, attn, mid, mlp;  // (T,C) each
  tt_hook_ref pre = {l, "hook_resid_pre"}, mid_hook = {l, "hook_resid_mid"};
  tt_dims stream = TT_DIMS(e->run.T, e->C);
  if (l > 0) TRY(tt_engine_offer_copy(e, l, pre.suffix, stream, *x, tt_forward_stream_into(e, l), err));
  TRY(tt_forward_norm(e, l, &LN1, pre, *x, w->ln1_w, (tt_buf){0}, &h, err));
  TRY(step_attention(e, l, h, &attn, err));
  TRY(tt_forward_residual(e, l, "hook_resid_mid", *x, "hook_resid_pre", attn, "hook_attn_out", &mid, err));
  TRY(tt_forward_norm(e, l, &LN2, mid_hook, mid, w->ln2_w, (tt_buf){0}, &h, err));
  TRY(step_swiglu(e, l, h, &mlp, err));
  TRY(tt_forward_residual(e, l, "hook_resid_post", mid, "hook_resid_mid", mlp, "hook_mlp_out", x, err));
  return tt_workspace_keep_stream(e, x, err);
}

// x (T,C) → hook_attn_out (T,C) = merged heads · W_oᵀ (+ b_o).
static tt_status step_attention(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  int T = e->run.T, C = e->C, H = e->H, G = e->G, D = e->D;
  tt_buf q, k, v;  // (H,T,D), (G,T,D), (G,T,D)
  TRY(step_heads(e, l, "attn.hook_q", x, w->q_w, w->q_b, H, &q, err));
  TRY(step_heads(e, l, "attn.hook_k", x, w->k_w, w->k_b, G, &k, err));
  TRY(step_heads(e, l, "attn.hook_v", x, w->v_w, w->v_b, G, &v, err));
  tt_buf z;  // (H,T,D)
  TRY(tt_attend(e, l, q, k, v, &z, err));
  tt_buf merged = tt_workspace_slot(e, "merged", (size_t)T * H * D);  // (T,H·D) heads side by side
  TRY(be->merge_heads(be, merged, z, T, H, D, err));
  *out = OUT(l, "hook_attn_out", T, C);  // (T,C) = merged·W_oᵀ + b
  RUN(be->matmul(be, *out, merged, w->o_w, w->o_b, T, H * D, C, true, err));
  return TT_OK;
}

// One projection split into heads: flat (T,heads·D) = x (T,C)·Wᵀ + b (not a hook), then
// hook `suffix` (heads,T,D), head-major.
static tt_status step_heads(tt_engine *e, int l, const char *suffix, tt_buf x, tt_buf w, tt_buf b, int heads,
                            tt_buf *out, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C, D = e->D;
  tt_buf flat = tt_workspace_slot(e, "merged", (size_t)T * heads * D);  // (T,heads·D)
  TRY(be->matmul(be, flat, x, w, b, T, C, heads * D, true, err));
  *out = OUT(l, suffix, heads, T, D);  // (heads,T,D)
  RUN(be->unmerge_heads(be, *out, flat, T, heads, D, err));
  return TT_OK;
}

// x (T,C) → hook_pre = x·W_gateᵀ (T,F), hook_pre_linear = x·W_upᵀ (T,F),
// hook_post = act(hook_pre)·hook_pre_linear (T,F), hook_mlp_out = hook_post·W_downᵀ (T,C).
static tt_status step_swiglu(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  int T = e->run.T, C = e->C, F = e->F;
  size_t n = (size_t)T * F;
  tt_buf gate = OUT(l, "mlp.hook_pre", T, F);  // (T,F) the gate's pre-activation
  RUN(be->matmul(be, gate, x, w->gate_w, w->gate_b, T, C, F, true, err));
  tt_buf up = OUT(l, "mlp.hook_pre_linear", T, F);  // (T,F) the up projection
  RUN(be->matmul(be, up, x, w->up_w, w->up_b, T, C, F, true, err));
  tt_buf act = tt_workspace_slot(e, "act", n);  // (T,F) act(gate), not a hook
  TRY(be->activation(be, act, gate, n, e->cfg->activation, err));
  tt_buf post = OUT(l, "mlp.hook_post", T, F);  // (T,F) = act(gate)·up
  RUN(be->mul(be, post, act, up, n, err));
  *out = OUT(l, "hook_mlp_out", T, C);  // (T,C) = post·W_downᵀ + b
  RUN(be->matmul(be, *out, post, w->down_w, w->down_b, T, F, C, true, err));
  return TT_OK;
}
