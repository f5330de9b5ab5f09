// strings_en: the interface in English.
#include "strings_int.h"

static const char *const str[TT_S_COUNT] = {
    [TT_S_LAYER] = "layer",
    [TT_S_HEAD] = "head",
    [TT_S_MASKED] = "masked (\xE2\x88\x92\xE2\x88\x9E)",
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
    {"scale", "\xC3\xB7 \xE2\x88\x9A" "d_k",
     "A dot product of D terms spreads wider as D grows: its standard deviation grows with \xE2\x88\x9A" "D. "
     "Dividing by \xE2\x88\x9A" "D keeps the scores in a range where softmax still shares its weight "
     "instead of putting almost all of it on one token."},
    {"scale.off", NULL,
     "A dot product of D terms spreads wider as D grows: its standard deviation grows with \xE2\x88\x9A" "D. "
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
    {"probs", "Next-token probabilities",
     "Softmax turns the logits into probabilities. The temperature \xCF\x84 divides the logits first: "
     "below 1 the favourite takes more, above 1 the candidates even out."},
};

const tt_lang_words *tt_words_en(void) {
  static const tt_lang_words w = {str, steps, sizeof steps / sizeof *steps};
  return &w;
}
