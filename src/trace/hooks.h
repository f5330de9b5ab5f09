// hooks: the catalogue of hook names, in the order the engine computes them.
// Names follow TransformerLens (blocks.L.attn.hook_pattern, ...).
#ifndef TT_HOOKS_H
#define TT_HOOKS_H

#include "core/core.h"
#include "model/model.h"

typedef struct {
  char name[64];        // "blocks.0.attn.hook_pattern"
  const char *suffix;   // "attn.hook_pattern" (layer-free), or the whole name outside blocks
  int layer;            // -1 outside the blocks
  const char *axes;     // letters of the shape: "H,T,T"
  tt_dtype dtype;
} tt_hook;

// Calls fn for every hook a forward pass of cfg records, in order. Returns the count.
int tt_hooks_each(const tt_config *cfg, void (*fn)(void *ctx, const tt_hook *h), void *ctx);
// Fills shape from the axes letters for cfg and T tokens; returns ndim.
int tt_hook_shape(const char *axes, const tt_config *cfg, int T, int64_t *shape);
// Shell-style glob match ('*', '?', '[a-z]').
bool tt_glob_match(const char *pattern, const char *name);

#endif
