// trace_internal: the trace struct, shared by trace.c (memory) and file.c (save/load).
#ifndef TT_TRACE_INTERNAL_H
#define TT_TRACE_INTERNAL_H

#include "safetensors/safetensors.h"
#include "trace.h"

typedef struct {
  char *key, *value;
} meta_pair;

struct tt_trace {
  tt_arena *arena;       // names, token strings and recorded data
  tt_tensor *tensors;    // in recorded order
  size_t n, cap, bytes;
  meta_pair *meta;
  size_t n_meta;
  const char **filters;  // --record globs (in the arena)
  int n_filters;
  bool record_none;
  int32_t *token_ids;
  const char **token_strings;
  int n_tokens;
  tt_st_file *file;      // a loaded trace's tensors point into this mapping
};

#endif
