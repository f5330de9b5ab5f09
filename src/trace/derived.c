// derived: tensors a trace keeps as exact rules on tensors it stores. The engine offers a
// hook it computes as one (tt_recorder.derive, a tt_hook_rule): in layer L,
// attn.hook_attn_scores_raw is the attention's own product of the recorded q and k (a
// product rule), attn.hook_attn_scores_scaled is the raw scores times the layer's factor,
// attn.hook_attn_scores is that with −inf above the diagonal and attn.hook_pattern its row
// softmax, and (GPT-2's block) mlp.hook_post is the activation of mlp.hook_pre; hook_probs
// is the row softmax of hook_logits — together 74 % of a long trace's bytes. The trace
// keeps a rule when its sources are stored here as F32 of the right shapes (an element
// rule's source may itself be a product rule, no other rule); the tensor then has no
// memory until read. On access (tt_trace_get / tt_trace_find) it is computed into the
// arena once; a saved file gets every tensor's bytes (tt_trace_save fills them in on the
// way out). Read, a rule on raw scores nobody holds makes them into its own memory first
// (a masked rule only the blocks it reads); saved, each layer's raw scores are made once
// into a scratch that serves the rules on them (tt_derived_drop_scratch gives it back).
// Shape legend: R rows of a tensor's last dimension N (R = H·T, N = T for the scores); a
// product rule's q (H,T,D), k (G,T,D), raw (H,T,T).
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

// t's position when it is stored here (it has bytes and no rule) as F32 of ndim
// dimensions; SIZE_MAX otherwise.
static size_t stored_at(const tt_trace *tr, const tt_tensor *t, int ndim) {
  if (!t || !t->data || t->dtype != TT_F32 || t->ndim != ndim) return SIZE_MAX;
  size_t at = (size_t)(t - tr->tensors);
  return rule_at(tr->dv, at).src ? SIZE_MAX : at;
}

// A product rule: q (H,T,D) and k (G,T,D) stored, G dividing H, the tensor (H,T,T).
static bool accept_product(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  const tt_tensor *q = tt_trace_lookup(tr, rule->src), *k = tt_trace_lookup(tr, rule->keys);
  size_t q_at = stored_at(tr, q, 3), k_at = stored_at(tr, k, 3);
  if (q_at == SIZE_MAX || k_at == SIZE_MAX || !rule->scores_fn || ndim != 3) return false;
  int64_t H = q->shape[0], T = q->shape[1], D = q->shape[2], G = k->shape[0];
  if (G < 1 || H % G != 0 || k->shape[1] != T || k->shape[2] != D || shape[0] != H || shape[1] != T || shape[2] != T)
    return false;
  return set_rule(tr->dv, i, (tt_derived_rule){.src = q_at + 1, .keys = k_at + 1, .scores_fn = rule->scores_fn});
}

bool tt_derived_accept(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  if (rule->keys) return accept_product(tr, i, rule, ndim, shape);
  const tt_tensor *src = tt_trace_lookup(tr, rule->src);
  if (!src || src->dtype != TT_F32 || src->ndim != ndim || ndim < 1 ||
      memcmp(src->shape, shape, (size_t)ndim * sizeof *shape) != 0)
    return false;
  if (rule->causal_mask && (ndim < 2 || shape[ndim - 1] != shape[ndim - 2])) return false;
  size_t at = (size_t)(src - tr->tensors);
  tt_derived_rule on = rule_at(tr->dv, at);
  if (on.src ? !on.keys : !src->data) return false;  // on an element rule: its source would need making first
  return set_rule(
      tr->dv, i,
      (tt_derived_rule){.src = at + 1, .factor = rule->factor, .masked = rule->causal_mask, .row_fn = rule->row_fn});
}

void tt_derived_drop(tt_trace *tr, size_t i) {
  if (i < tr->dv->rules_cap) tr->dv->rules[i] = (tt_derived_rule){0};
}

// Tensor t's rows and their length.
static void rows_of(const tt_tensor *t, size_t *R, size_t *N) {
  *N = (size_t)t->shape[t->ndim - 1];
  *R = *N ? tt_tensor_numel(t) / *N : 0;
}

// raw (H,T,T) of product rule `rule`, by the function the engine's attention used; without
// every, entries above the diagonal may be left unwritten.
static void make_product(float *raw, const tt_trace *tr, const tt_derived_rule *rule, bool every) {
  const tt_tensor *q = &tr->tensors[rule->src - 1], *k = &tr->tensors[rule->keys - 1];
  rule->scores_fn(raw, q->data, k->data, (int)q->shape[0], (int)k->shape[0], (int)q->shape[1], (int)q->shape[2], every);
}

// For a saved file: tensor s's bytes, its data or (a product rule's tensor nobody holds)
// made whole into the scratch, which keeps them for the rules on s that follow it in the
// file; NULL when the scratch cannot be had.
static const float *bytes_for_file(const tt_trace *tr, size_t s) {
  const tt_tensor *t = &tr->tensors[s];
  if (t->data) return t->data;
  tt_derived_state *dv = tr->dv;
  if (dv->scratch_of == s + 1) return dv->scratch;
  size_t bytes = tt_tensor_nbytes(t);
  if (bytes > dv->scratch_bytes) {
    tt_derived_drop_scratch(tr);
    if (!(dv->scratch = malloc(bytes))) return NULL;
    dv->scratch_bytes = bytes;
  }
  make_product(dv->scratch, tr, &dv->rules[s], true);
  dv->scratch_of = s + 1;
  return dv->scratch;
}

// Tensor i, kept as `rule`, into out; an element rule's source rows from src, or (src NULL:
// its source is a product rule's tensor nobody holds) that product made into out first,
// only the part a masked rule reads, and the rule applied in place.
static void make(const tt_trace *tr, size_t i, const tt_derived_rule *rule, const float *src, float *out) {
  if (rule->keys) {
    make_product(out, tr, rule, true);
    return;
  }
  size_t R, N;
  rows_of(&tr->tensors[i], &R, &N);
  if (!src) make_product(out, tr, &tr->dv->rules[rule->src - 1], !rule->masked), src = out;
  derive(out, src, R, N, rule);
}

// Computes a derived tensor into the arena (once); false when out of memory.
bool tt_derived_materialize(const tt_trace *tr, size_t i) {
  tt_tensor *t = &tr->tensors[i];
  tt_derived_rule rule = rule_at(tr->dv, i);
  if (t->data || !rule.src) return true;
  float *out = tt_arena_alloc(tr->arena, tt_tensor_nbytes(t) ? tt_tensor_nbytes(t) : 1, 64);
  if (!out) return false;
  make(tr, i, &rule, rule.keys ? NULL : tr->tensors[rule.src - 1].data, out);
  t->data = out;
  tr->dv->held += tt_tensor_nbytes(t);
  return true;
}

// tt_st_fill_fn for tt_trace_save: a derived tensor's bytes without keeping them (a
// product rule's through the scratch, for the rules on it that follow).
void tt_derived_fill(void *ctx, size_t i, void *dst) {
  const tt_trace *tr = ctx;
  const tt_derived_rule *rule = &tr->dv->rules[i];
  const float *made = bytes_for_file(tr, rule->keys ? i : rule->src - 1);
  if (made && rule->keys)
    memcpy(dst, made, tt_tensor_nbytes(&tr->tensors[i]));
  else
    make(tr, i, rule, made, dst);
}

void tt_derived_drop_scratch(const tt_trace *tr) {
  tt_derived_state *dv = tr->dv;
  free(dv->scratch);
  dv->scratch = NULL;
  dv->scratch_of = 0, dv->scratch_bytes = 0;
}

size_t tt_trace_held_bytes(const tt_trace *tr) {
  return tr->dv->held;
}
