// grads: the weight gradients. One allocation holds them all, carved into views shaped like
// the weights (e->dw mirrors e->w); they are recorded as grad.<name> with the names and
// layouts of model.safetensors (without "transformer.", Conv1D weights (in, out)). Each
// pass clears only the gradients it adds into (tt_grads_clear); the products write the rest.
// Shape legend in engine_internal.h; P = n_positions.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

// One weight gradient: its name in the file, its view in e->dw, its shape.
typedef struct {
  char name[64];
  tt_buf *buf;
  tt_dims shape;
} grad_entry;

enum { PER_LAYER = 12, LLAMA_PER_LAYER = 16, HEAD_ENTRIES = 5 };

// One block weight of a Llama model: its name after model.layers.L., its view, its shape.
typedef struct {
  const char *part;
  tt_buf *buf;
  tt_dims shape;
  bool present;
} llama_row;

// The Llama model's weight gradients (nn.Linear (out, in), biases only where the model has
// them), named as in its checkpoint.
static int list_llama_grads(tt_engine *e, grad_entry *list) {
  int n = 0, C = e->C, F = e->F, V = e->V, HD = e->H * e->D, GD = e->G * e->D;
  bool ab = e->cfg->attn_bias, mb = e->cfg->mlp_bias;
  tt_weight_bufs *d = &e->dw;
  list[n++] = (grad_entry){"model.embed_tokens.weight", &d->wte, TT_DIMS(V, C)};
  for (int l = 0; l < e->cfg->n_layer; l++) {
    tt_layer_bufs *b = &d->layers[l];
    llama_row rows[LLAMA_PER_LAYER] = {
        {"input_layernorm.weight", &b->ln1_w, TT_DIMS(C), true},
        {"self_attn.q_proj.weight", &b->q_w, TT_DIMS(HD, C), true},
        {"self_attn.k_proj.weight", &b->k_w, TT_DIMS(GD, C), true},
        {"self_attn.v_proj.weight", &b->v_w, TT_DIMS(GD, C), true},
        {"self_attn.o_proj.weight", &b->o_w, TT_DIMS(C, HD), true},
        {"self_attn.q_proj.bias", &b->q_b, TT_DIMS(HD), ab},
        {"self_attn.k_proj.bias", &b->k_b, TT_DIMS(GD), ab},
        {"self_attn.v_proj.bias", &b->v_b, TT_DIMS(GD), ab},
        {"self_attn.o_proj.bias", &b->o_b, TT_DIMS(C), ab},
        {"post_attention_layernorm.weight", &b->ln2_w, TT_DIMS(C), true},
        {"mlp.gate_proj.weight", &b->gate_w, TT_DIMS(F, C), true},
        {"mlp.up_proj.weight", &b->up_w, TT_DIMS(F, C), true},
        {"mlp.down_proj.weight", &b->down_w, TT_DIMS(C, F), true},
        {"mlp.gate_proj.bias", &b->gate_b, TT_DIMS(F), mb},
        {"mlp.up_proj.bias", &b->up_b, TT_DIMS(F), mb},
        {"mlp.down_proj.bias", &b->down_b, TT_DIMS(C), mb},
    };
    for (int i = 0; i < LLAMA_PER_LAYER; i++) {
      if (!rows[i].present) continue;
      grad_entry *g = &list[n++];
      snprintf(g->name, sizeof g->name, "model.layers.%d.%s", l, rows[i].part);
      g->buf = rows[i].buf;
      g->shape = rows[i].shape;
    }
  }
  list[n++] = (grad_entry){"model.norm.weight", &d->lnf_w, TT_DIMS(C)};
  if (e->model->lm_head != e->model->wte) list[n++] = (grad_entry){"lm_head.weight", &d->lm_head, TT_DIMS(V, C)};
  return n;
}

// Lists every weight gradient of e's model into list (room for HEAD_ENTRIES + PER_LAYER·L); the count.
static int list_grads(tt_engine *e, grad_entry *list) {
  if (e->cfg->arch == TT_ARCH_LLAMA) return list_llama_grads(e, list);
  int n = 0, C = e->C, F = e->F, V = e->V, P = e->cfg->n_positions;
  tt_weight_bufs *d = &e->dw;
  list[n++] = (grad_entry){"wte.weight", &d->wte, TT_DIMS(V, C)};
  if (e->cfg->positions == TT_POS_LEARNED) list[n++] = (grad_entry){"wpe.weight", &d->positions, TT_DIMS(P, C)};
  for (int l = 0; l < e->cfg->n_layer; l++) {
    tt_layer_bufs *b = &d->layers[l];
    struct {
      const char *part;
      tt_buf *buf;
      tt_dims shape;
    } rows[PER_LAYER] = {
        {"ln_1.weight", &b->ln1_w, TT_DIMS(C)},
        {"ln_1.bias", &b->ln1_b, TT_DIMS(C)},
        {"attn.c_attn.weight", &b->attn_w, TT_DIMS(C, 3 * C)},
        {"attn.c_attn.bias", &b->attn_b, TT_DIMS(3 * C)},
        {"attn.c_proj.weight", &b->attn_proj_w, TT_DIMS(C, C)},
        {"attn.c_proj.bias", &b->attn_proj_b, TT_DIMS(C)},
        {"ln_2.weight", &b->ln2_w, TT_DIMS(C)},
        {"ln_2.bias", &b->ln2_b, TT_DIMS(C)},
        {"mlp.c_fc.weight", &b->fc_w, TT_DIMS(C, F)},
        {"mlp.c_fc.bias", &b->fc_b, TT_DIMS(F)},
        {"mlp.c_proj.weight", &b->fc_proj_w, TT_DIMS(F, C)},
        {"mlp.c_proj.bias", &b->fc_proj_b, TT_DIMS(C)},
    };
    for (int i = 0; i < PER_LAYER; i++) {
      grad_entry *g = &list[n++];
      snprintf(g->name, sizeof g->name, "h.%d.%s", l, rows[i].part);
      g->buf = rows[i].buf;
      g->shape = rows[i].shape;
    }
  }
  list[n++] = (grad_entry){"ln_f.weight", &d->lnf_w, TT_DIMS(C)};
  list[n++] = (grad_entry){"ln_f.bias", &d->lnf_b, TT_DIMS(C)};
  if (e->model->lm_head != e->model->wte) list[n++] = (grad_entry){"lm_head.weight", &d->lm_head, TT_DIMS(V, C)};
  return n;
}

static size_t numel(tt_dims s) {
  size_t n = 1;
  for (int i = 0; i < s.ndim; i++) n *= (size_t)s.d[i];
  return n;
}

// The list, made once by tt_grads_setup and read by every run's tt_grads_offer.
struct tt_grad_list {
  int32_t *dirty;  // (max_T) the token ids of the last pass: the untied embedding rows it added to
  int n_dirty;
  int position_rows;  // the learned positions' rows not known to be 0: the last pass's T (all at first)
  int n;
  grad_entry entries[];
};

tt_status tt_grads_setup(tt_engine *e, tt_error *err) {
  if (!(e->dw.layers = calloc(e->cfg->n_layer ? (size_t)e->cfg->n_layer : 1, sizeof *e->dw.layers)))
    return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  size_t room = (size_t)HEAD_ENTRIES + (size_t)LLAMA_PER_LAYER * e->cfg->n_layer;
  if (!(e->grad_list = calloc(1, sizeof *e->grad_list + room * sizeof(grad_entry))))
    return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  grad_entry *list = e->grad_list->entries;
  int n = e->grad_list->n = list_grads(e, list);
  e->grad_list->position_rows = e->cfg->n_positions;
  size_t total = 0;
  for (int i = 0; i < n; i++) total += numel(list[i].shape);
  tt_status st = e->be->alloc(e->be, total, &e->dw_all, err);
  if (st != TT_OK) tt_fail_prefix(err, "engine: weight gradients (%zu floats)", total);
  for (size_t used = 0, i = 0; st == TT_OK && i < (size_t)n; used += numel(list[i].shape), i++)
    *list[i].buf = tt_buf_view(e->dw_all, used, numel(list[i].shape));
  if (e->model->lm_head == e->model->wte) e->dw.lm_head = e->dw.wte;  // tied: one gradient, both uses
  if (st == TT_OK && !(e->grad_list->dirty = malloc((size_t)e->max_T * sizeof *e->grad_list->dirty)))
    st = tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  if (st == TT_OK && e->model->lm_head != e->model->wte) st = e->be->zero(e->be, e->dw.wte, e->dw.wte.n, err);
  return st;
}

void tt_grads_release(tt_engine *e) {
  if (e->dw_all.handle) e->be->release(e->be, &e->dw_all);
  free(e->dw.layers);
  e->dw.layers = NULL;
  if (e->grad_list) free(e->grad_list->dirty);
  free(e->grad_list);
  e->grad_list = NULL;
}

// Whether a pass adds into a weight gradient (so it must start at 0): the vectors (biases and
// norm weights: sums over the tokens), the learned positions (T of their rows) and, untied,
// the embedding (the prompt's rows only). Every other matrix is written whole by its product
// (matmul_tn without accumulate); tied, the embedding's gradient is the unembedding's product,
// which the lookup then adds to.
static bool accumulated(const tt_engine *e, const grad_entry *g) {
  if (g->shape.ndim == 1 || g->buf == &e->dw.positions) return true;
  return g->buf == &e->dw.wte && e->model->lm_head != e->model->wte;
}

tt_status tt_grads_clear(tt_engine *e, tt_error *err) {
  struct tt_grad_list *gl = e->grad_list;
  int C = e->C;
  for (int i = 0; i < gl->n; i++) {
    const grad_entry *g = &gl->entries[i];
    if (!accumulated(e, g)) continue;
    if (g->buf == &e->dw.positions) {  // rows 0..T−1 of a pass: clear the last pass's
      TRY(e->be->zero(e->be, *g->buf, (size_t)gl->position_rows * C, err));
      gl->position_rows = e->run.T;
      continue;
    }
    if (g->buf != &e->dw.wte) {
      TRY(e->be->zero(e->be, *g->buf, g->buf->n, err));
      continue;
    }
    // untied embedding: only the rows the last pass added to are not 0 (setup cleared them all)
    for (int t = 0; t < gl->n_dirty; t++)
      TRY(e->be->zero(e->be, tt_buf_view(e->dw.wte, (size_t)gl->dirty[t] * C, (size_t)C), (size_t)C, err));
    memcpy(gl->dirty, e->run.ids, (size_t)e->run.T * sizeof *gl->dirty);
    gl->n_dirty = e->run.T;
  }
  return TT_OK;
}

tt_status tt_grads_offer(tt_engine *e, tt_error *err) {
  const grad_entry *list = e->grad_list->entries;
  tt_status st = TT_OK;
  for (int i = 0; i < e->grad_list->n && st == TT_OK; i++)
    st = tt_engine_offer(e, -1, list[i].name, list[i].shape, *list[i].buf, err);
  return st;
}
