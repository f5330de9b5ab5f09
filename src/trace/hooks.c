// hooks: the catalogue table, in the order the engine computes the tensors, and the
// parsing of full names (grad., decode.S., blocks.L.) into rows and back.
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "hooks.h"

#define ROW(sfx, blk, ax, dt, st, vw, pt, wh, l0) \
  { sfx, blk, ax, dt, st, vw, pt, wh, l0, false }
#define OUT(sfx, ax, st, vw, pt) ROW(sfx, false, ax, TT_F32, st, vw, pt, TT_HOOK_ANY, false)
#define BLK(sfx, ax, st, vw, pt) ROW(sfx, true, ax, TT_F32, st, vw, pt, TT_HOOK_ANY, false)
#define BLK_IF(sfx, ax, pt, wh) ROW(sfx, true, ax, TT_F32, NULL, "heatmap", pt, wh, false)
// A LayerNorm (or RMSNorm) records four tensors under its prefix; its step shows hook_out.
#define NORM(blk, pre, st, pt)                                                                 \
  ROW(pre "hook_mean", blk, "T", TT_F32, NULL, "heatmap", pt, TT_HOOK_NORM_MEAN, false),       \
      ROW(pre "hook_scale", blk, "T", TT_F32, NULL, "heatmap", pt, TT_HOOK_ANY, false),        \
      ROW(pre "hook_normalized", blk, "T,C", TT_F32, NULL, "heatmap", pt, TT_HOOK_ANY, false), \
      ROW(pre "hook_out", blk, "T,C", TT_F32, st, "layernorm", pt, TT_HOOK_ANY, false)

static const tt_hook_def table[] = {
    ROW("tokens", false, "T", TT_I32, "tokenize", "tokens", TT_PART_EMBED, TT_HOOK_ANY, false),
    OUT("hook_embed", "T,C", "embed", "embed", TT_PART_EMBED),
    ROW("hook_pos_embed", false, "T,C", TT_F32, "positions", "positions", TT_PART_EMBED, TT_HOOK_POSITIONS, false),
    // The sum of embedding and positions is block 0's input.
    ROW("hook_resid_pre", true, "T,C", TT_F32, "sum", "positions", TT_PART_RESID, TT_HOOK_ANY, true),
    NORM(true, "ln1.", "ln1", TT_PART_NORM1),
    ROW("attn.hook_qkv", true, "T,3C", TT_F32, "qkv", "heatmap", TT_PART_ATTN, TT_HOOK_FUSED_QKV, false),
    BLK("attn.hook_q", "H,T,D", "split", "heatmap", TT_PART_ATTN),
    BLK("attn.hook_k", "G,T,D", NULL, "heatmap", TT_PART_ATTN),
    BLK("attn.hook_v", "G,T,D", NULL, "heatmap", TT_PART_ATTN),
    BLK_IF("attn.hook_rot_q", "H,T,D", TT_PART_ATTN, TT_HOOK_ROTARY),
    BLK_IF("attn.hook_rot_k", "G,T,D", TT_PART_ATTN, TT_HOOK_ROTARY),
    BLK("attn.hook_attn_scores_raw", "H,T,T", "scores", "heatmap", TT_PART_ATTN),
    BLK("attn.hook_attn_scores_scaled", "H,T,T", "scale", "heatmap", TT_PART_ATTN),
    BLK_IF("attn.hook_alibi", "H,T,T", TT_PART_ATTN, TT_HOOK_ALIBI),  // added to the scaled scores
    BLK("attn.hook_attn_scores", "H,T,T", "mask", "heatmap", TT_PART_ATTN),
    BLK("attn.hook_pattern", "H,T,T", "softmax", "heatmap", TT_PART_ATTN),
    BLK("attn.hook_z", "H,T,D", "weighted", "heatmap", TT_PART_ATTN),
    BLK("hook_attn_out", "T,C", "proj", "heatmap", TT_PART_ATTN),
    BLK("hook_resid_mid", "T,C", "resid1", "heatmap", TT_PART_ATTN),
    NORM(true, "ln2.", "ln2", TT_PART_NORM2),
    BLK("mlp.hook_pre", "T,F", "ffn_up", "heatmap", TT_PART_MLP),
    BLK_IF("mlp.hook_pre_linear", "T,F", TT_PART_MLP, TT_HOOK_GATED_MLP),
    BLK("mlp.hook_post", "T,F", "gelu", "gelu", TT_PART_MLP),
    BLK("hook_mlp_out", "T,C", "ffn_down", "heatmap", TT_PART_MLP),
    BLK("hook_resid_post", "T,C", "resid2", "heatmap", TT_PART_MLP),
    NORM(false, "ln_final.", "ln_final", TT_PART_HEAD),
    OUT("hook_logits", "T,V", "logits", "heatmap", TT_PART_HEAD),
    OUT("hook_probs", "T,V", "probs", "bars", TT_PART_HEAD),
    OUT("hook_loss", "T-1", NULL, "heatmap", TT_PART_HEAD),
};

enum { N_DEFS = sizeof table / sizeof *table };

// The weights whose gradients a backward pass records (grad.<name>), in the file's layout
// (Conv1D weights (in, out)). Not hooks of the forward pass: tt_hooks_each never lists them.
#define WGT(sfx, blk, ax, pt) \
  { sfx, blk, ax, TT_F32, NULL, "heatmap", pt, TT_HOOK_ANY, false, true }
static const tt_hook_def weights[] = {
    WGT("wte.weight", false, "V,C", TT_PART_EMBED),        WGT("wpe.weight", false, "P,C", TT_PART_EMBED),
    WGT("ln_1.weight", true, "C", TT_PART_NORM1),          WGT("ln_1.bias", true, "C", TT_PART_NORM1),
    WGT("attn.c_attn.weight", true, "C,3C", TT_PART_ATTN), WGT("attn.c_attn.bias", true, "3C", TT_PART_ATTN),
    WGT("attn.c_proj.weight", true, "C,C", TT_PART_ATTN),  WGT("attn.c_proj.bias", true, "C", TT_PART_ATTN),
    WGT("ln_2.weight", true, "C", TT_PART_NORM2),          WGT("ln_2.bias", true, "C", TT_PART_NORM2),
    WGT("mlp.c_fc.weight", true, "C,F", TT_PART_MLP),      WGT("mlp.c_fc.bias", true, "F", TT_PART_MLP),
    WGT("mlp.c_proj.weight", true, "F,C", TT_PART_MLP),    WGT("mlp.c_proj.bias", true, "C", TT_PART_MLP),
    WGT("ln_f.weight", false, "C", TT_PART_HEAD),          WGT("ln_f.bias", false, "C", TT_PART_HEAD),
    WGT("lm_head.weight", false, "V,C", TT_PART_HEAD),
};

static bool take_number(const char **p, int *out);

// "h.L.<suffix>" or "<suffix>" after "grad." as a weight row into *r; false if it is none.
static bool lookup_weight(const char *p, tt_hook_ref *r) {
  bool block = strncmp(p, "h.", 2) == 0;
  if (block) {
    p += 2;
    if (!take_number(&p, &r->layer)) return false;
  }
  for (size_t i = 0; i < sizeof weights / sizeof *weights; i++)
    if (weights[i].in_block == block && strcmp(weights[i].suffix, p) == 0) {
      r->def = &weights[i];
      return true;
    }
  return false;
}

int tt_hook_def_count(void) {
  return N_DEFS;
}
const tt_hook_def *tt_hook_def_at(int i) {
  return i >= 0 && i < N_DEFS ? &table[i] : NULL;
}

const tt_hook_def *tt_hook_def_find(const char *suffix) {
  for (int i = 0; i < N_DEFS; i++)
    if (strcmp(table[i].suffix, suffix) == 0) return &table[i];
  return NULL;
}

// A canonical non-negative decimal int at *p ("0", "12"; not "012", "+1", "-1", or past
// INT_MAX) followed by '.'; advances *p past the dot.
static bool take_number(const char **p, int *out) {
  const char *s = *p;
  if (s[0] < '0' || s[0] > '9' || (s[0] == '0' && s[1] >= '0' && s[1] <= '9')) return false;
  long long v = 0;
  for (; *s >= '0' && *s <= '9'; s++) {
    v = v * 10 + (*s - '0');
    if (v > INT_MAX) return false;
  }
  if (*s != '.') return false;
  *out = (int)v;
  *p = s + 1;
  return true;
}

static void resolve(tt_hook_ref *r) {
  bool shown = !r->def->step_layer0 || r->layer == 0;
  r->step = shown ? r->def->step : NULL;
  r->view = shown ? r->def->view : "heatmap";
}

bool tt_hook_at(const char *suffix, int layer, tt_hook_ref *out) {
  const tt_hook_def *d = tt_hook_def_find(suffix);
  if (!d || (d->in_block && layer < 0)) return false;
  *out = (tt_hook_ref){.def = d, .layer = d->in_block ? layer : -1, .decode = -1};
  resolve(out);
  return true;
}

bool tt_hook_lookup(const char *name, tt_hook_ref *out) {
  tt_hook_ref r = {.layer = -1, .decode = -1};
  const char *p = name;
  if (strncmp(p, "grad.", 5) == 0) r.grad = true, p += 5;
  if (r.grad && lookup_weight(p, &r)) {
    resolve(&r);
    *out = r;
    return true;
  }
  if (strncmp(p, "decode.", 7) == 0) {
    p += 7;
    if (!take_number(&p, &r.decode)) return false;
  }
  bool block = strncmp(p, "blocks.", 7) == 0;
  if (block) {
    p += 7;
    if (!take_number(&p, &r.layer)) return false;
  }
  r.def = tt_hook_def_find(p);
  if (!r.def || r.def->in_block != block) return false;
  if (r.grad && tt_dtype_is_integer(r.def->dtype)) return false;
  resolve(&r);
  *out = r;
  return true;
}

const char *tt_hook_name(const tt_hook_ref *ref, char *buf, size_t len) {
  if (!ref->def || len == 0) return NULL;
  char dec[32] = "", blk[32] = "";
  if (ref->decode >= 0) snprintf(dec, sizeof dec, "decode.%d.", ref->decode);
  if (ref->def->in_block) snprintf(blk, sizeof blk, ref->def->weight ? "h.%d." : "blocks.%d.", ref->layer);
  int n = snprintf(buf, len, "%s%s%s%s", ref->grad ? "grad." : "", dec, blk, ref->def->suffix);
  return n >= 0 && (size_t)n < len ? buf : NULL;
}

tt_dtype tt_hook_dtype(const tt_hook_ref *ref) {
  return ref->grad ? TT_F32 : ref->def->dtype;
}
