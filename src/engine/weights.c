// weights: the model's weights as backend buffers. Host backends use the model's memory in
// place (read-only views), until the engine packs the weights of the products into the
// backend's faster layout (pack_weight; tt_weights_before_pass says when); device backends
// get every weight uploaded into consecutive views of one allocation. Shape legend in
// engine_internal.h.
#include <math.h>
#include <stdlib.h>

#include "engine_internal.h"

// Walks every weight once: wraps it (host), uploads it into the next view of w->e's
// allocation (device), or, with count_only, only adds up the floats needed.
typedef struct {
  tt_engine *e;
  bool count_only;
  bool pack;    // place_product packs what it can (tt_weights_pack)
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
  if (tt_engine_zero_copy(e->be)) return e->be->wrap_read_only(e->be, src, n);
  tt_buf view = tt_buf_view(e->w.all, w->used, n);
  w->used += n;
  if (w->st == TT_OK) w->st = e->be->upload(e->be, view, src, n, w->err);
  return view;
}

// Whether place_product packs the weight at src (n floats): when asked, the backend has a
// faster layout (pack_weight) and the stored copy is the file's, whose pages can leave
// memory. A model's converted weights (F16/BF16) stay as they are: a packed copy would be a
// second.
static bool packs(const weight_walk *w, const float *src, size_t n) {
  return w->pack && !w->count_only && w->e->be->pack_weight && tt_model_weight_in_file(w->e->model, src, n);
}

// A weight that the forward pass multiplies by, a (M,K) · w with w (K,N), or (N,K) with
// trans_b: packed when packs() (the file's pages then leave memory; a reader of the model's
// weights reads them from the file again), else (also after a failure) placed as stored.
static tt_buf place_product(weight_walk *w, const float *src, int K, int N, bool trans_b) {
  tt_engine *e = w->e;
  size_t n = (size_t)K * N;
  tt_buf packed;
  if (!packs(w, src, n) || w->st != TT_OK ||
      (w->st = e->be->pack_weight(e->be, src, K, N, trans_b, &packed, w->err)) != TT_OK)
    return place(w, src, n);
  tt_model_drop_pages(e->model, src, n);
  return packed;
}

// A weight that may be absent (a Llama bias): unset when src is NULL.
static tt_buf place_optional(weight_walk *w, const float *src, size_t n) {
  return src ? place(w, src, n) : (tt_buf){0};
}

static void place_llama_layer(weight_walk *w, const tt_layer_weights *s, tt_layer_bufs *d) {
  const tt_engine *e = w->e;
  size_t C = (size_t)e->C, F = (size_t)e->F, HD = (size_t)e->H * e->D, GD = (size_t)e->G * e->D;
  int c = e->C, f = e->F, hd = e->H * e->D, gd = e->G * e->D;  // nn.Linear (out,in): products with trans_b
  d->ln1_w = place(w, s->ln1_w, C);
  d->q_w = place_product(w, s->q_w, c, hd, true);
  d->k_w = place_product(w, s->k_w, c, gd, true);
  d->v_w = place_product(w, s->v_w, c, gd, true);
  d->o_w = place_product(w, s->o_w, hd, c, true);
  d->q_b = place_optional(w, s->q_b, HD);
  d->k_b = place_optional(w, s->k_b, GD);
  d->v_b = place_optional(w, s->v_b, GD);
  d->o_b = place_optional(w, s->o_b, C);
  d->ln2_w = place(w, s->ln2_w, C);
  d->gate_w = place_product(w, s->gate_w, c, f, true);
  d->up_w = place_product(w, s->up_w, c, f, true);
  d->down_w = place_product(w, s->down_w, f, c, true);
  d->gate_b = place_optional(w, s->gate_b, F);
  d->up_b = place_optional(w, s->up_b, F);
  d->down_b = place_optional(w, s->down_b, C);
}

static void place_layer(weight_walk *w, const tt_layer_weights *s, tt_layer_bufs *d) {
  if (w->e->cfg->arch == TT_ARCH_LLAMA) {
    place_llama_layer(w, s, d);
    return;
  }
  int C = w->e->C, F = w->e->F;
  d->ln1_w = place(w, s->ln1_w, (size_t)C);
  d->ln1_b = place(w, s->ln1_b, (size_t)C);
  d->attn_w = place_product(w, s->attn_w, C, 3 * C, false);
  d->attn_b = place(w, s->attn_b, 3 * (size_t)C);
  d->attn_proj_w = place_product(w, s->attn_proj_w, C, C, false);
  d->attn_proj_b = place(w, s->attn_proj_b, (size_t)C);
  d->ln2_w = place(w, s->ln2_w, (size_t)C);
  d->ln2_b = place(w, s->ln2_b, (size_t)C);
  d->fc_w = place_product(w, s->fc_w, C, F, false);
  d->fc_b = place(w, s->fc_b, (size_t)F);
  d->fc_proj_w = place_product(w, s->fc_proj_w, F, C, false);
  d->fc_proj_b = place(w, s->fc_proj_b, (size_t)C);
}

// sinusoid: the position table (max_T,C) in host memory, NULL unless positions are sinusoidal.
static void walk_weights(weight_walk *w, const float *sinusoid) {
  tt_engine *e = w->e;
  const tt_model *m = e->model;
  size_t C = (size_t)e->C, V = (size_t)e->V, rows = (size_t)e->max_T;
  e->w.wte = place(w, m->wte, V * C);
  if (e->cfg->positions == TT_POS_LEARNED)
    e->w.positions = place(w, m->wpe, rows * C);  // only the rows a run can use
  else if (e->cfg->positions == TT_POS_SINUSOIDAL)
    e->w.positions = tt_engine_zero_copy(e->be) ? e->w.pos_table : place(w, sinusoid, rows * C);
  e->w.lnf_w = place(w, m->lnf_w, C);
  e->w.lnf_b = place_optional(w, m->lnf_b, C);
  if (packs(w, m->lm_head, V * C)) {
    e->w.lm_head = place_product(w, m->lm_head, (int)C, (int)V, true);
    if (m->lm_head == m->wte && e->w.lm_head.panels) e->w.wte = e->w.lm_head;  // tied: rows from the copy
  } else
    e->w.lm_head = (m->lm_head == m->wte) ? e->w.wte : place(w, m->lm_head, V * C);
  for (int l = 0; l < e->cfg->n_layer; l++) place_layer(w, &m->layers[l], &e->w.layers[l]);
}

// The sinusoidal table (max_T,C): in its own backend buffer on host backends (*table points
// into it), in malloc'd memory (*owned, for the upload) on device backends.
static tt_status make_sinusoid(tt_engine *e, const float **table, float **owned, tt_error *err) {
  size_t n = (size_t)e->max_T * e->C;
  float *mem;
  if (tt_engine_zero_copy(e->be)) {
    tt_status st = e->be->alloc(e->be, n, &e->w.pos_table, err);
    if (st != TT_OK) return st;
    mem = e->w.pos_table.handle;
  } else if (!(mem = *owned = malloc(n * sizeof(float)))) {
    return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory for the position table");
  }
  tt_sinusoid_table(mem, e->max_T, e->C);
  *table = mem;
  return TT_OK;
}

// The rotary table (max_T,D) and the ALiBi slopes (H), when the config uses them, in one
// backend buffer (e->w.owned) with e->w.rope and e->w.alibi_slopes views of it.
static tt_status make_position_tables(tt_engine *e, tt_error *err) {
  bool rope = e->cfg->positions == TT_POS_ROPE, alibi = e->cfg->positions == TT_POS_ALIBI;
  if (!rope && !alibi) return TT_OK;
  size_t n = rope ? 2 * (size_t)e->max_T * e->D : (size_t)e->H;  // rope: the table and its inverse
  float *host = malloc(n * sizeof(float));
  if (!host) return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory for the position table");
  if (rope) {
    size_t half = n / 2;
    tt_rope_table(host, e->max_T, e->D, e->cfg->rope_theta, e->cfg->rope_offset);
    for (size_t i = 0; i < half; i++)  // cos stays, sin changes sign: the rotation by −angle
      host[half + i] = ((int)(i % (size_t)e->D) < e->D / 2) ? host[i] : -host[i];
  } else
    tt_alibi_slopes(host, e->H);
  tt_status st = e->be->alloc(e->be, n, &e->w.owned, err);
  if (st == TT_OK) st = e->be->upload(e->be, e->w.owned, host, n, err);
  free(host);
  if (st != TT_OK) return st;
  if (rope) {
    e->w.rope = tt_buf_view(e->w.owned, 0, n / 2);
    e->w.rope_inverse = tt_buf_view(e->w.owned, n / 2, n / 2);
  } else
    e->w.alibi_slopes = e->w.owned;
  return TT_OK;
}

tt_status tt_weights_setup(tt_engine *e, tt_error *err) {
  tt_status pt = make_position_tables(e, err);
  if (pt != TT_OK) return pt;
  const float *sinusoid = NULL;
  float *owned = NULL;
  tt_status st = TT_OK;
  if (e->cfg->positions == TT_POS_SINUSOIDAL && (st = make_sinusoid(e, &sinusoid, &owned, err)) != TT_OK) return st;
  weight_walk w = {e, true, false, 0, TT_OK, err};
  if (!tt_engine_zero_copy(e->be)) {
    walk_weights(&w, sinusoid);  // count
    if ((st = e->be->alloc(e->be, w.used, &e->w.all, err)) != TT_OK) {
      free(owned);
      return tt_fail_prefix(err, "engine: weights (%zu floats)", w.used);
    }
  }
  w = (weight_walk){e, false, false, 0, TT_OK, err};
  walk_weights(&w, sinusoid);
  free(owned);
  if (w.st == TT_OK && e->be->finish) w.st = e->be->finish(e->be, err);
  return w.st;
}

// The engine packs its weights by itself once its passes of TT_ENGINE_PACK_MIN_T (64)
// rows or more have summed to TT_ENGINE_PACK_AFTER_ROWS (512), before the pass that gets
// there. The copy (0.8 s for GPT-2 small on the development VM, whose fresh memory is slow)
// costs about what the products of 512 rows gain from it there (one core, against
// OpenBLAS's Haswell kernels: T = 64 69 ms, T = 256 330 ms, T = 1024 1.15 s a pass): a
// process whose long passes come to fewer rows never pays for it, one that runs longer or
// more pays once (rent, then buy). Passes of fewer than 64 rows gain a few percent.
void tt_weights_before_pass(tt_engine *e, int T) {
  if (e->w.packed || T < TT_ENGINE_PACK_MIN_T || (e->w.rows_before_packing += (size_t)T) < TT_ENGINE_PACK_AFTER_ROWS)
    return;
  tt_error ignored = {0};  // out of memory: the rest stay as stored, which is slower, not wrong
  tt_weights_pack(e, &ignored);
}

tt_status tt_weights_pack(tt_engine *e, tt_error *err) {
  if (e->w.packed || !e->be->pack_weight || !tt_engine_zero_copy(e->be)) return TT_OK;
  weight_walk w = {e, false, true, 0, TT_OK, err};  // every other weight is wrapped again, as it was
  walk_weights(&w, NULL);
  e->w.packed = true;  // also after a failure: what was packed stays (place_product)
  return w.st;
}

void tt_weights_release(tt_engine *e) {
  if (e->w.lm_head.panels) e->be->release(e->be, &e->w.lm_head);  // the packed ones (place_product)
  for (int l = 0; e->w.layers && l < e->cfg->n_layer; l++) {
    tt_layer_bufs *b = &e->w.layers[l];
    tt_buf *own[] = {&b->attn_w, &b->attn_proj_w, &b->fc_w,   &b->fc_proj_w, &b->q_w,   &b->k_w,
                     &b->v_w,    &b->o_w,         &b->gate_w, &b->up_w,      &b->down_w};
    for (size_t i = 0; i < sizeof own / sizeof *own; i++)
      if (own[i]->panels) e->be->release(e->be, own[i]);
  }
  if (e->w.all.handle) e->be->release(e->be, &e->w.all);
  if (e->w.pos_table.handle) e->be->release(e->be, &e->w.pos_table);
  if (e->w.owned.handle) e->be->release(e->be, &e->w.owned);
}

void tt_sinusoid_table(float *table, int rows, int C) {
  for (int p = 0; p < rows; p++)
    for (int c = 0; c < C; c++) {
      int two_i = c & ~1;  // 2i for both members of a sin/cos pair
      double angle = (double)p / pow(10000.0, (double)two_i / (double)C);
      table[(size_t)p * C + c] = (float)((c & 1) ? cos(angle) : sin(angle));
    }
}
