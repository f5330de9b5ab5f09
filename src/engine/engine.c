// engine: creates the engine (the weights on the backend, the workspace) and destroys it.
// The forward pass itself is forward.c.
#include <stdlib.h>

#include "engine_internal.h"

static tt_status check_config(const tt_config *c, tt_error *err) {
  if (c->n_layer < 0 || c->n_head < 1 || c->n_embd < 1 || c->vocab_size < 1 || c->n_positions < 1 || c->n_inner < 1)
    return tt_fail(err, TT_ERR_ARG,
                   "engine: bad config (n_layer %d, n_head %d, n_embd %d, n_inner %d, vocab_size %d, "
                   "n_positions %d)",
                   c->n_layer, c->n_head, c->n_embd, c->n_inner, c->vocab_size, c->n_positions);
  if (c->arch != TT_ARCH_LLAMA && c->n_embd % c->n_head != 0)
    return tt_fail(err, TT_ERR_ARG, "engine: n_embd %d is not a multiple of n_head %d", c->n_embd, c->n_head);
  int G = tt_config_kv_heads(c), D = tt_config_head_dim(c);
  if (G < 1 || c->n_head % G != 0 || D < 1)
    return tt_fail(err, TT_ERR_ARG, "engine: %d heads cannot share %d key/value heads of width %d", c->n_head, G, D);
  if (c->positions == TT_POS_ROPE && D % 2 != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "positions=rope needs an even head width (rotate-half pairs dimension i with i + D/2); this "
                   "model's is %d",
                   D);
  if (c->rope_offset && c->positions != TT_POS_ROPE)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "rope_offset=%d shifts rotary positions, and this model's positions are not rotary (a Llama "
                   "model, or --set positions=rope, has them)",
                   c->rope_offset);
  return TT_OK;
}

// The ops the config needs beyond GPT-2's: the Llama block's, RoPE's, ALiBi's.
static tt_status check_backend(const tt_config *c, const tt_backend *be, tt_error *err) {
  bool llama = c->arch == TT_ARCH_LLAMA;
  const char *what = llama                          ? "the Llama block (model_type llama)"
                     : c->positions == TT_POS_ROPE  ? "positions=rope"
                     : c->positions == TT_POS_ALIBI ? "positions=alibi"
                                                    : NULL;
  bool have = (!llama || (be->mul && be->unmerge_heads)) && (c->positions != TT_POS_ROPE || be->rope) &&
              (c->positions != TT_POS_ALIBI || be->alibi);
  if (!what || have) return TT_OK;
  return tt_fail(err, TT_ERR_UNSUPPORTED, "%s is not implemented on the %s backend yet (use -b openblas)", what,
                 be->name);
}

static tt_status check_model(const tt_model *model, int max_T, tt_error *err) {
  tt_status st = check_config(&model->cfg, err);
  if (st != TT_OK) return st;
  if (max_T < 1) return tt_fail(err, TT_ERR_ARG, "engine: max_T must be at least 1 (got %d)", max_T);
  if (model->cfg.positions == TT_POS_LEARNED && !model->wpe)
    return tt_fail(err, TT_ERR_ARG,
                   "engine: learned positions need wpe.weight, which this model does not have "
                   "(use positions=sinusoidal or positions=none)");
  bool llama = model->cfg.arch == TT_ARCH_LLAMA;  // RMSNorm: no final bias
  if (!model->wte || !model->lm_head || !model->lnf_w || (!llama && !model->lnf_b) ||
      (model->cfg.n_layer && !model->layers))
    return tt_fail(err, TT_ERR_ARG, "engine: the model lacks some of its weights");
  return TT_OK;
}

tt_status tt_engine_create(const tt_model *model, tt_backend *be, int max_T, tt_engine **out, tt_error *err) {
  *out = NULL;
  tt_status st = check_model(model, max_T, err);
  if (st == TT_OK) st = check_backend(&model->cfg, be, err);
  if (st != TT_OK) return st;
  tt_engine *e = calloc(1, sizeof *e);
  if (!e) return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  e->model = model;
  e->cfg = &model->cfg;
  e->be = be;
  e->max_T = max_T < model->cfg.n_positions ? max_T : model->cfg.n_positions;
  e->C = model->cfg.n_embd;
  e->H = model->cfg.n_head;
  e->G = tt_config_kv_heads(&model->cfg);
  e->D = tt_config_head_dim(&model->cfg);
  e->F = model->cfg.n_inner;
  e->V = model->cfg.vocab_size;
  e->w.layers = calloc(model->cfg.n_layer ? (size_t)model->cfg.n_layer : 1, sizeof *e->w.layers);
  if (!e->w.layers) st = tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  if (st == TT_OK) st = tt_weights_setup(e, err);
  if (st == TT_OK) st = tt_workspace_setup(e, err);
  if (st != TT_OK) {
    tt_engine_destroy(e);
    return st;
  }
  *out = e;
  return TT_OK;
}

// The ops the backward pass uses (unmerge_heads also serves the Llama forward pass).
static bool has_backward(const tt_backend *be) {
  return be->zero && be->matmul_tn && be->add_row_sums && be->norm_backward && be->activation_backward &&
         be->softmax_backward && be->unmerge_heads && be->join_heads && be->nll_backward && be->embed_backward;
}

tt_status tt_engine_enable_grad(tt_engine *e, tt_error *err) {
  if (e->grad) return TT_OK;
  bool llama = e->cfg->arch == TT_ARCH_LLAMA;
  if (!llama && (e->cfg->positions == TT_POS_ROPE || e->cfg->positions == TT_POS_ALIBI))
    return tt_fail(err, TT_ERR_UNSUPPORTED, "gradients with positions=%s are not implemented yet",
                   e->cfg->positions == TT_POS_ROPE ? "rope" : "alibi");
  if (!has_backward(e->be))
    return tt_fail(err, TT_ERR_UNSUPPORTED, "gradients are not supported on the %s backend yet (use -b openblas)",
                   e->be->name);
  if (e->cfg->n_ablate > 0)  // the backward pass does not know the knocked-out heads
    return tt_fail(err, TT_ERR_UNSUPPORTED, "gradients with knocked-out heads (ablate) are not supported");
  tt_status st = tt_workspace_setup_tape(e, err);
  if (st == TT_OK) st = tt_grads_setup(e, err);
  if (st == TT_OK) e->grad = true;
  return st;
}

tt_status tt_engine_pack_weights(tt_engine *e, tt_error *err) {
  return tt_weights_pack(e, err);
}

void tt_engine_destroy(tt_engine *e) {
  if (!e) return;
  tt_grads_release(e);
  tt_kv_release(e);
  tt_workspace_release(e);
  tt_weights_release(e);
  free(e->w.layers);
  free(e);
}
