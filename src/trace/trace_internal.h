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

// A tensor kept as a rule (derived.c, a tt_hook_rule accepted): src · factor, −inf above
// the diagonal when masked, then each row through row_fn when set; with keys, the product
// rule scores_fn(src, keys); with addend, the sum rule src + addend; with heads, src's
// columns from column as (H,T,D); with norm_fn, each row of src through it (norm's γ and β
// copies in the arena). src, keys, addend: the sources' positions + 1; src 0: no rule
// (stored).
typedef struct {
  size_t src;
  float factor;
  bool masked;
  tt_row_fn row_fn;
  size_t keys;  // 0: not a product rule
  tt_scores_fn scores_fn;
  size_t addend;  // 0: not a sum rule
  bool heads;
  size_t column;
  tt_norm_row_fn norm_fn;  // NULL: not a norm rule
  tt_norm_params norm;
} tt_derived_rule;

// One rule's tensor made whole into scratch memory, kept for the rules that read it next.
typedef struct {
  float *data;
  size_t of;  // whose: position + 1; 0: nobody's
  size_t bytes;
} tt_derived_slot;

// The scratch's slots. While a trace is saved: a product rule's tensor (a layer's raw
// scores) in one, any other rule's (the residual stream) in the next, so that neither
// pushes the other out. Whenever a product is made: its q and k where they are rules
// (reused layer after layer rather than new memory each time).
enum { TT_SLOT_PRODUCT, TT_SLOT_OTHER, TT_SLOT_QUERIES, TT_SLOT_KEYS, TT_DERIVED_SLOTS };

typedef struct {
  tt_derived_rule *rules;  // per tensor position (rules_cap of them; beyond: none)
  size_t rules_cap;
  size_t held;  // tensor bytes in memory: stored, materialized or mapped
  tt_derived_slot slots[TT_DERIVED_SLOTS];
} tt_derived_state;

typedef struct {
  void *data;
  size_t size;
} tt_trace_block;

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
  tt_st_file *file;        // a loaded trace's tensors point into this mapping
  size_t *name_compares;   // work counter: tensor names compared by lookups (for tests)
  tt_derived_state *dv;    // derived tensors (derived.c); a pointer, as reads may fill it in
  tt_trace_pool *pool;     // where large tensors' memory comes from and goes back to (pool.c); NULL: the arena
  tt_trace_block *blocks;  // the pool's blocks this trace uses
  size_t n_blocks, blocks_cap;
  unsigned char *slab;  // the rest of the block small tensors are carved from (pool.c)
  size_t slab_left;
};

// Small tensors of a pooled trace share blocks of this size; from a quarter of it up, a
// tensor has a block of its own.
#define TT_TRACE_SLAB_BYTES ((size_t)4 << 20)

// pool.c: memory for a tensor of `bytes` in tr (from tr->pool), 64-byte aligned; NULL when
// out of memory.
void *tt_trace_pool_take(tt_trace *tr, size_t bytes);
// pool.c, for tt_trace_destroy: tr's blocks go back to its pool, and its reference with them.
void tt_trace_pool_give_back(tt_trace *tr);
// Adds tensors[i] to the name index: TT_ERR_FORMAT when its name is there already.
tt_status tt_trace_index_add(tt_trace *tr, size_t i);
// The tensor named `name` as it is (a derived one may have no data yet); NULL when absent.
const tt_tensor *tt_trace_lookup(const tt_trace *tr, const char *name);
// derived.c: true when the tensor about to be recorded at position i can be kept as
// `rule` (its sources here as F32 of the right shapes, stored; an element, sum or norm
// rule's src, and a product's q and k, may be rules themselves): the rule is set for
// position i.
// tt_derived_drop takes it back (the entry could not be made).
bool tt_derived_accept(tt_trace *tr, size_t i, const tt_hook_rule *rule, int ndim, const int64_t *shape);
void tt_derived_drop(tt_trace *tr, size_t i);
// Gives tensor i its data (a derived one is computed into the arena once).
bool tt_derived_materialize(const tt_trace *tr, size_t i);
// tt_st_fill_fn (ctx: the trace): a derived tensor's bytes, for tt_trace_save; false when
// out of memory.
bool tt_derived_fill(void *ctx, size_t i, void *dst);
// Gives back the scratch's slots (rules' tensors kept for the rules on them: a save's, and a
// product's q and k).
void tt_derived_drop_scratch(const tt_trace *tr);
// Reads metadata "pretokens" (if present) into tr->pretokens; TT_ERR_FORMAT when malformed.
tt_status tt_trace_load_pretokens(tt_trace *tr, tt_error *err);
// Tensor names compared so far by tt_trace_find and tt_trace_add (how tests see the work
// loading does, without timing it).
size_t tt_trace_name_compares(const tt_trace *tr);

#endif
