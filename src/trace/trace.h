// trace: the recorded tensors of one forward pass, in the order they were computed, with
// the metadata that makes them readable (prompt, tokens, config, backend, timing).
// Saved as a safetensors file; see docs/trace-format.md.
#ifndef TT_TRACE_H
#define TT_TRACE_H

#include "core/core.h"
#include "model/model.h"

#define TT_TRACE_FORMAT "ttrace-trace"
#define TT_TRACE_VERSION "1"

typedef struct tt_trace tt_trace;

tt_trace *tt_trace_create(void);
void tt_trace_destroy(tt_trace *tr);

// Which hooks to keep: shell-style globs ('*', '?', '[..]') matched against hook names;
// none given means all; the single word "none" keeps nothing.
tt_status tt_trace_set_filter(tt_trace *tr, const char *const *globs, int n, tt_error *err);
bool tt_trace_wants(const tt_trace *tr, const char *name);
// A recorder that stores accepted hooks in the trace's arena.
tt_recorder tt_trace_recorder(tt_trace *tr);
// Adds a copy of t (name and data) to the trace; used when loading and by tests.
tt_status tt_trace_add(tt_trace *tr, const tt_tensor *t, tt_error *err);

size_t tt_trace_count(const tt_trace *tr);
const tt_tensor *tt_trace_get(const tt_trace *tr, size_t i);
const tt_tensor *tt_trace_find(const tt_trace *tr, const char *name);
size_t tt_trace_bytes(const tt_trace *tr);  // recorded tensor bytes

// Metadata: string keys and values (copied). Known keys: format, format_version, prompt,
// token_ids (JSON array), token_strings (JSON array), config (JSON), backend, device,
// record (JSON array of globs), variant (JSON object of knobs that differ from the model),
// model, time_ms, unembedding ("tied": the logits use W_E; "lm_head": a separate matrix).
tt_status tt_trace_set_meta(tt_trace *tr, const char *key, const char *value);
const char *tt_trace_meta(const tt_trace *tr, const char *key);
size_t tt_trace_meta_count(const tt_trace *tr);
void tt_trace_meta_at(const tt_trace *tr, size_t i, const char **key, const char **value);

// Tokens as display strings (set from token_strings metadata when loading).
tt_status tt_trace_set_tokens(tt_trace *tr, const int32_t *ids, const char *const *strings, int T,
                              tt_error *err);
int tt_trace_n_tokens(const tt_trace *tr);
const char *tt_trace_token(const tt_trace *tr, int i);
int32_t tt_trace_token_id(const tt_trace *tr, int i);
// The model config stored in the metadata (false when absent or unreadable).
bool tt_trace_config(const tt_trace *tr, tt_config *cfg);

// Atomic write; the file lists tensors in recorded order.
tt_status tt_trace_save(const tt_trace *tr, const char *path, tt_error *err);
// Reads and checks a trace file: format name and version, metadata, tensor shapes.
tt_status tt_trace_load(const char *path, tt_trace **out, tt_error *err);

#endif
