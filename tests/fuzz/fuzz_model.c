// fuzz_model: a model folder from any bytes: config.json up to the first NUL byte, then
// model.safetensors. A model that loads has every weight the config promises, all finite;
// its config writes to JSON and reads back the same.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_util.h"
#include "model/model.h"

static void all_finite(const float *w, size_t n) {
  if (!w) fuzz_fail("a missing weight");
  for (size_t i = 0; i < n; i++)
    if (!isfinite(w[i])) fuzz_fail("a loaded model with a non-finite weight");
}

static void touch_weights(const tt_model *m) {
  const tt_config *c = &m->cfg;
  size_t C = (size_t)c->n_embd, F = (size_t)c->n_inner, V = (size_t)c->vocab_size;
  all_finite(m->wte, V * C);
  all_finite(m->lm_head, V * C);
  if (c->positions == TT_POS_LEARNED) all_finite(m->wpe, (size_t)c->n_positions * C);
  all_finite(m->lnf_w, C);
  for (int l = 0; l < c->n_layer; l++) {
    const tt_layer_weights *w = &m->layers[l];
    all_finite(w->ln1_w, C);
    all_finite(w->attn_w, C * 3 * C);
    all_finite(w->attn_proj_w, C * C);
    all_finite(w->ln2_w, C);
    all_finite(w->fc_w, C * F);
    all_finite(w->fc_proj_w, F * C);
  }
}

static void config_round_trip(const char *json) {
  tt_config a, b;
  tt_error err = {0};
  tt_status st = tt_config_from_json(json, &a, &err);
  if (st) {
    fuzz_check_error(st, &err);
    return;
  }
  char *again = tt_config_to_json(&a);
  if (!again) return;
  st = tt_config_from_json(again, &b, &err);
  if (st) fuzz_fail(err.msg);  // what ttrace writes, ttrace reads
  char *twice = tt_config_to_json(&b);
  if (!twice || strcmp(again, twice)) fuzz_fail("config JSON does not round-trip");
  free(again);
  free(twice);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *cfg, *weights;
  size_t ncfg, nweights;
  fuzz_split(data, size, &cfg, &ncfg, &weights, &nweights);
  char *json = malloc(ncfg + 1);
  memcpy(json, cfg, ncfg);
  json[ncfg] = 0;
  config_round_trip(json);
  fuzz_write("config.json", json, ncfg);
  fuzz_write("model.safetensors", weights, nweights);
  free(json);
  tt_model *m = NULL;
  tt_error err = {0};
  tt_status st = tt_model_load(fuzz_dir(), &m, &err);
  if (st)
    fuzz_check_error(st, &err);
  else
    touch_weights(m);
  tt_model_destroy(m);
  return 0;
}
