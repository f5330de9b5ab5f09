// config: HF GPT-2 config.json fields plus ttrace's variant knobs (ttrace_* keys); keys
// that would change the computation and that ttrace does not implement are refused.
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "config_internal.h"

typedef struct {
  const char *name;
  int value;
} name_value;

static const name_value activations[] = {
    {"gelu_new", TT_ACT_GELU_TANH},  {"gelu_pytorch_tanh", TT_ACT_GELU_TANH},
    {"gelu_tanh", TT_ACT_GELU_TANH}, {"gelu", TT_ACT_GELU_ERF},
    {"relu", TT_ACT_RELU},           {"silu", TT_ACT_SILU},
    {"swish", TT_ACT_SILU},          {"identity", TT_ACT_IDENTITY},
    {"linear", TT_ACT_IDENTITY},
};
static const name_value positions[] = {{"learned", TT_POS_LEARNED},
                                       {"sinusoidal", TT_POS_SINUSOIDAL},
                                       {"none", TT_POS_NONE},
                                       {"rope", TT_POS_ROPE},
                                       {"alibi", TT_POS_ALIBI}};
static const name_value norms[] = {{"layernorm", TT_NORM_LAYERNORM}, {"rmsnorm", TT_NORM_RMSNORM}};
static const name_value blocks[] = {{"pre_ln", 0}, {"post_ln", 1}};
static const name_value booleans[] = {{"true", 1}, {"false", 0}, {"1", 1}, {"0", 0}, {"on", 1}, {"off", 0}};

#define COUNT(a) (sizeof(a) / sizeof *(a))

static bool lookup(const name_value *t, size_t n, const char *name, int *out) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(t[i].name, name) == 0) {
      *out = t[i].value;
      return true;
    }
  return false;
}

static const char *name_of(const name_value *t, size_t n, int value) {
  for (size_t i = 0; i < n; i++)
    if (t[i].value == value) return t[i].name;
  return "?";
}

bool tt_config_activation_named(const char *name, tt_act_kind *out) {
  int v;
  if (!lookup(activations, COUNT(activations), name, &v)) return false;
  *out = (tt_act_kind)v;
  return true;
}

const char *tt_act_name(tt_act_kind a) {
  return name_of(activations, COUNT(activations), (int)a);
}

void tt_config_default(tt_config *cfg) {
  *cfg = (tt_config){.n_layer = 12,
                     .n_head = 12,
                     .n_embd = 768,
                     .n_positions = 1024,
                     .vocab_size = 50257,
                     .n_inner = 3072,
                     .ln_eps = 1e-5,
                     .activation = TT_ACT_GELU_TANH,
                     .positions = TT_POS_LEARNED,
                     .norm = TT_NORM_LAYERNORM,
                     .post_ln = false,
                     .scale_attn = true,
                     .causal = true,
                     .residual = true,
                     .rope_theta = 10000.0,
                     .tie_word_embeddings = -1};
}

// A knob: short name, config.json name (and another name config.json may use for it),
// table of accepted values.
typedef struct {
  const char *short_name, *json_name, *alias;
  const name_value *values;
  size_t n_values;
} knob;

static const knob knobs[] = {
    {"activation", "activation_function", NULL, activations, COUNT(activations)},
    {"positions", "ttrace_positions", NULL, positions, COUNT(positions)},
    {"norm", "ttrace_norm", NULL, norms, COUNT(norms)},
    {"block", "ttrace_block", NULL, blocks, COUNT(blocks)},
    {"scale_attn", "ttrace_scale_attn", "scale_attn_weights", booleans, COUNT(booleans)},
    {"causal", "ttrace_causal", NULL, booleans, COUNT(booleans)},
    {"residual", "ttrace_residual", NULL, booleans, COUNT(booleans)},
    {"scale_attn_by_inverse_layer_idx", "scale_attn_by_inverse_layer_idx", NULL, booleans, COUNT(booleans)},
    {"reorder_and_upcast_attn", "reorder_and_upcast_attn", NULL, booleans, COUNT(booleans)},
};

static void knob_store(tt_config *cfg, size_t k, int v) {
  switch (k) {
  case 0:
    cfg->activation = (tt_act_kind)v;
    break;
  case 1:
    cfg->positions = (tt_pos_kind)v;
    break;
  case 2:
    cfg->norm = (tt_norm_kind)v;
    break;
  case 3:
    cfg->post_ln = v;
    break;
  case 4:
    cfg->scale_attn = v;
    break;
  case 5:
    cfg->causal = v;
    break;
  case 6:
    cfg->residual = v;
    break;
  case 7:
    cfg->scale_attn_by_layer = v;
    break;
  default:
    cfg->reorder_upcast = v;
    break;
  }
}

static int knob_load(const tt_config *cfg, size_t k) {
  switch (k) {
  case 0:
    return cfg->activation;
  case 1:
    return cfg->positions;
  case 2:
    return cfg->norm;
  case 3:
    return cfg->post_ln;
  case 4:
    return cfg->scale_attn;
  case 5:
    return cfg->causal;
  case 6:
    return cfg->residual;
  case 7:
    return cfg->scale_attn_by_layer;
  default:
    return cfg->reorder_upcast;
  }
}

// "a, b, c" from n names into buf.
static void join_names(char *buf, size_t len, const char *const *names, size_t n) {
  buf[0] = 0;
  for (size_t i = 0; i < n; i++) {
    strncat(buf, names[i], len - strlen(buf) - 1);
    if (i + 1 < n) strncat(buf, ", ", len - strlen(buf) - 1);
  }
}

static tt_status accepted_values(const knob *kb, const char *key, const char *value, tt_error *err) {
  const char *names[16];
  for (size_t i = 0; i < kb->n_values; i++) names[i] = kb->values[i].name;
  char list[256];
  join_names(list, sizeof list, names, kb->n_values);
  return tt_fail(err, TT_ERR_ARG, "%s=%s: expected one of %s", key, value, list);
}

static bool knob_named(const knob *kb, const char *key) {
  return strcmp(key, kb->short_name) == 0 || strcmp(key, kb->json_name) == 0 ||
         (kb->alias && strcmp(key, kb->alias) == 0);
}

bool tt_config_ablated(const tt_config *cfg, int l, int h) {
  for (int i = 0; i < cfg->n_ablate; i++)
    if (cfg->ablate[i].layer == l && cfg->ablate[i].head == h) return true;
  return false;
}

// ablate=L.H: one more knocked-out head (a head already out stays once); ablate=none: none.
static tt_status set_ablate(tt_config *cfg, const char *value, tt_error *err) {
  if (strcmp(value, "none") == 0) {
    cfg->n_ablate = 0;
    return TT_OK;
  }
  int l, h, n = 0;
  if (sscanf(value, "%d.%d%n", &l, &h, &n) != 2 || value[n])
    return tt_fail(err, TT_ERR_ARG, "ablate=%s: expected LAYER.HEAD (e.g. ablate=3.0) or none", value);
  if (l < 0 || l >= cfg->n_layer || h < 0 || h >= cfg->n_head)
    return tt_fail(err, TT_ERR_ARG, "ablate=%s: no such head (layers 0..%d, heads 0..%d)", value, cfg->n_layer - 1,
                   cfg->n_head - 1);
  if (tt_config_ablated(cfg, l, h)) return TT_OK;
  if (cfg->n_ablate >= TT_MAX_ABLATE) return tt_fail(err, TT_ERR_ARG, "ablate: at most %d heads", TT_MAX_ABLATE);
  cfg->ablate[cfg->n_ablate].layer = l;
  cfg->ablate[cfg->n_ablate++].head = h;
  return TT_OK;
}

// ttrace_ablate in config.json: "L.H,L.H,..." (the trace's own config writes it so).
static tt_status parse_ablate(json_t *root, tt_config *cfg, tt_error *err) {
  json_t *v = json_object_get(root, "ttrace_ablate");
  if (!v || json_is_null(v)) return TT_OK;
  if (!json_is_string(v)) return tt_fail(err, TT_ERR_FORMAT, "'ttrace_ablate' must be a string such as \"3.0,3.2\"");
  char buf[1024];
  snprintf(buf, sizeof buf, "%s", json_string_value(v));
  char *save = NULL;
  for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
    tt_status st = set_ablate(cfg, item, err);
    if (st) {
      if (err) err->status = TT_ERR_FORMAT;
      return TT_ERR_FORMAT;
    }
  }
  return TT_OK;
}

// rope_offset=N: the rotary positions of the prompt are N, N+1, ... (whether the config
// rotates at all is the engine's check: a later positions=rope may still come).
static tt_status set_rope_offset(tt_config *cfg, const char *value, tt_error *err) {
  char *end = NULL;
  long n = strtol(value, &end, 10);
  if (!value[0] || *end || n < 0 || n > TT_MAX_ROPE_OFFSET)
    return tt_fail(err, TT_ERR_ARG, "rope_offset=%s: expected a whole number of positions from 0 to %d", value,
                   TT_MAX_ROPE_OFFSET);
  cfg->rope_offset = (int)n;
  return TT_OK;
}

tt_status tt_config_set(tt_config *cfg, const char *key, const char *value, tt_error *err) {
  if (strcmp(key, "ablate") == 0 || strcmp(key, "ttrace_ablate") == 0) return set_ablate(cfg, value, err);
  if (strcmp(key, "rope_offset") == 0 || strcmp(key, "ttrace_rope_offset") == 0)
    return set_rope_offset(cfg, value, err);
  for (size_t k = 0; k < COUNT(knobs); k++) {
    if (!knob_named(&knobs[k], key)) continue;
    if (cfg->arch == TT_ARCH_LLAMA)
      return tt_fail(err, TT_ERR_UNSUPPORTED,
                     "setting '%s' is a GPT-2 block knob; the Llama block (model_type llama) has none of them", key);
    int v;
    if (!lookup(knobs[k].values, knobs[k].n_values, value, &v)) return accepted_values(&knobs[k], key, value, err);
    knob_store(cfg, k, v);
    return TT_OK;
  }
  const char *names[COUNT(knobs)];
  for (size_t k = 0; k < COUNT(knobs); k++) names[k] = knobs[k].short_name;
  char list[512];
  join_names(list, sizeof list, names, COUNT(knobs));
  return tt_fail(err, TT_ERR_ARG, "unknown setting '%s' (settings: %s, ablate, rope_offset)", key, list);
}

static tt_status get_int(json_t *root, const char *key, int fallback, int lo, int hi, int *out, tt_error *err) {
  json_t *v = json_object_get(root, key);
  if (!v || json_is_null(v)) {
    if (fallback < 0) return tt_fail(err, TT_ERR_FORMAT, "missing '%s'", key);
    *out = fallback;
    return TT_OK;
  }
  if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
    return tt_fail(err, TT_ERR_FORMAT, "'%s' must be an integer in [%d, %d]", key, lo, hi);
  *out = (int)json_integer_value(v);
  return TT_OK;
}

// The knob's value in config.json as text ("true" for true), NULL when absent; *key is
// the name it was found under. Both names present with different values is an error.
static tt_status knob_text(json_t *root, const knob *kb, const char **text, const char **key, tt_error *err) {
  *text = NULL;
  const char *names[2] = {kb->json_name, kb->alias};
  for (int i = 0; i < 2 && names[i]; i++) {
    json_t *v = json_object_get(root, names[i]);
    if (!v || json_is_null(v)) continue;
    const char *s = json_is_string(v)  ? json_string_value(v)
                    : json_is_true(v)  ? "true"
                    : json_is_false(v) ? "false"
                                       : NULL;
    if (!s) return tt_fail(err, TT_ERR_FORMAT, "'%s' has the wrong type", names[i]);
    if (*text && strcmp(*text, s) != 0)
      return tt_fail(err, TT_ERR_FORMAT, "'%s' (%s) and '%s' (%s) disagree", *key, *text, names[i], s);
    *text = s;
    *key = names[i];
  }
  return TT_OK;
}

static tt_status parse_knob(json_t *root, size_t k, tt_config *cfg, tt_error *err) {
  const char *s = NULL, *key = NULL;
  tt_status st = knob_text(root, &knobs[k], &s, &key, err);
  if (st || !s) return st;
  st = tt_config_set(cfg, key, s, err);
  if (!st) return TT_OK;
  tt_status kind = knobs[k].values == activations ? TT_ERR_UNSUPPORTED : TT_ERR_FORMAT;  // a name HF has, not us
  if (err) err->status = kind;
  return kind;
}

static bool is_knob_key(const char *key) {
  for (size_t k = 0; k < COUNT(knobs); k++)
    if (strcmp(key, knobs[k].json_name) == 0 || (knobs[k].alias && strcmp(key, knobs[k].alias) == 0)) return true;
  return strcmp(key, "ttrace_ablate") == 0 || strcmp(key, "ttrace_rope_offset") == 0;
}

// Keys that would change what the model computes and that ttrace does not implement.
static tt_status refuse_unimplemented(json_t *root, tt_error *err) {
  json_t *mt = json_object_get(root, "model_type");
  if (mt && json_is_string(mt) && strcmp(json_string_value(mt), "gpt2") != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "model_type '%s' is not supported (ttrace runs model_type 'gpt2' and 'llama')",
                   json_string_value(mt));
  if (json_is_true(json_object_get(root, "add_cross_attention")))
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "add_cross_attention is true: cross-attention to an encoder is not implemented (ttrace runs "
                   "decoder-only GPT-2)");
  json_t *pruned = json_object_get(root, "pruned_heads");
  if (pruned && !json_is_null(pruned) &&
      !((json_is_object(pruned) && json_object_size(pruned) == 0) ||
        (json_is_array(pruned) && json_array_size(pruned) == 0)))
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "pruned_heads is not empty: models with pruned attention heads are not supported");
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) {
    if (strncmp(key, "ttrace_", 7) == 0 && !is_knob_key(key))
      return tt_fail(err, TT_ERR_UNSUPPORTED, "unknown ttrace setting '%s'", key);
  }
  return TT_OK;
}

tt_status tt_config_from_json(const char *text, tt_config *cfg, tt_error *err) {
  json_error_t jerr;
  json_t *root = json_loads(text, 0, &jerr);
  if (!root) return tt_fail(err, TT_ERR_FORMAT, "not valid JSON: %s (line %d)", jerr.text, jerr.line);
  tt_config_default(cfg);
  tt_status st = TT_OK;
  if (!json_is_object(root)) st = tt_fail(err, TT_ERR_FORMAT, "not a JSON object");
  json_t *mt = st ? NULL : json_object_get(root, "model_type");
  if (mt && json_is_string(mt) && strcmp(json_string_value(mt), "llama") == 0) {
    st = tt_config_llama_from_json(root, cfg, err);
    json_decref(root);
    return st;
  }
  if (!st) st = refuse_unimplemented(root, err);
  if (!st) st = get_int(root, "n_layer", -1, 1, 1000, &cfg->n_layer, err);
  if (!st) st = get_int(root, "n_head", -1, 1, 1000, &cfg->n_head, err);
  if (!st) st = get_int(root, "n_embd", -1, 1, 1 << 16, &cfg->n_embd, err);
  json_t *np = json_object_get(root, "n_positions");
  bool ctx_only = (!np || json_is_null(np)) && json_object_get(root, "n_ctx");  // older configs
  if (!st) st = get_int(root, ctx_only ? "n_ctx" : "n_positions", -1, 1, 1 << 20, &cfg->n_positions, err);
  if (!st) st = get_int(root, "vocab_size", -1, 1, 1 << 22, &cfg->vocab_size, err);
  if (!st) st = get_int(root, "n_inner", 4 * cfg->n_embd, 1, 1 << 18, &cfg->n_inner, err);
  json_t *eps = json_object_get(root, "layer_norm_epsilon");
  if (!st && eps) {
    if (!json_is_number(eps) || json_number_value(eps) <= 0)
      st = tt_fail(err, TT_ERR_FORMAT, "'layer_norm_epsilon' must be a positive number");
    else
      cfg->ln_eps = json_number_value(eps);
  }
  for (size_t k = 0; k < COUNT(knobs) && !st; k++) st = parse_knob(root, k, cfg, err);
  if (!st) st = parse_ablate(root, cfg, err);
  if (!st) st = get_int(root, "ttrace_rope_offset", 0, 0, TT_MAX_ROPE_OFFSET, &cfg->rope_offset, err);
  json_t *tie = json_object_get(root, "tie_word_embeddings");
  if (!st && tie && !json_is_null(tie)) {
    if (!json_is_boolean(tie))
      st = tt_fail(err, TT_ERR_FORMAT, "'tie_word_embeddings' must be true or false");
    else
      cfg->tie_word_embeddings = json_is_true(tie);
  }
  if (!st && cfg->n_embd % cfg->n_head != 0)
    st = tt_fail(err, TT_ERR_FORMAT, "n_embd %d is not divisible by n_head %d", cfg->n_embd, cfg->n_head);
  json_decref(root);
  return st;
}

char *tt_config_to_json(const tt_config *cfg) {
  if (cfg->arch == TT_ARCH_LLAMA) {
    json_t *llama = tt_config_llama_to_json(cfg);
    char *text = json_dumps(llama, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
    json_decref(llama);
    return text;
  }
  json_t *root = json_pack("{s:i, s:i, s:i, s:i, s:i, s:i, s:f}", "n_layer", cfg->n_layer, "n_head", cfg->n_head,
                           "n_embd", cfg->n_embd, "n_positions", cfg->n_positions, "vocab_size", cfg->vocab_size,
                           "n_inner", cfg->n_inner, "layer_norm_epsilon", cfg->ln_eps);
  for (size_t k = 0; k < COUNT(knobs); k++) {
    const char *name = name_of(knobs[k].values, knobs[k].n_values, knob_load(cfg, k));
    if (knobs[k].values == booleans)
      json_object_set_new(root, knobs[k].json_name, json_boolean(knob_load(cfg, k)));
    else
      json_object_set_new(root, knobs[k].json_name, json_string(name));
  }
  if (cfg->n_ablate > 0) {
    char list[TT_MAX_ABLATE * 12] = "";
    for (int i = 0; i < cfg->n_ablate; i++)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d.%d", i ? "," : "", cfg->ablate[i].layer,
               cfg->ablate[i].head);
    json_object_set_new(root, "ttrace_ablate", json_string(list));
  }
  if (cfg->rope_offset) json_object_set_new(root, "ttrace_rope_offset", json_integer(cfg->rope_offset));
  char *s = json_dumps(root, JSON_PRESERVE_ORDER | JSON_COMPACT | JSON_REAL_PRECISION(15));
  json_decref(root);
  return s;
}

float tt_config_attn_scale(const tt_config *cfg, int l, int D) {
  double s = 1.0;
  if (cfg->scale_attn) s /= sqrt((double)D);
  if (cfg->scale_attn_by_layer) s /= (double)(l + 1);
  return (float)s;
}
