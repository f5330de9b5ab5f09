// session: everything needed to turn a prompt into a trace: model, tokenizer, backend and
// engine, kept together so the window can retrace a new prompt without reloading.
#ifndef TT_SESSION_H
#define TT_SESSION_H

#include "backend/backend.h"
#include "core/core.h"
#include "model/model.h"
#include "tokenizer/tokenizer.h"
#include "trace/trace.h"

typedef struct {
  const char *model_dir;   // NULL: the default model
  const char *backend;     // "openblas" (NULL), "opencl" or "auto"
  const char *const *set;  // variant knobs "key=value"
  int n_set;
  bool grad;  // traces also hold the backward pass (grad.<hook>, grad.<weight>)
} tt_session_opts;

typedef struct tt_session {
  tt_model *model;
  tt_tokenizer *tok;
  tt_backend *be;
  struct tt_engine *eng;
  tt_config base_cfg;           // the model's config.json before --set
  const char *tokenizer_files;  // "tokenizer.json", "vocab.json+merges.txt" or "bundled gpt2"
  bool grad;                    // opened with opts.grad: every trace runs the backward pass too
  tt_trace_pool *pool;          // the memory a destroyed trace leaves for the next one
  char backend_note[1024];      // which backend "auto" chose, kernels compiled, a vocab_size larger than the
                                // tokenizer's; empty otherwise (the caller shows it once)
} tt_session;

tt_status tt_session_open(const tt_session_opts *opts, tt_session **out, tt_error *err);
void tt_session_close(tt_session *s);

// Tokenizes prompt (valid UTF-8, not empty, at most n_positions tokens) and runs it,
// keeping the hooks that match the globs (NULL/0: all). Fills the trace's metadata. With
// grad, a prompt of fewer than 2 tokens is refused (TT_ERR_ARG).
tt_status tt_session_trace(tt_session *s, const char *prompt, const char *const *record, int n_record, tt_trace **out,
                           tt_error *err);

// What to trace: a prompt, or token ids given directly (--ids); optionally the
// tokenizer's BOS first (--bos). Every id is checked against the model's vocabulary and
// the whole sequence against its context.
typedef struct {
  const char *prompt;  // text; ignored when ids is set
  const int32_t *ids;  // token ids (--ids), or NULL
  int n_ids;
  bool bos;                   // prepend the tokenizer's BOS token (<|endoftext|> = 50256 for GPT-2)
  const char *const *record;  // hook globs (NULL/0: all)
  int n_record;
  bool prefill;  // the pass keeps each layer's K and V in the engine's cache, for decode steps
                 // (tt_engine_decode) after it; refused for causal=false (TT_ERR_UNSUPPORTED)
} tt_trace_input;
tt_status tt_session_trace_input(tt_session *s, const tt_trace_input *in, tt_trace **out, tt_error *err);

// The ids for in (its prompt tokenized, or its ids), with the BOS first when asked for,
// checked against vocab ids and a context of n_ctx. *ids malloc'd. For `tokenize` and traces.
tt_status tt_input_ids(const tt_tokenizer *tok, const tt_trace_input *in, int vocab, int n_ctx, int32_t **ids, int *n,
                       tt_error *err);

// Records the tokenizer's work on prompt (its pre-tokens, the tokens each became, the
// merges with their ranks) in tr (tt_trace_set_pretokens); tr's prompt and tokens, as
// tok encodes prompt, must be set already; with metadata bos "true" the first token (the
// BOS of --bos) belongs to no pre-token (pretokens.c).
tt_status tt_session_record_pretokens(const tt_tokenizer *tok, tt_trace *tr, const char *prompt, tt_error *err);

#endif
