// engine: the GPT-2 forward pass (forward.c, top-down, one function per step), its
// backward pass (backward.c, the same steps reversed) and generation with a KV cache
// (decode.c, the forward pass's steps for one new token). After each
// op the engine offers the tensor to a recorder under its hook name (see trace/hooks.h);
// the engine never knows who listens. How the files inside fit: engine_internal.h.
#ifndef TT_ENGINE_H
#define TT_ENGINE_H

#include "backend/backend.h"
#include "core/core.h"
#include "model/model.h"

typedef struct tt_engine tt_engine;

// Uploads the weights to the backend once (host backends use them in place) and
// allocates the workspace for up to max_T tokens. The model must outlive the engine.
tt_status tt_engine_create(const tt_model *model, tt_backend *be, int max_T, tt_engine **out, tt_error *err);
// Copies the weights of the products (GPT-2's four block weights, Llama's seven, the
// unembedding) into the backend's faster layout where it has one (OpenBLAS on AVX-512:
// column panels), when they are read in place from the model's file (not F16/BF16, whose
// converted copy stays); their file pages then leave memory. Later passes run faster
// (GPT-2 small, one core, against OpenBLAS's Haswell kernels: T = 4 ~13 %, T = 16 ~5 %,
// T = 64-1024 1.7x), for a copy as large as the weights, made once. The engine does it by
// itself before the pass that brings its passes of TT_ENGINE_PACK_MIN_T rows or more to
// TT_ENGINE_PACK_AFTER_ROWS rows (why these: src/engine/weights.c); this call does it now.
// TT_OK and nothing done when there is nothing to pack, or after the first time.
#define TT_ENGINE_PACK_MIN_T 64
#define TT_ENGINE_PACK_AFTER_ROWS 512
tt_status tt_engine_pack_weights(tt_engine *eng, tt_error *err);
// Runs ids (T) through the model, offering every hook to rec (which may be NULL).
// Fails with TT_ERR_ARG when T is 0, T > max_T, T > n_positions or an id is >= V.
tt_status tt_engine_run(tt_engine *eng, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err);
// Makes the engine able to run gradients: allocates the tape (what the backward pass reads
// of the forward, for max_T tokens) and the weight gradients (as many floats as the weights)
// once. TT_ERR_UNSUPPORTED on a backend without the backward pass's ops (OpenCL, for now).
tt_status tt_engine_enable_grad(tt_engine *eng, tt_error *err);
// tt_engine_run, then the backward pass of L = mean over t = 0..T−2 of hook_loss[t]: offers
// grad.<hook> for every hook on the path to the loss (same shape) and grad.<weight> for
// every weight (names and layouts of model.safetensors without "transformer."). Needs
// tt_engine_enable_grad first and T >= 2 (TT_ERR_ARG otherwise). On a host backend the
// forward tensors the backward reads are read from rec's memory when rec takes them (they
// are not kept twice): that memory must stay as the engine wrote it until the call returns.
tt_status tt_engine_run_grad(tt_engine *eng, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err);

// ---- generation with a KV cache (decode.c) ----
// Allocates the cache once: K (after RoPE) and V (G,max_T,D) of every layer, one per
// key/value head. TT_ERR_UNSUPPORTED when the config has causal=false (a cached row would
// change with every new token).
tt_status tt_engine_enable_cache(tt_engine *eng, tt_error *err);
// tt_engine_run of the prompt ids (T), hooks under their usual names, keeping each layer's
// K and V rows in the cache (which it empties first).
tt_status tt_engine_prefill(tt_engine *eng, const int32_t *ids, int T, const tt_recorder *rec, tt_error *err);
// Decode step S = cached − prompt: the token id at position `cached` runs through the
// model alone, its hooks offered as decode.S.<hook> with one query row (shapes in
// trace/hooks.h); its K and V rows join the cache. TT_ERR_ARG without a prefill, past the
// context (max_T or n_positions) or for an id outside the vocabulary.
tt_status tt_engine_decode(tt_engine *eng, int32_t id, const tt_recorder *rec, tt_error *err);
// The positions in the cache: the prompt's and one per decode step since (0 before a prefill).
int tt_engine_cached(const tt_engine *eng);
// The last row of the last run's logits (V floats into out), whether recorded or not.
tt_status tt_engine_last_logits(tt_engine *eng, float *out, tt_error *err);

void tt_engine_destroy(tt_engine *eng);

#endif
