// config_llama: config.json of Hugging Face's LlamaForCausalLM (model_type "llama"), with
// LlamaConfig's defaults for the keys save_pretrained may leave out, and the keys whose
// meaning ttrace does not implement refused.
#include <string.h>

#include "config_internal.h"

static tt_status need_int(json_t *root, const char *key, int fallback, int lo, int hi, int *out, tt_error *err) {
  json_t *v = json_object_get(root, key);
  if (!v || json_is_null(v)) {
    if (fallback < 0) return tt_fail(err, TT_ERR_FORMAT, "missing '%s' (model_type llama)", key);
    *out = fallback;
    return TT_OK;
  }
  if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
    return tt_fail(err, TT_ERR_FORMAT, "'%s' must be an integer in [%d, %d]", key, lo, hi);
  *out = (int)json_integer_value(v);
  return TT_OK;
}

static tt_status need_positive(json_t *root, const char *key, double *out, tt_error *err) {
  json_t *v = json_object_get(root, key);
  if (!v || json_is_null(v)) return TT_OK;  // LlamaConfig's default stays
  if (!json_is_number(v) || json_number_value(v) <= 0)
    return tt_fail(err, TT_ERR_FORMAT, "'%s' must be a positive number", key);
  *out = json_number_value(v);
  return TT_OK;
}

static tt_status need_bool(json_t *root, const char *key, bool *out, tt_error *err) {
  json_t *v = json_object_get(root, key);
  if (!v || json_is_null(v)) return TT_OK;
  if (!json_is_boolean(v)) return tt_fail(err, TT_ERR_FORMAT, "'%s' must be true or false", key);
  *out = json_is_true(v);
  return TT_OK;
}

// rope_scaling (transformers 4.x) must be null; rope_parameters (transformers 5) may only
// be the default rotation, whose rope_theta then counts.
static tt_status read_rope(json_t *root, tt_config *cfg, tt_error *err) {
  json_t *sc = json_object_get(root, "rope_scaling");
  if (sc && !json_is_null(sc)) {
    json_t *type = json_is_object(sc) ? json_object_get(sc, "rope_type") : NULL;
    if (!type && json_is_object(sc)) type = json_object_get(sc, "type");
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "rope_scaling (%s) is not supported: ttrace implements only the plain rotation (rope_scaling null)",
                   type && json_is_string(type) ? json_string_value(type) : "not null");
  }
  tt_status st = need_positive(root, "rope_theta", &cfg->rope_theta, err);
  json_t *rp = json_object_get(root, "rope_parameters");
  if (st || !rp || json_is_null(rp)) return st;
  json_t *type = json_is_object(rp) ? json_object_get(rp, "rope_type") : NULL;
  if (!type || !json_is_string(type) || strcmp(json_string_value(type), "default") != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "rope_parameters of rope_type '%s' are not supported: ttrace implements only 'default'",
                   type && json_is_string(type) ? json_string_value(type) : "?");
  return need_positive(rp, "rope_theta", &cfg->rope_theta, err);
}

static tt_status read_activation(json_t *root, tt_config *cfg, tt_error *err) {
  json_t *v = json_object_get(root, "hidden_act");
  if (!v || json_is_null(v)) return TT_OK;  // silu
  if (!json_is_string(v)) return tt_fail(err, TT_ERR_FORMAT, "'hidden_act' must be a string");
  if (!tt_config_activation_named(json_string_value(v), &cfg->activation))
    return tt_fail(err, TT_ERR_UNSUPPORTED, "hidden_act '%s' is not supported (silu, gelu, gelu_new, relu, ...)",
                   json_string_value(v));
  return TT_OK;
}

static tt_status read_sizes(json_t *root, tt_config *c, tt_error *err) {
  tt_status st = need_int(root, "num_hidden_layers", -1, 1, 1000, &c->n_layer, err);
  if (!st) st = need_int(root, "num_attention_heads", -1, 1, 1024, &c->n_head, err);
  if (!st) st = need_int(root, "hidden_size", -1, 1, 1 << 16, &c->n_embd, err);
  if (!st) st = need_int(root, "intermediate_size", -1, 1, 1 << 18, &c->n_inner, err);
  if (!st) st = need_int(root, "vocab_size", -1, 1, 1 << 22, &c->vocab_size, err);
  if (!st) st = need_int(root, "max_position_embeddings", 2048, 1, 1 << 20, &c->n_positions, err);
  if (!st) st = need_int(root, "num_key_value_heads", c->n_head, 1, 1024, &c->n_kv_head, err);
  if (!st) st = need_int(root, "head_dim", c->n_embd / c->n_head, 1, 1 << 12, &c->head_dim, err);
  if (st) return st;
  if (c->n_head % c->n_kv_head != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED,
                   "num_attention_heads %d is not a multiple of num_key_value_heads %d (each key/value head must "
                   "serve the same number of query heads)",
                   c->n_head, c->n_kv_head);
  if (c->head_dim % 2 != 0)
    return tt_fail(err, TT_ERR_UNSUPPORTED, "head_dim %d is odd: the rotary positions rotate pairs of dimensions",
                   c->head_dim);
  return TT_OK;
}

tt_status tt_config_llama_from_json(json_t *root, tt_config *c, tt_error *err) {
  tt_config_default(c);
  c->arch = TT_ARCH_LLAMA;
  c->positions = TT_POS_ROPE;
  c->norm = TT_NORM_RMSNORM;
  c->activation = TT_ACT_SILU;
  c->ln_eps = 1e-6;
  c->rope_theta = 10000.0;
  c->tie_word_embeddings = 0;  // LlamaConfig's default: an own lm_head
  tt_status st = read_sizes(root, c, err);
  if (!st) st = need_positive(root, "rms_norm_eps", &c->ln_eps, err);
  if (!st) st = read_rope(root, c, err);
  if (!st) st = read_activation(root, c, err);
  if (!st) st = need_bool(root, "attention_bias", &c->attn_bias, err);
  if (!st) st = need_bool(root, "mlp_bias", &c->mlp_bias, err);
  bool tie = false;
  json_t *tv = json_object_get(root, "tie_word_embeddings");
  if (!st) st = need_bool(root, "tie_word_embeddings", &tie, err);
  if (!st && tv && !json_is_null(tv)) c->tie_word_embeddings = tie;
  const char *key;
  json_t *val;
  json_object_foreach(root, key, val) {
    if (!st && strncmp(key, "ttrace_", 7) == 0 && strcmp(key, "ttrace_rope_offset") != 0)
      st = tt_fail(err, TT_ERR_UNSUPPORTED, "'%s': the Llama block has no ttrace_* settings but ttrace_rope_offset",
                   key);
  }
  if (!st) st = need_int(root, "ttrace_rope_offset", 0, 0, TT_MAX_ROPE_OFFSET, &c->rope_offset, err);
  return st;
}

json_t *tt_config_llama_to_json(const tt_config *c) {
  json_t *root = json_pack(
      "{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:f, s:f, s:s, s:b, s:b}", "model_type", "llama",
      "num_hidden_layers", c->n_layer, "num_attention_heads", c->n_head, "num_key_value_heads", tt_config_kv_heads(c),
      "hidden_size", c->n_embd, "head_dim", tt_config_head_dim(c), "intermediate_size", c->n_inner,
      "max_position_embeddings", c->n_positions, "vocab_size", c->vocab_size, "rms_norm_eps", c->ln_eps, "rope_theta",
      c->rope_theta, "hidden_act", tt_act_name(c->activation), "attention_bias", c->attn_bias, "mlp_bias", c->mlp_bias);
  if (root && c->rope_offset) json_object_set_new(root, "ttrace_rope_offset", json_integer(c->rope_offset));
  return root;
}
