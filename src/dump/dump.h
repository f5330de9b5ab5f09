// dump: a trace's tensors as terminal text: one summary line per tensor, or one tensor as
// a table labelled with tokens (T axes), heads (h0, h1, ...) and dimensions.
#ifndef TT_DUMP_H
#define TT_DUMP_H

#include <stdio.h>

#include "tokenizer/tokenizer.h"
#include "trace/trace.h"

typedef struct {
  int max_cols;               // columns shown before eliding the middle (0: all)
  int head;                   // only this head of an (H,...) tensor; -1: all
  int top_k;                  // (T,V) tensors: the k largest entries per row
  int precision;              // digits after the point
  const tt_tokenizer *vocab;  // labels for vocabulary ids (may be NULL: ids are shown)
  bool korean;                // captions in Korean (the lesson player's ko lessons)
} tt_dump_opts;

void tt_dump_default_opts(tt_dump_opts *o);
// name, dtype, shape, min, max, mean (and -inf count) per tensor.
void tt_dump_summary(FILE *out, const tt_trace *tr);
// Statistics of one tensor of any dtype: min, max, mean, -inf count (-inf left out of the
// others); a NaN anywhere makes min, max and mean NaN.
void tt_dump_stats(const tt_tensor *t, double *min, double *max, double *mean, int64_t *n_neg_inf);
void tt_dump_tensor(FILE *out, const tt_trace *tr, const tt_tensor *t, const tt_dump_opts *o);
// The axes letters of a recorded tensor ("H,T,T"), from the hook catalogue; NULL if unknown.
const char *tt_dump_axes(const tt_trace *tr, const char *name);

#endif
