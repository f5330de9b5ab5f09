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

// Memory that traces hand on (pool.c): a trace made from a pool takes its large tensors'
// memory from what the last destroyed pooled trace gave back, so a re-trace writes into
// pages the process already has instead of new ones. The pool keeps one trace's blocks at
// most and lives until it is released and its last trace destroyed.
typedef struct tt_trace_pool tt_trace_pool;
tt_trace_pool *tt_trace_pool_create(void);  // NULL when out of memory
void tt_trace_pool_release(tt_trace_pool *p);
tt_trace *tt_trace_create_pooled(tt_trace_pool *p);  // p NULL: tt_trace_create
size_t tt_trace_pool_bytes(const tt_trace_pool *p);  // kept for the next trace

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
size_t tt_trace_bytes(const tt_trace *tr);  // recorded tensor bytes (what a saved file holds)
// Tensor bytes held in memory: a trace keeps some tensors as exact rules on others until
// they are read (the scaled and masked attention scores; see derived.c), so this can be
// less than tt_trace_bytes.
size_t tt_trace_held_bytes(const tt_trace *tr);

// Metadata: string keys and values (copied; a byte of a value that is not part of a whole
// UTF-8 character is kept as \xNN, since a file's JSON header holds only UTF-8). Known keys: format, format_version, prompt,
// token_ids (JSON array), token_strings (JSON array), config (JSON), backend, device,
// record (JSON array of globs), variant (JSON object of knobs that differ from the model),
// model, time_ms, pretokens (JSON array, below; set with tt_trace_set_pretokens),
// unembedding ("tied": the logits use W_E; "lm_head": a separate matrix).
tt_status tt_trace_set_meta(tt_trace *tr, const char *key, const char *value);
const char *tt_trace_meta(const tt_trace *tr, const char *key);
size_t tt_trace_meta_count(const tt_trace *tr);
void tt_trace_meta_at(const tt_trace *tr, size_t i, const char **key, const char **value);

// Tokens as display strings (set from token_strings metadata when loading).
tt_status tt_trace_set_tokens(tt_trace *tr, const int32_t *ids, const char *const *strings, int T, tt_error *err);
int tt_trace_n_tokens(const tt_trace *tr);
const char *tt_trace_token(const tt_trace *tr, int i);
int32_t tt_trace_token_id(const tt_trace *tr, int i);
// The model config stored in the metadata (false when absent or unreadable).
bool tt_trace_config(const tt_trace *tr, tt_config *cfg);

// ---- the tokenizer's work on the prompt, recorded at trace time (metadata "pretokens") ----
// The pre-tokens cover the prompt in order, byte for byte, and their tokens cover the
// trace's tokens in order; each lists the BPE merges applied to it, lowest rank first as
// the tokenizer did them. Pieces are spelled as in vocab.json and merges.txt (byte-to-
// unicode: a space is "Ġ"), so every string is valid UTF-8 even when a token is half a
// character. Traces made before this key existed have none (tt_trace_n_pretokens is 0).
typedef struct {
  const char *left, *right, *merged;  // the pair and what it became
  int rank;                           // 0-based line of merges.txt (its rank)
} tt_trace_merge;
typedef struct {
  const char *text;              // the pre-token's prompt text
  size_t offset, len;            // its bytes in the prompt
  int first_token, n_tokens;     // the trace's tokens it became
  const tt_trace_merge *merges;  // in the order applied
  int n_merges;
} tt_trace_pretoken;
// Copies p (n pre-tokens) into the trace and its metadata; checks them against the
// prompt and tokens already set (TT_ERR_ARG with a one-line reason otherwise).
tt_status tt_trace_set_pretokens(tt_trace *tr, const tt_trace_pretoken *p, int n, tt_error *err);
int tt_trace_n_pretokens(const tt_trace *tr);
const tt_trace_pretoken *tt_trace_pretoken_at(const tt_trace *tr, int i);  // NULL out of range

// ---- differences: the one rule for comparing two tensors element by element (diff.c) ----
// A cell finite in both A and B differs by |a - b|. The same infinity in both (a masked
// score, -inf in A and B) is equal. A cell finite on one side only (masked in one trace,
// not the other; or NaN on one side) is not a number to subtract: it is counted in
// n_one_sided. Non-finite in both but not the same infinity (NaN, or +inf against -inf)
// is counted in n_nonfinite. Elements are read with tt_tensor_get, so any dtype compares.
typedef enum {
  TT_CELL_FINITE,     // finite in both: |a - b| counts
  TT_CELL_SAME_INF,   // the same infinity in both: equal
  TT_CELL_ONE_SIDED,  // finite on one side only
  TT_CELL_NONFINITE,  // non-finite in both, not the same infinity
} tt_cell_kind;
tt_cell_kind tt_diff_cell(double a, double b);

typedef struct {
  double max_abs_a;     // max |a| over finite cells of A (0 when none)
  double max_diff;      // max |a - b| over cells finite in both (0 when none)
  int64_t max_at;       // A's flat index of max_diff; -1 when no cell is finite in both
  int64_t n;            // cells compared
  int64_t n_one_sided;  // TT_CELL_ONE_SIDED cells
  int64_t n_nonfinite;  // TT_CELL_NONFINITE cells
} tt_diff_stats;

// Compares every element of a with b's element b_index(ctx, i) (NULL: the same index).
// b must have at least as many elements as b_index can return.
void tt_diff_tensors(const tt_tensor *a, const tt_tensor *b, int64_t (*b_index)(void *ctx, int64_t i), void *ctx,
                     tt_diff_stats *out);
// max_diff / max_abs_a (max_diff when max |A| is 0).
double tt_diff_relative(const tt_diff_stats *s);
// True when every cell is equal: no difference and no cell counted separately.
bool tt_diff_identical(const tt_diff_stats *s);

// Atomic write; the file lists tensors in recorded order.
tt_status tt_trace_save(const tt_trace *tr, const char *path, tt_error *err);
// Reads and checks a trace file: format name and version, tokens, pre-tokens, and every
// tensor the hook catalogue names (in one of the config's layers, with its dtype and
// shape); other tensors may have any dtype and shape. Tensors are indexed by name once.
tt_status tt_trace_load(const char *path, tt_trace **out, tt_error *err);

#endif
