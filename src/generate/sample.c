// sample: the rule that picks the next token from a logits row (docs/generation.md), all
// of its arithmetic in double:
//   temperature 0: the largest logit (the lowest id among equal ones).
//   otherwise:     p_i = exp(z_i − max z) / Σ_j exp(z_j − max z), z = logits / temperature,
//                  the sum in id order; the tokens in order of decreasing logit (lower id
//                  first among equal ones) o_0, o_1, ...; top-k keeps o_0..o_{k−1}; of
//                  those, top-p keeps the shortest prefix o_0..o_{n−1} whose running sum
//                  of p reaches top_p × (the kept mass); u = tt_rng_double, and the pick is
//                  the first o_j of the prefix whose running sum of p exceeds u × (the
//                  prefix's mass), the prefix's last token when rounding leaves none.
#include <math.h>
#include <stdlib.h>

#include "generate.h"

typedef struct {
  float logit;
  int32_t id;
} ranked;

struct tt_sampler {
  int V;
  ranked *order;  // (V) tokens by decreasing logit
  double *p;      // (V) the tempered probabilities, by id
};

tt_status tt_sampling_check(const tt_sampling *s, tt_error *err) {
  if (!(s->temperature >= 0) || !isfinite(s->temperature))
    return tt_fail(err, TT_ERR_ARG, "--temperature %g: must be a finite number >= 0 (0 is greedy)", s->temperature);
  if (s->top_k < 0) return tt_fail(err, TT_ERR_ARG, "--top-k %d: must be at least 1", s->top_k);
  if (!(s->top_p > 0 && s->top_p <= 1))
    return tt_fail(err, TT_ERR_ARG, "--top-p %g: must be in (0, 1] (1 keeps every token)", s->top_p);
  return TT_OK;
}

tt_status tt_sampler_create(int V, tt_sampler **out, tt_error *err) {
  *out = NULL;
  tt_sampler *sp = calloc(1, sizeof *sp);
  if (sp) {
    sp->V = V;
    sp->order = malloc((size_t)V * sizeof *sp->order);
    sp->p = malloc((size_t)V * sizeof *sp->p);
  }
  if (!sp || !sp->order || !sp->p) {
    tt_sampler_destroy(sp);
    return tt_fail(err, TT_ERR_NOMEM, "sampling: out of memory for a vocabulary of %d", V);
  }
  *out = sp;
  return TT_OK;
}

void tt_sampler_destroy(tt_sampler *sp) {
  if (!sp) return;
  free(sp->order);
  free(sp->p);
  free(sp);
}

// p (V) = exp(x_i − max x) / Σ_j exp(x_j − max x) of x = logits / temperature.
static void softmax(const float *logits, int V, double temperature, double *p) {
  double m = -INFINITY, sum = 0;
  for (int i = 0; i < V; i++) m = fmax(m, (double)logits[i] / temperature);
  for (int i = 0; i < V; i++) sum += p[i] = exp((double)logits[i] / temperature - m);
  for (int i = 0; i < V; i++) p[i] /= sum;
}

// Token id's probability at temperature 1: what the model says (tt_pick.p_model).
static double model_probability(const float *logits, int V, int32_t id) {
  double m = -INFINITY, sum = 0;
  for (int i = 0; i < V; i++) m = fmax(m, (double)logits[i]);
  for (int i = 0; i < V; i++) sum += exp((double)logits[i] - m);
  return exp((double)logits[id] - m) / sum;
}

static int by_decreasing_logit(const void *a, const void *b) {
  const ranked *x = a, *y = b;
  if (x->logit != y->logit) return x->logit > y->logit ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static int32_t argmax(const float *logits, int V) {
  int32_t best = 0;
  for (int i = 1; i < V; i++)
    if (logits[i] > logits[best]) best = i;
  return best;
}

// The shortest prefix of the first n ranked tokens whose mass reaches top_p of theirs.
static int nucleus(const tt_sampler *sp, int n, double top_p) {
  if (top_p >= 1) return n;
  double mass = 0, run = 0;
  for (int j = 0; j < n; j++) mass += sp->p[sp->order[j].id];
  for (int j = 0; j < n; j++)
    if ((run += sp->p[sp->order[j].id]) >= top_p * mass) return j + 1;
  return n;
}

tt_pick tt_sample(tt_sampler *sp, const float *logits, const tt_sampling *s, tt_rng *rng) {
  int V = sp->V;
  if (s->temperature == 0) {
    int32_t id = argmax(logits, V);
    return (tt_pick){id, model_probability(logits, V, id), 1};
  }
  softmax(logits, V, s->temperature, sp->p);
  for (int i = 0; i < V; i++) sp->order[i] = (ranked){logits[i], i};
  qsort(sp->order, (size_t)V, sizeof *sp->order, by_decreasing_logit);
  int n = s->top_k > 0 && s->top_k < V ? s->top_k : V;
  n = nucleus(sp, n, s->top_p);
  double mass = 0, run = 0;
  for (int j = 0; j < n; j++) mass += sp->p[sp->order[j].id];
  double target = tt_rng_double(rng) * mass;
  int32_t id = sp->order[n - 1].id;
  for (int j = 0; j < n; j++)
    if ((run += sp->p[sp->order[j].id]) > target) {
      id = sp->order[j].id;
      break;
    }
  return (tt_pick){id, model_probability(logits, V, id), n};
}
