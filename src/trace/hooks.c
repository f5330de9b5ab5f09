// hooks: the hook catalogue, in the order the engine computes the tensors.
#include <string.h>

#include "hooks.h"

typedef struct {
  const char *suffix, *axes;
} hook_def;

// A LayerNorm (or RMSNorm) step records four tensors under its prefix.
static const hook_def norm_hooks[] = {
    {"hook_mean", "T"}, {"hook_scale", "T"}, {"hook_normalized", "T,C"}, {"hook_out", "T,C"}};

static const hook_def attn_hooks[] = {
    {"attn.hook_qkv", "T,3C"},
    {"attn.hook_q", "H,T,D"},
    {"attn.hook_k", "H,T,D"},
    {"attn.hook_v", "H,T,D"},
    {"attn.hook_attn_scores_raw", "H,T,T"},
    {"attn.hook_attn_scores_scaled", "H,T,T"},
    {"attn.hook_attn_scores", "H,T,T"},
    {"attn.hook_pattern", "H,T,T"},
    {"attn.hook_z", "H,T,D"},
    {"hook_attn_out", "T,C"},
    {"hook_resid_mid", "T,C"},
};

static const hook_def mlp_hooks[] = {
    {"mlp.hook_pre", "T,F"}, {"mlp.hook_post", "T,F"}, {"hook_mlp_out", "T,C"}, {"hook_resid_post", "T,C"}};

typedef struct {
  const tt_config *cfg;
  void (*fn)(void *, const tt_hook *);
  void *ctx;
  int count;
} walker;

static void emit(walker *w, int layer, const char *prefix, const char *suffix, const char *axes, tt_dtype dt) {
  tt_hook h = {.layer = layer, .axes = axes, .dtype = dt};
  if (layer >= 0) snprintf(h.name, sizeof h.name, "blocks.%d.%s%s", layer, prefix, suffix);
  else snprintf(h.name, sizeof h.name, "%s%s", prefix, suffix);
  // The layer-free part: "attn.hook_pattern", "ln1.hook_out", "hook_logits".
  h.suffix = strchr(h.name, '.') && layer >= 0 ? strchr(strchr(h.name, '.') + 1, '.') + 1 : h.name;
  if (w->fn) w->fn(w->ctx, &h);
  w->count++;
}

static void emit_norm(walker *w, int layer, const char *prefix) {
  for (size_t i = 0; i < sizeof norm_hooks / sizeof *norm_hooks; i++)
    emit(w, layer, prefix, norm_hooks[i].suffix, norm_hooks[i].axes, TT_F32);
}

static void emit_list(walker *w, int layer, const hook_def *defs, size_t n) {
  for (size_t i = 0; i < n; i++) emit(w, layer, "", defs[i].suffix, defs[i].axes, TT_F32);
}

#define LIST(a) a, sizeof(a) / sizeof *(a)

int tt_hooks_each(const tt_config *cfg, void (*fn)(void *ctx, const tt_hook *h), void *ctx) {
  walker w = {cfg, fn, ctx, 0};
  emit(&w, -1, "", "tokens", "T", TT_I32);
  emit(&w, -1, "", "hook_embed", "T,C", TT_F32);
  if (cfg->positions != TT_POS_NONE) emit(&w, -1, "", "hook_pos_embed", "T,C", TT_F32);
  for (int l = 0; l < cfg->n_layer; l++) {
    emit(&w, l, "", "hook_resid_pre", "T,C", TT_F32);
    if (cfg->post_ln) {
      // Original order: x = LN1(x + attn(x)); x = LN2(x + mlp(x)).
      emit_list(&w, l, LIST(attn_hooks));
      emit_norm(&w, l, "ln1.");
      emit_list(&w, l, LIST(mlp_hooks));
      emit_norm(&w, l, "ln2.");
    } else {
      // GPT-2 order: x = x + attn(LN1(x)); x = x + mlp(LN2(x)).
      emit_norm(&w, l, "ln1.");
      emit_list(&w, l, LIST(attn_hooks));
      emit_norm(&w, l, "ln2.");
      emit_list(&w, l, LIST(mlp_hooks));
    }
  }
  emit_norm(&w, -1, "ln_final.");
  emit(&w, -1, "", "hook_logits", "T,V", TT_F32);
  emit(&w, -1, "", "hook_probs", "T,V", TT_F32);
  emit(&w, -1, "", "hook_loss", "T-1", TT_F32);
  return w.count;
}

int tt_hook_shape(const char *axes, const tt_config *cfg, int T, int64_t *shape) {
  int ndim = 0;
  for (const char *p = axes; *p && ndim < TT_MAX_DIMS;) {
    int64_t v = 0;
    if (strncmp(p, "T-1", 3) == 0) v = T - 1, p += 3;
    else if (strncmp(p, "3C", 2) == 0) v = 3 * (int64_t)cfg->n_embd, p += 2;
    else {
      switch (*p) {
        case 'T': v = T; break;
        case 'C': v = cfg->n_embd; break;
        case 'H': v = cfg->n_head; break;
        case 'D': v = cfg->n_embd / cfg->n_head; break;
        case 'F': v = cfg->n_inner; break;
        case 'V': v = cfg->vocab_size; break;
        case 'P': v = cfg->n_positions; break;
        default: v = 0; break;
      }
      p++;
    }
    shape[ndim++] = v;
    if (*p == ',') p++;
  }
  return ndim;
}

static bool class_match(const char **pp, char c) {
  const char *p = *pp + 1;  // after '['
  bool negate = *p == '!' || *p == '^', hit = false;
  if (negate) p++;
  for (bool first = true; *p && (first || *p != ']'); first = false, p++) {
    if (p[1] == '-' && p[2] && p[2] != ']') {
      if (c >= p[0] && c <= p[2]) hit = true;
      p += 2;
    } else if (*p == c) {
      hit = true;
    }
  }
  *pp = *p == ']' ? p + 1 : p;
  return hit != negate;
}

bool tt_glob_match(const char *pat, const char *s) {
  const char *star = NULL, *resume = NULL;
  while (*s) {
    if (*pat == '*') {
      star = ++pat;
      resume = s;
      continue;
    }
    const char *next = pat;
    bool ok = false;
    if (*pat == '?') ok = true, next = pat + 1;
    else if (*pat == '[') ok = class_match(&next, *s);
    else if (*pat) ok = *pat == *s, next = pat + 1;
    if (ok) {
      pat = next;
      s++;
    } else if (star) {
      pat = star;
      s = ++resume;
    } else {
      return false;
    }
  }
  while (*pat == '*') pat++;
  return *pat == 0;
}
