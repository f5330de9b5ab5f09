// workspace: the slots every computed tensor can live in, carved out of one allocation
// sized for max_T tokens, and the bookkeeping of who gets which (the two-slot kinds handed
// out in turn, the stream kept in a stream slot between blocks). All of the engine's
// buffer bookkeeping is here. Nothing is allocated during a run. Shape legend in
// engine_internal.h.
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

typedef enum {
  TT_SLOT_STREAM,           // (T,C) the residual stream: two slots
  TT_SLOT_EMBED,            // (T,C)
  TT_SLOT_NORM_MEAN,        // (T)
  TT_SLOT_NORM_SCALE,       // (T)
  TT_SLOT_NORM_NORMALIZED,  // (T,C)
  TT_SLOT_NORM_OUT,         // (T,C)
  TT_SLOT_QKV,              // (T,3C)
  TT_SLOT_Q,                // (H,T,D)
  TT_SLOT_K,                // (G,T,D)
  TT_SLOT_V,                // (G,T,D)
  TT_SLOT_ROT_Q,            // (H,T,D) rotary positions only
  TT_SLOT_ROT_K,            // (G,T,D) rotary positions only
  TT_SLOT_SCORES,           // (H,T,T) raw → scaled → masked → pattern: two slots
  TT_SLOT_ALIBI,            // (H,T,T) ALiBi only
  TT_SLOT_Z,                // (H,T,D)
  TT_SLOT_MERGED,           // (T,H·D) z with the heads side by side; the Llama block's
                            // projections before the split (not a hook)
  TT_SLOT_ATTN_OUT,         // (T,C)
  TT_SLOT_MLP_PRE,          // (T,F)
  TT_SLOT_MLP_PRE_LINEAR,   // (T,F) the Llama block only (SwiGLU's up projection)
  TT_SLOT_MLP_ACT,          // (T,F) the Llama block only: act(gate), not a hook
  TT_SLOT_MLP_POST,         // (T,F)
  TT_SLOT_MLP_OUT,          // (T,C)
  TT_SLOT_LOGITS,           // (T,V)
  TT_SLOT_PROBS,            // (T,V)
  TT_SLOT_LOSS,             // (T-1)
  TT_SLOT_COUNT
} tt_slot;

struct tt_workspace {
  tt_buf all;                     // the one allocation
  tt_buf slot[TT_SLOT_COUNT][2];  // [1] is set for the two-slot kinds only
  int turn[TT_SLOT_COUNT];        // which of the two the next request gets
  tt_buf tape_all;                // the tape's one allocation (unset until a gradient run is enabled)
  tt_buf *tape;                   // (n_layer + 1) × TAPED: [l·TAPED + i] block l's taped_block[i],
                                  // [n_layer·TAPED + i] taped_head[i]
  tt_buf *tape_now;               // the same entries: where this run's forward pass put each one
                                  // (its tape buffer, or the recorder's memory when recorded)
};

// What the backward pass reads of the forward pass, in a block and after the blocks.
static const char *const taped_block[] = {
    "hook_resid_pre",
    "ln1.hook_normalized",
    "ln1.hook_scale",
    "ln1.hook_out",
    "attn.hook_q",
    "attn.hook_k",
    "attn.hook_v",
    "attn.hook_pattern",
    "attn.hook_z",
    "ln2.hook_normalized",
    "ln2.hook_scale",
    "ln2.hook_out",
    "mlp.hook_pre",
    "mlp.hook_post",
    // the Llama block's (empty slots for GPT-2)
    "attn.hook_rot_q",
    "attn.hook_rot_k",
    "mlp.hook_pre_linear",
};
static const char *const taped_head[] = {"ln_final.hook_normalized", "ln_final.hook_scale", "ln_final.hook_out",
                                         "hook_probs"};
enum { TAPED = sizeof taped_block / sizeof *taped_block, TAPED_HEAD = sizeof taped_head / sizeof *taped_head };

// Which slot holds each hook, by the last dotted part of its name; "merged" holds no hook.
static const struct {
  const char *hook;
  tt_slot slot;
} hook_slots[] = {
    {"merged", TT_SLOT_MERGED},
    {"hook_embed", TT_SLOT_EMBED},
    {"hook_resid_pre", TT_SLOT_STREAM},
    {"hook_resid_mid", TT_SLOT_STREAM},
    {"hook_resid_post", TT_SLOT_STREAM},
    {"hook_mean", TT_SLOT_NORM_MEAN},
    {"hook_scale", TT_SLOT_NORM_SCALE},
    {"hook_normalized", TT_SLOT_NORM_NORMALIZED},
    {"hook_out", TT_SLOT_NORM_OUT},
    {"hook_qkv", TT_SLOT_QKV},
    {"hook_q", TT_SLOT_Q},
    {"hook_k", TT_SLOT_K},
    {"hook_v", TT_SLOT_V},
    {"hook_rot_q", TT_SLOT_ROT_Q},
    {"hook_rot_k", TT_SLOT_ROT_K},
    {"hook_alibi", TT_SLOT_ALIBI},
    {"hook_attn_scores_raw", TT_SLOT_SCORES},
    {"hook_attn_scores_scaled", TT_SLOT_SCORES},
    {"hook_attn_scores", TT_SLOT_SCORES},
    {"hook_pattern", TT_SLOT_SCORES},
    {"hook_z", TT_SLOT_Z},
    {"hook_attn_out", TT_SLOT_ATTN_OUT},
    {"hook_pre", TT_SLOT_MLP_PRE},
    {"hook_pre_linear", TT_SLOT_MLP_PRE_LINEAR},
    {"act", TT_SLOT_MLP_ACT},
    {"hook_post", TT_SLOT_MLP_POST},
    {"hook_mlp_out", TT_SLOT_MLP_OUT},
    {"hook_logits", TT_SLOT_LOGITS},
    {"hook_probs", TT_SLOT_PROBS},
    {"hook_loss", TT_SLOT_LOSS},
};

static bool is_pair(tt_slot s) {
  return s == TT_SLOT_STREAM || s == TT_SLOT_SCORES;
}

// The floats one slot of kind s holds, for max_T tokens.
static size_t slot_floats(const tt_engine *e, tt_slot s) {
  size_t T = (size_t)e->max_T, C = (size_t)e->C, H = (size_t)e->H, F = (size_t)e->F, V = (size_t)e->V;
  size_t G = (size_t)e->G, D = (size_t)e->D;
  bool llama = e->cfg->arch == TT_ARCH_LLAMA, rope = e->cfg->positions == TT_POS_ROPE;
  switch (s) {
  case TT_SLOT_Q:
  case TT_SLOT_Z:
    return H * T * D;
  case TT_SLOT_MERGED:  // the heads side by side (T,H·D), and the backward pass's (T,C) scratch
    return T * (H * D > C ? H * D : C);
  case TT_SLOT_K:
  case TT_SLOT_V:
    return G * T * D;
  case TT_SLOT_ROT_Q:
    return rope ? H * T * D : 0;
  case TT_SLOT_ROT_K:
    return rope ? G * T * D : 0;
  case TT_SLOT_ALIBI:
    return e->cfg->positions == TT_POS_ALIBI ? H * T * T : 0;
  case TT_SLOT_MLP_PRE_LINEAR:
  case TT_SLOT_MLP_ACT:
    return llama ? T * F : 0;
  case TT_SLOT_NORM_MEAN:
  case TT_SLOT_NORM_SCALE:
  case TT_SLOT_LOSS:
    return T;
  case TT_SLOT_QKV:
    return llama ? 0 : T * 3 * C;
  case TT_SLOT_SCORES:
    return H * T * T;
  case TT_SLOT_MLP_PRE:
  case TT_SLOT_MLP_POST:
    return T * F;
  case TT_SLOT_LOGITS:
  case TT_SLOT_PROBS:
    return T * V;
  default:
    return T * C;  // (T,C)
  }
}

// Carves the slots out of base (or, with base unset, only counts the floats).
static size_t carve(tt_engine *e, tt_buf base) {
  size_t used = 0;
  for (int s = 0; s < TT_SLOT_COUNT; s++)
    for (int i = 0; i < (is_pair((tt_slot)s) ? 2 : 1); i++) {
      size_t n = slot_floats(e, (tt_slot)s);
      if (base.handle) e->ws->slot[s][i] = tt_buf_view(base, used, n);
      used += (n + 15) & ~(size_t)15;  // keep every slot 64-byte aligned
    }
  return used;
}

tt_status tt_workspace_setup(tt_engine *e, tt_error *err) {
  if (!(e->ws = calloc(1, sizeof *e->ws))) return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  size_t n = carve(e, (tt_buf){0});
  if (e->be->alloc(e->be, n, &e->ws->all, err) != TT_OK)
    return tt_fail_prefix(err, "engine: workspace for %d tokens", e->max_T);
  carve(e, e->ws->all);
  return TT_OK;
}

void tt_workspace_release(tt_engine *e) {
  if (e->ws && e->ws->all.handle) e->be->release(e->be, &e->ws->all);
  if (e->ws && e->ws->tape_all.handle) e->be->release(e->be, &e->ws->tape_all);
  if (e->ws) free(e->ws->tape), free(e->ws->tape_now);
  free(e->ws);
  e->ws = NULL;
}

void tt_workspace_reset(tt_engine *e) {
  memset(e->ws->turn, 0, sizeof e->ws->turn);
  struct tt_workspace *ws = e->ws;
  if (e->run.taping && ws->tape)  // a gradient run's forward pass: every entry in its own buffer again
    memcpy(ws->tape_now, ws->tape, ((size_t)e->cfg->n_layer * TAPED + TAPED_HEAD) * sizeof *ws->tape);
}

// The next slot of kind s, as a view of n floats.
static tt_buf take(tt_engine *e, tt_slot s, size_t n) {
  tt_buf b = e->ws->slot[s][e->ws->turn[s]];
  if (is_pair(s)) e->ws->turn[s] ^= 1;
  return tt_buf_view(b, 0, n);
}

static tt_slot slot_of(const char *name);

tt_buf tt_workspace_slot(tt_engine *e, const char *name, size_t n) {
  return take(e, slot_of(name), n);
}

// The slot kind that holds hook `name` (by its last dotted part).
static tt_slot slot_of(const char *name) {
  const char *dot = strrchr(name, '.');
  const char *last = dot ? dot + 1 : name;
  for (size_t i = 0; i < sizeof hook_slots / sizeof *hook_slots; i++)
    if (strcmp(hook_slots[i].hook, last) == 0) return hook_slots[i].slot;
  TT_ASSERT(!"every tensor the engine computes has a slot");
  return TT_SLOT_COUNT;
}

// The floats the tape keeps of hook `name`, for max_T tokens: 0 for what the backward pass
// makes again when it was not recorded (GPT-2's activation output, act(pre) from the taped
// pre, one element-wise op per block instead of (T,F) floats per block on the tape).
static size_t tape_floats(const tt_engine *e, const char *name) {
  if (e->cfg->arch != TT_ARCH_LLAMA && strcmp(name, "mlp.hook_post") == 0) return 0;
  return slot_floats(e, slot_of(name));
}

tt_status tt_workspace_setup_tape(tt_engine *e, tt_error *err) {
  struct tt_workspace *ws = e->ws;
  int L = e->cfg->n_layer;
  size_t count = (size_t)L * TAPED + TAPED_HEAD, used = 0;
  if (!(ws->tape = calloc(count, sizeof *ws->tape)) || !(ws->tape_now = calloc(count, sizeof *ws->tape_now)))
    return tt_fail(err, TT_ERR_NOMEM, "engine: out of memory");
  for (int pass = 0; pass < 2; pass++) {  // count, then carve
    used = 0;
    for (size_t i = 0; i < count; i++) {
      const char *name = i < (size_t)L * TAPED ? taped_block[i % TAPED] : taped_head[i - (size_t)L * TAPED];
      size_t n = tape_floats(e, name);
      if (strcmp(name, "hook_probs") == 0) {  // kept in the logits slot (see step_head in forward.c)
        if (pass == 1) ws->tape[i] = ws->slot[TT_SLOT_LOGITS][0];
        continue;
      }
      if (pass == 1 && n > 0) ws->tape[i] = tt_buf_view(ws->tape_all, used, n);
      used += (n + 15) & ~(size_t)15;
    }
    if (pass == 0 && e->be->alloc(e->be, used, &ws->tape_all, err) != TT_OK)
      return tt_fail_prefix(err, "engine: the backward pass's tape for %d tokens", e->max_T);
  }
  return TT_OK;
}

// The index of hook suffix of layer in the tape's entries, or -1 when it is not taped.
static long tape_index(const tt_engine *e, int layer, const char *suffix) {
  if (!e->ws->tape || layer >= e->cfg->n_layer) return -1;
  const char *const *names = layer < 0 ? taped_head : taped_block;
  size_t count = layer < 0 ? TAPED_HEAD : TAPED, base = (size_t)(layer < 0 ? e->cfg->n_layer : layer) * TAPED;
  for (size_t i = 0; i < count; i++)
    if (strcmp(names[i], suffix) == 0) return (long)(base + i);
  return -1;
}

tt_buf tt_workspace_tape(tt_engine *e, int layer, const char *suffix, size_t n) {
  long i = tape_index(e, layer, suffix);
  return i < 0 || !tt_buf_is_set(e->ws->tape_now[i]) ? (tt_buf){0} : tt_buf_view(e->ws->tape_now[i], 0, n);
}

tt_buf tt_workspace_tape_own(tt_engine *e, int layer, const char *suffix, size_t n) {
  long i = tape_index(e, layer, suffix);
  return i < 0 || !tt_buf_is_set(e->ws->tape[i]) ? (tt_buf){0} : tt_buf_view(e->ws->tape[i], 0, n);
}

void tt_workspace_tape_at(tt_engine *e, int layer, const char *suffix, tt_buf where) {
  long i = tape_index(e, layer, suffix);
  if (i >= 0) e->ws->tape_now[i] = where;
}

static bool in_stream_slot(const tt_engine *e, tt_buf x) {
  for (int i = 0; i < 2; i++) {
    tt_buf s = e->ws->slot[TT_SLOT_STREAM][i];
    if (x.handle == s.handle && x.offset == s.offset) return true;
  }
  return false;
}

static bool in_workspace(const tt_engine *e, tt_buf x) {
  const tt_buf all = e->ws->all;
  return x.handle == all.handle && x.offset >= all.offset && x.offset < all.offset + all.n;
}

tt_status tt_workspace_keep_stream(tt_engine *e, tt_buf *x, tt_error *err) {
  if (!in_workspace(e, *x) || in_stream_slot(e, *x)) return TT_OK;
  size_t n = (size_t)e->run.T * e->C;
  tt_buf dst = take(e, TT_SLOT_STREAM, n);
  tt_status st = tt_engine_copy(e, dst, *x, n, err);
  if (st == TT_OK) *x = dst;
  return st;
}

tt_status tt_engine_copy(tt_engine *e, tt_buf out, tt_buf x, size_t n, tt_error *err) {
  return e->be->scale(e->be, out, x, 1.0f, n, err);
}
