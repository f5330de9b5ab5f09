// session: model + tokenizer + backend + engine, and prompt → trace with its metadata.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "session.h"

static tt_status apply_settings(tt_config *cfg, const char *const *set, int n, tt_error *err) {
  for (int i = 0; i < n; i++) {
    const char *eq = strchr(set[i], '=');
    if (!eq) return tt_fail(err, TT_ERR_ARG, "--set %s: expected key=value", set[i]);
    char key[64];
    snprintf(key, sizeof key, "%.*s", (int)(eq - set[i]), set[i]);
    tt_status st = tt_config_set(cfg, key, eq + 1, err);
    if (st) return tt_fail_prefix(err, "--set");
  }
  return TT_OK;
}

static tt_status find_model_dir(const tt_session_opts *opts, char *dir, size_t len, tt_error *err) {
  if (opts->model_dir) {
    snprintf(dir, len, "%s", opts->model_dir);
    if (access(dir, F_OK) != 0) return tt_fail(err, TT_ERR_IO, "model folder %s does not exist", dir);
    return TT_OK;
  }
  if (!tt_model_default_dir(dir, len))
    return tt_fail(err, TT_ERR_IO, "the default model is not installed (assets/models/); pass -m MODEL_DIR");
  return TT_OK;
}

// A model with more output rows than its tokenizer has tokens (vocab_size padded, as some
// checkpoints do) predicts ids without text; say so once instead of showing <id N> silently.
static void note_vocab_mismatch(tt_session *s) {
  int V = s->model->cfg.vocab_size, known = tt_tokenizer_vocab_size(s->tok);
  if (V <= known) return;
  size_t used = strlen(s->backend_note);
  snprintf(s->backend_note + used, sizeof s->backend_note - used,
           "%sthe model's vocab_size %d is larger than its tokenizer's %d tokens: ids %d..%d have no text "
           "and show as <id N>", used ? "; " : "", V, known, known, V - 1);
}

tt_status tt_session_open(const tt_session_opts *opts, tt_session **out, tt_error *err) {
  *out = NULL;
  tt_session *s = calloc(1, sizeof *s);
  if (!s) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  char dir[4096], tok_dir[4096], probe[4200];
  tt_status st = find_model_dir(opts, dir, sizeof dir, err);
  if (!st) st = tt_model_load(dir, &s->model, err);
  if (!st) s->base_cfg = s->model->cfg;
  if (!st) st = apply_settings(&s->model->cfg, opts->set, opts->n_set, err);
  // The model folder's own vocab.json/merges.txt, else GPT-2's from assets/tokenizer.
  snprintf(probe, sizeof probe, "%s/vocab.json", dir);
  if (access(probe, F_OK) == 0) snprintf(tok_dir, sizeof tok_dir, "%s", dir);
  else if (!tt_asset_path("tokenizer", tok_dir, sizeof tok_dir)) snprintf(tok_dir, sizeof tok_dir, "%s", dir);
  if (!st) st = tt_tokenizer_load(tok_dir, &s->tok, err);
  if (!st) st = tt_backend_create(opts->backend ? opts->backend : "openblas", &s->be, s->backend_note,
                                  sizeof s->backend_note, err);
  if (!st) note_vocab_mismatch(s);
  if (!st) st = tt_engine_create(s->model, s->be, s->model->cfg.n_positions, &s->eng, err);
  if (st) {
    tt_session_close(s);
    return st;
  }
  *out = s;
  return TT_OK;
}

void tt_session_close(tt_session *s) {
  if (!s) return;
  tt_engine_destroy(s->eng);
  tt_backend_destroy(s->be);
  tt_tokenizer_destroy(s->tok);
  tt_model_destroy(s->model);
  free(s);
}

// {"causal": false, ...}: the knobs whose value differs from the model's config.json.
static char *variant_json(const tt_config *base, const tt_config *cfg) {
  char *bj = tt_config_to_json(base), *cj = tt_config_to_json(cfg);
  json_t *bo = json_loads(bj, 0, NULL), *co = json_loads(cj, 0, NULL), *diff = json_object();
  const char *key;
  json_t *val;
  json_object_foreach(co, key, val) {
    if (!json_equal(val, json_object_get(bo, key))) json_object_set(diff, key, val);
  }
  char *out = json_dumps(diff, JSON_COMPACT | JSON_PRESERVE_ORDER);
  json_decref(bo);
  json_decref(co);
  json_decref(diff);
  free(bj);
  free(cj);
  return out;
}

static tt_status tokenize_prompt(tt_session *s, const char *prompt, int32_t **ids, int *T, tt_error *err) {
  if (!prompt || !prompt[0]) return tt_fail(err, TT_ERR_ARG, "the prompt is empty");
  int P = s->model->cfg.n_positions;
  tt_status st = tt_tokenizer_encode_at_most(s->tok, prompt, strlen(prompt), P, ids, T, NULL, NULL, err);
  if (st == TT_ERR_ARG && strstr(err->msg, "tokens long"))
    return tt_fail(err, TT_ERR_ARG, "the prompt is more than %d tokens long; this model's context holds at most %d",
                   P, P);
  if (st) return st;
  if (*T > P) {
    free(*ids);
    *ids = NULL;
    return tt_fail(err, TT_ERR_ARG, "the prompt is %d tokens long; this model's context holds at most %d", *T, P);
  }
  if (*T == 0) return tt_fail(err, TT_ERR_ARG, "the prompt has no tokens");
  return TT_OK;
}

static tt_status fill_metadata(tt_session *s, tt_trace *tr, const char *prompt, const int32_t *ids, int T,
                               const char *const *record, int n_record, tt_error *err) {
  const char **strings = calloc((size_t)T, sizeof *strings);
  char(*bufs)[256] = calloc((size_t)T, sizeof *bufs);
  tt_status st = strings && bufs ? TT_OK : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  for (int i = 0; i < T && !st; i++) strings[i] = tt_tokenizer_token_display(s->tok, ids[i], bufs[i], sizeof bufs[i]);
  if (!st) st = tt_trace_set_tokens(tr, ids, strings, T, err);
  free(strings);
  free(bufs);
  json_t *rec = json_array();
  for (int i = 0; i < n_record; i++) json_array_append_new(rec, json_string(record[i]));
  char *rec_json = json_dumps(rec, JSON_COMPACT), *cfg_json = tt_config_to_json(&s->model->cfg);
  char *var_json = variant_json(&s->base_cfg, &s->model->cfg);
  json_decref(rec);
  const char *pairs[][2] = {{"prompt", prompt},           {"config", cfg_json},   {"variant", var_json},
                            {"model", s->model->dir},     {"backend", s->be->name}, {"device", s->be->device},
                            {"record", rec_json}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs && !st; i++)
    if (!pairs[i][1] || tt_trace_set_meta(tr, pairs[i][0], pairs[i][1])) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  free(rec_json);
  free(cfg_json);
  free(var_json);
  return st;
}

tt_status tt_session_trace(tt_session *s, const char *prompt, const char *const *record, int n_record, tt_trace **out,
                           tt_error *err) {
  *out = NULL;
  int32_t *ids = NULL;
  int T = 0;
  tt_status st = tokenize_prompt(s, prompt, &ids, &T, err);
  if (st) return st;
  tt_trace *tr = tt_trace_create();
  if (!tr) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_trace_set_filter(tr, record, n_record, err);
  if (!st) st = fill_metadata(s, tr, prompt, ids, T, record, n_record, err);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tt_recorder rec = tt_trace_recorder(tr);
  if (!st) st = tt_engine_run(s->eng, ids, T, &rec, err);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  char ms[32];
  snprintf(ms, sizeof ms, "%.3f", (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
  if (!st && tt_trace_set_meta(tr, "time_ms", ms)) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  free(ids);
  if (st) {
    tt_trace_destroy(tr);
    return st;
  }
  *out = tr;
  return TT_OK;
}
