// lens: the logit lens. Each stream of the residual stream (block 0's input, then every
// block's output) is put through the model's own final norm (ln_final, with the trace's
// norm variant and epsilon) and unembedding (W_U: lm_head, or W_E when tied), as if the
// model stopped there; softmax gives the distribution it would predict at that depth.
// The last stream so computed is the model's own hook_logits.
#ifndef TT_LENS_H
#define TT_LENS_H

#include "core/core.h"
#include "model/model.h"
#include "trace/trace.h"

typedef struct {
  int n_rows;            // streams: n_layer + 1 (row 0: block 0's input, row l+1: block l's output)
  int T, K, V;           // positions, tokens kept per cell, vocabulary
  char (*row_hook)[96];  // (n_rows) the hook each row reads
  int32_t *ids;          // (n_rows,T,K) the K most probable tokens, most probable first
  float *probs;          // (n_rows,T,K) their probabilities
  double final_diff;     // max |lens logits − hook_logits| of the last row over max |hook_logits|;
                         // -1 when the trace has no hook_logits
} tt_lens;

// The hook row r of the lens reads: blocks.0.hook_resid_pre for r = 0, else the stream
// leaving block r−1 (hook_resid_post; ln2.hook_out in a post-LN block, whose output is
// normalized). Writes it into buf; false when r is outside 0..n_layer.
bool tt_lens_row_hook(const tt_config *cfg, int r, char *buf, size_t len);

// Computes the lens of every stream at every position. The model must be the trace's: its
// width, vocabulary and layer count are checked against the trace's config, and, when the
// trace holds hook_logits, the last row's logits against them (relative 1e-3); a mismatch
// is TT_ERR_FORMAT naming the model folder. K must lie in 1..V (TT_ERR_ARG). A stream the
// trace did not record is TT_ERR_ARG naming it.
tt_status tt_lens_compute(const tt_model *m, const tt_trace *tr, int K, tt_lens *out, tt_error *err);
void tt_lens_free(tt_lens *l);

static inline size_t tt_lens_at(const tt_lens *l, int row, int t, int k) {
  return ((size_t)row * (size_t)l->T + (size_t)t) * (size_t)l->K + (size_t)k;
}

#endif
