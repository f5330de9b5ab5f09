// timing: the op times of real runs, through the engine's op_done callback, and the fused
// against the separate Q/K/V products on a backend.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/backend.h"
#include "engine/engine.h"
#include "cost.h"

typedef struct {
  tt_cost_pass *pass;
  bool counting;  // false during the warm-up run
  char unknown[96];
} timer;

static void *record_nothing(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape) {
  (void)ctx, (void)name, (void)dtype, (void)ndim, (void)shape;
  return NULL;
}

static void on_op(void *ctx, const char *name, double seconds) {
  timer *t = ctx;
  int i = tt_cost_find(t->pass, name);
  if (i < 0) {
    if (!t->unknown[0]) snprintf(t->unknown, sizeof t->unknown, "%s", name);
    return;
  }
  if (t->counting) t->pass->ops[i].seconds += seconds;
}

tt_status tt_cost_time(struct tt_engine *eng, const int32_t *ids, int T, int repeats, tt_cost_pass *pass,
                       tt_error *err) {
  if (repeats < 1) repeats = 1;
  timer t = {.pass = pass};
  tt_recorder rec = {.reserve = record_nothing, .ctx = &t, .op_done = on_op};
  for (int i = 0; i < pass->n; i++) pass->ops[i].seconds = 0;
  tt_status st = tt_engine_run(eng, ids, T, &rec, err);  // warm-up: caches, first-touch pages
  t.counting = true;
  double t0 = tt_now_seconds();
  for (int r = 0; r < repeats && !st; r++) st = tt_engine_run(eng, ids, T, &rec, err);
  double wall = (tt_now_seconds() - t0) / repeats;
  if (st) return st;
  if (t.unknown[0])
    return tt_fail(err, TT_ERR_FORMAT, "cost: the engine ran an op the count does not know (%s)", t.unknown);
  pass->seconds = 0;
  for (int i = 0; i < pass->n; i++) {
    pass->ops[i].seconds /= repeats;
    pass->seconds += pass->ops[i].seconds;
  }
  pass->wall_seconds = wall;
  return TT_OK;
}

// ---- fused Q/K/V against three products ----------------------------------------------------
typedef struct {
  tt_buf x, fused_w, fused_b, out, w[3], b[3], part[3];
} qkv_bufs;

static void release_all(tt_backend *be, qkv_bufs *q) {
  tt_buf *all[] = {&q->x,    &q->fused_w, &q->fused_b, &q->out,     &q->w[0],    &q->w[1],   &q->w[2],
                   &q->b[0], &q->b[1],    &q->b[2],    &q->part[0], &q->part[1], &q->part[2]};
  for (size_t i = 0; i < sizeof all / sizeof *all; i++)
    if (tt_buf_is_set(*all[i])) be->release(be, all[i]);
}

// x (T,C) zeros-and-ones, W (C,3C) and b (3C) from layer 0; the thirds W[:, jC:(j+1)C] copied.
static tt_status upload(tt_backend *be, const tt_model *m, int T, qkv_bufs *q, tt_error *err) {
  int C = m->cfg.n_embd;
  size_t cc = (size_t)C * C;
  float *host = malloc(sizeof *host * (cc > (size_t)T * C ? cc : (size_t)T * C));
  if (!host) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = TT_OK;
  size_t sizes[] = {(size_t)T * C, 3 * cc, 3 * (size_t)C, (size_t)T * 3 * C};
  tt_buf *bufs[] = {&q->x, &q->fused_w, &q->fused_b, &q->out};
  for (int i = 0; i < 4 && !st; i++) st = be->alloc(be, sizes[i], bufs[i], err);
  for (int j = 0; j < 3 && !st; j++) {
    st = be->alloc(be, cc, &q->w[j], err);
    if (!st) st = be->alloc(be, (size_t)C, &q->b[j], err);
    if (!st) st = be->alloc(be, (size_t)T * C, &q->part[j], err);
  }
  const tt_layer_weights *w = &m->layers[0];
  for (size_t i = 0; i < (size_t)T * C && !st; i++) host[i] = (float)((i * 7919) % 13) / 13.0f - 0.5f;
  if (!st) st = be->upload(be, q->x, host, (size_t)T * C, err);
  if (!st) st = be->upload(be, q->fused_w, w->attn_w, 3 * cc, err);
  if (!st) st = be->upload(be, q->fused_b, w->attn_b, 3 * (size_t)C, err);
  for (int j = 0; j < 3 && !st; j++) {
    for (int r = 0; r < C; r++)
      memcpy(host + (size_t)r * C, w->attn_w + (size_t)r * 3 * C + (size_t)j * C, sizeof *host * (size_t)C);
    st = be->upload(be, q->w[j], host, cc, err);
    if (!st) st = be->upload(be, q->b[j], w->attn_b + (size_t)j * C, (size_t)C, err);
  }
  free(host);
  return st;
}

// Mean seconds of `repeats` runs of the fused product (fused) or the three (!fused).
static tt_status time_products(tt_backend *be, const qkv_bufs *q, int T, int C, int repeats, bool fused,
                               double *seconds, tt_error *err) {
  tt_status st = TT_OK;
  double t0 = 0;
  for (int r = -1; r < repeats && !st; r++) {  // r = -1: the warm-up
    if (r == 0) {
      if (be->finish && (st = be->finish(be, err))) return st;
      t0 = tt_now_seconds();
    }
    if (fused)
      st = be->matmul(be, q->out, q->x, q->fused_w, q->fused_b, T, C, 3 * C, false, err);
    else
      for (int j = 0; j < 3 && !st; j++) st = be->matmul(be, q->part[j], q->x, q->w[j], q->b[j], T, C, C, false, err);
  }
  if (!st && be->finish) st = be->finish(be, err);
  *seconds = (tt_now_seconds() - t0) / repeats;
  return st;
}

tt_status tt_cost_qkv_bench(struct tt_backend *be, const tt_model *m, int T, int repeats, tt_cost_qkv *out,
                            tt_error *err) {
  int C = m->cfg.n_embd;
  memset(out, 0, sizeof *out);
  *out = (tt_cost_qkv){.T = T, .C = C, .repeats = repeats};
  double t = T, c = C;
  out->fused_flops = 2 * t * c * 3 * c + t * 3 * c;
  out->separate_flops = 3 * (2 * t * c * c + t * c);
  out->fused_bytes = 4 * (t * c + 3 * c * c + 3 * c + 3 * t * c);
  out->separate_bytes = 3 * 4 * (t * c + c * c + c + t * c);
  qkv_bufs q = {0};
  tt_status st = upload(be, m, T, &q, err);
  if (!st) st = time_products(be, &q, T, C, repeats, true, &out->fused_seconds, err);
  if (!st) st = time_products(be, &q, T, C, repeats, false, &out->separate_seconds, err);
  if (!st) st = time_products(be, &q, T, C, repeats, true, &out->fused_seconds, err);  // again: order effects
  release_all(be, &q);
  return st;
}
