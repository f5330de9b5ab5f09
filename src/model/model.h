// model: a GPT-2-style model folder in Hugging Face layout (config.json, model.safetensors).
// Weights are memory-mapped; F32 tensors are used in place, F16/BF16 ones are converted
// into one F32 allocation.
#ifndef TT_MODEL_H
#define TT_MODEL_H

#include "core/core.h"

typedef enum { TT_ACT_GELU_TANH, TT_ACT_GELU_ERF, TT_ACT_RELU, TT_ACT_SILU, TT_ACT_IDENTITY } tt_act_kind;
// Positions: added to the embeddings (learned, sinusoidal), none, or inside attention:
// rotary (q and k rotated by position, Hugging Face's rotate-half convention) or ALiBi
// (a per-head linear bias −m_h·|i−j| added to the scaled scores).
typedef enum { TT_POS_LEARNED, TT_POS_SINUSOIDAL, TT_POS_NONE, TT_POS_ROPE, TT_POS_ALIBI } tt_pos_kind;
// The block's architecture. GPT-2: fused Conv1D Q/K/V, LayerNorm (or the ttrace_* knobs),
// GELU MLP. Llama (Hugging Face LlamaForCausalLM): RMSNorm, separate nn.Linear q/k/v/o
// projections with grouped-query attention, rotary positions, SwiGLU MLP.
typedef enum { TT_ARCH_GPT2, TT_ARCH_LLAMA } tt_arch;
typedef enum { TT_NORM_LAYERNORM, TT_NORM_RMSNORM } tt_norm_kind;

#define TT_MAX_ABLATE 64              // knocked-out heads one config can hold
#define TT_MAX_ROPE_OFFSET (1 << 20)  // the largest rope_offset

typedef struct {
  tt_arch arch;  // "model_type": gpt2 (or absent) | llama
  // From HF GPT-2's config.json (Llama's names in brackets).
  int n_layer, n_head, n_embd, n_positions, vocab_size;
  int n_inner;             // F; config "n_inner" (null means 4 * n_embd)
  double ln_eps;           // "layer_norm_epsilon" (the engine computes with it as a float)
  tt_act_kind activation;  // "activation_function": gelu_new (tanh form), gelu (erf), relu, silu, identity
  // ttrace's own keys ("ttrace_*" in config.json; `--set key=value` on the command line).
  tt_pos_kind positions;  // ttrace_positions: learned | sinusoidal | none
  tt_norm_kind norm;      // ttrace_norm: layernorm | rmsnorm
  bool post_ln;           // ttrace_block: pre_ln | post_ln (the original Transformer order)
  bool scale_attn;        // ttrace_scale_attn (HF: scale_attn_weights): divide scores by sqrt(D)
  bool causal;            // ttrace_causal: mask positions above the diagonal
  bool residual;          // ttrace_residual: add the residual connections
  // More of HF GPT-2's keys.
  bool scale_attn_by_layer;  // scale_attn_by_inverse_layer_idx: scores of layer L also / (L+1)
  bool reorder_upcast;       // reorder_and_upcast_attn: scores in float32 with the scale folded in;
                             // ttrace always computes them so (the key is recorded, nothing changes)
  // ttrace_ablate (`--set ablate=L.H`, repeatable): heads whose z is set to zero (knock-out)
  int n_ablate;
  struct {
    int layer, head;
  } ablate[TT_MAX_ABLATE];
  // The Llama block (config.json of model_type llama; [hidden_size], [intermediate_size],
  // [num_attention_heads], [num_hidden_layers], [max_position_embeddings], [rms_norm_eps]
  // fill the fields above, positions is rope, norm rmsnorm, activation silu).
  int n_kv_head;            // num_key_value_heads (G); 0 means n_head (GPT-2)
  int head_dim;             // head_dim (D); 0 means n_embd / n_head (GPT-2)
  double rope_theta;        // rope_theta: the base of the rotary frequencies (10000 unless set)
  int rope_offset;          // ttrace_rope_offset (`--set rope_offset=N`): rotary positions start at
                            // N instead of 0 (a what-if: positions=rope only; the engine refuses it
                            // otherwise)
  bool attn_bias;           // attention_bias: q, k, v and o projections have biases
  bool mlp_bias;            // mlp_bias: gate, up and down projections have biases
  int tie_word_embeddings;  // -1 absent (HF's default: tied), 0 false, 1 true; checked by the
                            // loader against lm_head.weight, not part of the trace's config
} tt_config;

void tt_config_default(tt_config *cfg);  // GPT-2 small's values
// The head width D and the key/value head count G of a config (D = C/H, G = H for GPT-2).
static inline int tt_config_head_dim(const tt_config *c) {
  return c->head_dim ? c->head_dim : (c->n_head ? c->n_embd / c->n_head : 0);
}
static inline int tt_config_kv_heads(const tt_config *c) {
  return c->n_kv_head ? c->n_kv_head : c->n_head;
}
// Positions that are added to the embeddings (hook_pos_embed): learned or sinusoidal.
static inline bool tt_config_adds_positions(const tt_config *c) {
  return c->positions == TT_POS_LEARNED || c->positions == TT_POS_SINUSOIDAL;
}
char *tt_config_to_json(const tt_config *cfg);  // malloc'd, one line
// The factor layer l's raw attention scores are multiplied by (head width D): 1/√D
// (scale_attn) and 1/(l+1) (scale_attn_by_inverse_layer_idx) folded into one number, as
// Hugging Face's reorder_and_upcast_attn does; 1 when neither is on.
float tt_config_attn_scale(const tt_config *cfg, int l, int D);
// Reads config.json's text. A key whose meaning would change the computation and that
// ttrace does not implement (add_cross_attention, pruned_heads, another model_type, an
// unknown ttrace_* key, an activation it does not have) is refused with TT_ERR_UNSUPPORTED
// (TT_ERR_FORMAT for a malformed value), naming the key. n_ctx stands in for a missing
// n_positions.
tt_status tt_config_from_json(const char *json, tt_config *cfg, tt_error *err);
// Sets one variant knob by its short name (scale_attn, causal, positions, activation,
// residual, block, norm, scale_attn_by_inverse_layer_idx, reorder_and_upcast_attn) or its
// config.json name; values as in config.json or true/false. ablate=L.H (ttrace_ablate) adds
// one knocked-out head each time (L and H within the config's layers and heads);
// ablate=none clears them. rope_offset=N (0 ≤ N ≤ 1048576, ttrace_rope_offset) shifts the
// rotary positions, for both architectures.
tt_status tt_config_set(tt_config *cfg, const char *key, const char *value, tt_error *err);
const char *tt_act_name(tt_act_kind a);
// True when head h of layer l is knocked out (ttrace_ablate): its z is zero.
bool tt_config_ablated(const tt_config *cfg, int l, int h);

typedef struct {
  const float *ln1_w, *ln1_b;  // (C)
  const float *attn_w;         // (C, 3C)  Conv1D layout: x (T,C) · W → (T,3C)
  const float *attn_b;         // (3C)
  const float *attn_proj_w;    // (C, C)
  const float *attn_proj_b;    // (C)
  const float *ln2_w, *ln2_b;  // (C)
  const float *fc_w;           // (C, F)
  const float *fc_b;           // (F)
  const float *fc_proj_w;      // (F, C)
  const float *fc_proj_b;      // (C)
  // The Llama block (nn.Linear layout (out, in): x (T,in) · Wᵀ → (T,out)); biases only with
  // attention_bias / mlp_bias, else NULL. ln1_w, ln2_w are its two RMSNorm weights.
  const float *q_w, *k_w, *v_w, *o_w;   // (H·D, C), (G·D, C), (G·D, C), (C, H·D)
  const float *q_b, *k_b, *v_b, *o_b;   // (H·D), (G·D), (G·D), (C)
  const float *gate_w, *up_w, *down_w;  // (F, C), (F, C), (C, F)
  const float *gate_b, *up_b, *down_b;  // (F), (F), (C)
} tt_layer_weights;

typedef struct tt_model {
  tt_config cfg;
  char *dir;
  const float *wte;            // (V, C)
  const float *wpe;            // (P, C); NULL unless positions are learned
  const float *lnf_w, *lnf_b;  // (C)
  const float *lm_head;        // (V, C); equals wte when tied (tie_word_embeddings true or
                               // absent, and lm_head.weight absent or equal to wte.weight)
  tt_layer_weights *layers;    // n_layer
  size_t n_params;
  struct tt_model_storage *storage;  // mapping and converted weights
} tt_model;

// Loads dir/config.json and dir/model.safetensors (or Hugging Face's shards: dir/
// model.safetensors.index.json and the files its weight_map names, each memory-mapped; see
// checkpoint.h for what is refused); names with or without "transformer.".
// Every tensor's shape is checked against the config. tie_word_embeddings false needs an
// lm_head.weight; true (or absent) with an lm_head.weight that differs from wte.weight is
// refused (which of the two Hugging Face would use is not defined). A Llama folder
// (model_type llama) has LlamaForCausalLM's names: model.embed_tokens.weight (wte),
// model.layers.N.{input_layernorm, self_attn.{q,k,v,o}_proj, post_attention_layernorm,
// mlp.{gate,up,down}_proj}.weight (and .bias where the config says), model.norm.weight
// (lnf_w; lnf_b and wpe stay NULL), lm_head.weight unless tie_word_embeddings is true.
tt_status tt_model_load(const char *dir, tt_model **out, tt_error *err);
// dir/config.json alone (as tt_model_load reads it; no weights): the shapes of a model.
tt_status tt_config_read_dir(const char *dir, tt_config *cfg, tt_error *err);
void tt_model_destroy(tt_model *m);
// Whether the n floats at w are a weight read in place from the checkpoint's mapping (true)
// rather than converted into memory of the model's own (F16/BF16) or made otherwise.
bool tt_model_weight_in_file(const tt_model *m, const float *w, size_t n);
// Such a weight's whole pages leave this process's memory (the engine keeps a copy in
// another layout): they are read from the file again when next used. Does nothing unless
// tt_model_weight_in_file.
void tt_model_drop_pages(const tt_model *m, const float *w, size_t n);
// The default model's folder (assets/models/...); false when it is not installed.
bool tt_model_default_dir(char *buf, size_t len);

// ---- embedding neighbours (neighbours.c) ----------------------------------------------------
// The rows of W_E (vocab, width) nearest token id's row by cosine similarity, most similar
// first. Rows equal bit for bit (the default model gives every token it never saw in
// training one shared row) are one entry: `shared` counts the tokens that have that row,
// `id` is the lowest of them. Rows equal to the token's own are not listed; out->shared
// counts them (1: the row is the token's alone).
#define TT_MAX_NEIGHBOURS 16
typedef struct {
  int32_t id;     // the neighbour (the lowest id of a shared row)
  double cosine;  // W_E[query]·W_E[id] / (|W_E[query]| |W_E[id]|), in double
  int shared;     // tokens with this row (1: its own)
} tt_neighbour;
typedef struct {
  int32_t id;  // the query
  int shared;  // tokens with the query's row, the query included
  int n;       // entries in near[] (k, fewer when the vocabulary runs out)
  tt_neighbour near[TT_MAX_NEIGHBOURS];
} tt_neighbours;
tt_status tt_embedding_neighbours(const float *wte, int vocab, int width, int32_t id, int k, tt_neighbours *out,
                                  tt_error *err);

#endif
