// hooks_walk: the catalogue seen through one config: the ordered walk over the hooks a
// forward pass records, the shapes the axes letters stand for, and hook globs.
#include <fnmatch.h>
#include <string.h>

#include "hooks.h"

static bool applies(tt_hook_when when, const tt_config *cfg) {
  switch (when) {
  case TT_HOOK_ANY:
    return true;
  case TT_HOOK_POSITIONS:
    return tt_config_adds_positions(cfg);
  case TT_HOOK_ROTARY:
    return cfg->positions == TT_POS_ROPE;
  case TT_HOOK_ALIBI:
    return cfg->positions == TT_POS_ALIBI;
  case TT_HOOK_GATED_MLP:
    return cfg->arch == TT_ARCH_LLAMA;
  case TT_HOOK_FUSED_QKV:
  case TT_HOOK_NORM_MEAN:
    return cfg->arch != TT_ARCH_LLAMA;
  }
  return false;
}

typedef struct {
  const tt_config *cfg;
  void (*fn)(void *, const tt_hook *);
  void *ctx;
  int count;
} walker;

// Every row of `part` that cfg records, in table order, for one layer (-1 outside).
static void emit_part(walker *w, tt_hook_part part, int layer) {
  for (int i = 0; i < tt_hook_def_count(); i++) {
    const tt_hook_def *d = tt_hook_def_at(i);
    if (d->part != part || !applies(d->when, w->cfg)) continue;
    w->count++;
    if (!w->fn) continue;
    tt_hook h = {.layer = d->in_block ? layer : -1, .axes = d->axes, .dtype = d->dtype, .def = d};
    tt_hook_ref ref;
    tt_hook_at(d->suffix, layer, &ref);
    tt_hook_name(&ref, h.name, sizeof h.name);
    h.suffix = d->suffix;
    w->fn(w->ctx, &h);
  }
}

int tt_hooks_each(const tt_config *cfg, void (*fn)(void *ctx, const tt_hook *h), void *ctx) {
  walker w = {cfg, fn, ctx, 0};
  // GPT-2 order: x = x + attn(LN1(x)); x = x + mlp(LN2(x)).
  static const tt_hook_part pre_ln[] = {TT_PART_RESID, TT_PART_NORM1, TT_PART_ATTN, TT_PART_NORM2, TT_PART_MLP};
  // Original order: x = LN1(x + attn(x)); x = LN2(x + mlp(x)).
  static const tt_hook_part post_ln[] = {TT_PART_RESID, TT_PART_ATTN, TT_PART_NORM1, TT_PART_MLP, TT_PART_NORM2};
  const tt_hook_part *order = cfg->post_ln ? post_ln : pre_ln;
  emit_part(&w, TT_PART_EMBED, -1);
  for (int l = 0; l < cfg->n_layer; l++)
    for (size_t p = 0; p < sizeof pre_ln / sizeof *pre_ln; p++) emit_part(&w, order[p], l);
  emit_part(&w, TT_PART_HEAD, -1);
  return w.count;
}

// One axis letter (or "T-1", "3C") at *p for cfg; advances *p. key_T is the length of
// every T after the first (the keys of a decode step), first_T the first.
static int64_t axis_size(const char **p, const tt_config *cfg, int64_t first_T, int64_t key_T, bool first) {
  int64_t T = first ? first_T : key_T;
  if (strncmp(*p, "T-1", 3) == 0) return *p += 3, T - 1;
  if (strncmp(*p, "3C", 2) == 0) return *p += 2, 3 * (int64_t)cfg->n_embd;
  switch (*(*p)++) {
  case 'T':
    return T;
  case 'C':
    return cfg->n_embd;
  case 'H':
    return cfg->n_head;
  case 'G':
    return tt_config_kv_heads(cfg);
  case 'D':
    return tt_config_head_dim(cfg);
  case 'F':
    return cfg->n_inner;
  case 'V':
    return cfg->vocab_size;
  case 'P':
    return cfg->n_positions;
  case 'L':
    return cfg->n_layer;
  default:
    return 0;
  }
}

static int shape_of(const char *axes, const tt_config *cfg, int64_t first_T, int64_t key_T, int64_t *shape) {
  int ndim = 0;
  bool seen_T = false;
  for (const char *p = axes; *p && ndim < TT_MAX_DIMS;) {
    bool is_T = *p == 'T';
    shape[ndim++] = axis_size(&p, cfg, first_T, key_T, !seen_T);
    seen_T = seen_T || is_T;
    if (*p == ',') p++;
  }
  return ndim;
}

int tt_hook_shape(const char *axes, const tt_config *cfg, int T, int64_t *shape) {
  return shape_of(axes, cfg, T, T, shape);
}

int tt_hook_ref_shape(const tt_hook_ref *ref, const tt_config *cfg, int T, int64_t *shape) {
  if (ref->decode < 0) return shape_of(ref->def->axes, cfg, T, T, shape);
  return shape_of(ref->def->axes, cfg, 1, (int64_t)T + ref->decode + 1, shape);
}

bool tt_glob_match(const char *pattern, const char *name) {
  return fnmatch(pattern, name, 0) == 0;
}
