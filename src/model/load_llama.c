// load_llama: the weights of a Hugging Face LlamaForCausalLM checkpoint, with the shapes
// its config implies. nn.Linear stores (out, in); the engine multiplies by the transpose.
#include <stdio.h>

#include "load_internal.h"

typedef struct {
  weight_spec *s;
  int n;
  int layer;
} spec_list;

static void add(spec_list *l, const char *suffix, int64_t d0, int64_t d1, const float **dst) {
  char name[96];
  if (l->layer < 0)
    snprintf(name, sizeof name, "%s", suffix);
  else
    snprintf(name, sizeof name, "model.layers.%d.%s", l->layer, suffix);
  tt_weight_spec(&l->s[l->n++], name, d0, d1, dst);
}

static void add_layer(spec_list *l, const tt_config *c, tt_layer_weights *w) {
  int64_t C = c->n_embd, F = c->n_inner, HD = (int64_t)c->n_head * tt_config_head_dim(c);
  int64_t GD = (int64_t)tt_config_kv_heads(c) * tt_config_head_dim(c);
  add(l, "input_layernorm.weight", C, 0, &w->ln1_w);
  add(l, "self_attn.q_proj.weight", HD, C, &w->q_w);
  add(l, "self_attn.k_proj.weight", GD, C, &w->k_w);
  add(l, "self_attn.v_proj.weight", GD, C, &w->v_w);
  add(l, "self_attn.o_proj.weight", C, HD, &w->o_w);
  if (c->attn_bias) {
    add(l, "self_attn.q_proj.bias", HD, 0, &w->q_b);
    add(l, "self_attn.k_proj.bias", GD, 0, &w->k_b);
    add(l, "self_attn.v_proj.bias", GD, 0, &w->v_b);
    add(l, "self_attn.o_proj.bias", C, 0, &w->o_b);
  }
  add(l, "post_attention_layernorm.weight", C, 0, &w->ln2_w);
  add(l, "mlp.gate_proj.weight", F, C, &w->gate_w);
  add(l, "mlp.up_proj.weight", F, C, &w->up_w);
  add(l, "mlp.down_proj.weight", C, F, &w->down_w);
  if (c->mlp_bias) {
    add(l, "mlp.gate_proj.bias", F, 0, &w->gate_b);
    add(l, "mlp.up_proj.bias", F, 0, &w->up_b);
    add(l, "mlp.down_proj.bias", C, 0, &w->down_b);
  }
}

int tt_llama_weight_specs(tt_model *m, weight_spec *s) {
  const tt_config *c = &m->cfg;
  int64_t C = c->n_embd, V = c->vocab_size;
  spec_list l = {s, 0, -1};
  add(&l, "model.embed_tokens.weight", V, C, &m->wte);
  for (l.layer = 0; l.layer < c->n_layer; l.layer++) add_layer(&l, c, &m->layers[l.layer]);
  l.layer = -1;
  add(&l, "model.norm.weight", C, 0, &m->lnf_w);
  add(&l, "lm_head.weight", V, C, &m->lm_head);
  s[l.n - 1].optional = true;
  return l.n;
}
