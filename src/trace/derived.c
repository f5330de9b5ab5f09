// derived: tensors a trace keeps as exact rules on tensors it records. The engine offers a
// hook it computes as one (tt_recorder.derive, a tt_hook_rule): in layer L,
// attn.hook_attn_scores_raw is the attention's own product of the recorded q and k (a
// product rule), attn.hook_attn_scores_scaled is the raw scores times the layer's factor,
// attn.hook_attn_scores is that with −inf above the diagonal and attn.hook_pattern its row
// softmax, and (GPT-2's block) mlp.hook_post is the activation of mlp.hook_pre; hook_probs
// is the row softmax of hook_logits; the residual stream is sums (hook_resid_mid =
// hook_resid_pre + hook_attn_out, and so on; a sum rule) and each block's hook_resid_pre
// the stream the block before it left (factor 1); GPT-2's attn.hook_q, hook_k and hook_v
// are the thirds of attn.hook_qkv, head by head (a heads rule); each norm's
// hook_normalized and hook_out are its row function on its input (a norm rule, the
// statistics made again in double as the engine made them). The trace keeps a rule
// when its sources are here as F32 of the right shapes: stored, or (an element, sum or
// norm rule's src, a product's q and k) a rule itself; the tensor then has no memory until
// read. On access (tt_trace_get / tt_trace_find) it is computed into the arena once: a
// rule whose src nobody holds makes that into its own memory first (down the chain to a
// held tensor; a masked rule on raw scores only the blocks it reads) and applies itself in
// place; a product makes q and k that are heads rules into two slots of a scratch, reused
// layer after layer. A saved file gets every tensor's bytes (tt_trace_save fills them in
// on the way out): a product or a sum is made once into a slot of the scratch that serves
// the rules on it that follow in the file (tt_derived_drop_scratch gives it back), so each
// residual is one add from the last.
// Shape legend: R rows of a tensor's last dimension N (R = H·T, N = T for the scores); a
// product rule's q (H,T,D), k (G,T,D), raw (H,T,T); n a tensor's entries.
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

// A product rule's q or k: F32 of 3 dimensions, stored or a heads rule (made when the
// product is); SIZE_MAX otherwise.
static size_t product_source_at(const tt_trace *tr, const tt_tensor *t) {
  if (!t || t->dtype != TT_F32 || t->ndim != 3) return SIZE_MAX;
  size_t at = (size_t)(t - tr->tensors);
  tt_derived_rule on = rule_at(tr->dv, at);
  return (on.src ? on.heads : t->data != NULL) ? at : SIZE_MAX;
}

// A product rule: q (H,T,D) and k (G,T,D), G dividing H, the tensor (H,T,T).
static bool accept_product(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  const tt_tensor *q = tt_trace_lookup(tr, rule->src), *k = tt_trace_lookup(tr, rule->keys);
  size_t q_at = product_source_at(tr, q), k_at = product_source_at(tr, k);
  if (q_at == SIZE_MAX || k_at == SIZE_MAX || !rule->scores_fn || ndim != 3) return false;
  int64_t H = q->shape[0], T = q->shape[1], D = q->shape[2], G = k->shape[0];
  if (G < 1 || H % G != 0 || k->shape[1] != T || k->shape[2] != D || shape[0] != H || shape[1] != T || shape[2] != T)
    return false;
  return set_rule(tr->dv, i, (tt_derived_rule){.src = q_at + 1, .keys = k_at + 1, .scores_fn = rule->scores_fn});
}

// A heads rule: src (T,W) stored, the tensor (H,T,D) within src's columns from `column`.
static bool accept_heads(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  const tt_tensor *src = tt_trace_lookup(tr, rule->src);
  size_t at = stored_at(tr, src, 2);
  if (at == SIZE_MAX || ndim != 3 || rule->column < 0 || shape[1] != src->shape[0] ||
      rule->column + shape[0] * shape[2] > src->shape[1])
    return false;
  return set_rule(tr->dv, i, (tt_derived_rule){.src = at + 1, .heads = true, .column = (size_t)rule->column});
}

// The position of the source `name` of a rule on a tensor of this shape: F32 of that shape,
// stored or itself a rule (made first when read); SIZE_MAX otherwise.
static size_t source_at(const tt_trace *tr, const char *name, int ndim, const int64_t *shape) {
  const tt_tensor *t = tt_trace_lookup(tr, name);
  if (!t || t->dtype != TT_F32 || t->ndim != ndim || ndim < 1 || memcmp(t->shape, shape, (size_t)ndim * sizeof *shape))
    return SIZE_MAX;
  size_t at = (size_t)(t - tr->tensors);
  return t->data || rule_at(tr->dv, at).src ? at : SIZE_MAX;
}

// n floats copied into the trace's arena (NULL stays NULL); false when out of memory.
static bool copy_floats(tt_trace *tr, const float **p, size_t n) {
  if (!*p) return true;
  float *copy = tt_arena_alloc(tr->arena, n ? n * sizeof *copy : 1, 64);
  if (!copy) return false;
  memcpy(copy, *p, n * sizeof *copy);
  *p = copy;
  return true;
}

// A norm rule on the source at position `at`, rows of C: γ and β copied (read now only).
static bool accept_norm(tt_trace *tr, size_t i, size_t at, const tt_hook_rule *rule, int64_t C) {
  tt_norm_params norm = rule->norm;
  if (!copy_floats(tr, &norm.gamma, (size_t)C) || !copy_floats(tr, &norm.beta, (size_t)C)) return false;
  return set_rule(tr->dv, i, (tt_derived_rule){.src = at + 1, .norm_fn = rule->norm_fn, .norm = norm});
}

bool tt_derived_accept(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  if (rule->keys) return accept_product(tr, i, rule, ndim, shape);
  if (rule->heads) return accept_heads(tr, i, rule, ndim, shape);
  size_t at = source_at(tr, rule->src, ndim, shape);
  if (at == SIZE_MAX) return false;
  if (rule->norm_fn) return accept_norm(tr, i, at, rule, shape[ndim - 1]);
  if (rule->addend) {  // the addend stored: a chain of sums runs down its src alone
    size_t b_at = source_at(tr, rule->addend, ndim, shape);
    if (b_at == SIZE_MAX || rule_at(tr->dv, b_at).src) return false;
    return set_rule(tr->dv, i, (tt_derived_rule){.src = at + 1, .addend = b_at + 1});
  }
  if (rule->causal_mask && (ndim < 2 || shape[ndim - 1] != shape[ndim - 2])) return false;
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

static bool make_into(const tt_trace *tr, size_t i, float *out, bool all);

// Slot k of the scratch with room for `bytes` (its contents kept); NULL when out of memory.
static tt_derived_slot *slot_with_room(const tt_trace *tr, int k, size_t bytes) {
  tt_derived_slot *slot = &tr->dv->slots[k];
  if (bytes <= slot->bytes) return slot;
  float *grown = realloc(slot->data, bytes ? bytes : 1);
  if (!grown) return NULL;
  slot->data = grown, slot->bytes = bytes;
  return slot;
}

// Tensor s's entries: its data, or (a heads rule) made into slot k; NULL when out of memory.
static const float *entries(const tt_trace *tr, size_t s, int k) {
  const tt_tensor *t = &tr->tensors[s];
  if (t->data) return t->data;
  tt_derived_slot *slot = slot_with_room(tr, k, tt_tensor_nbytes(t));
  if (!slot) return NULL;
  if (slot->of != s + 1) {
    slot->of = 0;
    if (!make_into(tr, s, slot->data, true)) return NULL;
    slot->of = s + 1;
  }
  return slot->data;
}

// raw (H,T,T) of product rule `rule`, by the function the engine's attention used; without
// every, entries above the diagonal may be left unwritten. false when out of memory.
static bool make_product(float *raw, const tt_trace *tr, const tt_derived_rule *rule, bool every) {
  const tt_tensor *qt = &tr->tensors[rule->src - 1], *kt = &tr->tensors[rule->keys - 1];
  const float *q = entries(tr, rule->src - 1, TT_SLOT_QUERIES);
  const float *k = q ? entries(tr, rule->keys - 1, TT_SLOT_KEYS) : NULL;
  if (k) rule->scores_fn(raw, q, k, (int)qt->shape[0], (int)kt->shape[0], (int)qt->shape[1], (int)qt->shape[2], every);
  return k != NULL;
}

// out (H,T,D) = src (T,W)'s columns from `column`, head h the D from column + h·D.
static void split_heads(float *out, const float *src, size_t H, size_t T, size_t D, size_t W, size_t column) {
  for (size_t h = 0; h < H; h++)
    for (size_t t = 0; t < T; t++) memcpy(out + (h * T + t) * D, src + t * W + column + h * D, D * sizeof *out);
}

// Tensor i, kept as the element, sum, heads or norm rule `rule`, into out from its
// source's entries src (out may be src, but for a heads rule).
static void apply(const tt_trace *tr, size_t i, const tt_derived_rule *rule, const float *src, float *out) {
  const tt_tensor *t = &tr->tensors[i];
  if (rule->heads) {
    split_heads(out, src, (size_t)t->shape[0], (size_t)t->shape[1], (size_t)t->shape[2],
                (size_t)tr->tensors[rule->src - 1].shape[1], rule->column);
    return;
  }
  if (rule->addend) {
    const float *b = tr->tensors[rule->addend - 1].data;
    size_t n = tt_tensor_numel(t);
    for (size_t j = 0; j < n; j++) out[j] = src[j] + b[j];
    return;
  }
  size_t R, N;
  rows_of(t, &R, &N);
  if (rule->norm_fn)
    for (size_t r = 0; r < R; r++) rule->norm_fn(out + r * N, src + r * N, N, &rule->norm);
  else
    derive(out, src, R, N, rule);
}

// Tensor i, kept as a rule, into out: from its source's bytes where held, else from that
// source made into out first (down the chain), the rule then applied in place. Without
// all, entries above the diagonal may be left unwritten (a masked rule reads none). false
// when out of memory (a product's q or k kept as rules).
static bool make_into(const tt_trace *tr, size_t i, float *out, bool all) {
  const tt_derived_rule *rule = &tr->dv->rules[i];
  if (rule->keys) return make_product(out, tr, rule, all);
  const float *src = tr->tensors[rule->src - 1].data;
  if (!src && !make_into(tr, rule->src - 1, out, all && !rule->masked)) return false;
  apply(tr, i, rule, src ? src : out, out);
  return true;
}

// For a saved file: tensor s's bytes, its data or (kept as a rule) made whole into its slot
// of the scratch, which keeps them for the rules on s that follow it in the file; NULL when
// the scratch cannot be had.
static const float *bytes_for_file(const tt_trace *tr, size_t s) {
  const tt_tensor *t = &tr->tensors[s];
  if (t->data) return t->data;
  const tt_derived_rule *rule = &tr->dv->rules[s];
  int k = rule->keys ? TT_SLOT_PRODUCT : TT_SLOT_OTHER;
  if (tr->dv->slots[k].of == s + 1) return tr->dv->slots[k].data;
  const float *src = rule->keys ? NULL : bytes_for_file(tr, rule->src - 1);  // may be in this slot
  if (!rule->keys && !src) return NULL;
  bool src_here = src && src == tr->dv->slots[k].data;
  tt_derived_slot *slot = slot_with_room(tr, k, tt_tensor_nbytes(t));  // keeps a source made into it
  if (!slot) return NULL;
  if (src_here) src = slot->data;
  slot->of = 0;  // while made: a product that fails leaves it nobody's
  if (!rule->keys)
    apply(tr, s, rule, src, slot->data);
  else if (!make_product(slot->data, tr, rule, true))
    return NULL;
  slot->of = s + 1;
  return slot->data;
}

// Computes a derived tensor into the arena (once); false when out of memory.
bool tt_derived_materialize(const tt_trace *tr, size_t i) {
  tt_tensor *t = &tr->tensors[i];
  if (t->data || !rule_at(tr->dv, i).src) return true;
  float *out = tt_arena_alloc(tr->arena, tt_tensor_nbytes(t) ? tt_tensor_nbytes(t) : 1, 64);
  if (!out || !make_into(tr, i, out, true)) return false;
  t->data = out;
  tr->dv->held += tt_tensor_nbytes(t);
  return true;
}

// tt_st_fill_fn for tt_trace_save: a derived tensor's bytes without keeping them. A product
// or a sum goes through its slot (a later rule may read it), any other rule straight into
// dst from its source's; without scratch, made into dst down its chain.
bool tt_derived_fill(void *ctx, size_t i, void *dst) {
  const tt_trace *tr = ctx;
  const tt_derived_rule *rule = &tr->dv->rules[i];
  bool slotted = rule->keys || rule->addend;
  const float *made = bytes_for_file(tr, slotted ? i : rule->src - 1);
  if (!made) return make_into(tr, i, dst, true);
  if (slotted)
    memcpy(dst, made, tt_tensor_nbytes(&tr->tensors[i]));
  else
    apply(tr, i, rule, made, dst);
  return true;
}

void tt_derived_drop_scratch(const tt_trace *tr) {
  for (int k = 0; k < TT_DERIVED_SLOTS; k++) {
    free(tr->dv->slots[k].data);
    tr->dv->slots[k] = (tt_derived_slot){0};
  }
}

size_t tt_trace_held_bytes(const tt_trace *tr) {
  return tr->dv->held;
}
