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
} tt_session_opts;

typedef struct tt_session {
  tt_model *model;
  tt_tokenizer *tok;
  tt_backend *be;
  struct tt_engine *eng;
  tt_config base_cfg;      // the model's config.json before --set
  char backend_note[1024];  // which backend "auto" chose, kernels compiled, a vocab_size larger than the
                            // tokenizer's; empty otherwise (the caller shows it once)
} tt_session;

tt_status tt_session_open(const tt_session_opts *opts, tt_session **out, tt_error *err);
void tt_session_close(tt_session *s);

// Tokenizes prompt (valid UTF-8, not empty, at most n_positions tokens) and runs it,
// keeping the hooks that match the globs (NULL/0: all). Fills the trace's metadata.
tt_status tt_session_trace(tt_session *s, const char *prompt, const char *const *record, int n_record,
                           tt_trace **out, tt_error *err);

#endif
