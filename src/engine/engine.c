// engine: creates the engine (weights on the backend, one workspace allocation), checks a
// run's input and runs the steps of steps.c in order. Nothing is allocated during a run.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

static bool zero_copy(const tt_backend *be) { return be->host_memory && be->wrap; }

// ---- weights --------------------------------------------------------------------------
// Walks every weight once: on host backends it wraps the model's memory, on device
// backends it uploads into consecutive views of one allocation (or, with count set,
// only adds up the floats needed).
typedef struct {
  tt_engine *e;
  bool count_only;
  size_t used;  // floats placed so far
  tt_status st;
  tt_error *err;
} weight_walk;

static tt_buf place(weight_walk *w, const float *src, size_t n) {
  tt_engine *e = w->e;
  if (w->count_only) {
    w->used += n;
    return (tt_buf){0};
  }
  if (zero_copy(e->be)) return e->be->wrap(e->be, (float *)src, n);
  tt_buf view = tt_buf_view(e->weights, w->used, n);
  w->used += n;
  if (w->st == TT_OK) w->st = e->be->upload(e->be, view, src, n, w->err);
  return view;
}

static void walk_weights(weight_walk *w, const float *sinusoid) {
  tt_engine *e = w->e;
  const tt_model *m = e->model;
  size_t C = (size_t)e->C, F = (size_t)e->F, V = (size_t)e->V;
  e->wte = place(w, m->wte, V * C);
  if (e->cfg->positions == TT_POS_LEARNED)
    e->positions = place(w, m->wpe, (size_t)e->max_T * C);  // only the rows a run can use
  else if (e->cfg->positions == TT_POS_SINUSOIDAL)
    e->positions = zero_copy(e->be) ? e->pos_table : place(w, sinusoid, (size_t)e->max_T * C);
  e->lnf_w = place(w, m->lnf_w, C);
  e->lnf_b = place(w, m->lnf_b, C);
  e->lm_head = (m->lm_head == m->wte) ? e->wte : place(w, m->lm_head, V * C);
  for (int l = 0; l < e->cfg->n_layer; l++) {
    const tt_layer_weights *s = &m->layers[l];
    tt_layer_bufs *d = &e->layers[l];
    d->ln1_w = place(w, s->ln1_w, C);
    d->ln1_b = place(w, s->ln1_b, C);
    d->attn_w = place(w, s->attn_w, C * 3 * C);
    d->attn_b = place(w, s->attn_b, 3 * C);
    d->attn_proj_w = place(w, s->attn_proj_w, C * C);
    d->attn_proj_b = place(w, s->attn_proj_b, C);
    d->ln2_w = place(w, s->ln2_w, C);
    d->ln2_b = place(w, s->ln2_b, C);
    d->fc_w = place(w, s->fc_w, C * F);
    d->fc_b = place(w, s->fc_b, F);
    d->fc_proj_w = place(w, s->fc_proj_w, F * C);
    d->fc_proj_b = place(w, s->fc_proj_b, C);
  }
}

static tt_status setup_weights(tt_engine *e, tt_error *err) {
  tt_status st;
  float *sinusoid = NULL;
  if (e->cfg->positions == TT_POS_SINUSOIDAL) {
    size_t n = (size_t)e->max_T * e->C;
    if (zero_copy(e->be)) {
      if ((st = e->be->alloc(e->be, n, &e->pos_table, err)) != TT_OK) return st;
      sinusoid = (float *)e->pos_table.handle;
    } else if (!(sinusoid = malloc(n * sizeof(float)))) {
      return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory for the position table");
    }
    tt_sinusoid_table(sinusoid, e->max_T, e->C);
  }
  weight_walk w = {e, true, 0, TT_OK, err};
  if (!zero_copy(e->be)) {
    walk_weights(&w, sinusoid);
    if ((st = e->be->alloc(e->be, w.used, &e->weights, err)) != TT_OK) {
      free(sinusoid);
      return tt_fail_prefix(err, "engine: weights (%zu floats)", w.used);
    }
    w = (weight_walk){e, false, 0, TT_OK, err};
  }
  w.count_only = false;
  walk_weights(&w, sinusoid);
  if (!zero_copy(e->be)) free(sinusoid);
  if (w.st == TT_OK && e->be->finish) w.st = e->be->finish(e->be, err);
  return w.st;
}

// ---- workspace --------------------------------------------------------------------------
// Carves the slots out of one allocation (or, with base.handle NULL, counts the floats).
static size_t carve_workspace(tt_engine *e, tt_buf base) {
  size_t T = (size_t)e->max_T, C = (size_t)e->C, H = (size_t)e->H, F = (size_t)e->F, V = (size_t)e->V;
  size_t used = 0;
  tt_workspace *ws = &e->ws;
  struct {
    tt_buf *slot;
    size_t n;
  } slots[] = {
      {&ws->resid[0], T * C}, {&ws->resid[1], T * C}, {&ws->embed, T * C},     {&ws->pos, T * C},
      {&ws->ln_mean, T},      {&ws->ln_scale, T},     {&ws->ln_norm, T * C},   {&ws->ln_out, T * C},
      {&ws->qkv, T * 3 * C},  {&ws->q, T * C},        {&ws->k, T * C},         {&ws->v, T * C},
      {&ws->scores[0], H * T * T}, {&ws->scores[1], H * T * T}, {&ws->z, T * C}, {&ws->merged, T * C},
      {&ws->attn_out, T * C}, {&ws->mlp_pre, T * F},  {&ws->mlp_post, T * F},  {&ws->mlp_out, T * C},
      {&ws->logits, T * V},   {&ws->probs, T * V},    {&ws->loss, T},
  };
  for (size_t i = 0; i < sizeof slots / sizeof *slots; i++) {
    if (base.handle) *slots[i].slot = tt_buf_view(base, used, slots[i].n);
    used += (slots[i].n + 15) & ~(size_t)15;  // keep every slot 64-byte aligned
  }
  return used;
}

// ---- create / destroy ---------------------------------------------------------------------
static tt_status check_config(const tt_config *c, tt_error *err) {
  if (c->n_layer < 0 || c->n_head < 1 || c->n_embd < 1 || c->vocab_size < 1 || c->n_positions < 1 ||
      c->n_inner < 1)
    return tt_fail(err, TT_ERR_ARG,
                   "engine: bad config (n_layer %d, n_head %d, n_embd %d, n_inner %d, vocab_size %d, "
                   "n_positions %d)",
                   c->n_layer, c->n_head, c->n_embd, c->n_inner, c->vocab_size, c->n_positions);
  if (c->n_embd % c->n_head != 0)
    return tt_fail(err, TT_ERR_ARG, "engine: n_embd %d is not a multiple of n_head %d", c->n_embd, c->n_head);
  return TT_OK;
}

tt_status tt_engine_create(const tt_model *model, tt_backend *be, int max_T, tt_engine **out, tt_error *err) {
  *out = NULL;
  tt_status st = check_config(&model->cfg, err);
  if (st != TT_OK) return st;
  if (max_T < 1) return tt_fail(err, TT_ERR_ARG, "engine: max_T must be at least 1 (got %d)", max_T);
  if (model->cfg.positions == TT_POS_LEARNED && !model->wpe)
    return tt_fail(err, TT_ERR_ARG,
                   "engine: learned positions need wpe.weight, which this model does not have "
                   "(use positions=sinusoidal or positions=none)");
  if (!model->wte || !model->lm_head || !model->lnf_w || !model->lnf_b || (model->cfg.n_layer && !model->layers))
    return tt_fail(err, TT_ERR_ARG, "engine: the model lacks some of its weights");
  tt_engine *e = calloc(1, sizeof *e);
  if (!e) return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  e->model = model;
  e->cfg = &model->cfg;
  e->be = be;
  e->max_T = max_T < model->cfg.n_positions ? max_T : model->cfg.n_positions;
  e->C = model->cfg.n_embd;
  e->H = model->cfg.n_head;
  e->D = e->C / e->H;
  e->F = model->cfg.n_inner;
  e->V = model->cfg.vocab_size;
  e->layers = calloc(model->cfg.n_layer ? (size_t)model->cfg.n_layer : 1, sizeof *e->layers);
  if (!e->layers) {
    free(e);
    return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  }
  if ((st = setup_weights(e, err)) != TT_OK) goto fail;
  size_t n = carve_workspace(e, (tt_buf){0});
  if ((st = be->alloc(be, n, &e->work, err)) != TT_OK) {
    tt_fail_prefix(err, "engine: workspace for %d tokens", e->max_T);
    goto fail;
  }
  carve_workspace(e, e->work);
  *out = e;
  return TT_OK;
fail:
  tt_engine_destroy(e);
  return st;
}

void tt_engine_destroy(tt_engine *e) {
  if (!e) return;
  if (e->work.handle) e->be->release(e->be, &e->work);
  if (e->weights.handle) e->be->release(e->be, &e->weights);
  if (e->pos_table.handle) e->be->release(e->be, &e->pos_table);
  free(e->layers);
  free(e);
}

// ---- recording --------------------------------------------------------------------------
static size_t numel(int ndim, const int64_t *shape) {
  size_t n = 1;
  for (int i = 0; i < ndim; i++) n *= (size_t)shape[i];
  return n;
}

tt_step_out tt_engine_out(tt_engine *e, const char *name, int ndim, const int64_t *shape, tt_buf slot) {
  size_t n = numel(ndim, shape);
  tt_step_out o = {tt_buf_view(slot, 0, n), NULL, n};
  float *mem = e->rec ? e->rec->reserve(e->rec->ctx, name, TT_F32, ndim, shape) : NULL;
  if (!mem) return o;
  if (zero_copy(e->be))
    o.buf = e->be->wrap(e->be, mem, n);  // compute straight into the trace
  else
    o.pending = mem;
  return o;
}

tt_status tt_engine_done(tt_engine *e, tt_step_out o, tt_error *err) {
  if (!o.pending) return TT_OK;
  return e->be->download(e->be, o.buf, o.pending, o.n, err);
}

tt_status tt_engine_offer(tt_engine *e, const char *name, int ndim, const int64_t *shape, tt_buf buf,
                          tt_error *err) {
  float *mem = e->rec ? e->rec->reserve(e->rec->ctx, name, TT_F32, ndim, shape) : NULL;
  if (!mem) return TT_OK;
  return e->be->download(e->be, buf, mem, numel(ndim, shape), err);
}

// ---- run ----------------------------------------------------------------------------------
// The checks every run makes before touching the backend, each with its own message.
static tt_status check_input(const tt_engine *e, const int32_t *ids, int T, tt_error *err) {
  if (T < 1) return tt_fail(err, TT_ERR_ARG, "engine: no tokens to run (the prompt is empty)");
  if (T > e->cfg->n_positions)
    return tt_fail(err, TT_ERR_ARG, "engine: %d tokens is more than the model's n_positions (%d)", T,
                   e->cfg->n_positions);
  if (T > e->max_T)
    return tt_fail(err, TT_ERR_ARG, "engine: %d tokens is more than this engine was created for (%d)", T,
                   e->max_T);
  for (int t = 0; t < T; t++)
    if (ids[t] < 0 || ids[t] >= e->V)
      return tt_fail(err, TT_ERR_ARG, "engine: token %d has id %d, outside the vocabulary (0..%d)", t,
                     (int)ids[t], e->V - 1);
  return TT_OK;
}

tt_status tt_engine_run(tt_engine *e, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err) {
  tt_status st = check_input(e, ids, T, err);
  if (st != TT_OK) return st;
  e->rec = (rec && rec->reserve) ? rec : NULL;
  e->ids = ids;
  e->T = T;
  tt_buf resid;
  if ((st = tt_step_tokens(e, err)) != TT_OK) goto done;
  if ((st = tt_step_embed(e, &resid, err)) != TT_OK) goto done;
  for (int l = 0; l < e->cfg->n_layer; l++)
    if ((st = tt_step_block(e, l, &resid, err)) != TT_OK) goto done;
  if ((st = tt_step_head(e, resid, err)) != TT_OK) goto done;
  if (e->be->finish) st = e->be->finish(e->be, err);
done:
  e->rec = NULL;
  e->ids = NULL;
  return st;
}

// ---- positions -------------------------------------------------------------------------------
void tt_sinusoid_table(float *table, int rows, int C) {
  for (int p = 0; p < rows; p++)
    for (int c = 0; c < C; c++) {
      int two_i = c & ~1;  // 2i for both members of a sin/cos pair
      double angle = (double)p / pow(10000.0, (double)two_i / (double)C);
      table[(size_t)p * C + c] = (float)((c & 1) ? cos(angle) : sin(angle));
    }
}
