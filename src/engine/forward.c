// forward: the forward pass, top-down, in the order of the walkthrough and of the hooks
// (see trace/hooks.h): tokens → embedding → positions → per block (LayerNorm 1, fused Q/K/V,
// heads, raw scores, scale, mask, softmax, z, output projection, residual, LayerNorm 2, FFN
// in, activation, FFN out, residual) → final LayerNorm → logits → probabilities → loss.
//
// Each op is two lines: OUT names the tensor it computes (layer, hook suffix, shape) and
// gets the buffer to write; RUN calls the backend and hands the result to the recorder.
// Which slot a tensor lives in is workspace.c's business, recording is outputs.c's.
// Shape legend: T tokens, C width, H heads, D = C/H, F FFN width, V vocabulary.
#include <math.h>

#include "engine_internal.h"

static tt_status check_input(const tt_engine *e, const int32_t *ids, int T, int pos0, tt_error *err);
static tt_status step_embed(tt_engine *e, tt_buf *x, tt_error *err);
static tt_status step_block(tt_engine *e, int l, tt_buf *x, tt_error *err);
static tt_status step_attention(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err);
static tt_status step_mlp(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err);
static tt_status step_head(tt_engine *e, tt_buf x, tt_error *err);

// ---- the run ---------------------------------------------------------------------------
// The forward pass of p, then, with p->grad, the backward pass.
tt_status tt_engine_pass(tt_engine *e, const tt_pass *p, tt_error *err) {
  tt_status st = check_input(e, p->ids, p->T, p->pos0, err);
  if (st != TT_OK) return st;
  tt_weights_before_pass(e, p->T);
  e->run.rec = (p->rec && p->rec->reserve) ? p->rec : NULL;
  e->run.ids = p->ids;
  e->run.T = p->T;
  e->run.prefix = p->prefix ? p->prefix : "";
  e->run.pos0 = p->pos0;
  e->run.keep_kv = p->keep_kv;
  e->run.decoding = p->decoding;
  e->run.taping = p->grad;
  e->run.n_pending = 0;
  e->logits = (tt_buf){0};
  tt_workspace_reset(e);
  tt_engine_timing_start(e);
  st = tt_forward(e, err);
  if (st == TT_OK && p->grad) st = tt_backward(e, err);
  if (st == TT_OK && e->be->finish) st = e->be->finish(e->be, err);
  e->run.rec = NULL;
  e->run.ids = NULL;
  e->run.taping = false;
  return st;
}

tt_status tt_engine_run(tt_engine *e, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err) {
  return tt_engine_pass(e, &(tt_pass){.ids = ids, .T = T, .rec = rec}, err);
}

tt_status tt_engine_run_grad(tt_engine *e, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err) {
  if (!e->grad) return tt_fail(err, TT_ERR_ARG, "engine: gradients need tt_engine_enable_grad first");
  if (T < 2)
    return tt_fail(err, TT_ERR_ARG,
                   "gradients need at least 2 tokens (the loss predicts each next token); the prompt has %d", T);
  return tt_engine_pass(e, &(tt_pass){.ids = ids, .T = T, .rec = rec, .grad = true}, err);
}

// The checks every run makes before touching the backend, each with its own message; the
// ids (T) sit at positions pos0..pos0+T-1.
static tt_status check_input(const tt_engine *e, const int32_t *ids, int T, int pos0, tt_error *err) {
  if (T < 1) return tt_fail(err, TT_ERR_ARG, "engine: no tokens to run (the prompt is empty)");
  if (pos0 + T > e->cfg->n_positions)
    return tt_fail(err, TT_ERR_ARG, "engine: %d tokens is more than the model's n_positions (%d)", pos0 + T,
                   e->cfg->n_positions);
  if (pos0 + T > e->max_T)
    return tt_fail(err, TT_ERR_ARG, "engine: %d tokens is more than this engine was created for (%d)", pos0 + T,
                   e->max_T);
  for (int t = 0; t < T; t++)
    if (ids[t] < 0 || ids[t] >= e->V)
      return tt_fail(err, TT_ERR_ARG, "engine: token %d has id %d, outside the vocabulary (0..%d)", pos0 + t,
                     (int)ids[t], e->V - 1);
  return TT_OK;
}

tt_status tt_forward(tt_engine *e, tt_error *err) {
  tt_engine_offer_ids(e, "tokens");  // tokens (T) i32
  tt_buf x;                          // (T,C) the residual stream
  TRY(step_embed(e, &x, err));
  bool llama = e->cfg->arch == TT_ARCH_LLAMA;
  for (int l = 0; l < e->cfg->n_layer; l++)
    TRY(llama ? tt_forward_llama_block(e, l, &x, err) : step_block(e, l, &x, err));
  return step_head(e, x, err);
}

// ---- embedding and positions -----------------------------------------------------------
// x (T,C) = blocks.0.hook_resid_pre: the token embeddings plus the position rows
// pos0..pos0+T-1.
static tt_status step_embed(tt_engine *e, tt_buf *x, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C;
  size_t n = (size_t)T * C;
  tt_buf emb = OUT(-1, "hook_embed", T, C);  // (T,C) = W_E[ids]
  RUN(be->embed(be, emb, e->w.wte, e->run.ids, T, C, err));
  tt_hook_ref emb_hook = {-1, "hook_embed"};
  if (!tt_config_adds_positions(e->cfg)) {  // none, or positions inside attention (RoPE, ALiBi)
    *x = tt_engine_out_sum(e, 0, "hook_resid_pre", TT_DIMS(T, C), emb_hook, (tt_hook_ref){0});  // (T,C) = W_E[ids]
    RUN(tt_engine_copy(e, *x, emb, n, err));
    return TT_OK;
  }
  tt_buf pos = tt_buf_view(e->w.positions, (size_t)e->run.pos0 * C, n);  // (T,C) those rows: no computation
  TRY(OFFER(-1, "hook_pos_embed", pos, T, C));
  // (T,C) = embeddings + positions
  *x = tt_engine_out_sum(e, 0, "hook_resid_pre", TT_DIMS(T, C), emb_hook, (tt_hook_ref){-1, "hook_pos_embed"});
  RUN(be->add(be, *x, emb, pos, n, err));
  return TT_OK;
}

// ---- one block -----------------------------------------------------------------------------
// x (T,C): blocks.L.hook_resid_pre in, the stream entering block L+1 out.
static tt_status step_block(tt_engine *e, int l, tt_buf *x, tt_error *err) {
  const tt_layer_bufs *w = &e->w.layers[l];
  tt_buf h, attn, mid, mlp, post;  // (T,C) each
  tt_hook_ref pre = {l, "hook_resid_pre"}, mid_hook = {l, "hook_resid_mid"};
  tt_dims stream = TT_DIMS(e->run.T, e->C);
  if (l > 0) TRY(tt_engine_offer_copy(e, l, pre.suffix, stream, *x, tt_forward_stream_into(e, l), err));
  if (!e->cfg->post_ln) {  // pre-LN (GPT-2): x + attn(ln1(x)), then + mlp(ln2(·))
    TRY(tt_forward_norm(e, l, &LN1, pre, *x, w->ln1_w, w->ln1_b, &h, err));
    TRY(step_attention(e, l, h, &attn, err));
    TRY(tt_forward_residual(e, l, "hook_resid_mid", *x, "hook_resid_pre", attn, "hook_attn_out", &mid, err));
    TRY(tt_forward_norm(e, l, &LN2, mid_hook, mid, w->ln2_w, w->ln2_b, &h, err));
    TRY(step_mlp(e, l, h, &mlp, err));
    TRY(tt_forward_residual(e, l, "hook_resid_post", mid, "hook_resid_mid", mlp, "hook_mlp_out", x, err));
  } else {  // post-LN (the original Transformer): ln1(x + attn(x)), then ln2(· + mlp(·))
    TRY(step_attention(e, l, *x, &attn, err));
    TRY(tt_forward_residual(e, l, "hook_resid_mid", *x, "hook_resid_pre", attn, "hook_attn_out", &mid, err));
    TRY(tt_forward_norm(e, l, &LN1, mid_hook, mid, w->ln1_w, w->ln1_b, &h, err));
    TRY(step_mlp(e, l, h, &mlp, err));
    TRY(tt_forward_residual(e, l, "hook_resid_post", h, "ln1.hook_out", mlp, "hook_mlp_out", &post, err));
    TRY(tt_forward_norm(e, l, &LN2, (tt_hook_ref){l, "hook_resid_post"}, post, w->ln2_w, w->ln2_b, x, err));
  }
  return tt_workspace_keep_stream(e, x, err);
}

// Block 0's resid_pre is the embedding step's output; later ones, and the head's input,
// are what the block before left: its resid_post (pre-LN), its ln2 output (post-LN).
tt_hook_ref tt_forward_stream_into(const tt_engine *e, int l) {
  if (l == 0) return (tt_hook_ref){0, "hook_resid_pre"};
  return (tt_hook_ref){l - 1, e->cfg->post_ln ? "ln2.hook_out" : "hook_resid_post"};
}

// ---- normalization ---------------------------------------------------------------------------
// x (T,C) → mean (T), scale (T) = √(σ² + ε), normalized (T,C), out (T,C) = normalized·γ + β.
// RMSNorm: scale = √(mean(x²) + ε), normalized = x / scale; the Llama block records no mean.
// normalized and out are norm rules on x_hook.
tt_status tt_forward_norm(tt_engine *e, int l, const norm_hooks *hk, tt_hook_ref x_hook, tt_buf x, tt_buf gamma,
                          tt_buf beta, tt_buf *out, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C;
  bool rms = e->cfg->norm == TT_NORM_RMSNORM;
  bool no_mean = e->cfg->arch == TT_ARCH_LLAMA;
  float eps = (float)e->cfg->ln_eps;
  tt_buf mean = no_mean ? tt_workspace_slot(e, hk->mean, T) : OUT(l, hk->mean, T);  // (T)
  tt_buf scale = OUT(l, hk->scale, T);                                              // (T)
  bool nrm_kept;  // else unset where the backend allows: the norm writes out alone
  tt_buf nrm =
      tt_engine_out_norm(e, l, hk->normalized, TT_DIMS(T, C), x_hook, eps, rms, (tt_buf){0}, (tt_buf){0}, &nrm_kept);
  if (!nrm_kept && be->norm_row) nrm = (tt_buf){0};
  *out = tt_engine_out_norm(e, l, hk->out, TT_DIMS(T, C), x_hook, eps, rms, gamma, beta, NULL);  // (T,C) each
  RUN(be->norm(be, *out, nrm, mean, scale, x, gamma, beta, T, C, eps, rms, err));
  return TT_OK;
}

// ---- attention -------------------------------------------------------------------------------
// x (T,C) → hook_attn_out (T,C): fused projection, heads, then attend.c (scores, pattern, z),
// output projection.
static tt_status step_attention(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  int T = e->run.T, C = e->C, H = e->H, D = e->D;
  tt_buf qkv = OUT(l, "attn.hook_qkv", T, 3 * C);  // (T,3C) = x·W_QKV + b
  RUN(be->matmul(be, qkv, x, w->attn_w, w->attn_b, T, C, 3 * C, false, err));
  // q, k, v (H,T,D) each: the thirds of qkv, head-major
  tt_buf q = tt_engine_out_heads(e, l, "attn.hook_q", TT_DIMS(H, T, D), "attn.hook_qkv", 0);
  tt_buf k = tt_engine_out_heads(e, l, "attn.hook_k", TT_DIMS(H, T, D), "attn.hook_qkv", C);
  tt_buf v = tt_engine_out_heads(e, l, "attn.hook_v", TT_DIMS(H, T, D), "attn.hook_qkv", 2 * C);
  RUN(be->split_heads(be, q, k, v, qkv, T, H, D, err));
  tt_buf z;  // (H,T,D) = pattern·v per head, after the scores (and RoPE or ALiBi); a decode
             // step (T = 1) attends to the cached keys and values
  TRY(tt_attend(e, l, q, k, v, &z, err));
  tt_buf merged = tt_workspace_slot(e, "merged", (size_t)T * C);  // (T,C) heads side by side
  TRY(be->merge_heads(be, merged, z, T, H, D, err));
  *out = OUT(l, "hook_attn_out", T, C);  // (T,C) = merged·W_O + b
  RUN(be->matmul(be, *out, merged, w->attn_proj_w, w->attn_proj_b, T, C, C, false, err));
  return TT_OK;
}

// ---- residual --------------------------------------------------------------------------------
// The hook `suffix` (T,C) = a + b, or b alone when residual connections are off.
tt_status tt_forward_residual(tt_engine *e, int l, const char *suffix, tt_buf a, const char *a_suffix, tt_buf b,
                              const char *b_suffix, tt_buf *out, tt_error *err) {
  size_t n = (size_t)e->run.T * e->C;
  bool sum = e->cfg->residual;  // else the branch alone
  tt_hook_ref first = {l, sum ? a_suffix : b_suffix}, second = {l, sum ? b_suffix : NULL};
  *out = tt_engine_out_sum(e, l, suffix, TT_DIMS(e->run.T, e->C), first, second);  // (T,C)
  RUN(sum ? e->be->add(e->be, *out, a, b, n, err) : tt_engine_copy(e, *out, b, n, err));
  return TT_OK;
}

// ---- feed-forward ----------------------------------------------------------------------------
// x (T,C) → hook_pre (T,F) → activation → hook_post (T,F) → hook_mlp_out (T,C).
static tt_status step_mlp(tt_engine *e, int l, tt_buf x, tt_buf *out, tt_error *err) {
  tt_backend *be = e->be;
  const tt_layer_bufs *w = &e->w.layers[l];
  int T = e->run.T, C = e->C, F = e->F;
  tt_buf pre = OUT(l, "mlp.hook_pre", T, F);  // (T,F) = x·W_in + b
  RUN(be->matmul(be, pre, x, w->fc_w, w->fc_b, T, C, F, false, err));
  tt_buf post = tt_engine_out_rule(e, l, "mlp.hook_post", TT_DIMS(T, F), "mlp.hook_pre", 1.0f, false,
                                   TT_ROWS_ACTIVATION, NULL);  // (T,F) = act(pre), a rule on pre
  RUN(be->activation(be, post, pre, (size_t)T * F, e->cfg->activation, err));
  *out = OUT(l, "hook_mlp_out", T, C);  // (T,C) = post·W_out + b
  RUN(be->matmul(be, *out, post, w->fc_proj_w, w->fc_proj_b, T, F, C, false, err));
  return TT_OK;
}

// ---- final norm, logits, probabilities, loss -------------------------------------------------
static tt_status step_head(tt_engine *e, tt_buf x, tt_error *err) {
  tt_backend *be = e->be;
  int T = e->run.T, C = e->C, V = e->V;
  tt_buf h;  // (T,C)
  tt_hook_ref x_hook = tt_forward_stream_into(e, e->cfg->n_layer);
  TRY(tt_forward_norm(e, -1, &LN_FINAL, x_hook, x, e->w.lnf_w, e->w.lnf_b, &h, err));
  tt_buf logits = OUT(-1, "hook_logits", T, V);  // (T,V) = h·W_Uᵀ
  RUN(be->matmul(be, logits, h, e->w.lm_head, (tt_buf){0}, T, C, V, true, err));
  e->logits = logits;  // for tt_engine_last_logits
  // (T,V) softmax of each row, a rule on the logits; when nobody reads it (kept as the rule,
  // or not recorded) only the loss is computed, but for a timing recorder, which times each
  // op the pass has
  bool probs_kept, timed = tt_engine_timed(e);
  tt_buf probs =
      tt_engine_out_rule(e, -1, "hook_probs", TT_DIMS(T, V), "hook_logits", 1.0f, false, TT_ROWS_SOFTMAX, &probs_kept);
  // A gradient run that records neither keeps both in the logits slot (the tape's place for
  // the probabilities, one (T,V) buffer instead of two): the softmax overwrites the logits
  // after the loss has read them.
  bool in_place = T >= 2 && probs.handle == logits.handle && probs.offset == logits.offset;
  if (!probs_kept && !timed) {
    if (T >= 2) RUN(be->nll(be, OUT(-1, "hook_loss", T - 1), logits, e->run.ids, T, V, err));  // (T-1)
  } else if (be->softmax_nll && T >= 2 && !timed) {  // both in one pass over the logits
    tt_buf loss = OUT(-1, "hook_loss", T - 1);       // (T-1) = −log p(next token)
    RUN(be->softmax_nll(be, probs, loss, logits, e->run.ids, T, V, err));
  } else {
    if (!in_place) RUN(be->softmax(be, probs, logits, T, V, err));
    if (T >= 2) {                                 // the loss needs a next token
      tt_buf loss = OUT(-1, "hook_loss", T - 1);  // (T-1) = −log p(next token)
      RUN(be->nll(be, loss, logits, e->run.ids, T, V, err));
    }
    if (in_place) RUN(be->softmax(be, probs, probs, T, V, err));
  }
  if (in_place) e->logits = (tt_buf){0};  // gone: the probabilities are in their place
  return TT_OK;
}
