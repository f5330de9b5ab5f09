// pipeline: what the forward pass is made of, in words, for every front end (the window,
// the headless export, the lesson player, the terminal): the step list with its hooks,
// titles, formulas, shapes and explanations; the one list of view names; the interface
// languages and their strings. No SDL: the lesson player and the CLI use it without the
// painters.
#ifndef TT_PIPELINE_H
#define TT_PIPELINE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/core.h"
#include "model/model.h"
#include "trace/trace.h"

// ---- languages ---------------------------------------------------------------------------
// One line per interface language: the enum tag, its code, its name in itself. A language
// is this line plus its strings file (strings_<code>.c, see strings_int.h).
#define TT_LANGUAGES(X) \
  X(EN, en, "English")  \
  X(KO, ko, "\xED\x95\x9C\xEA\xB5\xAD\xEC\x96\xB4")

typedef enum {
#define TT_LANG_ENUM(tag, code, name) TT_LANG_##tag,
  TT_LANGUAGES(TT_LANG_ENUM)
#undef TT_LANG_ENUM
      TT_LANG_COUNT
} tt_lang;

const char *tt_lang_code(tt_lang lang);   // "en", "ko"
const char *tt_lang_label(tt_lang lang);  // "English", "한국어"
bool tt_lang_parse(const char *code, tt_lang *out);
tt_lang tt_lang_next(tt_lang lang);  // the L key: the next language, round

// ---- views -------------------------------------------------------------------------------
// The views a step can be shown with. Their names are the `--view` words of `ttrace render`
// and the `view:` words of lessons.
typedef enum {
  TT_VIEW_AUTO,       // the step's own view (heatmap for most tensors)
  TT_VIEW_HEATMAP,    // one tensor (one head of a head-major tensor) as coloured cells
  TT_VIEW_TABLE,      // the same cells as numbers
  TT_VIEW_GRID,       // all heads of one layer
  TT_VIEW_OVERVIEW,   // layers × heads
  TT_VIEW_TOKENS,     // token pieces with their ids (and BPE merges when known)
  TT_VIEW_BARS,       // top-k next tokens with probabilities at a temperature
  TT_VIEW_LAYERNORM,  // mean and scale per token, input and output rows
  TT_VIEW_GELU,       // the activation curve with the layer's actual (pre, post) points
  TT_VIEW_EMBED,      // the embedding matrix with the looked-up rows highlighted
  TT_VIEW_POSITIONS,  // a sum side by side: token + position vectors = block input; h + o, h' + m
  TT_VIEW_QKV,        // Q, K and V of one head side by side
  TT_VIEW_COLLAPSE,   // identity-activation FFN: its output beside x·(W_fc·W_proj) + b (needs the model)
  TT_VIEW_GRADNORM,   // ‖∂L/∂·‖ of the residual stream at each block and of each weight matrix (--grad)
  TT_VIEW_TIMELINE,   // generation: the prompt, each new token with its probability, the cut it was drawn from
  TT_VIEW_KVCACHE,    // generation: one layer/head's cached K and V rows and the new row of a decode step
  TT_VIEW_LENS,       // the logit lens: streams × positions, each cell its top token and probability (needs the model)
  TT_VIEW_COST,       // where the computation goes: FLOPs, bytes and times per step of the pass
  TT_VIEW_ROPE,       // RoPE: pairs of q's dimensions as arrows turning over the positions; the shift test
  TT_VIEW_GQA,        // grouped-query attention: which query heads share each K/V head, the cache it saves
  TT_VIEW_SWIGLU,     // SwiGLU at one position: gate, act(gate), up, their product, what the gate switches off
  TT_VIEW_BLOCKS,     // GPT-2's and Llama's step lists side by side with both models' shapes
  TT_VIEW_NEIGHBOURS,  // a token's nearest rows of W_E by cosine similarity (needs the model)
  TT_VIEW_GATES,       // one position's FFN neurons: those that fire most and those the activation switches off
  TT_VIEW_COUNT
} tt_view_kind;

const char *tt_view_name(tt_view_kind v);  // "heatmap", "table", ...; "?" out of range
bool tt_view_parse(const char *name, tt_view_kind *out);

// ---- interface strings -------------------------------------------------------------------
// Every word the views print, one table per language (strings_en.c, strings_ko.c). Ids
// named *_FMT are printf formats; their arguments are listed beside them in strings_en.c.
typedef enum {
  // words of the views
  TT_S_LAYER,
  TT_S_HEAD,
  TT_S_MASKED,
  TT_S_NOT_RECORDED,
  TT_S_GATED_MLP,  // the activation view of a gated (SwiGLU) MLP
  TT_S_PROMPT,
  TT_S_STEPS,
  TT_S_BLOCK,
  TT_S_KEYS,
  TT_S_PINNED,
  TT_S_HOVER,
  TT_S_QUERY,
  TT_S_KEY,
  TT_S_DIM,
  TT_S_TOKEN,
  TT_S_POSITION,
  TT_S_NEXT_AFTER,
  TT_S_TEMPERATURE,
  TT_S_DOWNSAMPLED,
  TT_S_CLICK_TO_PIN,
  TT_S_PLAYING,
  TT_S_TYPE_PROMPT,
  TT_S_MEAN,
  TT_S_SCALE,
  TT_S_INPUT,
  TT_S_OUTPUT,
  TT_S_ROW,
  TT_S_COLUMN,
  // shapes of the steps (tt_step_shapes)
  TT_S_SHAPE_TOKENIZE_FMT,        // arrow, "(T)"
  TT_S_SHAPE_IDS_FMT,             // "(T)", V
  TT_S_SHAPE_POS_LEARNED_FMT,     // "(P, C)", T - 1, arrow, "(T, C)"
  TT_S_SHAPE_POS_SINUSOIDAL_FMT,  // arrow, "(T, C)"
  TT_S_SHAPE_POS_NONE,
  TT_S_SHAPE_NORM_FMT,           // "(T, C)", arrow, "(T, C)", "(T)"
  TT_S_SHAPE_ROWS_SUM_TO_1_FMT,  // shape, arrow, shape
  TT_S_SHAPE_ELEMENTWISE_FMT,    // shape, arrow, shape
  TT_S_SHAPE_ROPE_FMT,           // "(H, T, D)", "(G, T, D)", D/2 pairs, arrow
  TT_S_SHAPE_RMSNORM_FMT,        // "(T, C)", arrow, "(T, C)", "(T)"
  TT_S_SHAPE_GQA_SCORES_FMT,     // "(H, T, D)", "(G, D, T)", arrow, "(H, T, T)", "0 ← 0–1, 1 ← 2–3"
  TT_S_SHAPE_KV_PROJ_FMT,        // "(G, T, D)", cache bytes, G, bytes with H heads, H
  // views (painters)
  TT_S_GRID_HINT,
  TT_S_OVERVIEW_NONE,
  TT_S_QKV_Q,  // "Q", two spaces, the question
  TT_S_QKV_K,
  TT_S_QKV_V,
  TT_S_GELU_DOTS_FMT,       // activation, pairs, layer
  TT_S_COLLAPSE_NEEDS_FMT,  // the two hook names the collapse view needs
  TT_S_COLLAPSE_NO_MODEL,
  TT_S_COLLAPSE_A,
  TT_S_COLLAPSE_B,
  TT_S_COLLAPSE_MAX_FMT,  // difference, token, column, rows, columns
  TT_S_LENS_TITLE,
  TT_S_COST_TITLE,
  TT_S_LENS_NO_MODEL_FMT,  // the error of computing the lens (model folder, mismatch)
  TT_S_LENS_CAPTION,       // what a cell shows
  TT_S_LENS_EMBED,         // row label of block 0's input
  TT_S_LENS_BLOCK_FMT,     // row label of block L's output: L
  TT_S_LENS_FINAL,         // marks the last row: the model's own prediction
  TT_S_COST_CAPTION_FMT,   // tokens, total GFLOP, the matrix products' share (%)
  TT_S_COST_STEP,          // column heads of the cost table
  TT_S_COST_FLOPS,
  TT_S_COST_BYTES,
  TT_S_COST_TIME,
  TT_S_COST_INTENSITY,
  TT_S_COST_NO_TIMES,       // the trace has no measured times
  TT_S_COST_RULE,           // how FLOPs are counted
  TT_S_NB_TITLE,            // the embedding-neighbours view (painters/neighbours.c)
  TT_S_NB_CAPTION_FMT,      // the token's label, its id
  TT_S_NB_RULE,             // what the cosine is
  TT_S_NB_SELF_SHARED_FMT,  // the token's label, how many other tokens have its row
  TT_S_NB_SHARED_FMT,       // tokens that share one row
  TT_S_NB_NO_MODEL_FMT,     // why W_E is not at hand
  TT_S_NB_COL_TOKEN,        // column heads
  TT_S_NB_COL_COSINE,
  TT_S_GATES_TITLE_FMT,     // the FFN-gates view (painters/gates.c): layer
  TT_S_GATES_CAPTION_FMT,   // layer, token label, position, activation name
  TT_S_GATES_GATED_FMT,     // the same for a gated (SwiGLU) MLP: layer, token label, position
  TT_S_GATES_ON,            // the neurons that fire most
  TT_S_GATES_OFF,           // the ones the activation switches off
  TT_S_GATES_OFF_IDENTITY,  // the same side with the identity, which switches nothing off
  TT_S_GATES_COUNT_FMT,     // neurons with u > 0, neurons, activation name
  TT_S_GATES_IDENTITY_FMT,  // the same with the identity activation: neurons with u > 0, neurons
  TT_S_GATES_COL_NEURON,    // column heads
  TT_S_AXIS_TOKEN,
  TT_S_AXIS_QUERY,
  TT_S_AXIS_KEY,
  TT_S_AXIS_C,
  TT_S_AXIS_3C,
  TT_S_AXIS_D,
  TT_S_AXIS_F,
  TT_S_AXIS_V,
  TT_S_AXIS_PREDICTION,
  TT_S_WINDOW_FMT,        // first row, last row, rows, first column, last column, columns
  TT_S_EMBED_MATRIX_FMT,  // V, C
  TT_S_EMBED_ROWS_HINT,
  TT_S_EMBED_LOOKED_UP,
  TT_S_POS_TOKEN,
  TT_S_POS_POSITION,
  TT_S_POS_NONE,
  TT_S_POS_COLUMNS,
  // views (LayerNorm, tokens, inspector)
  TT_S_LN_INPUT,
  TT_S_LN_INPUT_NOT_RECORDED,
  TT_S_LN_OUTPUT,
  TT_S_LN_COL_MEAN,  // the LayerNorm table's columns
  TT_S_LN_COL_SIGMA,
  TT_S_LN_COL_NORMALIZED,
  TT_S_LN_OUTPUT_RMS,  // RMSNorm (no mean, no β)
  TT_S_LN_COL_RMS,
  TT_S_TOKENS_NOTE_FMT,  // T
  TT_S_MERGES_TITLE,
  TT_S_IDS_ROWS_TITLE,  // the ids step: each id and the row of W_E it selects
  TT_S_PIN_NO_QK,       // the inspector's arithmetic
  TT_S_PIN_PRODUCTS,
  TT_S_PIN_MORE_SUM,
  TT_S_PIN_RECORDED,
  TT_S_PIN_NOT_SCALED,
  TT_S_PIN_MASKED,
  TT_S_PIN_VISIBLE,
  TT_S_PIN_MASKED_EXP,
  TT_S_PIN_ROW_MAX_FMT,  // the maximum
  TT_S_PIN_ROW_SUM,
  TT_S_PIN_RECORDED_WEIGHT,
  TT_S_PIN_NO_WEIGHTS,
  TT_S_PIN_TERMS_FMT,  // K
  TT_S_PIN_POS_FMT,    // count, sum
  TT_S_PIN_NEG_FMT,    // count, sum
  TT_S_PIN_LARGEST_POS,
  TT_S_PIN_LARGEST_NEG,
  TT_S_PIN_OTHERS_FMT,
  TT_S_PIN_SHARES,
  TT_S_PIN_ROW_MEAN,
  TT_S_PIN_ROW_SD,
  TT_S_PIN_NEXT_TOKEN,
  TT_S_PIN_ON_CURVE,
  // views (merges, bars)
  TT_S_MERGES_NONE,
  TT_S_MERGES_MORE_FMT,  // count, "s" or "" (English plural)
  TT_S_BARS_KEYS,
  TT_S_BARS_FOOT_FMT,  // row, hook, top k, V
  // key lines
  TT_S_JUMP_FMT,         // the typed step number
  TT_S_KEYS_LESSON_NAV,  // the lesson page's key line: NAV, "L <language>   " when there is a twin, END
  TT_S_KEYS_LESSON_END,
  TT_S_KEYS_WINDOW,  // the window's key line
  // comparisons
  TT_S_CMP_NORMS_INDEX_FMT,   // "row", row, its token, block
  TT_S_CMP_MAX_HEAD_FMT,      // max, head
  TT_S_CMP_AT_ALL_HEADS_FMT,  // where, max over all heads
  TT_S_CMP_ALL_HEADS_FMT,     // max over all heads
  TT_S_CMP_EQUAL,
  TT_S_CMP_AT_FMT,         // where
  TT_S_CMP_ONE_SIDED_FMT,  // count
  TT_S_CMP_NO_B,
  TT_S_CMP_SHAPES_DIFFER_FMT,  // shape A, shape B
  TT_S_CMP_NO_DIFF_VIEW,
  TT_S_CMP_LACKS_FMT,  // "A" or "B"
  TT_S_CMP_INFO_SUBTRACT,
  TT_S_CMP_INFO_COLOURS,
  TT_S_CMP_INFO_POINT,
  TT_S_CMP_INFO_SHAPES,
  TT_S_CMP_NORMS_TITLE_FMT,  // the hook suffix
  TT_S_CMP_EVERY_LAYER_HEAD,
  TT_S_CMP_COLOURS,
  // the lesson window
  TT_S_LESSON_NO_TWIN,
  TT_S_LESSON_NO_STEP_FMT,  // step, steps
  // comparisons (continued)
  TT_S_CMP_TOKENS_DIFFER,
  // logits
  TT_S_LOGITS_BINS,
  // the window's status line
  TT_S_STATUS_TRACE_FAILED_FMT,  // the error
  TT_S_STATUS_TRACED_FMT,        // T, milliseconds
  TT_S_STATUS_SHOT_SAVED_FMT,    // the file
  TT_S_STATUS_SHOT_FAILED_FMT,   // the error
  TT_S_KNOBS_TITLE,
  TT_S_KNOBS_HINT,
  TT_S_KNOB_ABLATE_FMT,
  TT_S_KNOB_BASELINE,
  TT_S_KNOB_ON,
  TT_S_KNOB_OFF,
  // figures (ttrace render): what the colour bar measures, titles of the many-panel views,
  // what a view leaves out
  TT_S_QTY_ATTENTION,    // hook_pattern
  TT_S_QTY_PROBABILITY,  // hook_probs
  TT_S_QTY_SCORE,        // attention scores
  TT_S_QTY_LOGIT,        // hook_logits
  TT_S_QTY_DIFFERENCE,   // a − b
  TT_S_QTY_ACTIVATION,   // anything else
  TT_S_ALL_HEADS,
  TT_S_ALL_LAYERS_HEADS,
  TT_S_TOKENS_MORE_FMT,   // tokens not shown, first of them
  TT_S_BARS_MORE_FMT,     // candidates asked for but not drawn
  TT_S_ROWS_MORE_FMT,     // rows not shown
  TT_S_ROWS_SMALLER_FMT,  // rows not shown, each smaller than those shown (the cost table)
  TT_S_BYTES_NOTE,        // how a token that is part of a character is written
  // gradients (grad.<hook>): the legend, the window's value ↔ gradient key, the inspector
  TT_S_LEGEND_GRADIENT,
  TT_S_STATUS_NO_GRAD,       // the trace has no grad.* tensors
  TT_S_STATUS_NO_GRAD_HOOK,  // this step's hook has no gradient in the trace
  TT_S_PING_LOSS,            // L = mean of −log p over the positions with a next token
  TT_S_PING_P_FMT,           // p (formatted)
  TT_S_PING_NEXT_FMT,        // the true next token, its id
  TT_S_PING_OTHER_FMT,       // the true next token, its id (this column is another one)
  TT_S_PING_LAST,            // the last position has no next token
  TT_S_PING_DIV_FMT,         // T − 1
  TT_S_PING_JVP,             // dS = A (dA − Σ A dA)
  TT_S_PING_ROWDOT_FMT,      // the row, the last k, the sum
  TT_S_PING_DZV_FMT,         // i, j, D
  // the gradient-norm view
  TT_S_GN_TITLE,
  TT_S_GN_RESID,
  TT_S_GN_WEIGHTS,
  TT_S_GN_NONE,
  TT_S_GN_SCALE,
  TT_S_GN_SMALL,
  // generation: the timeline and the KV cache
  TT_S_TL_NONE,
  TT_S_TL_TITLE_FMT,         // tokens generated, temperature, top-k, top-p, seed (strings)
  TT_S_TL_DRAWN_FMT,         // the token's index, its text
  TT_S_TL_CUT_FMT,           // tokens kept, V
  TT_S_TL_NO_CUT,            // every token could be drawn
  TT_S_TL_CUT_MARK,          // on the cut line
  TT_S_TL_FOOT_FMT,          // the hook the bars come from
  TT_S_KV_TITLE_FMT,         // layer, head, decode step
  TT_S_KV_PREFILL_FMT,       // layer, head
  TT_S_KV_ROWS_FMT,          // rows, prompt rows, generated rows, the new row
  TT_S_KV_PREFILL_ROWS_FMT,  // rows
  TT_S_KV_K,
  TT_S_KV_V,
  TT_S_KV_WEIGHTS,
  TT_S_KV_NEW,
  // RoPE, grouped-query attention, SwiGLU and the two blocks side by side
  TT_S_ROPE_NONE,       // the trace has no rotary positions
  TT_S_ROPE_TITLE_FMT,  // layer, head, its K/V head, θ, D, first and last position
  TT_S_ROPE_RULE,
  TT_S_ROPE_PAIR_FMT,  // i, i, i + D/2
  TT_S_ROPE_FREQ_FMT,  // i, θ_i
  TT_S_ROPE_TURN_FMT,  // 2π/θ_i
  TT_S_ROPE_AT_FMT,    // position, its token
  TT_S_ROPE_H_PAIR,
  TT_S_ROPE_H_ANGLE,
  TT_S_ROPE_H_Q,
  TT_S_ROPE_H_RQ,
  TT_S_ROPE_H_K,
  TT_S_ROPE_H_RK,
  TT_S_ROPE_SHIFT_FMT,    // first and last shifted position, the shift
  TT_S_ROPE_MEASURE_FMT,  // max |S′ − S|, H, n, n, max |S|
  TT_S_ROPE_SHIFT_WHY,
  TT_S_ROPE_MORE_SHIFT,     // no room for the shift test
  TT_S_ROPE_MORE_NUMS_FMT,  // no room for the chosen position's numbers (position) and the shift test
  TT_S_ROPE_MORE_POS_FMT,   // the first and last position drawn, the first and last of the trace
  TT_S_GQA_TITLE_FMT,       // H, G, H / G
  TT_S_GQA_GROUP_FMT,       // K/V head, its query heads ("0–1")
  TT_S_GQA_CACHE,
  TT_S_GQA_TOKEN_FMT,   // L, G, D, bytes
  TT_S_GQA_MHA_FMT,     // H, L, H, D, bytes
  TT_S_GQA_PROMPT_FMT,  // T, bytes with G, bytes with H
  TT_S_GQA_CTX_FMT,     // P, MiB with G, MiB with H
  TT_S_GQA_SAVES_FMT,   // percent saved, H / G
  TT_S_SWIGLU_NONE,
  TT_S_SWIGLU_TITLE_FMT,  // layer, position, its token, F
  TT_S_SWIGLU_RULE_FMT,   // the activation's name
  TT_S_SWIGLU_KEYS,       // the window's keys for the position (not in figures)
  TT_S_SWIGLU_GATE,
  TT_S_SWIGLU_ACT_FMT,  // the activation's name
  TT_S_SWIGLU_UP,
  TT_S_SWIGLU_PROD_FMT,  // the activation's name
  TT_S_SWIGLU_NEURON,
  TT_S_SWIGLU_TOP_FMT,    // how many
  TT_S_SWIGLU_OFF_FMT,    // count, F, the activation's name, the threshold
  TT_S_SWIGLU_OFF_ORDER,  // how the switched-off neurons are ranked (a line of its own when needed)
  TT_S_BLOCKS_TITLE,
  TT_S_BLOCKS_THIS,
  TT_S_BLOCKS_CLASSROOM,
  TT_S_BLOCKS_MISSING,
  TT_S_BLOCKS_CFG_FMT,     // L, C, H, H_kv, D, F, V, P
  TT_S_BLOCKS_SHAPES_FMT,  // T
  TT_S_BLOCKS_EACH_FMT,    // L
  TT_S_KV_GQA_SHARE_FMT,   // query head, its K/V head, the first and last query head sharing it
  TT_S_KV_GQA_SAVES_FMT,   // G, H, positions, layers, cache bytes, bytes with H heads, H/G
  TT_S_COUNT
} tt_str_id;

// The string in lang; a string a language lacks is taken from English.
const char *tt_str(tt_lang lang, tt_str_id id);

// Help tables: rows of (keys, what they do). Every language lists the same keys in the
// same order; a language without a table gets English's.
typedef const char *const tt_key_row[2];
typedef enum { TT_KEYS_WINDOW, TT_KEYS_LESSON, TT_KEYS_COUNT } tt_key_table;
const tt_key_row *tt_key_help(tt_lang lang, tt_key_table table, int *n);

// ---- the steps ---------------------------------------------------------------------------
// The forward pass as a list a class can follow. Its order follows the trace's config:
// pre-LN blocks (GPT-2) normalize before attention and the FFN, post-LN blocks (the
// original Transformer) after each residual sum. Step indices are positions in that
// order; tr may be NULL (GPT-2's order and texts).
typedef struct {
  const char *id;      // "softmax"
  const char *suffix;  // the catalogue suffix of its hook ("attn.hook_pattern"; trace/hooks.h)
  bool in_block;       // listed per block (a block hook outside this list is block 0's)
  tt_view_kind view;   // the view this step opens with
} tt_step;

int tt_step_count(void);  // the forward pass's steps
// The steps of tr: the forward pass's, then for a generation trace (`ttrace generate -o`)
// the timeline and the KV cache; tt_step_get and the rest take indices up to this count.
int tt_step_count_for(const tt_trace *tr);
// The integers of the JSON array in tr's metadata `key` (generated_ids, generated_kept of a
// generation trace), at most max, into out; the count (0 when absent).
int tt_generated_ints(const tt_trace *tr, const char *key, int32_t *out, int max);
const tt_step *tt_step_get(const tt_trace *tr, int i);  // NULL out of range
// The step's title and explanation in lang; the explanation follows the config (the
// activation, the positions, a tied or separate unembedding).
const char *tt_step_title(const tt_trace *tr, int i, tt_lang lang);
const char *tt_step_text(const tt_trace *tr, int i, tt_lang lang);
// Its formula for the trace's config ("" when none).
const char *tt_step_formula(const tt_trace *tr, int i);
// "(4, 768) × (768, 2304) → (4, 2304)" for step i with the trace's config and T.
void tt_step_shapes(const tt_trace *tr, int i, tt_lang lang, char *buf, size_t len);
// The full hook name of step i at layer L (L < 0: 0).
void tt_step_hook(const tt_trace *tr, int i, int layer, char *buf, size_t len);
// The step whose hook is `hook` (full name), or -1; *layer (may be NULL) gets its block.
int tt_step_find(const tt_trace *tr, const char *hook, int *layer);

// Resolves --step: a full hook name present in the trace, or a layer-free suffix
// ("attn.hook_pattern") completed with layer. Writes the full name into buf.
tt_status tt_resolve_hook(const tt_trace *tr, const char *step, int layer, char *buf, size_t len, tt_error *err);

// How the trace's model turns the last hidden state into logits: true when the
// unembedding is the embedding matrix (metadata "unembedding": "tied"; GPT-2, and traces
// that do not say), false for a separate lm_head ("lm_head").
bool tt_pipeline_tied(const tt_trace *tr);

// ---- the identity-activation FFN as one matrix (lesson 9, the collapse view) ----------
// With the identity activation, block layer's FFN is x·W + b with W = W_fc·W_proj (C,C) and
// b = b_fc·W_proj + b_proj (C), read from the model. direct = x·W + b (T,C) for the FFN's
// input x (ln2.hook_out), and max_diff = max |direct − out| at flat index max_at, out being
// the FFN's recorded output (hook_mlp_out).
typedef struct {
  int T, C, F;
  float *W, *b, *direct;  // (C,C), (C), (T,C); malloc'd
  double max_diff;
  int64_t max_at;
} tt_ffn_collapse;
tt_status tt_ffn_collapse_compute(const tt_model *m, int layer, const tt_tensor *x, const tt_tensor *out,
                                  tt_ffn_collapse *c, tt_error *err);
void tt_ffn_collapse_free(tt_ffn_collapse *c);

#endif
