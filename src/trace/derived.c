// derived: tensors a trace keeps as exact rules on tensors it stores. The engine offers a
// hook it computes as one (tt_recorder.derive, a tt_hook_rule): in layer L,
// attn.hook_attn_scores_scaled is attn.hook_attn_scores_raw times the layer's factor,
// attn.hook_attn_scores is that with −inf above the diagonal and attn.hook_pattern its row
// softmax, and (GPT-2's block) mlp.hook_post is the activation of mlp.hook_pre; hook_probs
// is the row softmax of hook_logits — together 58 % of a long trace's bytes. The trace
// keeps the rule when its source is stored here as F32 of the same shape (and is no rule
// itself); the tensor then has no memory until read. On access (tt_trace_get /
// tt_trace_find) it is computed into the arena once; a saved file gets every tensor's
// bytes (tt_trace_save fills them in on the way out).
// Shape legend: R rows of a tensor's last dimension N (R = H·T, N = T for the scores).
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

// out (R,N) = src · factor, with −inf above each (N,N) matrix's diagonal when masked (row r
// is row r mod N of its matrix), then each row through row_fn when set: the entries up to
// the diagonal then, and 0 after it (what a softmax gives −inf; tt_hook_rule). Each loop
// has no branch, so it vectorizes.
static void derive(float *out, const float *src, size_t R, size_t N, const tt_derived_rule *rule) {
  float factor = rule->factor, beyond = rule->row_fn ? 0.0f : -INFINITY;
  for (size_t r = 0; r < R; r++) {
    size_t lim = rule->masked ? r % N + 1 : N;
    const float *v = src + r * N;
    float *o = out + r * N;
    for (size_t j = 0; j < lim; j++) o[j] = factor * v[j];
    if (rule->row_fn) rule->row_fn(o, o, lim);
    for (size_t j = lim; j < N; j++) o[j] = beyond;
  }
}

// Rule i, or none (src 0) beyond the rules set so far.
static tt_derived_rule rule_at(const tt_derived_state *dv, size_t i) {
  return i < dv->rules_cap ? dv->rules[i] : (tt_derived_rule){0};
}

static bool set_rule(tt_derived_state *dv, size_t i, tt_derived_rule rule) {
  if (i >= dv->rules_cap) {
    size_t cap = dv->rules_cap ? dv->rules_cap * 2 : 256;
    while (cap <= i) cap *= 2;
    tt_derived_rule *grown = realloc(dv->rules, cap * sizeof *grown);
    if (!grown) return false;
    memset(grown + dv->rules_cap, 0, (cap - dv->rules_cap) * sizeof *grown);
    dv->rules = grown;
    dv->rules_cap = cap;
  }
  dv->rules[i] = rule;
  return true;
}

bool tt_derived_accept(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  const tt_tensor *src = tt_trace_lookup(tr, rule->src);
  if (!src || !src->data || src->dtype != TT_F32 || src->ndim != ndim || ndim < 1 ||
      memcmp(src->shape, shape, (size_t)ndim * sizeof *shape) != 0)
    return false;
  if (rule->causal_mask && (ndim < 2 || shape[ndim - 1] != shape[ndim - 2])) return false;
  size_t at = (size_t)(src - tr->tensors);
  if (rule_at(tr->dv, at).src) return false;  // a rule on a rule: its source would need making first
  return set_rule(tr->dv, i, (tt_derived_rule){at + 1, rule->factor, rule->causal_mask, rule->row_fn});
}

void tt_derived_drop(tt_trace *tr, size_t i) {
  if (i < tr->dv->rules_cap) tr->dv->rules[i] = (tt_derived_rule){0};
}

// Tensor t's rows and their length.
static void rows_of(const tt_tensor *t, size_t *R, size_t *N) {
  *N = (size_t)t->shape[t->ndim - 1];
  *R = *N ? tt_tensor_numel(t) / *N : 0;
}

// Computes a derived tensor into the arena (once); false when out of memory.
bool tt_derived_materialize(const tt_trace *tr, size_t i) {
  tt_tensor *t = &tr->tensors[i];
  tt_derived_rule rule = rule_at(tr->dv, i);
  if (t->data || !rule.src) return true;
  float *out = tt_arena_alloc(tr->arena, tt_tensor_nbytes(t) ? tt_tensor_nbytes(t) : 1, 64);
  if (!out) return false;
  size_t R, N;
  rows_of(t, &R, &N);
  derive(out, tr->tensors[rule.src - 1].data, R, N, &rule);
  t->data = out;
  tr->dv->held += tt_tensor_nbytes(t);
  return true;
}

// tt_st_fill_fn for tt_trace_save: a derived tensor's bytes without keeping them.
void tt_derived_fill(void *ctx, size_t i, void *dst) {
  const tt_trace *tr = ctx;
  const tt_tensor *t = &tr->tensors[i];
  const tt_derived_rule *rule = &tr->dv->rules[i];
  size_t R, N;
  rows_of(t, &R, &N);
  derive(dst, tr->tensors[rule->src - 1].data, R, N, rule);
}

size_t tt_trace_held_bytes(const tt_trace *tr) {
  return tr->dv->held;
}
