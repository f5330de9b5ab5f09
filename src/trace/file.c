// file: save a trace as safetensors (tensors in recorded order + __metadata__) and load
// one back, checking its format name, version, tokens and every catalogue tensor's layer,
// dtype and shape.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "hooks.h"
#include "trace_internal.h"

tt_status tt_trace_save(const tt_trace *tr, const char *path, tt_error *err) {
  tt_st_meta *meta = calloc(tr->n_meta + 2, sizeof *meta);
  if (!meta) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  size_t n = 0;
  meta[n++] = (tt_st_meta){"format", TT_TRACE_FORMAT};
  meta[n++] = (tt_st_meta){"format_version", TT_TRACE_VERSION};
  for (size_t i = 0; i < tr->n_meta; i++)
    if (strcmp(tr->meta[i].key, "format") && strcmp(tr->meta[i].key, "format_version"))
      meta[n++] = (tt_st_meta){tr->meta[i].key, tr->meta[i].value};
  // derived tensors not computed yet are made on the way out, one buffer for all
  tt_status st = tt_st_write_filled(path, tr->tensors, tr->n, meta, n, tt_derived_fill, (void *)tr, err);
  tt_derived_drop_scratch(tr);
  free(meta);
  return st;
}

static tt_status load_tokens(tt_trace *tr, const char *path, tt_error *err) {
  const char *ids_json = tt_trace_meta(tr, "token_ids"), *str_json = tt_trace_meta(tr, "token_strings");
  if (!ids_json || !str_json) return tt_fail(err, TT_ERR_FORMAT, "%s: metadata lacks token_ids or token_strings", path);
  json_t *ids = json_loads(ids_json, 0, NULL), *strs = json_loads(str_json, 0, NULL);
  tt_status st = TT_OK;
  size_t T = json_array_size(ids);
  if (!json_is_array(ids) || !json_is_array(strs) || json_array_size(strs) != T || T == 0)
    st =
        tt_fail(err, TT_ERR_FORMAT, "%s: token_ids and token_strings must be arrays of the same non-zero length", path);
  int32_t *id_buf = st ? NULL : calloc(T, sizeof *id_buf);
  const char **str_buf = st ? NULL : calloc(T, sizeof *str_buf);
  if (!st && (!id_buf || !str_buf)) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < T && !st; i++) {
    json_t *id = json_array_get(ids, i), *s = json_array_get(strs, i);
    if (!json_is_integer(id) || !json_is_string(s))
      st = tt_fail(err, TT_ERR_FORMAT, "%s: token %zu is malformed in the metadata", path, i);
    else if (json_integer_value(id) < 0 || json_integer_value(id) > INT32_MAX)  // not truncated to int32
      st = tt_fail(err, TT_ERR_FORMAT, "%s: token %zu has id %lld, outside 0..%d", path, i,
                   (long long)json_integer_value(id), INT32_MAX);
    else
      id_buf[i] = (int32_t)json_integer_value(id), str_buf[i] = json_string_value(s);
  }
  if (!st) st = tt_trace_set_tokens(tr, id_buf, str_buf, (int)T, err);
  free(id_buf);
  free(str_buf);
  json_decref(ids);
  json_decref(strs);
  return st;
}

// A tensor the catalogue names must be in one of the config's layers and have the
// catalogue's dtype and shape; any other tensor may be anything.
static tt_status check_tensor(const tt_tensor *t, const tt_config *cfg, int T, const char *path, tt_error *err) {
  tt_hook_ref ref;
  if (!tt_hook_lookup(t->name, &ref)) return TT_OK;
  if (ref.layer >= cfg->n_layer)
    return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' is in layer %d but the config has %d layers", path, t->name,
                   ref.layer, cfg->n_layer);
  int64_t want[TT_MAX_DIMS];
  int ndim = tt_hook_ref_shape(&ref, cfg, T, want);
  tt_dtype dtype = tt_hook_dtype(&ref);
  bool same = t->ndim == ndim && t->dtype == dtype;
  for (int d = 0; same && d < ndim; d++) same = t->shape[d] == want[d];
  if (same) return TT_OK;
  char a[64], b[64];
  return tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' is %s %s, expected %s %s (%s)", path, t->name,
                 tt_dtype_name(t->dtype), tt_shape_str(t->shape, t->ndim, a, sizeof a), tt_dtype_name(dtype),
                 tt_shape_str(want, ndim, b, sizeof b), ref.def->axes);
}

static tt_status check_contents(tt_trace *tr, const char *path, tt_error *err) {
  const char *fmt = tt_trace_meta(tr, "format"), *ver = tt_trace_meta(tr, "format_version");
  if (!fmt || strcmp(fmt, TT_TRACE_FORMAT) != 0)
    return tt_fail(err, TT_ERR_FORMAT, "%s is not a ttrace trace (metadata 'format' is %s%s%s)", path, fmt ? "'" : "",
                   fmt ? fmt : "missing", fmt ? "'" : "");
  if (!ver || strcmp(ver, TT_TRACE_VERSION) != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "%s: trace format version %s is not supported (this ttrace reads %s)", path,
                   ver ? ver : "(missing)", TT_TRACE_VERSION);
  tt_status st = load_tokens(tr, path, err);
  if (!st && (st = tt_trace_load_pretokens(tr, err))) tt_fail_prefix(err, "%s", path);
  if (st) return st;
  tt_config cfg;
  if (!tt_trace_config(tr, &cfg))
    return tt_fail(err, TT_ERR_FORMAT, "%s: metadata 'config' is missing or invalid", path);
  for (size_t i = 0; i < tr->n; i++)
    if ((st = check_tensor(&tr->tensors[i], &cfg, tr->n_tokens, path, err))) return st;
  const tt_tensor *tok = tt_trace_find(tr, "tokens");
  if (tok)
    for (int i = 0; i < tr->n_tokens; i++) {
      int32_t id;
      memcpy(&id, (const char *)tok->data + 4 * i, 4);
      if (id != tr->token_ids[i])
        return tt_fail(err, TT_ERR_FORMAT, "%s: tensor 'tokens' disagrees with metadata token_ids at %d", path, i);
    }
  return TT_OK;
}

tt_status tt_trace_load(const char *path, tt_trace **out, tt_error *err) {
  *out = NULL;
  tt_trace *tr = tt_trace_create();
  if (!tr) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_status st = tt_st_open(path, &tr->file, err);
  for (size_t i = 0; !st && i < tt_st_metadata_count(tr->file); i++) {
    const char *k, *v;
    tt_st_metadata_at(tr->file, i, &k, &v);
    if (tt_trace_set_meta(tr, k, v)) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  // Tensors stay in the mapping (zero copy); the file lists them in recorded order.
  size_t n = st ? 0 : tt_st_count(tr->file);
  if (!st && n && !(tr->tensors = calloc(n, sizeof *tr->tensors))) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (size_t i = 0; i < n && !st; i++) {
    const tt_tensor *t = tt_st_get(tr->file, i);
    if ((uintptr_t)t->data % tt_dtype_size(t->dtype))
      st = tt_fail(err, TT_ERR_FORMAT, "%s: tensor '%s' is not aligned to its dtype", path, t->name);
    tr->tensors[tr->n] = *t;
    tt_status added = st ? TT_OK : tt_trace_index_add(tr, tr->n);
    if (added)
      st = added == TT_ERR_NOMEM ? tt_fail(err, added, "out of memory")
                                 : tt_fail(err, added, "%s: tensor '%s' appears twice", path, t->name);
    tr->n++;
    tr->bytes += tt_tensor_nbytes(t);
    tr->dv->held += tt_tensor_nbytes(t);
  }
  tr->cap = tr->n;
  if (!st) st = check_contents(tr, path, err);
  if (st) {
    tt_trace_destroy(tr);
    return st;
  }
  *out = tr;
  return TT_OK;
}
