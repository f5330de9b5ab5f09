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
  const char *model_dir;          // NULL: the default model
  const char *backend;            // "openblas" (NULL), "opencl" or "auto"
  const char *const *set;         // variant knobs "key=value"
  int n_set;
  bool grad;                      // traces also hold the backward pass (grad.<hook>, grad.<weight>)
} tt_session_opts;

typedef struct tt_session {
  tt_model *model;
  tt_tokenizer *tok;
  tt_backend *be;
  struct tt_engine *eng;
  tt_config base_cfg;      // the model's config.json before --set
  bool grad;               // opened with opts.grad: every trace runs the backward pass too
  char backend_note[1024];  // which backend "auto" chose, kernels compiled; empty otherwise (the caller shows it)
} tt_session;

tt_status tt_session_open(const tt_session_opts *opts, tt_session **out, tt_error *err);
void tt_session_close(tt_session *s);

// Tokenizes prompt (valid UTF-8, not empty, at most n_positions tokens) and runs it,
// keeping the hooks that match the globs (NULL/0: all). Fills the trace's metadata. With
// grad, a prompt of fewer than 2 tokens is refused (TT_ERR_ARG).
tt_status tt_session_trace(tt_session *s, const char *prompt, const char *const *record, int n_record,
                           tt_trace **out, tt_error *err);

// Records the tokenizer's work on prompt (its pre-tokens, the tokens each became, the
// merges with their ranks) in tr (tt_trace_set_pretokens); tr's prompt and tokens, as
// tok encodes prompt, must be set already (pretokens.c).
tt_status tt_session_record_pretokens(const tt_tokenizer *tok, tt_trace *tr, const char *prompt, tt_error *err);

#endif
