// derived: the placeholders whose numbers are not in the trace but follow from it:
// {{lensword STREAM[pos]}} and {{lensp STREAM[pos]}} (the logit lens of one stream at one
// position: its most probable next token and that probability, computed with the lesson's
// model, see lens/lens.h), and {{cost KEY}} (the FLOP and byte counts of the trace's pass
// and of one decode step after it, see cost/cost.h), and the embedding's neighbours
// ({{nearword tokens[P,K]}}, {{nearcos ...}}, {{cosine tokens[P,Q]}}, from the model's W_E).
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cost/cost.h"
#include "lens/lens.h"
#include "lesson_internal.h"

const char *const tt_lesson_cost_keys[] = {"flops",
                                           "bytes",
                                           "matmul_share",
                                           "intensity",
                                           "logits_share",
                                           "decode_flops",
                                           "decode_bytes",
                                           "decode_matmul_share",
                                           "decode_intensity",
                                           "qkv_flops",
                                           "qkv_fused_bytes",
                                           "qkv_separate_bytes",
                                           NULL};

#define LENS_CACHE 16  // traces whose lens is kept

struct tt_lesson_derived {
  tt_model *model;  // NULL until the first lens placeholder; the last one loaded
  const tt_trace *of[LENS_CACHE];
  tt_lens lens[LENS_CACHE];
  int n;
};

struct tt_lesson_derived *tt_lesson_derived_create(void) {
  return calloc(1, sizeof(struct tt_lesson_derived));
}

void tt_lesson_derived_destroy(struct tt_lesson_derived *d) {
  if (!d) return;
  for (int i = 0; i < d->n; i++) tt_lens_free(&d->lens[i]);
  tt_model_destroy(d->model);
  free(d);
}

// The model tr was made with: the folder its metadata names when it is there, else the
// lesson's `model:` header ("default" or a folder); kept in d while the folder is the same.
static tt_status model_for(const tt_lesson *l, const tt_trace *tr, struct tt_lesson_derived *d, tt_error *err) {
  char def[4096];
  const char *dir = tt_trace_meta(tr, "model");
  if (!dir || access(dir, F_OK) != 0) dir = tt_lesson_model(l);
  if (!dir || strcmp(dir, "default") == 0) {
    if (!tt_model_default_dir(def, sizeof def)) return tt_fail(err, TT_ERR_IO, "the default model is not installed");
    dir = def;
  }
  if (d->model && strcmp(d->model->dir, dir) == 0) return TT_OK;
  tt_model_destroy(d->model);
  d->model = NULL;
  return tt_model_load(dir, &d->model, err);
}

// The lens (top 1) of tr, from the lesson's cache or computed into it.
static tt_status lens_of(const tt_lesson *l, const tt_trace *tr, const tt_lens **out, tt_error *err) {
  struct tt_lesson_derived *d = l->derived;
  for (int i = 0; i < d->n; i++)
    if (d->of[i] == tr) {
      *out = &d->lens[i];
      return TT_OK;
    }
  tt_status st = model_for(l, tr, d, err);
  if (st) return st;
  int slot = d->n < LENS_CACHE ? d->n++ : LENS_CACHE - 1;  // full: the last slot is reused
  if (d->of[slot]) tt_lens_free(&d->lens[slot]);
  d->of[slot] = NULL;
  st = tt_lens_compute(d->model, tr, 1, &d->lens[slot], err);
  if (st) {
    if (slot == d->n - 1) d->n--;
    return st;
  }
  d->of[slot] = tr;
  *out = &d->lens[slot];
  return TT_OK;
}

tt_status tt_lesson_lens_top(const tt_lesson *l, const tt_trace *tr, const tt_placeholder *ph, int32_t *id, double *p,
                             tt_error *err) {
  tt_config cfg;
  if (!tt_trace_config(tr, &cfg)) return tt_fail(err, TT_ERR_FORMAT, "the trace has no readable config");
  int row = -1, T = tt_trace_n_tokens(tr);
  char hook[96];
  for (int r = 0; r <= cfg.n_layer && row < 0; r++)
    if (tt_lens_row_hook(&cfg, r, hook, sizeof hook) && strcmp(hook, ph->ref) == 0) row = r;
  if (row < 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s is not a stream the lens reads (blocks.0.hook_resid_pre, blocks.L.%s)",
                   ph->ref, cfg.post_ln ? "ln2.hook_out" : "hook_resid_post");
  int64_t pos = ph->n_idx == 1 ? ph->idx[0] : TT_PH_ANY;
  if (pos == TT_PH_ANY) return tt_fail(err, TT_ERR_FORMAT, "the lens needs one position, e.g. %s[-1]", ph->ref);
  if (pos < 0) pos += T;
  if (pos < 0 || pos >= T)
    return tt_fail(err, TT_ERR_ARG, "position %lld is outside the %d tokens", (long long)ph->idx[0], T);
  const tt_lens *lens = NULL;
  tt_status st = lens_of(l, tr, &lens, err);
  if (st) return st;
  *id = lens->ids[tt_lens_at(lens, row, (int)pos, 0)];
  *p = lens->probs[tt_lens_at(lens, row, (int)pos, 0)];
  return TT_OK;
}

// Token position i of tr (negative from the end), or -1 when outside its T tokens.
static int position_of(const tt_trace *tr, int64_t i) {
  int T = tt_trace_n_tokens(tr);
  if (i < 0) i += T;
  return i >= 0 && i < T ? (int)i : -1;
}

// cos(W_E[a], W_E[b]) in double; 0 where a row is all zeros.
static double cosine(const tt_model *m, int32_t a, int32_t b) {
  const float *x = m->wte + (size_t)a * (size_t)m->cfg.n_embd, *y = m->wte + (size_t)b * (size_t)m->cfg.n_embd;
  double xy = 0, xx = 0, yy = 0;
  for (int c = 0; c < m->cfg.n_embd; c++)
    xy += (double)x[c] * y[c], xx += (double)x[c] * x[c], yy += (double)y[c] * y[c];
  return xx > 0 && yy > 0 ? xy / sqrt(xx * yy) : 0;
}

tt_status tt_lesson_embed_value(const tt_lesson *l, const tt_trace *tr, const tt_placeholder *ph, int32_t *id,
                                double *v, tt_error *err) {
  bool pair = ph->func == TT_PH_COSINE;
  if (strcmp(ph->ref, "tokens") != 0 || ph->n_idx != 2 || ph->idx[0] == TT_PH_ANY || ph->idx[1] == TT_PH_ANY)
    return tt_fail(err, TT_ERR_FORMAT,
                   pair ? "cosine takes two token positions, e.g. {{cosine tokens[2,3]}}"
                        : "the neighbours take a token position and a rank, e.g. tokens[1,0]");
  int p = position_of(tr, ph->idx[0]), q = pair ? position_of(tr, ph->idx[1]) : 0;
  if (p < 0 || q < 0) return tt_fail(err, TT_ERR_ARG, "a token position outside the trace's %d", tt_trace_n_tokens(tr));
  if (!pair && (ph->idx[1] < 0 || ph->idx[1] >= TT_MAX_NEIGHBOURS))
    return tt_fail(err, TT_ERR_ARG, "rank %lld: the nearest %d are known", (long long)ph->idx[1], TT_MAX_NEIGHBOURS);
  tt_status st = model_for(l, tr, l->derived, err);
  if (st) return st;
  const tt_model *m = l->derived->model;
  int32_t a = tt_trace_token_id(tr, p);
  if (a < 0 || a >= m->cfg.vocab_size)
    return tt_fail(err, TT_ERR_FORMAT, "token %d is not in the model's vocabulary", p);
  if (pair) {
    *v = cosine(m, a, tt_trace_token_id(tr, q));
    return TT_OK;
  }
  tt_neighbours nb;
  st = tt_embedding_neighbours(m->wte, m->cfg.vocab_size, m->cfg.n_embd, a, (int)ph->idx[1] + 1, &nb, err);
  if (st) return st;
  if (nb.n <= ph->idx[1]) return tt_fail(err, TT_ERR_ARG, "the vocabulary has fewer rows");
  *id = nb.near[ph->idx[1]].id;
  *v = nb.near[ph->idx[1]].cosine;
  return TT_OK;
}

// The pass's FLOPs in the steps whose op name is `name`.
static double flops_of(const tt_cost_pass *p, const char *name) {
  int i = tt_cost_find(p, name);
  return i < 0 ? 0 : p->ops[i].flops;
}

static double cost_key(const char *key, const tt_cost_pass *pre, const tt_cost_pass *dec, int T, int C) {
  double t = T, c = C;
  const tt_cost_pass *p = strncmp(key, "decode_", 7) == 0 ? dec : pre;
  const char *k = p == dec ? key + 7 : key;
  if (strcmp(k, "flops") == 0) return p->flops;
  if (strcmp(k, "bytes") == 0) return p->bytes;
  if (strcmp(k, "matmul_share") == 0) return p->matmul_flops / p->flops;
  if (strcmp(k, "intensity") == 0) return p->flops / p->bytes;
  if (strcmp(k, "logits_share") == 0) return flops_of(p, "hook_logits") / p->flops;
  if (strcmp(k, "qkv_flops") == 0) return 2 * t * c * 3 * c + t * 3 * c;  // the same for both ways
  if (strcmp(k, "qkv_fused_bytes") == 0) return 4 * (t * c + 3 * c * c + 3 * c + 3 * t * c);
  return 3 * 4 * (t * c + c * c + c + t * c);  // qkv_separate_bytes: x read three times
}

tt_status tt_lesson_cost_value(const tt_trace *tr, const char *key, double *v, tt_error *err) {
  tt_config cfg;
  if (!tt_trace_config(tr, &cfg)) return tt_fail(err, TT_ERR_FORMAT, "the trace has no readable config");
  int T = tt_trace_n_tokens(tr);
  tt_cost_pass pre, dec;
  tt_status st = tt_cost_prefill(&cfg, T, &pre, err);
  if (st) return st;
  st = tt_cost_decode(&cfg, T < cfg.n_positions ? T : cfg.n_positions - 1, &dec, err);
  if (!st) *v = cost_key(key, &pre, &dec, T, cfg.n_embd);
  tt_cost_pass_free(&pre);
  if (!st) tt_cost_pass_free(&dec);
  return st;
}
