// strings_en: the interface in English.
#include "strings_int.h"

static const char *const str[TT_S_COUNT] = {
    [TT_S_LAYER] = "layer",
    [TT_S_HEAD] = "head",
    [TT_S_MASKED] = "masked (\xE2\x88\x92\xE2\x88\x9E)",
    [TT_S_GATED_MLP] =
        "This block's MLP is gated (SwiGLU): hook_post = act(hook_pre) \xC2\xB7 hook_pre_linear, "
        "so it is no function of hook_pre alone and has no curve. See the heatmaps of mlp.hook_pre, "
        "mlp.hook_pre_linear and mlp.hook_post.",
    [TT_S_NOT_RECORDED] = "This tensor is not in the trace (record it with `ttrace trace --record`).",
    [TT_S_PROMPT] = "prompt",
    [TT_S_STEPS] = "Steps",
    [TT_S_BLOCK] = "block",
    [TT_S_KEYS] = "Keys",
    [TT_S_PINNED] = "pinned cell",
    [TT_S_HOVER] = "under the pointer",
    [TT_S_QUERY] = "query",
    [TT_S_KEY] = "key",
    [TT_S_DIM] = "dim",
    [TT_S_TOKEN] = "token",
    [TT_S_POSITION] = "position",
    [TT_S_NEXT_AFTER] = "next token after",
    [TT_S_TEMPERATURE] = "temperature",
    [TT_S_DOWNSAMPLED] = "downsampled: each pixel shows the largest |value| of its block (zoom in for single cells)",
    [TT_S_CLICK_TO_PIN] = "click a cell to see how it was computed",
    [TT_S_PLAYING] = "playing",
    [TT_S_TYPE_PROMPT] = "type a prompt, Enter traces it, Esc cancels",
    [TT_S_MEAN] = "mean \xCE\xBC",
    [TT_S_SCALE] = "scale 1/\xE2\x88\x9A(\xCF\x83\xC2\xB2+\xCE\xB5)",
    [TT_S_INPUT] = "input",
    [TT_S_OUTPUT] = "output",
    [TT_S_ROW] = "row",
    [TT_S_COLUMN] = "column",
    // arguments: arrow, (T)
    [TT_S_SHAPE_TOKENIZE_FMT] = "text %s (T) = %s pieces",
    // (T), V
    [TT_S_SHAPE_IDS_FMT] = "(T) = %s integers, each < V = %lld",
    // (P, C), T - 1, arrow, (T, C)
    [TT_S_SHAPE_POS_LEARNED_FMT] = "W_P %s, rows 0\xE2\x80\xA6%lld %s %s",
    // arrow, (T, C)
    [TT_S_SHAPE_POS_SINUSOIDAL_FMT] = "sinusoidal: computed from t and i, no weights %s %s",
    [TT_S_SHAPE_POS_NONE] = "none: this model adds no position vectors",
    // (T, C), arrow, (T, C), (T)
    [TT_S_SHAPE_NORM_FMT] = "%s %s %s, \xCE\xBC and \xCF\x83 per token %s",
    // shape, arrow, shape
    [TT_S_SHAPE_ROWS_SUM_TO_1_FMT] = "%s %s %s, each row sums to 1",
    [TT_S_SHAPE_ELEMENTWISE_FMT] = "%s %s %s, one number at a time",
    [TT_S_SHAPE_RMSNORM_FMT] = "%s %s %s, one scale \xE2\x88\x9A(mean(x\xC2\xB2) + \xCE\xB5) per token %s, no mean",
    [TT_S_SHAPE_ROPE_FMT] = "q %s, k %s: %lld pairs per head, each turned %s same shapes",
    [TT_S_SHAPE_GQA_SCORES_FMT] = "%s \xC3\x97 %s %s %s;  K/V \xE2\x86\x90 q heads: %s",
    [TT_S_SHAPE_KV_PROJ_FMT] = "K, V 2 \xC3\x97 %s;  KV cache %lld B (G = %lld) vs %lld B (H = %lld)",
    // views (painters)
    [TT_S_GRID_HINT] = "point at a cell for its tokens and value",
    [TT_S_OVERVIEW_NONE] = "The overview shows attention tensors (H, T, T) of every layer.",
    [TT_S_QKV_Q] = "Q  query: what I look for",
    [TT_S_QKV_K] = "K  key: what I offer",
    [TT_S_QKV_V] = "V  value: what I pass on",
    [TT_S_GELU_DOTS_FMT] = "curve: %s.  dots: the %lld (input u, output g) pairs of blocks.%d.mlp",
    [TT_S_COLLAPSE_NEEDS_FMT] = "this view needs %s and %s in the trace",
    [TT_S_COLLAPSE_NO_MODEL] = "this view computes from the model's weights (W_fc, W_proj); no model was found",
    [TT_S_COLLAPSE_A] = "A: the FFN's output, as recorded",
    [TT_S_COLLAPSE_B] = "B: x\xC2\xB7W + b, from x alone",
    [TT_S_COLLAPSE_MAX_FMT] =
        "largest difference |A \xE2\x88\x92 B| = %s (token %lld, column %lld) over all %d \xC3\x97 %d numbers",
    [TT_S_LENS_TITLE] = "logit lens: the prediction layer by layer",
    [TT_S_COST_TITLE] = "where the computation goes: one forward pass",
    [TT_S_LENS_NO_MODEL_FMT] = "the lens computes from the model's ln_final and unembedding: %s",
    [TT_S_LENS_CAPTION] =
        "each stream through ln_final and the unembedding: its most probable next token and its "
        "probability",
    [TT_S_LENS_EMBED] = "embedding",
    [TT_S_LENS_BLOCK_FMT] = "after block %d",
    [TT_S_LENS_FINAL] = "= the model's prediction",
    [TT_S_COST_CAPTION_FMT] = "%d tokens: %s GFLOP in all, %s%% in matrix products",
    [TT_S_COST_STEP] = "step",
    [TT_S_COST_FLOPS] = "FLOPs",
    [TT_S_COST_BYTES] = "bytes read + written",
    [TT_S_COST_TIME] = "measured time",
    [TT_S_COST_INTENSITY] = "FLOPs per byte",
    [TT_S_COST_NO_TIMES] = "no measured times in this trace (ttrace cost -o records them)",
    [TT_S_COST_RULE] =
        "a matrix product (M,K)\xC2\xB7(K,N) counts 2\xC2\xB7M\xC2\xB7N\xC2\xB7K FLOPs; "
        "element-wise steps count the operations per element of docs/cost.md; bytes are float32 "
        "inputs read once and outputs written once",
    [TT_S_NB_TITLE] = "embedding neighbours: the rows of W_E nearest a token's row",
    [TT_S_NB_CAPTION_FMT] = "%s (id %d): its row of W_E against every other row, most similar first",
    [TT_S_NB_RULE] =
        "cos = a\xC2\xB7"
        "b / (|a| |b|): 1 is the same direction, 0 unrelated, \xE2\x88\x92"
        "1 opposite",
    [TT_S_NB_SELF_SHARED_FMT] =
        "%s shares its row with %d other tokens: none of them was seen in training, so they all "
        "kept one vector, and these are that vector's neighbours",
    [TT_S_NB_SHARED_FMT] = "%d tokens share one row (never seen in training)",
    [TT_S_NB_NO_MODEL_FMT] = "this view reads W_E from the model: %s",
    [TT_S_NB_COL_TOKEN] = "token",
    [TT_S_NB_COL_COSINE] = "cosine",
    [TT_S_GATES_TITLE_FMT] = "FFN neurons as gates: block %d",
    [TT_S_GATES_CAPTION_FMT] = "blocks.%d.mlp at %s (token %d): u = hook_pre, a(u) = %s(u) = hook_post",
    [TT_S_GATES_GATED_FMT] =
        "blocks.%d.mlp at %s (token %d): the gate is silu(u) of u = hook_pre; up = hook_pre_linear; "
        "hook_post = silu(u)\xC2\xB7up",
    [TT_S_GATES_ON] = "fire most: the largest a(u)",
    [TT_S_GATES_OFF] = "switched off: the most negative u, a(u) near 0",
    [TT_S_GATES_OFF_IDENTITY] = "the most negative u: the identity lets them through, a(u) = u",
    [TT_S_GATES_COUNT_FMT] =
        "u > 0 for %d of %d neurons: %s keeps large positive u almost as they are and presses "
        "negative u toward 0",
    [TT_S_GATES_IDENTITY_FMT] = "u > 0 for %d of %d neurons; the identity is no gate: a(u) = u for every one",
    [TT_S_GATES_COL_NEURON] = "neuron",
    [TT_S_AXIS_TOKEN] = "token",
    [TT_S_AXIS_QUERY] = "token (query: who looks)",
    [TT_S_AXIS_KEY] = "token (key: looked at)",
    [TT_S_AXIS_C] = "dimension (C)",
    [TT_S_AXIS_3C] = "Q, K, V side by side (3C)",
    [TT_S_AXIS_D] = "dimension in the head (D)",
    [TT_S_AXIS_F] = "FFN neuron (F)",
    [TT_S_AXIS_V] = "vocabulary id (V)",
    [TT_S_AXIS_PREDICTION] = "prediction",
    [TT_S_WINDOW_FMT] = "rows %d–%d of %d, columns %d–%d of %d   ",
    [TT_S_EMBED_MATRIX_FMT] = "embedding matrix W_E (%d \xC3\x97 %d)",
    [TT_S_EMBED_ROWS_HINT] = "pink lines: the prompt's rows",
    [TT_S_EMBED_LOOKED_UP] = "looked-up rows x = W_E[id] (tokens \xC3\x97 dims)",
    [TT_S_POS_TOKEN] = "token x",
    [TT_S_POS_POSITION] = "position p",
    [TT_S_POS_NONE] = "This model adds no position vectors.",
    [TT_S_POS_COLUMNS] =
        "columns: dimensions 0 \xE2\x80\xA6 C\xE2\x88\x92"
        "1; one colour scale for all three",
    // views (LayerNorm, tokens, inspector)
    [TT_S_LN_INPUT] = "input x (residual stream)",
    [TT_S_LN_INPUT_NOT_RECORDED] = "The input rows are not recorded separately in this block order.",
    [TT_S_LN_OUTPUT] = "output y = normalized \xC2\xB7 \xCE\xB3 + \xCE\xB2",
    [TT_S_LN_COL_MEAN] = "\xCE\xBC (mean)",
    [TT_S_LN_COL_SIGMA] = "\xCF\x83 (spread)",
    [TT_S_LN_COL_NORMALIZED] = "normalized \xCE\xBC / \xCF\x83",
    [TT_S_LN_OUTPUT_RMS] = "output y = normalized \xC2\xB7 \xCE\xB3",
    [TT_S_LN_COL_RMS] = "rms \xE2\x88\x9Amean(x\xC2\xB2)",
    [TT_S_TOKENS_NOTE_FMT] = "top: position · middle: piece (␣ = space) · bottom: vocabulary id.  %d tokens",
    [TT_S_MERGES_TITLE] = "BPE merges per pre-token (lowest rank first)",
    [TT_S_IDS_ROWS_TITLE] = "The id column, and the row of W_E each id selects",
    [TT_S_PIN_NO_QK] = "Q and K are not in the trace.",
    [TT_S_PIN_PRODUCTS] = "products per dimension, largest first",
    [TT_S_PIN_MORE_SUM] = "more, sum",
    [TT_S_PIN_RECORDED] = "recorded",
    [TT_S_PIN_NOT_SCALED] = "not scaled (scale_attn = false)",
    [TT_S_PIN_MASKED] = "j > i: masked \xE2\x86\x92 \xE2\x88\x92\xE2\x88\x9E, weight 0",
    [TT_S_PIN_VISIBLE] = "j \xE2\x89\xA4 i: visible, kept",
    [TT_S_PIN_MASKED_EXP] =
        "     (a masked score is \xE2\x88\x92\xE2\x88\x9E and exp(\xE2\x88\x92\xE2\x88\x9E) = 0: this cell gets no "
        "weight)",
    [TT_S_PIN_ROW_MAX_FMT] = "     (minus the row maximum %s: same result, no overflow)",
    [TT_S_PIN_ROW_SUM] = "row sum \xCE\xA3 exp",
    [TT_S_PIN_RECORDED_WEIGHT] = "recorded weight",
    // views (merges, bars)
    [TT_S_PIN_NO_WEIGHTS] = "The model's weights are not loaded, so this product cannot be recomputed.",
    [TT_S_PIN_TERMS_FMT] = "%d terms",
    [TT_S_PIN_POS_FMT] = " %d positive, sum %s",
    [TT_S_PIN_NEG_FMT] = " %d negative, sum %s",
    [TT_S_PIN_LARGEST_POS] = "largest positive contributions",
    [TT_S_PIN_LARGEST_NEG] = "largest negative contributions",
    [TT_S_PIN_OTHERS_FMT] = "… %d other terms, sum %s",
    [TT_S_PIN_SHARES] = "each token's share A[i, j] · vⱼ, largest first",
    [TT_S_PIN_ROW_MEAN] = "mean of the row",
    [TT_S_PIN_ROW_SD] = "√(variance + ε) of the row",
    [TT_S_PIN_NEXT_TOKEN] = "the next token",
    [TT_S_PIN_ON_CURVE] = "the point on the activation's curve",
    [TT_S_MERGES_NONE] = "  (no merge)",
    [TT_S_MERGES_MORE_FMT] = "\xE2\x80\xA6 %d more merge%s",
    [TT_S_BARS_KEYS] = "(keys − and =)",
    [TT_S_BARS_FOOT_FMT] = "row %d of %s, top %d of %d vocabulary entries",
    // key lines
    [TT_S_JUMP_FMT] = "go to %s \xE2\x86\xB5",
    [TT_S_KEYS_LESSON_NAV] = "\xE2\x86\x92 Space next   \xE2\x86\x90 back   Home End   number+Enter: go to step   ",
    [TT_S_KEYS_LESSON_END] = "S screenshot   F1 help   Esc quit",
    [TT_S_KEYS_WINDOW] =
        "\xE2\x86\x90\xE2\x86\x92 step   \xE2\x86\x91\xE2\x86\x93 layer   [ ] head   Tab table   G heads grid   Space "
        "play   K what if?   S screenshot   P prompt   F1 help",
    // comparisons
    [TT_S_CMP_NORMS_INDEX_FMT] = "%s %d %s, block %d",
    [TT_S_CMP_MAX_HEAD_FMT] = "max |A \xE2\x88\x92 B| = %.4g in head %d",
    [TT_S_CMP_AT_ALL_HEADS_FMT] = "at %s   \xC2\xB7   all heads: %.4g",
    [TT_S_CMP_ALL_HEADS_FMT] = "all heads: %.4g",
    [TT_S_CMP_EQUAL] = "max |A \xE2\x88\x92 B| = 0: the traces agree here",
    [TT_S_CMP_AT_FMT] = "at %s",
    [TT_S_CMP_ONE_SIDED_FMT] = "   (%lld cells masked on one side only)",
    [TT_S_CMP_NO_B] = "no second trace",
    [TT_S_CMP_SHAPES_DIFFER_FMT] = "the shapes differ, %s and %s: no difference",
    [TT_S_CMP_NO_DIFF_VIEW] = "no difference for this view",
    [TT_S_CMP_LACKS_FMT] = "%s lacks this tensor",
    [TT_S_CMP_INFO_SUBTRACT] = "A \xE2\x88\x92 B subtracts cell by cell.",
    [TT_S_CMP_INFO_COLOURS] =
        "White is 0 (equal), red: A is larger, blue: B is larger. A and B share one colour scale.",
    [TT_S_CMP_INFO_POINT] = "Point at a cell to see the three values.",
    [TT_S_CMP_INFO_SHAPES] = "The shapes differ, so there is nothing to subtract.",
    [TT_S_CMP_NORMS_TITLE_FMT] = "%s \xC2\xB7 vector length \xE2\x80\x96x\xE2\x80\x96 in every block",
    [TT_S_CMP_EVERY_LAYER_HEAD] = "every layer \xC3\x97 head",
    [TT_S_CMP_COLOURS] = "red: A is larger \xC2\xB7 blue: B is larger",
    // the lesson window
    [TT_S_LESSON_NO_TWIN] = "this lesson has no other language",
    [TT_S_LESSON_NO_STEP_FMT] = "there is no step %d (1\xE2\x80\x93%d)",
    // comparisons (continued)
    [TT_S_CMP_TOKENS_DIFFER] =
        " \xC2\xB7 tokens differ where rows say A\xE2\x89\xA0"
        "B",
    // logits
    [TT_S_LOGITS_BINS] = "the whole vocabulary in bins (each row: bin maximum above, minimum below)",
    // the window's status line
    [TT_S_STATUS_TRACE_FAILED_FMT] = "could not trace the prompt: %.500s",
    [TT_S_STATUS_TRACED_FMT] = "traced %d tokens in %s ms",
    [TT_S_STATUS_SHOT_SAVED_FMT] = "screenshot saved: %.500s",
    [TT_S_STATUS_SHOT_FAILED_FMT] = "screenshot failed: %.500s",
    [TT_S_KNOBS_TITLE] = "What if?",
    [TT_S_KNOBS_HINT] =
        "A number flips that knob and traces the prompt again: the baseline, the variant and their difference at this "
        "step. 0: the baseline alone. K closes.",
    [TT_S_KNOB_ABLATE_FMT] = "head %d.%d: %s",
    [TT_S_KNOB_BASELINE] = "baseline",
    [TT_S_KNOB_ON] = "on",
    [TT_S_KNOB_OFF] = "off",
    [TT_S_QTY_ATTENTION] = "attention weight (probability)",
    [TT_S_QTY_PROBABILITY] = "probability",
    [TT_S_QTY_SCORE] = "score (logit units)",
    [TT_S_QTY_LOGIT] = "logit (unnormalised log-probability)",
    [TT_S_QTY_DIFFERENCE] = "difference a \xE2\x88\x92 b (units of the tensor)",
    [TT_S_QTY_ACTIVATION] = "value (model units)",
    [TT_S_ALL_HEADS] = "all heads",
    [TT_S_ALL_LAYERS_HEADS] = "every layer \xC3\x97 head",
    [TT_S_TOKENS_MORE_FMT] = "\xE2\x80\xA6 %d more tokens (%d and after) not shown",
    [TT_S_BARS_MORE_FMT] = "\xE2\x80\xA6 %d more candidates not shown",
    [TT_S_ROWS_MORE_FMT] = "\xE2\x80\xA6 %d more rows not shown",
    [TT_S_ROWS_SMALLER_FMT] = "\xE2\x80\xA6 %d smaller rows not shown",
    [TT_S_BYTES_NOTE] =
        "\xE2\x80\xB9"
        "EB 82:\xEB\x82\x98\xE2\x80\xBA = bytes EB 82 of \xEB\x82\x98 (a character split across tokens)",
    // gradients
    [TT_S_LEGEND_GRADIENT] = "gradient",
    [TT_S_STATUS_NO_GRAD] = "this trace has no gradients: trace it with --grad (ttrace trace --grad)",
    [TT_S_STATUS_NO_GRAD_HOOK] = "this step's tensor has no gradient in the trace",
    [TT_S_PING_LOSS] =
        "L = mean over t = 0 \xE2\x80\xA6 T\xE2\x88\x92"
        "2 of \xE2\x88\x92log p\xE2\x82\x9C[next token]",
    [TT_S_PING_P_FMT] = "1.  p = softmax(z\xE2\x82\x9C) here = %s",
    [TT_S_PING_NEXT_FMT] = "2.  this is the true next token %s (id %d): p \xE2\x88\x92 1",
    [TT_S_PING_OTHER_FMT] = "2.  the true next token is %s (id %d), not this one: p \xE2\x88\x92 0",
    [TT_S_PING_LAST] = "the last position has no next token: no loss there, gradient 0",
    [TT_S_PING_DIV_FMT] = "3.  \xC3\xB7 (T \xE2\x88\x92 1) = \xC3\xB7 %d (the mean over the positions)",
    [TT_S_PING_JVP] =
        "softmax backward: dS\xE1\xB5\xA2\xE2\xB1\xBC = A\xE1\xB5\xA2\xE2\xB1\xBC (dA\xE1\xB5\xA2\xE2\xB1\xBC "
        "\xE2\x88\x92 \xCE\xA3\xE2\x82\x96 A\xE1\xB5\xA2\xE2\x82\x96 dA\xE1\xB5\xA2\xE2\x82\x96)",
    [TT_S_PING_ROWDOT_FMT] = "2.  \xCE\xA3\xE2\x82\x96 A[%d, k] dA[%d, k] over the row = %s",
    [TT_S_PING_DZV_FMT] = "dA[%d, %d] = dz\xE1\xB5\xA2 \xC2\xB7 v\xE2\xB1\xBC  (D = %d)",
    [TT_S_GN_TITLE] = "Gradient norms \xE2\x80\x96\xE2\x88\x82L/\xE2\x88\x82x\xE2\x80\x96",
    [TT_S_GN_RESID] = "residual stream: the gradient highway",
    [TT_S_GN_WEIGHTS] = "weight matrices",
    [TT_S_GN_NONE] = "this trace has no gradients: trace it with --grad",
    [TT_S_GN_SCALE] = "bar = the norm \xC3\xB7 the largest in its column",
    [TT_S_GN_SMALL] = "No room for these rows at a readable size: make the window larger or the type smaller.",
    // generation
    [TT_S_TL_NONE] = "This trace has no generation (make one with `ttrace generate -o FILE`).",
    [TT_S_TL_TITLE_FMT] = "%d tokens generated   temperature %s   top-k %s   top-p %s   seed %s",
    [TT_S_TL_DRAWN_FMT] = "token %d \xE2\x80\x9C%s\xE2\x80\x9D was drawn from (probabilities under the model):",
    [TT_S_TL_CUT_FMT] = "cut: the %d likeliest of %d tokens could be drawn",
    [TT_S_TL_NO_CUT] = "no cut: every token could be drawn",
    [TT_S_TL_CUT_MARK] = "top-k / top-p cut: above it could be drawn",
    [TT_S_TL_FOOT_FMT] = "bars: %s; the token drawn is framed",
    [TT_S_KV_TITLE_FMT] = "KV cache   layer %d   head %d   decode step %d",
    [TT_S_KV_PREFILL_FMT] = "KV cache   layer %d   head %d   after the prompt pass",
    [TT_S_KV_ROWS_FMT] = "%d rows: %d from the prompt, %d from decode steps; the new row is %d",
    [TT_S_KV_PREFILL_ROWS_FMT] = "%d rows, all from the prompt pass",
    [TT_S_KV_K] = "K (cached keys)",
    [TT_S_KV_V] = "V (cached values)",
    [TT_S_KV_WEIGHTS] = "the new query's weights",
    [TT_S_KV_NEW] = "new",
    [TT_S_ROPE_NONE] =
        "This trace has no rotary positions: RoPE turns q and k in a Llama model, or with --set positions=rope.",
    [TT_S_ROPE_TITLE_FMT] =
        "RoPE   layer %d   head %d (K/V head %d)   \xCE\xB8 = %s   D = %d   positions %d\xE2\x80\xA6%d",
    [TT_S_ROPE_RULE] =
        "Pair i is (x[i], x[i + D/2]); at position t it turns by the angle t \xC2\xB7 \xCE\xB8\xE1\xB5\xA2, "
        "\xCE\xB8\xE1\xB5\xA2 = \xCE\xB8^(\xE2\x88\x92"
        "2i/D) (rotate-half). Grey: q before (hook_q); colour: q after (hook_rot_q).",
    [TT_S_ROPE_PAIR_FMT] = "pair %d: dims %d, %d",
    [TT_S_ROPE_FREQ_FMT] = "\xCE\xB8_%d = %s rad per position",
    [TT_S_ROPE_TURN_FMT] = "one turn in %s positions",
    [TT_S_ROPE_AT_FMT] = "at position %d \xE2\x80\x9C%s\xE2\x80\x9D",
    [TT_S_ROPE_H_PAIR] = "pair",
    [TT_S_ROPE_H_ANGLE] = "angle t\xC2\xB7\xCE\xB8\xE1\xB5\xA2 (rad)",
    [TT_S_ROPE_H_Q] = "q (hook_q)",
    [TT_S_ROPE_H_RQ] = "q\xE2\x80\xB2 (hook_rot_q)",
    [TT_S_ROPE_H_K] = "k (hook_k)",
    [TT_S_ROPE_H_RK] = "k\xE2\x80\xB2 (hook_rot_k)",
    [TT_S_ROPE_SHIFT_FMT] = "Shift the prompt: the same q and k at positions %d\xE2\x80\xA6%d (shift %s)",
    [TT_S_ROPE_MEASURE_FMT] =
        "max |S\xE2\x80\xB2 \xE2\x88\x92 S| = %s over %d \xC3\x97 %d \xC3\x97 %d raw scores; the largest |S| is %s",
    [TT_S_ROPE_SHIFT_WHY] =
        "q\xE2\x80\xB2\xE2\x82\x9C \xC2\xB7 k\xE2\x80\xB2\xE2\x82\x9B depends only on t \xE2\x88\x92 s: shifting the "
        "prompt turns both by the same extra angle, and turning two vectors together keeps their dot product.",
    [TT_S_ROPE_MORE_SHIFT] = "\xE2\x80\xA6 not shown at this size: the shift test",
    [TT_S_ROPE_MORE_NUMS_FMT] = "\xE2\x80\xA6 not shown at this size: position %d's numbers and the shift test",
    [TT_S_ROPE_MORE_POS_FMT] = "\xE2\x80\xA6 circles for positions %d\xE2\x80\xA6%d of %d\xE2\x80\xA6%d",
    [TT_S_GQA_TITLE_FMT] = "Grouped-query attention: %d query heads share %d K/V heads (%d each)",
    [TT_S_GQA_GROUP_FMT] = "K/V head %d \xE2\x86\x90 query heads %s",
    [TT_S_GQA_CACHE] =
        "KV cache: K and V of every layer for every token, float32 as ttrace computes them: 2 \xC2\xB7 layers \xC2\xB7 "
        "H_kv \xC2\xB7 D \xC2\xB7 4 bytes per token",
    [TT_S_GQA_TOKEN_FMT] = "per token: 2 \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 4 = %lld bytes",
    [TT_S_GQA_MHA_FMT] =
        "with a K/V head for each query head (H = %d): 2 \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 %d \xC2\xB7 4 = %lld bytes",
    [TT_S_GQA_PROMPT_FMT] = "this prompt (%d tokens): %lld bytes instead of %lld",
    [TT_S_GQA_CTX_FMT] = "at the model's full context (%d tokens): %s MiB instead of %s MiB",
    [TT_S_GQA_SAVES_FMT] = "sharing saves %s %% of the cache (%d query heads read each K/V head)",
    [TT_S_SWIGLU_NONE] =
        "This trace's MLP is not gated: the gate and up projections of SwiGLU (mlp.hook_pre_linear) are the Llama "
        "block's.",
    [TT_S_SWIGLU_TITLE_FMT] = "SwiGLU   layer %d   position %d \xE2\x80\x9C%s\xE2\x80\x9D   %d neurons",
    [TT_S_SWIGLU_RULE_FMT] =
        "Each neuron: a = %s(g) \xC2\xB7 u. The gate g goes through the activation and switches the up projection u on "
        "or off.",
    [TT_S_SWIGLU_KEYS] = "The comma (,) and period (.) keys choose the position.",
    [TT_S_SWIGLU_GATE] = "gate g (hook_pre)",
    [TT_S_SWIGLU_ACT_FMT] = "%s(g)",
    [TT_S_SWIGLU_UP] = "up u (hook_pre_linear)",
    [TT_S_SWIGLU_PROD_FMT] = "a = %s(g) \xC2\xB7 u (hook_post)",
    [TT_S_SWIGLU_NEURON] = "neuron",
    [TT_S_SWIGLU_TOP_FMT] = "the %d neurons with the largest |a|",
    [TT_S_SWIGLU_OFF_FMT] = "switched off: %d of %d with |%s(g)| < %s",
    [TT_S_SWIGLU_OFF_ORDER] = "largest |u| first",
    [TT_S_BLOCKS_TITLE] = "GPT-2 and Llama side by side: the same pass, the block's parts replaced",
    [TT_S_BLOCKS_THIS] = "this trace",
    [TT_S_BLOCKS_CLASSROOM] = "classroom model",
    [TT_S_BLOCKS_MISSING] =
        "no Llama classroom model is installed (assets/models/tiny-llama): its steps without shapes",
    [TT_S_BLOCKS_CFG_FMT] = "L = %d  C = %d  H = %d  H_kv = %d  D = %d  F = %d  V = %d  P = %d",
    [TT_S_BLOCKS_SHAPES_FMT] = "shapes for a prompt of T = %d tokens; changed steps in colour",
    [TT_S_BLOCKS_EACH_FMT] = "the framed steps: one block, repeated %d times",
    [TT_S_KV_GQA_SHARE_FMT] =
        "query head %d reads K/V head %d, which query heads %d\xE2\x80\x93%d share "
        "(grouped-query attention)",
    [TT_S_KV_GQA_SAVES_FMT] =
        "cached: %d K/V heads, not %d; %d positions \xC3\x97 %d layers: %lld B, without "
        "GQA %lld B (%d\xC3\x97 less)",
};

static const tt_step_words steps[] = {
    {"tokenize", "Tokenizer",
     "The prompt is cut into pieces that the model knows. A piece may be a whole word or part of "
     "one; GPT-2 keeps the space in front of a word as part of that word's piece."},
    {"ids", "Token ids",
     "Every piece is replaced by its number in the vocabulary; from here on the model only sees "
     "these integers. The numbers themselves mean nothing yet: 464 is no closer to 465 than to 6193."},
    {"embed", "Embedding lookup",
     "Each id selects one row of the embedding matrix W_E. Nothing is multiplied: it is a table "
     "lookup. Training moved these rows so that words used alike ended up close together."},
    {"positions", "Position vectors",
     "Attention by itself cannot tell \"I love you\" from \"you love I\". So each position gets a vector "
     "of its own: GPT-2 learns one row per position, the original Transformer used sines and cosines."},
    {"positions.sinusoidal", NULL,
     "Attention by itself cannot tell \"I love you\" from \"you love I\". So each position gets a vector "
     "of its own. This model uses the original Transformer's sines and cosines: the vectors are "
     "computed from the position, not learned, so there is no W_P."},
    {"positions.none", NULL,
     "Attention by itself cannot tell \"I love you\" from \"you love I\". This model adds no position "
     "vectors (positions: none), so only the causal mask tells it anything about the order."},
    {"positions.rope", NULL,
     "Attention by itself cannot tell \"I love you\" from \"you love I\". This model adds no position "
     "vectors: inside attention it rotates each pair of dimensions of q and k by an angle that grows with "
     "the position (RoPE, attn.hook_rot_q and hook_rot_k), so a score q\xC2\xB7k depends on how far apart "
     "the two tokens are."},
    {"positions.alibi", NULL,
     "Attention by itself cannot tell \"I love you\" from \"you love I\". This model adds no position "
     "vectors: inside attention each head subtracts its slope times the distance |i \xE2\x88\x92 j| from "
     "the scores (ALiBi, attn.hook_alibi), so far tokens get less attention."},
    {"sum", "Embedding + position",
     "The two vectors are simply added. The sum says which token it is and where it stands, and it "
     "is what the first block reads."},
    {"ln1", "LayerNorm 1",
     "Each token's vector is shifted to mean 0 and scaled to spread 1, then stretched by the learned "
     "\xCE\xB3 and moved by \xCE\xB2. However large the stream has grown, the block gets inputs of a steady size."},
    {"qkv", "Fused Q/K/V matmul",
     "One matrix product makes the query, key and value of every token at once: the three weight "
     "matrices sit side by side, and one large product keeps the hardware busier than three small ones."},
    {"split", "Split into heads",
     "Q, K and V are cut into H heads of D numbers each, and every head compares tokens in its own "
     "small space. Query: what am I looking for? Key: what do I offer? Value: what do I pass on?"},
    {"scores", "Scores Q\xC2\xB7K\xE1\xB5\x80",
     "Every query is compared with every key by a dot product; a large value means the two vectors "
     "point the same way. Row i says how strongly token i is drawn to each token j."},
    {"scale",
     "\xC3\xB7 \xE2\x88\x9A"
     "d_k",
     "A dot product of D terms spreads wider as D grows: its standard deviation grows with \xE2\x88\x9A"
     "D. "
     "Dividing by \xE2\x88\x9A"
     "D keeps the scores in a range where softmax still shares its weight "
     "instead of putting almost all of it on one token."},
    {"scale.off", NULL,
     "A dot product of D terms spreads wider as D grows: its standard deviation grows with \xE2\x88\x9A"
     "D. "
     "This model does not divide (scale_attn: false): the scores go to softmax as they are."},
    {"mask", "Causal mask",
     "A token may not look at the tokens after it: while generating, they do not exist yet. Their "
     "scores become \xE2\x88\x92\xE2\x88\x9E (hatched), so softmax gives them a weight of exactly 0."},
    {"softmax", "Softmax",
     "Each row of scores becomes weights that are positive and add up to 1. Higher scores get more "
     "weight, yet every visible token keeps a little. Click a cell to see its arithmetic."},
    {"weighted", "Weights \xC2\xB7 V per head",
     "Each token's output is the weighted average of the value vectors it attends to. From here on, "
     "the token carries information from its context."},
    {"proj", "Concat + output projection",
     "The heads' outputs are put side by side again and mixed by one more matrix, so that what "
     "different heads found can be combined."},
    {"resid1", "Residual",
     "The attention result is added to the block's input rather than replacing it. The original "
     "information survives, and training signals have a direct path through a deep stack."},
    {"ln2", "LayerNorm 2",
     "Before the feed-forward network, every token's vector is normalized again, one token at a time."},
    {"ffn_up", "FFN expand",
     "Each token is widened from C to F numbers. Each of the F outputs is a neuron: a weighted sum "
     "of the whole input, tuned to a pattern of its own."},
    {"gelu", "Activation",
     "Two linear layers with nothing between them would be one linear layer. The activation bends: "
     "large positive values pass, negative ones are pushed towards 0. The dots are this layer's real values."},
    {"gelu.relu", NULL,
     "Two linear layers with nothing between them would be one linear layer. ReLU bends at 0: "
     "positive values pass unchanged, negative ones become exactly 0. The dots are this layer's real values."},
    {"gelu.silu", NULL,
     "Two linear layers with nothing between them would be one linear layer. SiLU bends: large positive "
     "values pass, negative ones are pushed towards 0 (dipping a little below it). The dots are this "
     "layer's real values."},
    {"gelu.identity", NULL,
     "This model has no activation (identity: g = u), so nothing bends: the dots lie on a straight "
     "line. Two linear layers with nothing between them are one linear layer, W\xE2\x82\x81 "
     "\xC2\xB7 W\xE2\x82\x82."},
    {"ffn_down", "FFN project", "The F features of each token are mixed back down to C numbers."},
    {"resid2", "Residual",
     "The FFN result is added to the stream too. This sum is the block's output and the next block's input."},
    {"ln_final", "Final LayerNorm",
     "After the last block, one more normalization prepares each token's vector for the comparison "
     "with the whole vocabulary."},
    {"logits", "Logits",
     "Each token's vector is compared with every row of the embedding matrix (the unembedding is tied "
     "to W_E), giving one score per vocabulary entry. The last token's row decides what comes next."},
    {"logits.lm_head", NULL,
     "Each token's vector is compared with every row of the unembedding matrix W_U (lm_head, separate "
     "from W_E), giving one score per vocabulary entry. The last token's row decides what comes next."},
    {"ln1.rms", "RMSNorm 1",
     "Each token's vector is divided by its root mean square \xE2\x88\x9A(mean(x\xC2\xB2) + \xCE\xB5) "
     "(ln1.hook_scale, one number per token), then stretched by the learned \xCE\xB3. Unlike LayerNorm "
     "nothing is subtracted first (no mean) and there is no \xCE\xB2: cheaper, and it works as well."},
    {"ln2.rms", "RMSNorm 2",
     "Before the feed-forward network, every token's vector is divided by its root mean square again "
     "and stretched by a \xCE\xB3 of its own; no mean is subtracted."},
    {"ln_final.rms", "Final RMSNorm",
     "After the last block, one more RMSNorm prepares each token's vector for the comparison with the "
     "whole vocabulary."},
    {"q_proj", "Query projection",
     "The query of every token comes from its own matrix W_q, cut into H heads of D numbers: what is "
     "each token looking for? Llama keeps q, k and v as three separate matrices instead of one fused one."},
    {"kv_proj", "Key and value projections",
     "Keys and values get matrices of their own, and fewer heads: G key/value heads instead of H "
     "(grouped-query attention). Several query heads read the same keys and values, so the KV cache "
     "kept while generating is H/G times smaller."},
    {"rope", "Rotary positions (RoPE)",
     "Instead of adding a position vector, each pair of dimensions (i, i + D/2) of q and k is turned "
     "by an angle t\xC2\xB7\xCE\xB8\xE1\xB5\xA2 that grows with the position t, fast for the first pairs "
     "and slowly for the last. A score q\xC2\xB7k then depends only on how far apart the two tokens are."},
    {"o_proj", "Concat + output projection",
     "The H heads' outputs are put side by side again (H\xC2\xB7"
     "D numbers per token) and mixed back "
     "to C numbers by W_o, so that what different heads found can be combined."},
    {"gate", "Gate projection",
     "The MLP has two projections up to F numbers instead of one. This first one, the gate, decides "
     "per neuron how much passes: after SiLU, large negative gate values let almost nothing through."},
    {"up", "Up projection",
     "The second projection to F numbers carries what may pass. It is not bent by any activation: the "
     "gate decides how much of it gets through."},
    {"swiglu", "SwiGLU: gate \xC3\x97 up",
     "Each neuron's output is SiLU(gate) times up. SiLU is near 0 for negative gate values, so there "
     "the gate switches the neuron off whatever up says; for positive gates up passes, scaled."},
    {"swiglu.other", NULL,
     "Each neuron's output is the activation of the gate (this model's hidden_act) times up. Where the "
     "activation is near 0 the gate switches the neuron off whatever up says."},
    {"down", "Down projection", "The F gated features of each token are mixed back down to C numbers by W_down."},
    {"probs", "Next-token probabilities",
     "Softmax turns the logits into probabilities. The temperature \xCF\x84 divides the logits first: "
     "below 1 the favourite takes more, above 1 the candidates even out."},
    {"timeline", "Generation",
     "The model appends one token at a time. Each new token is drawn from the probabilities after "
     "the last one: the temperature divides the scores first, top-k keeps only the k likeliest, top-p "
     "the smallest set of those whose probability reaches p. The line marks the cut; a seeded "
     "generator makes the draw repeatable. The comma (,) and period (.) keys pick a token."},
    {"kvcache", "KV cache",
     "A new token's query must meet the keys and values of every token before it. Those rows do "
     "not change when a token is added (the mask keeps earlier tokens from seeing later ones), so "
     "they are kept: each decode step computes one new row of K and V and reads the rest. "
     "Page Up and Page Down step through the decode steps."},
};

// The window's help (F1), then the lesson window's; rows as in strings_en.c, in its order.
static const tt_key_row window_keys[] = {
    {"\xE2\x86\x90 / \xE2\x86\x92", "previous / next step"},
    {"\xE2\x86\x91 / \xE2\x86\x93", "previous / next layer"},
    {"[ / ]", "previous / next head"},
    {"Tab", "heatmap \xE2\x86\x94 numeric table"},
    {"G / O", "all heads of the layer / layers \xC3\x97 heads"},
    {"E / C", "logit lens (layers \xC3\x97 positions) / where the computation goes"},
    {"R / H / U / M", "RoPE (< > its pair) / query heads sharing K/V / SwiGLU / GPT-2 beside Llama"},
    {"W / F",
     "embedding neighbours of the token / its FFN neurons as gates (the comma and period keys pick the token)"},
    {"Space", "play / pause (a step every 3 seconds)"},
    {"S", "save a screenshot (the bottom line says where)"},
    {"P", "type a new prompt; Enter traces it"},
    {"Home / End, 7 Enter", "first / last step; step 7 (type the number, then Enter)"},
    {"/ name Enter", "go to the step whose name holds it (/resid, /logits)"},
    {"Ctrl + / Ctrl \xE2\x88\x92 / Ctrl 0", "larger / smaller type everywhere; back to normal"},
    {"F11", "fullscreen on / off"},
    {"K",
     "what if? 1\xE2\x80\x93"
     "8 flip a knob or knock out this head: baseline, variant and difference"},
    {"wheel, + / \xE2\x88\x92", "zoom in / out (down to single cells); 0 resets"},
    {"drag", "pan a zoomed view"},
    {"click", "pin a cell: its arithmetic appears beside it"},
    {", / .", "bars: earlier / later token; \xE2\x88\x92 / = temperature"},
    {"B", "value \xE2\x86\x94 gradient \xE2\x88\x82L/\xE2\x88\x82x of the step (a trace made with --grad)"},
    {"Shift+B", "gradient norms: the residual stream at each block, each weight matrix"},
    {"PgUp / PgDn", "generation: previous / next decode step (KV cache) or token (timeline)"},
    {"D", "light / dark theme"},
    {"L", "English / 한국어"},
    {"F1 or ?", "this help;  Esc closes it, Q quits"},
};

static const tt_key_row lesson_keys[] = {
    {"\xE2\x86\x92  Space  PgDn", "next step"},
    {"\xE2\x86\x90  PgUp", "previous step"},
    {"Home / End", "first / last step"},
    {"7  Enter", "go to step 7 (type the number, then Enter)"},
    {"L", "the same lesson in the other language"},
    {"N", "hide / show the narration (more room for the view)"},
    {"\xE2\x86\x91 / \xE2\x86\x93", "scroll a narration longer than its panel"},
    {"[ / ]", "previous / next head"},
    {"Tab", "heatmap \xE2\x86\x94 numbers"},
    {"wheel, + / \xE2\x88\x92, drag", "zoom and pan"},
    {"click", "pin a cell: its arithmetic appears"},
    {"S", "save a screenshot (the bottom line says where)"},
    {"D", "light / dark theme"},
    {"F1 or ?", "this help"},
    {"Esc / Q", "close the help, then quit"},
};

const tt_lang_words *tt_words_en(void) {
  static const tt_lang_words w = {str,
                                  steps,
                                  sizeof steps / sizeof *steps,
                                  {window_keys, lesson_keys},
                                  {sizeof window_keys / sizeof *window_keys, sizeof lesson_keys / sizeof *lesson_keys}};
  return &w;
}
