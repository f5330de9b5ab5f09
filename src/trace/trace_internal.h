// trace_internal: the trace struct, shared by trace.c (memory) and file.c (save/load).
#ifndef TT_TRACE_INTERNAL_H
#define TT_TRACE_INTERNAL_H

#include "safetensors/safetensors.h"
#include "trace.h"

typedef struct {
  char *key, *value;
} meta_pair;

typedef struct {
  uint64_t hash;  // FNV-1a of the name
  size_t pos;     // index in tensors + 1; 0: empty
} index_slot;

struct tt_trace {
  tt_arena *arena;     // names, token strings and recorded data
  tt_tensor *tensors;  // in recorded order
  size_t n, cap, bytes;
  index_slot *index;  // tensors by name (index.c), index_cap a power of two
  size_t index_cap, index_used;
  meta_pair *meta;
  size_t n_meta;
  const char **filters;  // --record globs (in the arena)
  int n_filters;
  bool record_none;
  int32_t *token_ids;
  const char **token_strings;
  int n_tokens;
  tt_trace_pretoken *pretokens;  // in the arena (pretokens.c)
  int n_pretokens;
  tt_st_file *file;       // a loaded trace's tensors point into this mapping
  size_t *name_compares;  // work counter: tensor names compared by lookups (for tests)
};

// Adds tensors[i] to the name index: TT_ERR_FORMAT when its name is there already.
tt_status tt_trace_index_add(tt_trace *tr, size_t i);
// Reads metadata "pretokens" (if present) into tr->pretokens; TT_ERR_FORMAT when malformed.
tt_status tt_trace_load_pretokens(tt_trace *tr, tt_error *err);
// Tensor names compared so far by tt_trace_find and tt_trace_add (how tests see the work
// loading does, without timing it).
size_t tt_trace_name_compares(const tt_trace *tr);

#endif
