// engine_internal: the engine's state and the three helpers the forward pass uses. Not a
// public header. Who calls whom (nothing calls back up):
//   engine.c  (create, destroy)   → weights.c, workspace.c
//   forward.c (run, the steps)    → outputs.c (names, recording), workspace.c (slots),
//                                   backward.c (after the forward pass of a gradient run)
//   backward.c (the steps, reversed) → outputs.c, workspace.c (slots, the tape), grads.c
//   grads.c (weight gradients)    → outputs.c
//   decode.c  (prefill, decode steps, the KV cache) → forward.c (tt_forward), outputs.c
//   attend.c  (both blocks' attention)  → decode.c (the cache, in a prefill or decode step)
//   outputs.c                     → workspace.c
//
// Where the next features go:
//   a new hook        one OUT line and its op in forward.c; a row in workspace.c's
//                     hook_slots (a new slot kind and its size there when no slot fits)
//   grad.<hook>       backward.c, with run.prefix = "grad." (the forward slots hold the
//                     gradients; what the backward reads of the forward is on the tape)
//   decode.S.<hook>   decode.c: a run with run.prefix = "decode.S.", T = 1, pos0 = the
//                     cached rows; attend.c stores K and V (after RoPE) and its two
//                     products read the cache (tt_decode_scores, tt_decode_mix)
//   Llama blocks      forward_llama.c (its block: RMSNorm, q/k/v/o projections, SwiGLU);
//                     attend.c has what both blocks share (RoPE, scores, ALiBi, mask,
//                     softmax, z with grouped-query heads)
// Shape legend: T tokens, C width, H heads, G key/value heads (= H for GPT-2), D head
// width (C/H for GPT-2, head_dim for Llama), F FFN width, V vocabulary.
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
  // The Llama block (nn.Linear layout (out,in)); biases unset unless the config has them.
  tt_buf q_w, k_w, v_w, o_w;    // (H·D,C), (G·D,C), (G·D,C), (C,H·D)
  tt_buf q_b, k_b, v_b, o_b;    // (H·D), (G·D), (G·D), (C)
  tt_buf gate_w, up_w, down_w;  // (F,C), (F,C), (C,F)
  tt_buf gate_b, up_b, down_b;  // (F), (F), (C)
} tt_layer_bufs;

typedef struct {
  tt_buf all;                  // device backends: every weight in one allocation (unset on host)
  tt_buf pos_table;            // host backends: the sinusoidal table (max_T,C) (unset otherwise)
  tt_buf wte;                  // (V,C)
  tt_buf positions;            // (max_T,C) learned wpe rows or the sinusoidal table; unset for none
  tt_buf lnf_w, lnf_b;         // (C)
  tt_buf lm_head;              // (V,C)
  tt_layer_bufs *layers;       // n_layer
  tt_buf rope;                 // positions rope: (max_T,D) row p = cos(p·f_i), then sin(p·f_i), i < D/2
  tt_buf rope_inverse;         // the same rows with −sin: the rotation back (the backward pass)
  tt_buf alibi_slopes;         // positions alibi: (H) the slope m_h of each head
  tt_buf owned;                // what tt_weights_setup allocated for rope / alibi (one buffer)
  bool packed;                 // tt_weights_pack has run
  size_t rows_before_packing;  // rows of the passes tt_weights_before_pass counts
} tt_weight_bufs;

// ---- the engine ----------------------------------------------------------------------
// A shape: ndim sizes. TT_DIMS(T, C) writes one.
typedef struct {
  int ndim;
  int64_t d[TT_MAX_DIMS];
} tt_dims;
#define TT_DIMS(...) ((tt_dims){(int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), {__VA_ARGS__}})
// A hook of the current run named by its layer (< 0: none) and suffix; suffix NULL: none.
typedef struct {
  int layer;
  const char *suffix;
} tt_hook_ref;

// A recorded output of the current op, computed in its slot on a device backend, to be
// downloaded into the recorder's memory once the op has run.
typedef struct {
  tt_buf buf;
  void *dst;
  size_t n;
} tt_pending;
#define TT_MAX_PENDING 5  // outputs of one op (the norm has four) or of causal attention (five)

// The four hooks of one normalization.
typedef struct {
  const char *mean, *scale, *normalized, *out;
} norm_hooks;

struct tt_engine {
  const tt_model *model;
  const tt_config *cfg;
  tt_backend *be;
  int max_T;
  int C, H, G, D, F, V;
  tt_weight_bufs w;
  struct tt_workspace *ws;         // the slots (workspace.c)
  bool grad;                       // tt_engine_enable_grad ran: the tape and dw exist
  tt_buf dw_all;                   // every weight gradient, in one allocation (grads.c)
  struct tt_grad_list *grad_list;  // their names, views and shapes (grads.c)
  tt_weight_bufs dw;               // views of dw_all shaped like w; dw.positions holds all
                                   // n_positions rows of wpe (learned only); dw.lm_head is dw.wte when tied
  struct tt_kv_cache *kv;          // tt_engine_enable_cache ran: K and V of every layer (decode.c)
  tt_buf logits;                   // (T,V) where the last run's logits are (a slot or recorder memory)

  struct {                   // the current run
    const tt_recorder *rec;  // NULL when nobody records
    const int32_t *ids;      // (T)
    int T;
    const char *prefix;                  // put before every hook name ("" for the forward pass)
    int pos0;                            // position of ids[0]: 0, or the cached rows in a decode step
    bool keep_kv;                        // store each layer's K and V rows in the cache (decode.c)
    bool decoding;                       // one query against the cached keys (decode.c)
    bool taping;                         // keep what the backward pass reads on the tape
    tt_pending pending[TT_MAX_PENDING];  // recorded outputs of the current op
    int n_pending;
    char op_name[160];  // with rec->op_done: the current op's last output (empty: none yet)
    double op_mark;     // with rec->op_done: when the previous op ended (seconds, monotonic)
  } run;
};

// A recorder that times each op is listening (ops then run one by one, each timed).
static inline bool tt_engine_timed(const tt_engine *e) {
  return e->run.rec && e->run.rec->op_done;
}

static inline bool tt_engine_zero_copy(const tt_backend *be) {
  return be->host_memory && be->wrap;
}

static const norm_hooks LN1 = {"ln1.hook_mean", "ln1.hook_scale", "ln1.hook_normalized", "ln1.hook_out"};
static const norm_hooks LN2 = {"ln2.hook_mean", "ln2.hook_scale", "ln2.hook_normalized", "ln2.hook_out"};
static const norm_hooks LN_FINAL = {"ln_final.hook_mean", "ln_final.hook_scale", "ln_final.hook_normalized",
                                    "ln_final.hook_out"};

// forward.c: one pass: ids (T) at positions pos0..pos0+T-1, hooks named prefix + name.
typedef struct {
  const int32_t *ids;
  int T, pos0;
  const tt_recorder *rec;  // may be NULL
  const char *prefix;      // NULL: ""
  bool keep_kv;            // store K and V rows in the cache (tt_kv_store)
  bool decoding;           // attend to the cache (tt_decode_scores, tt_decode_mix); T = 1
  bool grad;               // then the backward pass (tape on)
} tt_pass;
// Checks the ids against the vocabulary and the context, sets up e->run, runs the forward
// pass (and the backward one with grad) and waits for the backend.
tt_status tt_engine_pass(tt_engine *e, const tt_pass *p, tt_error *err);
// forward.c: the forward pass of the run set up in e->run.
tt_status tt_forward(tt_engine *e, tt_error *err);
// decode.c: stores rows pos0..pos0+T-1 of layer l's k and v (G,T,D) in the cache.
tt_status tt_kv_store(tt_engine *e, int l, tt_buf k, tt_buf v, tt_error *err);
// decode.c: the two products of a decode step's one query against the Tk = pos0+1 cached
// rows of layer l (query head h reads key/value head h / (H/G)): raw (H,1,Tk) = q (H,1,D)
// · Kᵀ, and z (H,1,D) = pattern (H,1,Tk) · V. The rest of its attention is attend.c's.
tt_status tt_decode_scores(tt_engine *e, int l, tt_buf raw, tt_buf q, tt_error *err);
tt_status tt_decode_mix(tt_engine *e, int l, tt_buf z, tt_buf pattern, tt_error *err);
void tt_kv_release(tt_engine *e);
// forward.c, shared with forward_llama.c: the hook that holds the stream entering block l
// (l = n_layer: the head); one normalization of x, hook x_hook (its hooks; the Llama block
// records no mean; normalized and out offered as norm rules on x_hook), a residual sum
// (hook `suffix` of layer l = a + b, the hooks a_suffix and b_suffix of the layer: offered
// as that sum rule), the final norm and the head.
tt_hook_ref tt_forward_stream_into(const tt_engine *e, int l);
tt_status tt_forward_norm(tt_engine *e, int l, const norm_hooks *hk, tt_hook_ref x_hook, tt_buf x, tt_buf gamma,
                          tt_buf beta, tt_buf *out, tt_error *err);
tt_status tt_forward_residual(tt_engine *e, int l, const char *suffix, tt_buf a, const char *a_suffix, tt_buf b,
                              const char *b_suffix, tt_buf *out, tt_error *err);
// forward_llama.c: one Llama block; x (T,C) in, the stream entering block l+1 out.
tt_status tt_forward_llama_block(tt_engine *e, int l, tt_buf *x, tt_error *err);
// attend.c: from q (H,T,D), k and v (G,T,D) of layer l: with rotary positions
// attn.hook_rot_q/rot_k (at positions pos0..), then the raw, scaled (and ALiBi) and masked
// scores, the pattern (H,T,T) and z (H,T,D). Query head h reads key/value head h / (H/G).
// With run.keep_kv it stores k (rotated) and v in the cache; a decode step's scores and
// pattern are (H,1,pos0+1), against the cached keys and values.
tt_status tt_attend(tt_engine *e, int l, tt_buf q, tt_buf k, tt_buf v, tt_buf *z, tt_error *err);
// attend.c: the slope of each head for ALiBi (Press et al.): 2^(−8h/H) for h = 1..H when H
// is a power of two; otherwise the slopes of the power of two n below H, then every other
// slope of 2n, up to H.
void tt_alibi_slopes(float *slopes, int H);
// attend.c: the rotary table (rows, D) for positions offset..offset+rows−1 with base theta
// (row p holds the angles of position p + offset: the rope_offset what-if).
void tt_rope_table(float *table, int rows, int D, double theta, int offset);
// backward.c: the backward pass of the run's loss, after its forward pass with taping on.
tt_status tt_backward(tt_engine *e, tt_error *err);
// backward.c, shared with backward_llama.c: a norm's backward (dx into the scratch slot,
// d_gamma accumulating; no beta), and a residual's (grad hook `suffix` = g + branch).
tt_status tt_backward_norm(tt_engine *e, int l, const norm_hooks *hk, tt_buf d_out, tt_buf gamma, tt_buf d_gamma,
                           tt_buf *dx, tt_error *err);
tt_status tt_backward_residual(tt_engine *e, int l, const char *suffix, tt_buf g, tt_buf branch, tt_buf *out,
                               tt_error *err);
// backward_llama.c: one Llama block reversed; g (T,C) the gradient of its output in, of its
// input (grad.blocks.L.hook_resid_pre) out.
tt_status tt_backward_llama_block(tt_engine *e, int l, tt_buf *g, tt_error *err);
// grads.c: the weight gradients' allocation (views in e->dw), and their recording.
tt_status tt_grads_setup(tt_engine *e, tt_error *err);
void tt_grads_release(tt_engine *e);
// Before a pass: zeroes the weight gradients the pass adds into (biases, norm weights,
// learned positions, the untied embedding's rows of the last pass); the rest it overwrites.
tt_status tt_grads_clear(tt_engine *e, tt_error *err);
// Offers every weight gradient as grad.<name in model.safetensors> (Conv1D layout).
tt_status tt_grads_offer(tt_engine *e, tt_error *err);

// weights.c: uploads (device) or wraps (host) every weight; frees what it allocated.
tt_status tt_weights_setup(tt_engine *e, tt_error *err);
tt_status tt_weights_pack(tt_engine *e, tt_error *err);  // tt_engine_pack_weights
// Before a pass of T rows: packs the weights once enough rows have run (see weights.c).
void tt_weights_before_pass(tt_engine *e, int T);
void tt_weights_release(tt_engine *e);
// Fills table (rows, C) with sinusoidal positions: PE(p,2i) = sin(p / 10000^(2i/C)),
// PE(p,2i+1) = cos(p / 10000^(2i/C)).
void tt_sinusoid_table(float *table, int rows, int C);

// workspace.c: where every computed tensor lives when it is not computed straight into the
// recorder's memory: one slot per kind, sized for max_T tokens, in one allocation; the
// stream and the attention scores have two slots each, handed out in turn, so an op never
// writes over its input. Nothing is allocated during a run.
tt_status tt_workspace_setup(tt_engine *e, tt_error *err);
void tt_workspace_release(tt_engine *e);
void tt_workspace_reset(tt_engine *e);  // before each run: every pair starts at its first slot
// The slot for `name` as a view of n floats: a hook suffix, by its last dotted part
// ("ln1.hook_out" → the norm output slot), or a slot that holds no hook ("merged").
tt_buf tt_workspace_slot(tt_engine *e, const char *name, size_t n);
// The tape: the forward tensors the backward pass reads (norm outputs, normalized values and
// scales, q, k, v, pattern, z, FFN pre/post activations; the probabilities stay in the logits
// slot), one buffer per layer and hook, allocated by tt_workspace_setup_tape.
// tt_workspace_tape gives where this run's forward pass put hook suffix of layer (-1 outside
// the blocks) as n floats: its tape buffer or, when the recorder took it (host backends), the
// recorder's memory, which then holds the only copy; unset when the hook is not taped, or is
// one the backward pass makes again and the recorder did not take it (GPT-2's
// mlp.hook_post). tt_workspace_tape_own gives the tape buffer itself, tt_workspace_tape_at
// says the run put the entry at `where` (tt_workspace_reset at the start of a gradient run
// points every entry back at its tape buffer).
tt_status tt_workspace_setup_tape(tt_engine *e, tt_error *err);
tt_buf tt_workspace_tape(tt_engine *e, int layer, const char *suffix, size_t n);
tt_buf tt_workspace_tape_own(tt_engine *e, int layer, const char *suffix, size_t n);
void tt_workspace_tape_at(tt_engine *e, int layer, const char *suffix, tt_buf where);
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
// The same, and *kept says whether anyone reads the tensor after the op (the recorder or
// the tape); when not, the op may leave it unwritten.
tt_buf tt_engine_out_kept(tt_engine *e, int layer, const char *suffix, tt_dims shape, bool *kept);
// What a rule does to each row after its factor and mask (tt_engine_out_rule): nothing,
// the backend's softmax_row, or its activation_row for the model's activation.
typedef enum { TT_ROWS_AS_IS, TT_ROWS_SOFTMAX, TT_ROWS_ACTIVATION } tt_rule_rows;
// The buffer for hook `suffix` of layer l, which the op computes exactly as factor · hook
// src_suffix of the same layer and shape (with causal_mask, −inf above the diagonal), each
// row then through the row function `rows` names, which the op itself uses: offered to the
// recorder as that rule first (tt_recorder.derive; a rule with a row function only on a
// backend that has it), then as any other hook. *kept as above: false when the recorder
// keeps the rule and no tape reads the hook.
tt_buf tt_engine_out_rule(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *src_suffix,
                          float factor, bool causal_mask, tt_rule_rows rows, bool *kept);
// The buffer for the raw scores `suffix` (H,T,T) of layer l, which the op computes exactly
// as the backend's causal_scores_fn of hooks q_suffix (H,T,D) and k_suffix (G,T,D) of the
// same layer: offered to the recorder as that product rule first (on a backend that has
// the function), then as any other hook. *kept as tt_engine_out_rule's.
tt_buf tt_engine_out_scores(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *q_suffix,
                            const char *k_suffix, bool *kept);
// The buffer for hook `suffix` of layer l, which the op computes exactly as a + b element
// by element, one float add each (or, b.suffix NULL, as a copy of a): offered to the
// recorder as that sum rule (factor-1 rule) first, then as any other hook. The op always
// writes it (the engine reads the stream on).
tt_buf tt_engine_out_sum(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_ref a, tt_hook_ref b);
// The buffer for hook `suffix` (H,T,D) of layer l, which the op fills exactly as hook
// src_suffix (T,W) of the layer's columns from `column`, head h the D from column + h·D
// (split_heads): offered as that heads rule first, then as any other hook. The op always
// writes it.
tt_buf tt_engine_out_heads(tt_engine *e, int layer, const char *suffix, tt_dims shape, const char *src_suffix,
                           int64_t column);
// The buffer for hook `suffix` (T,C) of layer l, which the norm computes exactly as the
// backend's norm_row of hook x (T,C) with eps and rms: the normalized rows with gamma
// unset, else normalized·γ + β (β unset or rms: none): offered as that norm rule first (on
// a backend that has the function), then as any other hook. *kept as tt_engine_out_rule's.
tt_buf tt_engine_out_norm(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_hook_ref x, float eps,
                          bool rms, tt_buf gamma, tt_buf beta, bool *kept);
// With a timing recorder: the op about to run is named after hook `suffix` of layer l
// (what tt_engine_out does for the op's outputs; for ops whose outputs were asked for
// before).
void tt_engine_name_op(tt_engine *e, int layer, const char *suffix);
// With a timing recorder: the op just run is over (waits for a device), its time reported.
tt_status tt_engine_op_done(tt_engine *e, tt_error *err);
// Hands output `out` of the op just run to the recorder (when it is pending: outputs asked
// for before the op that computes them), then as tt_engine_op_done.
tt_status tt_engine_flush_buf(tt_engine *e, tt_buf out, tt_error *err);
// Hands the outputs of the op just run to the recorder (downloads them on device backends).
tt_status tt_engine_flush(tt_engine *e, tt_error *err);
// Offers an existing buffer (shape) as a hook: copied into the recorder's memory if wanted.
tt_status tt_engine_offer(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_buf buf, tt_error *err);
// The same for a buffer that holds hook `copy_of`'s values: offered as the rule 1 · copy_of
// first (nothing copied when kept).
tt_status tt_engine_offer_copy(tt_engine *e, int layer, const char *suffix, tt_dims shape, tt_buf buf,
                               tt_hook_ref copy_of, tt_error *err);
// Offers the run's token ids (T) as the int32 hook `name`.
void tt_engine_offer_ids(tt_engine *e, const char *name);
// With a recorder that times ops (op_done): the run starts now.
void tt_engine_timing_start(tt_engine *e);

// ---- the forward and backward passes' op lines (forward.c, backward.c) ----
#define TRY(expr)                 \
  do {                            \
    tt_status st_ = (expr);       \
    if (st_ != TT_OK) return st_; \
  } while (0)
// Runs one backend op, then hands its recorded outputs to the recorder.
#define RUN(op)                   \
  do {                            \
    TRY(op);                      \
    TRY(tt_engine_flush(e, err)); \
  } while (0)
// The buffer for hook `suffix` of layer l (-1 outside the blocks; the run's prefix, e.g.
// grad., comes first), shape (dims...).
#define OUT(l, suffix, ...) tt_engine_out(e, (l), (suffix), TT_DIMS(__VA_ARGS__))
// Offers an existing buffer as hook `suffix` of layer l, shape (dims...).
#define OFFER(l, suffix, buf, ...) tt_engine_offer(e, (l), (suffix), TT_DIMS(__VA_ARGS__), (buf), err)

#endif
