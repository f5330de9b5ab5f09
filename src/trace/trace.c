// trace: recorded tensors in an arena (or in a mapped trace file), metadata and tokens.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "trace.h"
#include "trace_internal.h"

tt_trace *tt_trace_create(void) {
  tt_trace *tr = calloc(1, sizeof *tr);
  if (!tr) return NULL;
  tr->arena = tt_arena_create(64u << 20);
  tr->name_compares = calloc(1, sizeof *tr->name_compares);
  tr->dv = calloc(1, sizeof *tr->dv);
  if (!tr->arena || !tr->name_compares || !tr->dv) {
    tt_arena_destroy(tr->arena);
    free(tr->name_compares);
    free(tr->dv);
    free(tr);
    return NULL;
  }
  return tr;
}

void tt_trace_destroy(tt_trace *tr) {
  if (!tr) return;
  for (size_t i = 0; i < tr->n_meta; i++) {
    free(tr->meta[i].key);
    free(tr->meta[i].value);
  }
  free(tr->meta);
  free(tr->tensors);
  free(tr->index);
  free(tr->filters);
  free(tr->token_ids);
  free(tr->token_strings);
  free(tr->name_compares);
  if (tr->dv) free(tr->dv->rules), tt_derived_drop_scratch(tr);
  free(tr->dv);
  if (tr->pool) tt_trace_pool_give_back(tr);
  free(tr->blocks);
  tt_arena_destroy(tr->arena);
  if (tr->file) tt_st_close(tr->file);
  free(tr);
}

tt_status tt_trace_set_filter(tt_trace *tr, const char *const *globs, int n, tt_error *err) {
  free(tr->filters);
  tr->filters = NULL;
  tr->n_filters = 0;
  tr->record_none = false;
  if (n == 1 && strcmp(globs[0], "none") == 0) {
    tr->record_none = true;
    return TT_OK;
  }
  if (n <= 0) return TT_OK;
  tr->filters = calloc((size_t)n, sizeof *tr->filters);
  if (!tr->filters) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    if (!globs[i][0] || strcmp(globs[i], "none") == 0)
      return tt_fail(err, TT_ERR_ARG, "--record: '%s' cannot be combined with other patterns", globs[i]);
    tr->filters[i] = tt_arena_strdup(tr->arena, globs[i]);
  }
  tr->n_filters = n;
  return TT_OK;
}

bool tt_trace_wants(const tt_trace *tr, const char *name) {
  if (tr->record_none) return false;
  if (tr->n_filters == 0) return true;
  for (int i = 0; i < tr->n_filters; i++)
    if (tt_glob_match(tr->filters[i], name)) return true;
  return false;
}

// Appends an entry, with new memory (in the pool or the arena) or none (a derived tensor);
// returns NULL when out of memory.
static tt_tensor *append(tt_trace *tr, const char *name, tt_dtype dt, int ndim, const int64_t *shape,
                         bool with_memory) {
  if (tr->n == tr->cap) {
    size_t cap = tr->cap ? tr->cap * 2 : 256;
    tt_tensor *grown = realloc(tr->tensors, cap * sizeof *grown);
    if (!grown) return NULL;
    tr->tensors = grown;
    tr->cap = cap;
  }
  tt_tensor *t = &tr->tensors[tr->n];
  *t = (tt_tensor){.name = tt_arena_strdup(tr->arena, name), .dtype = dt, .ndim = ndim};
  memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
  size_t bytes = tt_tensor_nbytes(t);
  if (with_memory)
    t->data = tr->pool ? tt_trace_pool_take(tr, bytes) : tt_arena_alloc(tr->arena, bytes ? bytes : 1, 64);
  if (!t->name || (with_memory && !t->data) || tt_trace_index_add(tr, tr->n))
    return NULL;  // a second tensor of a name too
  tr->bytes += bytes;
  if (with_memory) tr->dv->held += bytes;
  tr->n++;
  return t;
}

// The recorder's hand-out: new memory for every hook this trace records.
static void *reserve(void *ctx, const char *name, tt_dtype dt, int ndim, const int64_t *shape) {
  tt_trace *tr = ctx;
  if (!tt_trace_wants(tr, name)) return NULL;
  tt_tensor *t = append(tr, name, dt, ndim, shape, true);
  return t ? t->data : NULL;
}

// The recorder's offer of a hook as a rule: kept so, without memory, when this trace
// records the hook and derived.c accepts the rule.
static bool derive(void *ctx, const char *name, const tt_hook_rule *rule, int ndim, const int64_t *shape) {
  tt_trace *tr = ctx;
  if (!tt_trace_wants(tr, name) || !tt_derived_accept(tr, tr->n, rule, ndim, shape)) return false;
  if (append(tr, name, TT_F32, ndim, shape, false)) return true;
  tt_derived_drop(tr, tr->n);
  return false;
}

tt_recorder tt_trace_recorder(tt_trace *tr) {
  return (tt_recorder){.reserve = reserve, .derive = derive, .ctx = tr};
}

tt_status tt_trace_add(tt_trace *tr, const tt_tensor *src, tt_error *err) {
  if (tt_trace_find(tr, src->name)) return tt_fail(err, TT_ERR_FORMAT, "tensor '%s' appears twice", src->name);
  tt_tensor *t = append(tr, src->name, src->dtype, src->ndim, src->shape, true);
  if (!t) return tt_fail(err, TT_ERR_NOMEM, "out of memory storing '%s'", src->name);
  memcpy(t->data, src->data, tt_tensor_nbytes(t));
  return TT_OK;
}

size_t tt_trace_count(const tt_trace *tr) {
  return tr->n;
}
const tt_tensor *tt_trace_get(const tt_trace *tr, size_t i) {
  return i < tr->n && tt_derived_materialize(tr, i) ? &tr->tensors[i] : NULL;
}
size_t tt_trace_bytes(const tt_trace *tr) {
  return tr->bytes;
}

size_t tt_trace_name_compares(const tt_trace *tr) {
  return *tr->name_compares;
}

tt_status tt_trace_set_meta(tt_trace *tr, const char *key, const char *value) {
  char *v = tt_utf8_escape_invalid_dup(value, strlen(value));
  if (!v) return TT_ERR_NOMEM;
  for (size_t i = 0; i < tr->n_meta; i++)
    if (strcmp(tr->meta[i].key, key) == 0) {
      free(tr->meta[i].value);
      tr->meta[i].value = v;
      return TT_OK;
    }
  meta_pair *grown = realloc(tr->meta, (tr->n_meta + 1) * sizeof *grown);
  char *k = strdup(key);
  if (!grown || !k) {
    free(v);
    free(k);
    if (grown) tr->meta = grown;
    return TT_ERR_NOMEM;
  }
  tr->meta = grown;
  tr->meta[tr->n_meta++] = (meta_pair){k, v};
  return TT_OK;
}

const char *tt_trace_meta(const tt_trace *tr, const char *key) {
  for (size_t i = 0; i < tr->n_meta; i++)
    if (strcmp(tr->meta[i].key, key) == 0) return tr->meta[i].value;
  return NULL;
}

size_t tt_trace_meta_count(const tt_trace *tr) {
  return tr->n_meta;
}

void tt_trace_meta_at(const tt_trace *tr, size_t i, const char **key, const char **value) {
  *key = tr->meta[i].key;
  *value = tr->meta[i].value;
}

tt_status tt_trace_set_tokens(tt_trace *tr, const int32_t *ids, const char *const *strings, int T, tt_error *err) {
  free(tr->token_ids);
  free(tr->token_strings);
  tr->token_ids = calloc((size_t)T + 1, sizeof *tr->token_ids);
  tr->token_strings = calloc((size_t)T + 1, sizeof *tr->token_strings);
  if (!tr->token_ids || !tr->token_strings) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  json_t *jids = json_array(), *jstr = json_array();
  for (int i = 0; i < T; i++) {
    tr->token_ids[i] = ids[i];
    tr->token_strings[i] = tt_arena_strdup(tr->arena, strings[i]);
    json_array_append_new(jids, json_integer(ids[i]));
    json_array_append_new(jstr, json_string(strings[i]));
  }
  tr->n_tokens = T;
  char *a = json_dumps(jids, JSON_COMPACT), *b = json_dumps(jstr, JSON_COMPACT);
  tt_status st = a && b ? TT_OK : TT_ERR_NOMEM;
  if (!st) st = tt_trace_set_meta(tr, "token_ids", a);
  if (!st) st = tt_trace_set_meta(tr, "token_strings", b);
  free(a);
  free(b);
  json_decref(jids);
  json_decref(jstr);
  return st ? tt_fail(err, st, "out of memory") : TT_OK;
}

int tt_trace_n_tokens(const tt_trace *tr) {
  return tr->n_tokens;
}
const char *tt_trace_token(const tt_trace *tr, int i) {
  return i >= 0 && i < tr->n_tokens ? tr->token_strings[i] : "";
}
int32_t tt_trace_token_id(const tt_trace *tr, int i) {
  return i >= 0 && i < tr->n_tokens ? tr->token_ids[i] : -1;
}

bool tt_trace_config(const tt_trace *tr, tt_config *cfg) {
  const char *json = tt_trace_meta(tr, "config");
  return json && tt_config_from_json(json, cfg, NULL) == TT_OK;
}
