// engine_internal: the engine's state and the three helpers the forward pass uses. Not a
// public header. Who calls whom (nothing calls back up):
//   engine.c  (create, destroy)        → weights.c, workspace.c
//   forward.c (run, the steps)         → outputs.c → workspace.c
// Shape legend: T tokens, C width, H heads, D = C/H, F FFN width, V vocabulary.
#ifndef TT_ENGINE_INTERNAL_H
#define TT_ENGINE_INTERNAL_H

#include "engine.h"

// ---- weights as backend buffers (weights.c) -------------------------------------------
typedef struct {
  tt_buf ln1_w, ln1_b;              // (C)
  tt_buf attn_w, attn_b;            // (C,3C), (3C)
  tt_buf attn_proj_w, attn_proj_b;  // (C,C), (C)
  tt_buf ln2_w, ln2_b;              // (C)
  tt_buf fc_w, fc_b;                // (C,F), (F)
  tt_buf fc_proj_w, fc_proj_b;      // (F,C), (C)
} tt_layer_bufs;

typedef struct {
  tt_buf all;             // device backends: every weight in one allocation (unset on host)
  tt_buf pos_table;       // host backends: the sinusoidal table (max_T,C) (unset otherwise)
  tt_buf wte;             // (V,C)
  tt_buf positions;       // (max_T,C) learned wpe rows or the sinusoidal table; unset for none
  tt_buf lnf_w, lnf_b;    // (C)
  tt_buf lm_head;         // (V,C)
  tt_layer_bufs *layers;  // n_layer
} tt_weight_bufs;

// ---- workspace slots (workspace.c) ----------------------------------------------------
// Every tensor the pass computes has a slot sized for max_T tokens; a recorded tensor on a
// host backend is computed straight into the recorder's memory instead. The stream and the
// scores have two slots each, handed out in turn, so an op never writes over its input.
typedef enum {
  TT_SLOT_STREAM,          // (T,C) the residual stream: two slots
  TT_SLOT_EMBED,           // (T,C)
  TT_SLOT_NORM_MEAN,       // (T)
  TT_SLOT_NORM_SCALE,      // (T)
  TT_SLOT_NORM_NORMALIZED, // (T,C)
  TT_SLOT_NORM_OUT,        // (T,C)
  TT_SLOT_QKV,             // (T,3C)
  TT_SLOT_Q,               // (H,T,D)
  TT_SLOT_K,               // (H,T,D)
  TT_SLOT_V,               // (H,T,D)
  TT_SLOT_SCORES,          // (H,T,T) raw → scaled → masked → pattern: two slots
  TT_SLOT_Z,               // (H,T,D)
  TT_SLOT_MERGED,          // (T,C) z with the heads side by side (not a hook)
  TT_SLOT_ATTN_OUT,        // (T,C)
  TT_SLOT_MLP_PRE,         // (T,F)
  TT_SLOT_MLP_POST,        // (T,F)
  TT_SLOT_MLP_OUT,         // (T,C)
  TT_SLOT_LOGITS,          // (T,V)
  TT_SLOT_PROBS,           // (T,V)
  TT_SLOT_LOSS,            // (T-1)
  TT_SLOT_COUNT
} tt_slot;

typedef struct {
  tt_buf all;                     // the one allocation
  tt_buf slot[TT_SLOT_COUNT][2];  // [1] is set for the two-slot kinds only
  int turn[TT_SLOT_COUNT];        // which of the two the next request gets
} tt_workspace;

// ---- the engine ----------------------------------------------------------------------
// A shape: ndim sizes. TT_DIMS(T, C) writes one.
typedef struct {
  int ndim;
  int64_t d[TT_MAX_DIMS];
} tt_dims;
#define TT_DIMS(...) ((tt_dims){(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__}})

// A recorded output of the current op, computed in its slot on a device backend, to be
// downloaded into the recorder's memory once the op has run.
typedef struct {
  tt_buf buf;
  void *dst;
  size_t n;
} tt_pending;
#define TT_MAX_PENDING 4  // outputs of one op (the norm has four)

struct tt_engine {
  const tt_model *model;
  const tt_config *cfg;
  tt_backend *be;
  int max_T;
  int C, H, D, F, V;
  tt_weight_bufs w;
  tt_workspace ws;

  struct {  // the current run
    const tt_recorder *rec;  // NULL when nobody records
    const int32_t *ids;      // (T)
    int T;
    const char *prefix;      // put before every hook name ("" for the forward pass)
    tt_pending pending[TT_MAX_PENDING];  // recorded outputs of the current op
    int n_pending;
  } run;
};

static inline bool tt_engine_zero_copy(const tt_backend *be) { return be->host_memory && be->wrap; }

// weights.c: uploads (device) or wraps (host) every weight; frees what it allocated.
tt_status tt_weights_setup(tt_engine *e, tt_error *err);
void tt_weights_release(tt_engine *e);
// Fills table (rows, C) with sinusoidal positions: PE(p,2i) = sin(p / 10000^(2i/C)),
// PE(p,2i+1) = cos(p / 10000^(2i/C)).
void tt_sinusoid_table(float *table, int rows, int C);

// workspace.c: the slots and who gets which.
tt_status tt_workspace_setup(tt_engine *e, tt_error *err);
void tt_workspace_release(tt_engine *e);
void tt_workspace_reset(tt_engine *e);  // before each run: every pair starts at its first slot
// The slot of the hook named `suffix` (its last dotted part: "ln1.hook_out" → the norm's
// output slot), as a view of n floats; a two-slot kind hands out its two slots in turn.
tt_buf tt_workspace_for_hook(tt_engine *e, const char *suffix, size_t n);
// A slot that holds no hook (the merged heads), n floats.
tt_buf tt_workspace_scratch(tt_engine *e, tt_slot s, size_t n);
// The stream (T,C) leaving a block must outlive the next block's scratch: when *x lives in
// a workspace slot other than the stream's (post-LN: ln2's output), it is copied (exactly)
// into the next stream slot and *x points there.
tt_status tt_workspace_keep_stream(tt_engine *e, tt_buf *x, tt_error *err);
// out (n) = x (n), through the backend (multiplying by 1 is exact).
tt_status tt_engine_copy(tt_engine *e, tt_buf out, tt_buf x, size_t n, tt_error *err);

// outputs.c: naming and recording. A hook's name is run.prefix + "blocks.L." + suffix, or
// run.prefix + suffix when layer < 0.
// Where the op computing the hook writes: recorder memory (host backends, when recorded)
// or the hook's slot; a device output that is recorded is downloaded by tt_engine_flush.
tt_buf tt_engine_out(tt_engine *e, int layer, const char *suffix, tt_dims shape);
// Hands the outputs of the op just run to the recorder (downloads them on device backends).
tt_status tt_engine_flush(tt_engine *e, tt_error *err);
// Offers an existing buffer (shape) as a hook: copied into the recorder's memory if wanted.
tt_status tt_engine_offer(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_buf buf,
                          tt_error *err);
// Offers the run's token ids (T) as the int32 hook `name`.
void tt_engine_offer_ids(tt_engine *e, const char *name);

#endif
