// session: model + tokenizer + backend + engine, and prompt → trace with its metadata.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine.h"
#include "session.h"

// One "key=value" knob.
static tt_status apply_one(tt_config *cfg, const char *item, size_t len, tt_error *err) {
  char buf[256], key[64];
  snprintf(buf, sizeof buf, "%.*s", (int)len, item);
  const char *eq = strchr(buf, '=');
  if (!eq || eq == buf) return tt_fail(err, TT_ERR_ARG, "--set %s: expected key=value", buf);
  snprintf(key, sizeof key, "%.*s", (int)(eq - buf), buf);
  tt_status st = tt_config_set(cfg, key, eq + 1, err);
  return st ? tt_fail_prefix(err, "--set") : TT_OK;
}

// Each --set is "key=value" or several joined by commas ("causal=false,residual=false"),
// as lesson headers write them; no knob's value has a comma.
static tt_status apply_settings(tt_config *cfg, const char *const *set, int n, tt_error *err) {
  for (int i = 0; i < n; i++) {
    for (const char *item = set[i];;) {
      size_t len = strcspn(item, ",");
      tt_status st = apply_one(cfg, item, len, err);
      if (st) return st;
      if (!item[len]) break;
      item += len + 1;
    }
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
           "and show as <id N>",
           used ? "; " : "", V, known, known, V - 1);
}

// The model folder's own tokenizer files (tokenizer.json wins over vocab.json + merges.txt),
// else GPT-2's bundled ones from assets/tokenizer.
static tt_status open_tokenizer(tt_session *s, const char *dir, tt_error *err) {
  char tok_dir[4096];
  s->tokenizer_files = tt_tokenizer_files_in(dir);
  if (s->tokenizer_files) {
    snprintf(tok_dir, sizeof tok_dir, "%s", dir);
  } else {
    if (!tt_asset_path("tokenizer", tok_dir, sizeof tok_dir))
      return tt_fail(err, TT_ERR_IO,
                     "model folder %s has no tokenizer files and the bundled GPT-2 tokenizer "
                     "(assets/tokenizer) is not installed",
                     dir);
    s->tokenizer_files = "bundled gpt2";
  }
  return tt_tokenizer_load(tok_dir, &s->tok, err);
}

tt_status tt_session_open(const tt_session_opts *opts, tt_session **out, tt_error *err) {
  *out = NULL;
  tt_session *s = calloc(1, sizeof *s);
  if (!s) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  char dir[4096];
  tt_status st = find_model_dir(opts, dir, sizeof dir, err);
  if (!st) st = tt_model_load(dir, &s->model, err);
  if (!st) s->base_cfg = s->model->cfg;
  if (!st) st = apply_settings(&s->model->cfg, opts->set, opts->n_set, err);
  if (!st) st = open_tokenizer(s, dir, err);
  // -b auto with gradients picks OpenBLAS: the backward pass runs only there.
  const char *be_name = opts->backend ? opts->backend : "openblas";
  bool auto_grad = opts->grad && strcmp(be_name, "auto") == 0;
  if (!st)
    st = tt_backend_create(auto_grad ? "openblas" : be_name, &s->be, s->backend_note, sizeof s->backend_note, err);
  if (!st && auto_grad)
    snprintf(s->backend_note, sizeof s->backend_note, "auto: using OpenBLAS, where the backward pass (--grad) runs");
  if (!st) note_vocab_mismatch(s);
  if (!st) st = tt_engine_create(s->model, s->be, s->model->cfg.n_positions, &s->eng, err);
  if (!st && opts->grad) st = tt_engine_enable_grad(s->eng, err);
  if (!st) s->grad = opts->grad;
  if (!st && !(s->pool = tt_trace_pool_create())) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (st) {
    tt_session_close(s);
    return st;
  }
  *out = s;
  return TT_OK;
}

void tt_session_close(tt_session *s) {
  if (!s) return;
  tt_trace_pool_release(s->pool);  // freed when its last trace is destroyed
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

static tt_status check_ids(const tt_tokenizer *tok, const int32_t *ids, int T, int vocab, int n_ctx, bool given,
                           tt_error *err) {
  const char *what = given ? "--ids: " : "";
  if (T == 0) return tt_fail(err, TT_ERR_ARG, given ? "--ids: no token ids" : "the prompt has no tokens");
  if (T > n_ctx)
    return tt_fail(err, TT_ERR_ARG, "%s%s %d tokens long; this model's context holds at most %d", what,
                   given ? "the ids are" : "the prompt is", T, n_ctx);
  for (int i = 0; i < T; i++)
    if (ids[i] < 0 || ids[i] >= vocab) {
      char piece[64] = "";
      if (tt_tokenizer_token_spelling(tok, ids[i])) {
        char shown[48];
        snprintf(piece, sizeof piece, " ('%s')", tt_tokenizer_token_display(tok, ids[i], shown, sizeof shown));
      }
      return tt_fail(err, TT_ERR_ARG, "%stoken id %d%s is outside the vocabulary (ids 0..%d)", what, (int)ids[i], piece,
                     vocab - 1);
    }
  return TT_OK;
}

tt_status tt_input_ids(const tt_tokenizer *tok, const tt_trace_input *in, int vocab, int n_ctx, int32_t **ids, int *n,
                       tt_error *err) {
  *ids = NULL;
  *n = 0;
  int32_t bos = tt_tokenizer_bos(tok);
  if (in->bos && bos < 0) return tt_fail(err, TT_ERR_ARG, "--bos: this tokenizer has no <|endoftext|> or BOS token");
  tt_trace_input with_bos = *in;  // tokenizer_config.json's add_bos_token puts the BOS first too
  with_bos.bos = in->bos || tt_tokenizer_adds_bos(tok);
  in = &with_bos;
  int32_t *text_ids = NULL;
  int m = in->n_ids;
  if (!in->ids) {
    if (!in->prompt || !in->prompt[0]) return tt_fail(err, TT_ERR_ARG, "the prompt is empty");
    // Stops as soon as the prompt needs more tokens than the context holds (a 1 MiB word).
    int room = n_ctx - (in->bos ? 1 : 0);
    tt_status st =
        tt_tokenizer_encode_at_most(tok, in->prompt, strlen(in->prompt), room, &text_ids, &m, NULL, NULL, err);
    if (st == TT_ERR_ARG && strstr(err->msg, "tokens long"))
      return tt_fail(err, TT_ERR_ARG, "the prompt is more than %d tokens long; this model's context holds at most %d",
                     room, n_ctx);
    if (st) return st;
  }
  int T = m + (in->bos ? 1 : 0);
  int32_t *all = malloc((size_t)(T ? T : 1) * sizeof *all);
  if (!all) {
    free(text_ids);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  if (in->bos) all[0] = bos;
  if (m) memcpy(all + (in->bos ? 1 : 0), in->ids ? in->ids : text_ids, (size_t)m * sizeof *all);
  free(text_ids);
  tt_status st = check_ids(tok, all, T, vocab, n_ctx, in->ids != NULL, err);
  if (st) {
    free(all);
    return st;
  }
  *ids = all;
  *n = T;
  return TT_OK;
}

// The prompt as the metadata keeps it: the text; for --ids the ids decoded (tt_trace_set_meta
// writes a byte that is not part of a whole UTF-8 character, half a Hangul syllable, as \xNN).
static char *prompt_text(const tt_session *s, const tt_trace_input *in, const int32_t *ids, int T) {
  return in->ids ? tt_tokenizer_decode(s->tok, ids, T) : strdup(in->prompt);
}

static tt_status fill_metadata(tt_session *s, tt_trace *tr, const tt_trace_input *in, const int32_t *ids, int T,
                               tt_error *err) {
  const char *const *record = in->record;
  int n_record = in->n_record;
  int skip = in->bos ? 1 : 0;  // the BOS is not part of the prompt's text
  char *prompt = prompt_text(s, in, ids + skip, T - skip);
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
  const char *pairs[][2] = {{"prompt", prompt},
                            {"config", cfg_json},
                            {"variant", var_json},
                            {"model", s->model->dir},
                            {"backend", s->be->name},
                            {"device", s->be->device},
                            {"record", rec_json},
                            {"tokenizer", s->tokenizer_files},
                            {"bos", in->bos ? "true" : "false"},
                            {"from_ids", in->ids ? "true" : "false"},
                            {"unembedding", s->model->lm_head == s->model->wte ? "tied" : "lm_head"}};
  for (size_t i = 0; i < sizeof pairs / sizeof *pairs && !st; i++)
    if (!pairs[i][1] || tt_trace_set_meta(tr, pairs[i][0], pairs[i][1]))
      st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  free(rec_json);
  free(cfg_json);
  free(var_json);
  free(prompt);
  return st;
}

tt_status tt_session_trace(tt_session *s, const char *prompt, const char *const *record, int n_record, tt_trace **out,
                           tt_error *err) {
  tt_trace_input in = {.prompt = prompt, .record = record, .n_record = n_record};
  return tt_session_trace_input(s, &in, out, err);
}

// The pass the input asks for: with gradients, keeping the KV cache, or the plain one.
static tt_status run_pass(tt_session *s, const tt_trace_input *in, const int32_t *ids, int T, const tt_recorder *rec,
                          tt_error *err) {
  if (s->grad) return tt_engine_run_grad(s->eng, ids, T, rec, err);
  if (!in->prefill) return tt_engine_run(s->eng, ids, T, rec, err);
  tt_status st = tt_engine_enable_cache(s->eng, err);
  return st ? st : tt_engine_prefill(s->eng, ids, T, rec, err);
}

tt_status tt_session_trace_input(tt_session *s, const tt_trace_input *in, tt_trace **out, tt_error *err) {
  *out = NULL;
  int32_t *ids = NULL;
  int T = 0;
  tt_trace_input with_bos = *in;  // the metadata's "bos" says whether the first id is the BOS
  with_bos.bos = in->bos || tt_tokenizer_adds_bos(s->tok);
  in = &with_bos;
  tt_status st = tt_input_ids(s->tok, in, s->model->cfg.vocab_size, s->model->cfg.n_positions, &ids, &T, err);
  if (st) return st;
  if (s->grad && T < 2) {
    free(ids);
    return tt_fail(err, TT_ERR_ARG,
                   "gradients need a prompt of at least 2 tokens (the loss predicts each next token); this one has %d",
                   T);
  }
  tt_trace *tr = tt_trace_create_pooled(s->pool);  // a re-trace writes into the last one's pages
  if (!tr) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = tt_trace_set_filter(tr, in->record, in->n_record, err);
  if (!st) st = fill_metadata(s, tr, in, ids, T, err);
  // The ids of --ids were not tokenized from a text: they have no pre-tokens.
  if (!st && !in->ids) st = tt_session_record_pretokens(s->tok, tr, in->prompt, err);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  tt_recorder rec = tt_trace_recorder(tr);
  if (!st) st = run_pass(s, in, ids, T, &rec, err);
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
