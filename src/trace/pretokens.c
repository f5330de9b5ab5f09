// pretokens: the tokenizer's work on the prompt (pre-token spans, the tokens each became,
// the merges with their ranks), kept in the trace and its metadata "pretokens":
//   [{"text": " weather", "offset": 3, "len": 8, "tokens": [1, 1],
//     "merges": [["Ġ", "w", "Ġw", 10], ...]}, ...]
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "trace_internal.h"

// The pre-tokens must tile the prompt and the tokens, in order.
static tt_status check(const tt_trace *tr, const tt_trace_pretoken *p, int n, tt_status bad, tt_error *err) {
  const char *prompt = tt_trace_meta(tr, "prompt");
  if (!prompt) return tt_fail(err, bad, "pre-tokens need the prompt in the metadata");
  size_t at = 0, len = strlen(prompt);
  const char *bos = tt_trace_meta(tr, "bos");
  int token = bos && strcmp(bos, "true") == 0 ? 1 : 0;  // the BOS that --bos put first is no pre-token's
  for (int i = 0; i < n; i++) {
    if (!p[i].text || p[i].offset != at || p[i].len == 0 || p[i].len > len - at || strlen(p[i].text) != p[i].len ||
        memcmp(p[i].text, prompt + at, p[i].len) != 0)
      return tt_fail(err, bad, "pre-token %d is not the prompt's bytes %zu.. (the pre-tokens must cover it in order)",
                     i, at);
    if (p[i].first_token != token || p[i].n_tokens < 1 || p[i].n_tokens > tr->n_tokens - token)
      return tt_fail(err, bad, "pre-token %d does not cover the tokens from %d on (the tokens must follow in order)", i,
                     token);
    for (int m = 0; m < p[i].n_merges; m++)
      if (!p[i].merges[m].left || !p[i].merges[m].right || !p[i].merges[m].merged || p[i].merges[m].rank < 0)
        return tt_fail(err, bad, "pre-token %d: merge %d is malformed", i, m);
    at += p[i].len;
    token += p[i].n_tokens;
  }
  if (n && (at != len || token != tr->n_tokens))
    return tt_fail(err, bad, "the pre-tokens cover %zu of the prompt's %zu bytes and %d of its %d tokens", at, len,
                   token, tr->n_tokens);
  return TT_OK;
}

// Copies p into the arena as tr->pretokens.
static tt_status store(tt_trace *tr, const tt_trace_pretoken *p, int n, tt_error *err) {
  tt_trace_pretoken *out = n ? tt_arena_alloc(tr->arena, sizeof *out * (size_t)n, 8) : NULL;
  if (n && !out) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (int i = 0; i < n; i++) {
    tt_trace_merge *m = p[i].n_merges ? tt_arena_alloc(tr->arena, sizeof *m * (size_t)p[i].n_merges, 8) : NULL;
    out[i] = p[i];
    out[i].text = tt_arena_strdup(tr->arena, p[i].text);
    out[i].merges = m;
    if ((p[i].n_merges && !m) || !out[i].text) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
    for (int k = 0; k < p[i].n_merges; k++) {
      const tt_trace_merge *s = &p[i].merges[k];
      m[k] = (tt_trace_merge){tt_arena_strdup(tr->arena, s->left), tt_arena_strdup(tr->arena, s->right),
                              tt_arena_strdup(tr->arena, s->merged), s->rank};
      if (!m[k].left || !m[k].right || !m[k].merged) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
    }
  }
  tr->pretokens = out;
  tr->n_pretokens = n;
  return TT_OK;
}

static json_t *to_json(const tt_trace_pretoken *p, int n) {
  json_t *arr = json_array();
  for (int i = 0; i < n; i++) {
    json_t *merges = json_array();
    for (int k = 0; k < p[i].n_merges; k++) {
      const tt_trace_merge *m = &p[i].merges[k];
      json_array_append_new(merges, json_pack("[s, s, s, i]", m->left, m->right, m->merged, m->rank));
    }
    json_array_append_new(
        arr, json_pack("{s:s, s:I, s:I, s:[i, i], s:o}", "text", p[i].text, "offset", (json_int_t)p[i].offset, "len",
                       (json_int_t)p[i].len, "tokens", p[i].first_token, p[i].n_tokens, "merges", merges));
  }
  return arr;
}

tt_status tt_trace_set_pretokens(tt_trace *tr, const tt_trace_pretoken *p, int n, tt_error *err) {
  tt_status st = check(tr, p, n, TT_ERR_ARG, err);
  if (!st) st = store(tr, p, n, err);
  if (st) return st;
  json_t *arr = to_json(p, n);
  char *text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
  json_decref(arr);
  st = text ? tt_trace_set_meta(tr, "pretokens", text) : TT_ERR_NOMEM;
  free(text);
  return st ? tt_fail(err, st, "out of memory") : TT_OK;
}

// One "merges" entry [left, right, merged, rank] into m; false when malformed.
static bool parse_merge(json_t *e, tt_trace_merge *m) {
  json_t *rank = json_array_get(e, 3);
  if (!json_is_array(e) || json_array_size(e) != 4 || !json_is_integer(rank) || json_integer_value(rank) < 0 ||
      json_integer_value(rank) > 0x7fffffff)
    return false;
  *m = (tt_trace_merge){json_string_value(json_array_get(e, 0)), json_string_value(json_array_get(e, 1)),
                        json_string_value(json_array_get(e, 2)), (int)json_integer_value(rank)};
  return m->left && m->right && m->merged;
}

// One pre-token object into p (merges into a malloc'd array); false when malformed.
static bool parse_pretoken(json_t *o, tt_trace_pretoken *p) {
  json_t *off = json_object_get(o, "offset"), *len = json_object_get(o, "len"), *tok = json_object_get(o, "tokens");
  json_t *merges = json_object_get(o, "merges");
  if (!json_is_integer(off) || !json_is_integer(len) || json_integer_value(off) < 0 || json_integer_value(len) < 0 ||
      !json_is_array(tok) || json_array_size(tok) != 2 || !json_is_integer(json_array_get(tok, 0)) ||
      !json_is_integer(json_array_get(tok, 1)) || !json_is_array(merges))
    return false;
  json_int_t first = json_integer_value(json_array_get(tok, 0)), count = json_integer_value(json_array_get(tok, 1));
  if (first < 0 || first > 0x7fffffff || count < 0 || count > 0x7fffffff) return false;
  *p = (tt_trace_pretoken){json_string_value(json_object_get(o, "text")),
                           (size_t)json_integer_value(off),
                           (size_t)json_integer_value(len),
                           (int)first,
                           (int)count,
                           NULL,
                           0};
  size_t n = json_array_size(merges);
  tt_trace_merge *m = n ? calloc(n, sizeof *m) : NULL;
  p->merges = m;
  if (n && !m) return false;
  for (size_t k = 0; k < n; k++)
    if (!parse_merge(json_array_get(merges, k), &m[p->n_merges++])) return false;
  return true;
}

tt_status tt_trace_load_pretokens(tt_trace *tr, tt_error *err) {
  const char *text = tt_trace_meta(tr, "pretokens");
  if (!text) return TT_OK;  // a trace from before the key
  json_t *arr = json_loads(text, 0, NULL);
  size_t n = json_array_size(arr);
  tt_trace_pretoken *p = calloc(n + 1, sizeof *p);
  tt_status st =
      json_is_array(arr) && p ? TT_OK : tt_fail(err, TT_ERR_FORMAT, "metadata 'pretokens' is not a JSON array");
  for (size_t i = 0; i < n && !st; i++)
    if (!parse_pretoken(json_array_get(arr, i), &p[i]))
      st = tt_fail(err, TT_ERR_FORMAT, "metadata 'pretokens': entry %zu is malformed", i);
  if (!st && n > 0x7fffffff) st = tt_fail(err, TT_ERR_FORMAT, "metadata 'pretokens' is too long");
  if (!st) st = check(tr, p, (int)n, TT_ERR_FORMAT, err);
  if (!st) st = store(tr, p, (int)n, err);
  for (size_t i = 0; p && i < n; i++) free((void *)p[i].merges);
  free(p);
  json_decref(arr);
  return st;
}

int tt_trace_n_pretokens(const tt_trace *tr) {
  return tr->n_pretokens;
}

const tt_trace_pretoken *tt_trace_pretoken_at(const tt_trace *tr, int i) {
  return i >= 0 && i < tr->n_pretokens ? &tr->pretokens[i] : NULL;
}
