// hooks: the hook catalogue. One table says, for every tensor a forward pass can record,
// its layer-free name, whether it lives in a block, its shape letters and dtype, the
// pipeline step that shows it and its default view. Names follow TransformerLens
// (blocks.L.attn.hook_pattern, ...). Every module that builds, parses or shapes a hook
// name asks this module; adding a hook is one row here plus the engine line computing it.
//
// Full names:  [grad.] [decode.S.] (blocks.L.<suffix> | <suffix>)
//   grad.      the gradient of the loss with respect to the hook (same axes, F32)
//   grad.<weight>  the gradient of a weight, named as in model.safetensors without
//              "transformer." (grad.wte.weight, grad.h.L.attn.c_attn.weight, ...), in its layout
//   decode.S.  the hook in decode step S (S = 0, 1, ...) of generation with a KV cache:
//              one new token; the query axis (the first T) is 1 and every later T is the
//              key count, prompt + S + 1
// Layer and step numbers are decimal without sign or leading zeros, so a name has one
// spelling and name -> ref -> name gives it back.
#ifndef TT_HOOKS_H
#define TT_HOOKS_H

#include "core/core.h"
#include "model/model.h"

// Which configs record a row.
typedef enum {
  TT_HOOK_ANY,        // every config
  TT_HOOK_POSITIONS,  // added position vectors (ttrace_positions learned or sinusoidal)
  TT_HOOK_ROTARY,     // rotary positions (the Llama block; GPT-2 with positions=rope)
  TT_HOOK_ALIBI,      // the ALiBi bias (GPT-2 with positions=alibi)
  TT_HOOK_GATED_MLP,  // gated MLP with a second input projection (the Llama block)
  TT_HOOK_FUSED_QKV,  // one fused Q/K/V projection (the GPT-2 block)
  TT_HOOK_NORM_MEAN,  // the norm's mean (the GPT-2 block, 0 under ttrace_norm=rmsnorm; the
                      // Llama block's RMSNorm records none)
} tt_hook_when;

// Where a row sits in the forward pass. A block's parts run NORM1 ATTN NORM2 MLP
// (pre-LN, GPT-2) or ATTN NORM1 MLP NORM2 (post-LN, the original Transformer).
typedef enum {
  TT_PART_EMBED,  // before the blocks
  TT_PART_RESID,  // a block's input
  TT_PART_NORM1,
  TT_PART_ATTN,
  TT_PART_NORM2,
  TT_PART_MLP,
  TT_PART_HEAD,  // after the blocks
} tt_hook_part;

typedef struct {
  const char *suffix;  // layer-free name: "attn.hook_pattern", "ln1.hook_scale", "hook_logits", "tokens"
  bool in_block;       // the full name is "blocks.L.<suffix>"
  const char *axes;    // shape letters "H,T,T" (legend in core.h); grad.<hook> has the hook's axes
  tt_dtype dtype;
  const char *step;  // id of the pipeline step that shows it ("softmax", "qkv", ...), NULL if none
  const char *view;  // its default view by name: "heatmap", "table", "layernorm", "bars", ...
  tt_hook_part part;
  tt_hook_when when;
  bool step_layer0;  // step and view apply to blocks.0 only (elsewhere: no step, "heatmap")
  bool weight;       // a weight's gradient: "grad.<suffix>" or, in_block, "grad.h.L.<suffix>"
                     // (model.safetensors' names and layouts); never a forward hook
} tt_hook_def;

typedef struct {
  const tt_hook_def *def;
  int layer;         // -1 outside the blocks
  bool grad;         // the name began "grad."
  int decode;        // S for "decode.S.<hook>", else -1
  const char *step;  // def->step and def->view for this layer (see step_layer0)
  const char *view;
} tt_hook_ref;

// Parses a full name; false (out untouched) when it is not a catalogue hook: unknown
// suffix, a block suffix without "blocks.L." or the other way round, a layer or step
// number that is not canonical or beyond int, grad. of an integer hook.
bool tt_hook_lookup(const char *name, tt_hook_ref *out);
// The full name back into buf; NULL when it does not fit (or ref has no def).
const char *tt_hook_name(const tt_hook_ref *ref, char *buf, size_t len);
// The plain forward hook `suffix` of `layer` (ignored outside the blocks) as a ref;
// false when suffix is not in the catalogue or a block hook is given a negative layer.
bool tt_hook_at(const char *suffix, int layer, tt_hook_ref *out);
// The row of a layer-free suffix, NULL if none; the table itself, in forward order.
const tt_hook_def *tt_hook_def_find(const char *suffix);
int tt_hook_def_count(void);
const tt_hook_def *tt_hook_def_at(int i);
// The dtype of the tensor a ref names (F32 for gradients).
tt_dtype tt_hook_dtype(const tt_hook_ref *ref);
// Fills shape for a ref with cfg and a prompt of T tokens (decode steps as above); ndim.
int tt_hook_ref_shape(const tt_hook_ref *ref, const tt_config *cfg, int T, int64_t *shape);
// Fills shape from axes letters for cfg and T tokens; returns ndim.
int tt_hook_shape(const char *axes, const tt_config *cfg, int T, int64_t *shape);

// One hook of a forward pass, as the per-config walk hands it out.
typedef struct {
  char name[64];       // "blocks.0.attn.hook_pattern"
  const char *suffix;  // "attn.hook_pattern" (layer-free), or the whole name outside blocks
  int layer;           // -1 outside the blocks
  const char *axes;    // letters of the shape: "H,T,T"
  tt_dtype dtype;
  const tt_hook_def *def;
} tt_hook;

// Calls fn (may be NULL) for every hook a forward pass of cfg records, in order, as the
// table says (rows whose `when` holds for cfg, block parts in cfg's order). The count.
int tt_hooks_each(const tt_config *cfg, void (*fn)(void *ctx, const tt_hook *h), void *ctx);
// Shell-style glob match, fnmatch(3) without flags: '*', '?', '[a-z]', '[!a]', '\'.
bool tt_glob_match(const char *pattern, const char *name);

#endif
