// generate: the prompt pass with the KV cache kept, then one decode step per new token,
// each token drawn by the sampling rule (sample.c); the picks go into the trace's metadata.
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine.h"
#include "generate.h"

// What was generated, as the trace's metadata says it.
typedef struct {
  int32_t *ids;  // (n)
  json_t *ids_json, *probs_json, *kept_json;
} picks;

static tt_status set_json(tt_trace *tr, const char *key, json_t *value, tt_error *err) {
  char *text = json_dumps(value, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
  bool bad = !text || tt_trace_set_meta(tr, key, text);
  free(text);
  return bad ? tt_fail(err, TT_ERR_NOMEM, "out of memory") : TT_OK;
}

static tt_status write_metadata(tt_session *s, tt_trace *tr, const picks *pk, int n, const tt_sampling *sm,
                                tt_error *err) {
  json_t *cfg = json_pack("{s:f, s:i, s:f, s:s}", "temperature", sm->temperature, "top_k", sm->top_k, "top_p",
                          sm->top_p, "generator", "xoshiro256** seeded by splitmix64");
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)sm->seed);
  json_object_set_new(cfg, "seed", json_string(seed));  // a string: a u64 does not fit a JSON double
  tt_status st = set_json(tr, "sampling", cfg, err);
  json_decref(cfg);
  if (!st) st = set_json(tr, "generated_ids", pk->ids_json, err);
  if (!st) st = set_json(tr, "generated_probs", pk->probs_json, err);
  if (!st) st = set_json(tr, "generated_kept", pk->kept_json, err);
  char *text = tt_tokenizer_decode(s->tok, pk->ids, n);  // bytes, as set_meta keeps them: \xNN where not UTF-8
  if (!st && (!text || tt_trace_set_meta(tr, "generated_text", text))) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  free(text);
  return st;
}

// Draws n tokens: from the prompt pass's logits, then from one decode step each.
static tt_status decode_loop(tt_session *s, tt_trace *tr, const tt_generate_opts *o, int n, picks *pk,
                             tt_generate_result *res, tt_error *err) {
  int V = s->model->cfg.vocab_size;
  float *logits = malloc((size_t)V * sizeof *logits);  // (V) the last row
  tt_sampler *sp = NULL;
  tt_status st = logits ? tt_sampler_create(V, &sp, err) : tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_rng rng;
  tt_rng_seed(&rng, o->sampling.seed);
  tt_recorder rec = tt_trace_recorder(tr);
  double t0 = tt_now_seconds();
  for (int i = 0; i < n && !st; i++) {
    st = tt_engine_last_logits(s->eng, logits, err);
    if (st) break;
    tt_pick pick = tt_sample(sp, logits, &o->sampling, &rng);
    pk->ids[i] = pick.id;
    json_array_append_new(pk->ids_json, json_integer(pick.id));
    json_array_append_new(pk->probs_json, json_real(pick.p_model));
    json_array_append_new(pk->kept_json, json_integer(pick.n_kept));
    res->n_generated = i + 1;
    if (o->on_token) o->on_token(o->ctx, &pick);
    if (i + 1 < n) st = tt_engine_decode(s->eng, pick.id, &rec, err);
  }
  res->decode_ms = (tt_now_seconds() - t0) * 1e3;
  free(logits);
  tt_sampler_destroy(sp);
  return st;
}

tt_status tt_generate(tt_session *s, const tt_trace_input *in, const tt_generate_opts *o, tt_generate_result *res,
                      tt_trace **out, tt_error *err) {
  *out = NULL;
  memset(res, 0, sizeof *res);
  res->n_ctx = s->model->cfg.n_positions;
  tt_status st = tt_sampling_check(&o->sampling, err);
  if (st) return st;
  if (o->n < 1) return tt_fail(err, TT_ERR_ARG, "-n %d: generate at least 1 token", o->n);
  tt_trace_input prefill = *in;
  prefill.prefill = true;
  tt_trace *tr = NULL;
  st = tt_session_trace_input(s, &prefill, &tr, err);
  if (st) return st;
  int room = res->n_ctx - tt_trace_n_tokens(tr);
  if (room < 1) {
    tt_trace_destroy(tr);
    return tt_fail(err, TT_ERR_ARG, "the prompt fills the model's whole context (%d tokens): no room to generate",
                   res->n_ctx);
  }
  int n = o->n < room ? o->n : room;
  res->stopped_at_context = n < o->n;
  picks pk = {malloc((size_t)n * sizeof *pk.ids), json_array(), json_array(), json_array()};
  if (!pk.ids) st = tt_fail(err, TT_ERR_NOMEM, "out of memory");
  if (!st) st = decode_loop(s, tr, o, n, &pk, res, err);
  if (!st) st = write_metadata(s, tr, &pk, n, &o->sampling, err);
  free(pk.ids);
  json_decref(pk.ids_json);
  json_decref(pk.probs_json);
  json_decref(pk.kept_json);
  if (st) {
    tt_trace_destroy(tr);
    return st;
  }
  *out = tr;
  return TT_OK;
}
