// derived: the attention scores a trace keeps as exact derived views. In layer L,
// attn.hook_attn_scores_scaled is attn.hook_attn_scores_raw times the layer's factor and
// attn.hook_attn_scores is that with -inf above the diagonal (a causal model) — together a
// third of a trace's bytes. While recording, both are computed by the engine into one
// scratch buffer (the mask in place, reused layer after layer); at the next hand-out the
// trace checks the result bit for bit against raw · factor (and the mask) and then keeps
// only that rule, or, if the engine computed anything else, a stored copy. On access
// (tt_trace_get / tt_trace_find) a derived tensor is computed into the arena once; a saved
// file gets every tensor's bytes (tt_trace_save fills them in on the way out).
// Shape legend: H heads, T tokens.
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "trace_internal.h"

// Row r of H·T rows (query position r mod T): columns up to `lim` are raw · factor, the
// rest -inf (lim = T when unmasked). Each loop has no branch, so it vectorizes.
static int64_t row_limit(int64_t r, int64_t T, bool masked) {
  return masked ? r % T + 1 : T;
}

// out (H,T,T) = raw · factor, with -inf above the diagonal when masked.
static void derive(float *out, const float *raw, int64_t H, int64_t T, float factor, bool masked) {
  for (int64_t r = 0; r < H * T; r++) {
    int64_t lim = row_limit(r, T, masked);
    const float *v = raw + r * T;
    float *o = out + r * T;
    for (int64_t j = 0; j < lim; j++) o[j] = factor * v[j];
    for (int64_t j = lim; j < T; j++) o[j] = -INFINITY;
  }
}

// Bit for bit (a -0 is not a +0, every NaN pattern counts): got == derive(raw).
static bool same_as_derived(const float *got, const float *raw, int64_t H, int64_t T, float factor, bool masked) {
  const uint32_t neg_inf = 0xff800000u;  // the bits of -INFINITY
  for (int64_t r = 0; r < H * T; r++) {
    int64_t lim = row_limit(r, T, masked);
    const float *v = raw + r * T, *g = got + r * T;
    uint32_t diff = 0;
    for (int64_t j = 0; j < lim; j++) {
      float want = factor * v[j];
      uint32_t a, b;
      memcpy(&a, &want, sizeof a);
      memcpy(&b, &g[j], sizeof b);
      diff |= a ^ b;
    }
    for (int64_t j = lim; j < T; j++) {
      uint32_t b;
      memcpy(&b, &g[j], sizeof b);
      diff |= b ^ neg_inf;
    }
    if (diff) return false;
  }
  return true;
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

// The rule for `name` when it is one of the two derived score hooks of a layer whose raw
// scores are stored (F32, the same shape): src is raw's position + 1. *mask_hook: it is
// attn.hook_attn_scores (computed from the scaled scores' buffer).
static bool rule_for(tt_trace *tr, const char *name, tt_dtype dt, int ndim, const int64_t *shape, tt_derived_rule *rule,
                     bool *mask_hook) {
  tt_hook_ref ref;
  if (dt != TT_F32 || ndim != 3 || shape[1] != shape[2] || !tt_hook_lookup(name, &ref) || ref.grad || ref.decode >= 0 ||
      ref.layer < 0)
    return false;
  *mask_hook = strcmp(ref.def->suffix, "attn.hook_attn_scores") == 0;
  if (!*mask_hook && strcmp(ref.def->suffix, "attn.hook_attn_scores_scaled") != 0) return false;
  tt_config cfg;
  if (!tt_trace_config(tr, &cfg) || cfg.n_head <= 0) return false;
  char raw_name[64];
  snprintf(raw_name, sizeof raw_name, "blocks.%d.attn.hook_attn_scores_raw", ref.layer);
  const tt_tensor *raw = tt_trace_lookup(tr, raw_name);
  if (!raw || !raw->data || raw->dtype != TT_F32 || raw->ndim != 3 || memcmp(raw->shape, shape, 3 * sizeof *shape) != 0)
    return false;
  size_t src = (size_t)(raw - tr->tensors);
  if (rule_at(tr->dv, src).src) return false;  // raw is itself stored, never derived
  *rule = (tt_derived_rule){src + 1, tt_config_attn_scale(&cfg, ref.layer, tt_config_head_dim(&cfg)),
                            *mask_hook && cfg.causal};
  return true;
}

// Settles the tensor holding the scratch buffer: its rule when the engine's bytes are the
// rule's, else a stored copy in the arena. false when out of memory.
bool tt_derived_settle(const tt_trace *tr) {
  tt_derived_state *dv = tr->dv;
  if (!dv->pending) return true;
  size_t i = dv->pending - 1;
  dv->pending = 0;
  tt_tensor *t = &tr->tensors[i];
  tt_derived_rule *rule = &dv->rules[i];  // set by tt_derived_reserve
  const tt_tensor *raw = &tr->tensors[rule->src - 1];
  if (same_as_derived(dv->scratch, raw->data, t->shape[0], t->shape[1], rule->factor, rule->masked)) {
    t->data = NULL;  // computed on access
    return true;
  }
  *rule = (tt_derived_rule){0};
  size_t bytes = tt_tensor_nbytes(t);
  if (!(t->data = tt_arena_alloc(tr->arena, bytes, 64))) return false;
  memcpy(t->data, dv->scratch, bytes);
  dv->held += bytes;
  return true;
}

// Memory for a tensor being recorded at position i: the scratch buffer when it is one of
// the derived score hooks (the masked scores only right after their layer's scaled ones,
// whose buffer the mask then overwrites in place), else NULL (store it).
void *tt_derived_reserve(tt_trace *tr, size_t i, const char *name, tt_dtype dt, int ndim, const int64_t *shape) {
  tt_derived_state *dv = tr->dv;
  size_t prev = dv->pending;  // position + 1 of the tensor holding the scratch, if any
  if (!tt_derived_settle(tr)) return NULL;
  tt_derived_rule rule;
  bool mask_hook;
  if (!rule_for(tr, name, dt, ndim, shape, &rule, &mask_hook)) return NULL;
  size_t n = (size_t)shape[0] * (size_t)shape[1] * (size_t)shape[2];
  if (mask_hook) {  // the engine reads the scaled scores while it writes these: only their buffer will do
    if (i == 0 || prev != i || rule_at(dv, i - 1).src != rule.src || dv->scratch_n < n) return NULL;
  } else if (dv->scratch_n < n) {  // nothing is pending in it: what it held need not move
    float *grown = tr->pool ? tt_trace_pool_take(tr, n * sizeof *grown) : malloc(n * sizeof *grown);
    if (!grown) return NULL;
    if (!tr->pool) free(dv->scratch);
    dv->scratch = grown;
    dv->scratch_n = n;
  }
  if (!set_rule(dv, i, rule)) return NULL;
  dv->pending = i + 1;
  return dv->scratch;
}

// Computes a derived tensor into the arena (once); false when out of memory.
bool tt_derived_materialize(const tt_trace *tr, size_t i) {
  if (!tt_derived_settle(tr)) return false;
  tt_tensor *t = &tr->tensors[i];
  tt_derived_rule rule = rule_at(tr->dv, i);
  if (t->data || !rule.src) return true;
  float *out = tt_arena_alloc(tr->arena, tt_tensor_nbytes(t), 64);
  if (!out) return false;
  derive(out, tr->tensors[rule.src - 1].data, t->shape[0], t->shape[1], rule.factor, rule.masked);
  t->data = out;
  tr->dv->held += tt_tensor_nbytes(t);
  return true;
}

// tt_st_fill_fn for tt_trace_save: a derived tensor's bytes without keeping them.
void tt_derived_fill(void *ctx, size_t i, void *dst) {
  const tt_trace *tr = ctx;
  const tt_tensor *t = &tr->tensors[i];
  const tt_derived_rule *rule = &tr->dv->rules[i];
  derive(dst, tr->tensors[rule->src - 1].data, t->shape[0], t->shape[1], rule->factor, rule->masked);
}

size_t tt_trace_held_bytes(const tt_trace *tr) {
  tt_derived_settle(tr);
  return tr->dv->held;
}
