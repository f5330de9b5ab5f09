// config_internal: what config.c and config_llama.c share. Internal to src/model.
#ifndef TT_MODEL_CONFIG_INTERNAL_H
#define TT_MODEL_CONFIG_INTERNAL_H

#include <jansson.h>

#include "model.h"

// A config.json object of model_type "llama" → cfg (arch TT_ARCH_LLAMA). Refused with
// TT_ERR_UNSUPPORTED, naming the key: a hidden_act ttrace does not have, rope_scaling (or
// rope_parameters of a type other than "default"), num_attention_heads not a multiple of
// num_key_value_heads, an odd head_dim (rotate-half pairs dimension i with i + D/2), an
// unknown ttrace_* key. TT_ERR_FORMAT for a missing size or a malformed value.
tt_status tt_config_llama_from_json(json_t *root, tt_config *cfg, tt_error *err);
// A Llama config as Hugging Face's config.json keys (model_type "llama"), which
// tt_config_llama_from_json reads back to the same config.
json_t *tt_config_llama_to_json(const tt_config *cfg);
// The activation named `name` in config.json (GPT-2's activation_function, Llama's
// hidden_act); false when ttrace does not have it.
bool tt_config_activation_named(const char *name, tt_act_kind *out);

#endif
