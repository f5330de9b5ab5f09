// index: the trace's tensors by name, an open-addressing hash table (FNV-1a, linear
// probing) of positions in tr->tensors, so finding a name costs one comparison on average.
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

static uint64_t hash_name(const char *name) {
  return tt_fnv1a64(TT_FNV1A64_BASIS, name, strlen(name));
}

// The slot holding name, or the empty slot where it would go.
static index_slot *probe(const tt_trace *tr, const char *name, uint64_t h) {
  for (size_t i = h & (tr->index_cap - 1);; i = (i + 1) & (tr->index_cap - 1)) {
    index_slot *s = &tr->index[i];
    if (!s->pos) return s;
    if (s->hash == h) {
      ++*tr->name_compares;
      if (strcmp(tr->tensors[s->pos - 1].name, name) == 0) return s;
    }
  }
}

static bool grow(tt_trace *tr) {
  size_t cap = tr->index_cap ? tr->index_cap * 2 : 512;
  index_slot *slots = calloc(cap, sizeof *slots), *old = tr->index;
  if (!slots) return false;
  size_t old_cap = tr->index_cap;
  tr->index = slots;
  tr->index_cap = cap;
  for (size_t i = 0; i < old_cap; i++)
    if (old[i].pos) {
      index_slot *s = &slots[old[i].hash & (cap - 1)];
      while (s->pos) s = s == &slots[cap - 1] ? slots : s + 1;
      *s = old[i];
    }
  free(old);
  return true;
}

tt_status tt_trace_index_add(tt_trace *tr, size_t i) {
  if (2 * (tr->index_used + 1) > tr->index_cap && !grow(tr)) return TT_ERR_NOMEM;
  uint64_t h = hash_name(tr->tensors[i].name);
  index_slot *s = probe(tr, tr->tensors[i].name, h);
  if (s->pos) return TT_ERR_FORMAT;  // the name is there already
  *s = (index_slot){h, i + 1};
  tr->index_used++;
  return TT_OK;
}

const tt_tensor *tt_trace_lookup(const tt_trace *tr, const char *name) {
  if (!tr->index_cap) return NULL;
  const index_slot *s = probe(tr, name, hash_name(name));
  return s->pos ? &tr->tensors[s->pos - 1] : NULL;
}

const tt_tensor *tt_trace_find(const tt_trace *tr, const char *name) {
  const tt_tensor *t = tt_trace_lookup(tr, name);
  return t && tt_derived_materialize(tr, (size_t)(t - tr->tensors)) ? t : NULL;
}
