// load_internal: the weight list load.c checks and binds, shared with load_llama.c.
// Internal to src/model.
#ifndef TT_MODEL_LOAD_INTERNAL_H
#define TT_MODEL_LOAD_INTERNAL_H

#include "model.h"

// One weight the model needs: its name in the checkpoint, the shape the config implies,
// and where its pointer goes.
typedef struct {
  char name[96];
  int ndim;
  int64_t shape[2];
  const float **dst;
  bool optional;
} weight_spec;

// A required weight of shape (d0) when d1 is 0, else (d0, d1).
void tt_weight_spec(weight_spec *s, const char *name, int64_t d0, int64_t d1, const float **dst);
// The weights of a Llama model (LlamaForCausalLM's names) into s; their count, at most
// 4 + 16·n_layer + 4.
int tt_llama_weight_specs(tt_model *m, weight_spec *s);

#endif
