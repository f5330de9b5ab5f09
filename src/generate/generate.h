// generate: text generation one token at a time with the engine's KV cache, and the
// sampling rule that picks each token. The rule and the generator are documented in
// docs/generation.md; tests/generate/sampling_ref.py is an independent implementation.
#ifndef TT_GENERATE_H
#define TT_GENERATE_H

#include "core/core.h"
#include "session/session.h"
#include "trace/trace.h"

// ---- the seeded generator (rng.c): xoshiro256**, seeded through splitmix64 ----
typedef struct {
  uint64_t s[4];
} tt_rng;
// s[0..3] = four successive splitmix64 outputs from state = seed.
void tt_rng_seed(tt_rng *r, uint64_t seed);
uint64_t tt_rng_next(tt_rng *r);  // xoshiro256**
double tt_rng_double(tt_rng *r);  // (next >> 11) · 2⁻⁵³, in [0, 1)

// ---- sampling (sample.c) ----
typedef struct {
  double temperature;  // 0: greedy (the largest logit, the lowest id among equals); else > 0
  int top_k;           // keep the k likeliest tokens; 0: no top-k cut
  double top_p;        // keep the smallest likeliest set whose probability is >= p; 1: no cut
  uint64_t seed;       // the generator's seed
} tt_sampling;

// One line naming the bad value (TT_ERR_ARG): temperature < 0 or not finite, top-k < 0,
// top-p outside (0, 1].
tt_status tt_sampling_check(const tt_sampling *s, tt_error *err);

typedef struct {
  int32_t id;      // the token drawn
  double p_model;  // its probability under the model (softmax of the logits, temperature 1)
  int n_kept;      // how many of the likeliest tokens the cuts kept (1 for greedy)
} tt_pick;

typedef struct tt_sampler tt_sampler;
// Work arrays for a vocabulary of V, allocated once.
tt_status tt_sampler_create(int V, tt_sampler **out, tt_error *err);
void tt_sampler_destroy(tt_sampler *sp);
// Picks the next token from logits (V) by the rule of docs/generation.md, drawing at most
// one number from rng (none for greedy).
tt_pick tt_sample(tt_sampler *sp, const float *logits, const tt_sampling *s, tt_rng *rng);

// ---- generation (generate.c) ----
typedef struct {
  int n;  // tokens to append, >= 1
  tt_sampling sampling;
  // Called after each token is chosen (before the next decode step); may be NULL.
  void (*on_token)(void *ctx, const tt_pick *pick);
  void *ctx;
} tt_generate_opts;

typedef struct {
  int n_generated;  // tokens appended (< opts.n when the context filled up)
  bool stopped_at_context;
  int n_ctx;         // the model's context (n_positions)
  double decode_ms;  // the decode steps' time
} tt_generate_result;

// Traces in (its prompt pass, in->prefill forced on), then appends up to o->n tokens:
// token 0 is drawn from the prompt pass's last logits row, token i > 0 from decode step
// i-1 (which runs token i-1 at position T_prompt + i - 1, recorded as decode.(i-1).*). It
// stops when prompt + generated fill the context (res->stopped_at_context). The trace gets
// the metadata generated_ids, generated_probs, generated_kept, generated_text and sampling
// (docs/trace-format.md). TT_ERR_ARG when the prompt alone fills the context.
tt_status tt_generate(tt_session *s, const tt_trace_input *in, const tt_generate_opts *o, tt_generate_result *res,
                      tt_trace **out, tt_error *err);

#endif
