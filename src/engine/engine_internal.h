// engine_internal: the engine's state, shared by engine.c (create, run, buffers) and
// steps.c (one function per step of the forward pass). Not a public header.
#ifndef TT_ENGINE_INTERNAL_H
#define TT_ENGINE_INTERNAL_H

#include "engine.h"

typedef struct {
  tt_buf ln1_w, ln1_b;          // (C)
  tt_buf attn_w, attn_b;        // (C,3C), (3C)
  tt_buf attn_proj_w, attn_proj_b;  // (C,C), (C)
  tt_buf ln2_w, ln2_b;          // (C)
  tt_buf fc_w, fc_b;            // (C,F), (F)
  tt_buf fc_proj_w, fc_proj_b;  // (F,C), (C)
} tt_layer_bufs;

// Workspace slots, each sized for max_T tokens; a step that nobody records writes into its
// slot, a recorded step on a host backend writes straight into the recorder's memory.
typedef struct {
  tt_buf resid[2];   // (T,C) the residual stream, ping-pong
  tt_buf embed;      // (T,C)
  tt_buf pos;        // (T,C)
  tt_buf ln_mean;    // (T)
  tt_buf ln_scale;   // (T)
  tt_buf ln_norm;    // (T,C)
  tt_buf ln_out;     // (T,C)
  tt_buf qkv;        // (T,3C)
  tt_buf q, k, v;    // (H,T,D)
  tt_buf scores[2];  // (H,T,T) raw → scaled → masked → pattern, ping-pong
  tt_buf z;          // (H,T,D)
  tt_buf merged;     // (T,C) z with heads side by side
  tt_buf attn_out;   // (T,C)
  tt_buf mlp_pre;    // (T,F)
  tt_buf mlp_post;   // (T,F)
  tt_buf mlp_out;    // (T,C)
  tt_buf logits;     // (T,V)
  tt_buf probs;      // (T,V)
  tt_buf loss;       // (T)
} tt_workspace;

struct tt_engine {
  const tt_model *model;
  const tt_config *cfg;
  tt_backend *be;
  int max_T;
  int C, H, D, F, V;

  tt_buf weights;       // device backends: every weight in one allocation (handle NULL on host)
  tt_buf pos_table;     // sinusoidal table (max_T,C) on host backends (handle NULL otherwise)
  tt_buf wte;           // (V,C)
  tt_buf positions;     // (≥T,C) learned wpe or the sinusoidal table; handle NULL for none
  tt_buf lnf_w, lnf_b;  // (C)
  tt_buf lm_head;       // (V,C)
  tt_layer_bufs *layers;

  tt_buf work;  // the one workspace allocation
  tt_workspace ws;

  // Per run.
  const tt_recorder *rec;
  const int32_t *ids;
  int T;
};

// A step's output: the buffer the op writes, and the recorder memory to fill after it
// (NULL when nobody records the hook or the op already wrote there).
typedef struct {
  tt_buf buf;
  float *pending;
  size_t n;
} tt_step_out;

// Picks where the hook `name` (shape dims) is computed: the recorder's memory on host
// backends when the recorder wants it, else `slot` (resized to the hook's element count).
tt_step_out tt_engine_out(tt_engine *e, const char *name, int ndim, const int64_t *shape, tt_buf slot);
// Downloads the result into the recorder's memory when the op wrote elsewhere.
tt_status tt_engine_done(tt_engine *e, tt_step_out o, tt_error *err);
// Offers an existing buffer as the hook `name`: copies it into the recorder's memory if wanted.
tt_status tt_engine_offer(tt_engine *e, const char *name, int ndim, const int64_t *shape, tt_buf buf,
                          tt_error *err);

// The forward pass, step by step (steps.c).
tt_status tt_step_tokens(tt_engine *e, tt_error *err);
// Embedding and positions; returns the residual stream entering block 0.
tt_status tt_step_embed(tt_engine *e, tt_buf *resid, tt_error *err);
tt_status tt_step_block(tt_engine *e, int layer, tt_buf *resid, tt_error *err);
tt_status tt_step_head(tt_engine *e, tt_buf resid, tt_error *err);

// Fills table (rows, C) with sinusoidal positions: PE(p,2i) = sin(p / 10000^(2i/C)),
// PE(p,2i+1) = cos(p / 10000^(2i/C)).
void tt_sinusoid_table(float *table, int rows, int C);

#endif
