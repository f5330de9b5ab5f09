// collapse: the feed-forward network of one block with the identity activation, written
// as the single linear map it then is (lesson 9). With no bend between them the two
// layers compose: (x·W_fc + b_fc)·W_proj + b_proj = x·(W_fc·W_proj) + (b_fc·W_proj + b_proj).
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline.h"

void tt_ffn_collapse_free(tt_ffn_collapse *c) {
  free(c->W);
  free(c->b);
  free(c->direct);
  memset(c, 0, sizeof *c);
}

// W = W_fc·W_proj (C,C) and b = b_fc·W_proj + b_proj (C), summed in double.
static void combine(const tt_layer_weights *w, int C, int F, float *W, float *b) {
  for (int i = 0; i < C; i++)
    for (int j = 0; j < C; j++) {
      double s = 0;
      for (int f = 0; f < F; f++) s += (double)w->fc_w[(size_t)i * F + f] * w->fc_proj_w[(size_t)f * C + j];
      W[(size_t)i * C + j] = (float)s;
    }
  for (int j = 0; j < C; j++) {
    double s = w->fc_proj_b[j];
    for (int f = 0; f < F; f++) s += (double)w->fc_b[f] * w->fc_proj_w[(size_t)f * C + j];
    b[j] = (float)s;
  }
}

tt_status tt_ffn_collapse_compute(const tt_model *m, int layer, const tt_tensor *x, const tt_tensor *out,
                                  tt_ffn_collapse *c, tt_error *err) {
  memset(c, 0, sizeof *c);
  if (layer < 0 || layer >= m->cfg.n_layer)
    return tt_fail(err, TT_ERR_ARG, "block %d: the model has blocks 0 to %d", layer, m->cfg.n_layer - 1);
  int C = m->cfg.n_embd, F = m->cfg.n_inner ? m->cfg.n_inner : 4 * C;
  if (x->ndim != 2 || x->shape[1] != C || x->dtype != TT_F32 || out->ndim != 2 || out->shape[0] != x->shape[0] ||
      out->shape[1] != C || out->dtype != TT_F32)
    return tt_fail(err, TT_ERR_FORMAT, "%s and %s should both be (T, %d) F32", x->name, out->name, C);
  int T = (int)x->shape[0];
  c->T = T, c->C = C, c->F = F;
  c->W = malloc(sizeof *c->W * (size_t)C * C);
  c->b = malloc(sizeof *c->b * (size_t)C);
  c->direct = malloc(sizeof *c->direct * (size_t)T * C);
  if (!c->W || !c->b || !c->direct) {
    tt_ffn_collapse_free(c);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  combine(&m->layers[layer], C, F, c->W, c->b);
  const float *xs = x->data, *os = out->data;  // (T,C) each
  c->max_at = -1;
  for (int t = 0; t < T; t++)
    for (int j = 0; j < C; j++) {
      double s = c->b[j];
      for (int i = 0; i < C; i++) s += (double)xs[(size_t)t * C + i] * c->W[(size_t)i * C + j];
      c->direct[(size_t)t * C + j] = (float)s;
      double d = fabs(s - os[(size_t)t * C + j]);
      if (c->max_at < 0 || d > c->max_diff) c->max_diff = d, c->max_at = (int64_t)t * C + j;
    }
  return TT_OK;
}
