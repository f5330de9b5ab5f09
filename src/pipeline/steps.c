// steps: the forward pass as a list a class can follow, each step with its hook, the view
// it opens with and its formula; titles and explanations come from the language tables
// (strings_*.c), shapes from the trace's config and T.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strings_int.h"
#include "trace/hooks.h"

typedef struct {
  tt_step s;
  const char *formula;  // NULL: depends on the config (config_formula)
} step_def;

// In GPT-2's (pre-LN) order.
static const step_def steps[] = {
    {{"tokenize", "tokens", false, TT_VIEW_TOKENS}, "text \xE2\x86\x92 pieces (byte-level BPE)"},
    {{"ids", "tokens", false, TT_VIEW_TOKENS}, "piece \xE2\x86\x92 id (its row in the vocabulary)"},
    {{"embed", "hook_embed", false, TT_VIEW_EMBED}, "x\xE2\x82\x9C = W_E[id\xE2\x82\x9C]"},
    {{"positions", "hook_pos_embed", false, TT_VIEW_POSITIONS}, NULL},
    {{"sum", "hook_resid_pre", false, TT_VIEW_POSITIONS}, "h\xE2\x82\x80 = x + p"},  // block 0's input
    {{"ln1", "ln1.hook_out", true, TT_VIEW_LAYERNORM}, NULL},
    {{"qkv", "attn.hook_qkv", true, TT_VIEW_HEATMAP}, "[Q K V] = y \xC2\xB7 W_qkv + b"},
    {{"split", "attn.hook_q", true, TT_VIEW_QKV}, "Q, K, V: (T, C) \xE2\x86\x92 (H, T, D),  D = C / H"},
    {{"scores", "attn.hook_attn_scores_raw", true, TT_VIEW_HEATMAP}, "S[i, j] = q\xE1\xB5\xA2 \xC2\xB7 k\xE2\xB1\xBC"},
    {{"scale", "attn.hook_attn_scores_scaled", true, TT_VIEW_HEATMAP}, NULL},
    {{"mask", "attn.hook_attn_scores", true, TT_VIEW_HEATMAP}, "S[i, j] = \xE2\x88\x92\xE2\x88\x9E  for j > i"},
    {{"softmax", "attn.hook_pattern", true, TT_VIEW_HEATMAP},
     "A[i, j] = exp(S[i, j]) / \xCE\xA3\xE2\x82\x96 exp(S[i, k])"},
    {{"weighted", "attn.hook_z", true, TT_VIEW_HEATMAP},
     "z\xE1\xB5\xA2 = \xCE\xA3\xE2\xB1\xBC A[i, j] \xC2\xB7 v\xE2\xB1\xBC"},
    {{"proj", "hook_attn_out", true, TT_VIEW_HEATMAP}, "o = concat(z\xE2\x82\x81 \xE2\x80\xA6 z_H) \xC2\xB7 W_O + b_O"},
    {{"resid1", "hook_resid_mid", true, TT_VIEW_POSITIONS}, "h' = h + o"},
    {{"ln2", "ln2.hook_out", true, TT_VIEW_LAYERNORM}, NULL},
    {{"ffn_up", "mlp.hook_pre", true, TT_VIEW_HEATMAP}, "u = y \xC2\xB7 W\xE2\x82\x81 + b\xE2\x82\x81"},
    {{"gelu", "mlp.hook_post", true, TT_VIEW_GELU}, NULL},
    {{"ffn_down", "hook_mlp_out", true, TT_VIEW_HEATMAP}, "m = g \xC2\xB7 W\xE2\x82\x82 + b\xE2\x82\x82"},
    {{"resid2", "hook_resid_post", true, TT_VIEW_POSITIONS}, "h'' = h' + m"},
    {{"ln_final", "ln_final.hook_out", false, TT_VIEW_LAYERNORM}, NULL},
    {{"logits", "hook_logits", false, TT_VIEW_HEATMAP}, NULL},
    {{"probs", "hook_probs", false, TT_VIEW_BARS}, "p = softmax(z / \xCF\x84)"},
};

enum { N_STEPS = sizeof steps / sizeof *steps };

// The Llama block (model_type llama): RMSNorm, separate q/k/v projections with grouped-query
// attention (G key/value heads for H query heads), RoPE inside attention instead of position
// vectors, the gated SwiGLU MLP. No hook_pos_embed: the block reads the embedding as it is.
// As long as GPT-2's list, so that every front end walks both with tt_step_count().
static const step_def llama_steps[] = {
    {{"tokenize", "tokens", false, TT_VIEW_TOKENS}, "text \xE2\x86\x92 pieces (byte-level BPE)"},
    {{"ids", "tokens", false, TT_VIEW_TOKENS}, "piece \xE2\x86\x92 id (its row in the vocabulary)"},
    {{"embed", "hook_embed", false, TT_VIEW_EMBED}, "h\xE2\x82\x80 = x\xE2\x82\x9C = W_E[id\xE2\x82\x9C]"},
    {{"ln1", "ln1.hook_out", true, TT_VIEW_LAYERNORM}, NULL},
    {{"q_proj", "attn.hook_q", true, TT_VIEW_HEATMAP},
     "Q = y \xC2\xB7 W_q\xE1\xB5\x80 (+ b_q),  (T, H\xC2\xB7"
     "D) \xE2\x86\x92 (H, T, D)"},
    {{"kv_proj", "attn.hook_k", true, TT_VIEW_HEATMAP},
     "K = y \xC2\xB7 W_k\xE1\xB5\x80,  V = y \xC2\xB7 W_v\xE1\xB5\x80 (+ b),  (T, G\xC2\xB7"
     "D) \xE2\x86\x92 (G, T, D)"},
    {{"rope", "attn.hook_rot_q", true, TT_VIEW_HEATMAP},
     "(q[i], q[i + D/2]) turned by t \xC2\xB7 \xCE\xB8^(\xE2\x88\x92"
     "2i/D) at position t; k likewise"},
    {{"scores", "attn.hook_attn_scores_raw", true, TT_VIEW_HEATMAP},
     "S[i, j] = q'\xE1\xB5\xA2 \xC2\xB7 k'\xE2\xB1\xBC  (k' of the head's key/value group)"},
    {{"scale", "attn.hook_attn_scores_scaled", true, TT_VIEW_HEATMAP}, NULL},
    {{"mask", "attn.hook_attn_scores", true, TT_VIEW_HEATMAP}, "S[i, j] = \xE2\x88\x92\xE2\x88\x9E  for j > i"},
    {{"softmax", "attn.hook_pattern", true, TT_VIEW_HEATMAP},
     "A[i, j] = exp(S[i, j]) / \xCE\xA3\xE2\x82\x96 exp(S[i, k])"},
    {{"weighted", "attn.hook_z", true, TT_VIEW_HEATMAP},
     "z\xE1\xB5\xA2 = \xCE\xA3\xE2\xB1\xBC A[i, j] \xC2\xB7 v\xE2\xB1\xBC  (v of the head's key/value group)"},
    {{"o_proj", "hook_attn_out", true, TT_VIEW_HEATMAP},
     "o = concat(z\xE2\x82\x81 \xE2\x80\xA6 z_H) \xC2\xB7 W_o\xE1\xB5\x80 (+ b_o)"},
    {{"resid1", "hook_resid_mid", true, TT_VIEW_POSITIONS}, "h' = h + o"},
    {{"ln2", "ln2.hook_out", true, TT_VIEW_LAYERNORM}, NULL},
    {{"gate", "mlp.hook_pre", true, TT_VIEW_HEATMAP}, "g = y \xC2\xB7 W_gate\xE1\xB5\x80 (+ b)"},
    {{"up", "mlp.hook_pre_linear", true, TT_VIEW_HEATMAP}, "u = y \xC2\xB7 W_up\xE1\xB5\x80 (+ b)"},
    {{"swiglu", "mlp.hook_post", true, TT_VIEW_HEATMAP}, NULL},
    {{"down", "hook_mlp_out", true, TT_VIEW_HEATMAP}, "m = a \xC2\xB7 W_down\xE1\xB5\x80 (+ b)"},
    {{"resid2", "hook_resid_post", true, TT_VIEW_POSITIONS}, "h'' = h' + m"},
    {{"ln_final", "ln_final.hook_out", false, TT_VIEW_LAYERNORM}, NULL},
    {{"logits", "hook_logits", false, TT_VIEW_HEATMAP}, NULL},
    {{"probs", "hook_probs", false, TT_VIEW_BARS}, "p = softmax(z / \xCF\x84)"},
};
_Static_assert(sizeof llama_steps / sizeof *llama_steps == N_STEPS, "both step lists have tt_step_count() steps");

// After the forward pass, in a trace of `ttrace generate -o` (metadata generated_ids): the
// generation and the KV cache (the view state's position picks the generated token and the
// decode step).
static const step_def generation_steps[] = {
    {.s = {.id = "timeline", .suffix = "hook_probs", .in_block = false, .view = TT_VIEW_TIMELINE},
     .formula = "next token ~ cut(softmax(z / \xCF\x84)),  top-k, then top-p"},
    {.s = {.id = "kvcache", .suffix = "attn.hook_k", .in_block = true, .view = TT_VIEW_KVCACHE},
     .formula = "K, V: (T + S + 1, D) per head; step S computes only the last row"},
};
enum { N_GEN_STEPS = sizeof generation_steps / sizeof *generation_steps };

static bool has_generation(const tt_trace *tr) {
  return tr && tt_trace_meta(tr, "generated_ids") != NULL;
}

int tt_step_count_for(const tt_trace *tr) {
  return N_STEPS + (has_generation(tr) ? N_GEN_STEPS : 0);
}

// Positions in the list → rows of steps[]. Post-LN (the original Transformer) normalizes
// each residual sum: attention, + (resid1), LN1, FFN, + (resid2), LN2.
static const int pre_ln[N_STEPS] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22};
static const int post_ln[N_STEPS] = {0, 1, 2, 3, 4, 6, 7, 8, 9, 10, 11, 12, 13, 14, 5, 16, 17, 18, 19, 15, 20, 21, 22};

static bool config_of(const tt_trace *tr, tt_config *cfg) {
  return tr && tt_trace_config(tr, cfg);
}

static const step_def *def_at(const tt_trace *tr, int i) {
  if (i >= N_STEPS && i < tt_step_count_for(tr)) return &generation_steps[i - N_STEPS];
  if (i < 0 || i >= N_STEPS) return NULL;
  tt_config cfg;
  bool have = config_of(tr, &cfg);
  if (have && cfg.arch == TT_ARCH_LLAMA) return &llama_steps[i];
  return &steps[(have && cfg.post_ln ? post_ln : pre_ln)[i]];
}

int tt_step_count(void) {
  return N_STEPS;
}

const tt_step *tt_step_get(const tt_trace *tr, int i) {
  const step_def *d = def_at(tr, i);
  return d ? &d->s : NULL;
}

bool tt_pipeline_tied(const tt_trace *tr) {
  const char *u = tr ? tt_trace_meta(tr, "unembedding") : NULL;
  return !u || strcmp(u, "lm_head") != 0;
}

// The words variant of a step for this config: "gelu.identity", "positions.none", ...
static const char *variant(const tt_trace *tr, const char *id) {
  tt_config cfg;
  if (!strcmp(id, "logits")) return tt_pipeline_tied(tr) ? NULL : "logits.lm_head";
  if (!config_of(tr, &cfg)) return NULL;
  if (!strcmp(id, "positions"))
    return cfg.positions == TT_POS_SINUSOIDAL ? "positions.sinusoidal"
           : cfg.positions == TT_POS_NONE     ? "positions.none"
           : cfg.positions == TT_POS_ROPE     ? "positions.rope"
           : cfg.positions == TT_POS_ALIBI    ? "positions.alibi"
                                              : NULL;
  if (!strcmp(id, "scale")) return cfg.scale_attn ? NULL : "scale.off";
  if (cfg.norm == TT_NORM_RMSNORM && (!strcmp(id, "ln1") || !strcmp(id, "ln2") || !strcmp(id, "ln_final")))
    return !strcmp(id, "ln1") ? "ln1.rms" : !strcmp(id, "ln2") ? "ln2.rms" : "ln_final.rms";
  if (!strcmp(id, "swiglu")) return cfg.activation == TT_ACT_SILU ? NULL : "swiglu.other";
  if (!strcmp(id, "gelu")) {
    switch (cfg.activation) {
    case TT_ACT_RELU:
      return "gelu.relu";
    case TT_ACT_SILU:
      return "gelu.silu";
    case TT_ACT_IDENTITY:
      return "gelu.identity";
    default:
      return NULL;
    }
  }
  return NULL;
}

const char *tt_step_title(const tt_trace *tr, int i, tt_lang lang) {
  const step_def *d = def_at(tr, i);
  if (!d) return "";
  const char *v = variant(tr, d->s.id);
  const tt_step_words *w = v ? tt_step_words_of(lang, v) : NULL;
  if (!w || !w->title) w = tt_step_words_of(lang, d->s.id);
  return w && w->title ? w->title : "";
}

const char *tt_step_text(const tt_trace *tr, int i, tt_lang lang) {
  const step_def *d = def_at(tr, i);
  if (!d) return "";
  const char *v = variant(tr, d->s.id);
  const tt_step_words *w = v ? tt_step_words_of(lang, v) : NULL;
  if (!w) w = tt_step_words_of(lang, d->s.id);
  return w && w->text ? w->text : "";
}

static const char *activation_formula(tt_act_kind a) {
  switch (a) {
  case TT_ACT_RELU:
    return "g = ReLU(u) = max(0, u)";
  case TT_ACT_SILU:
    return "g = SiLU(u) = u \xC2\xB7 \xCF\x83(u)";
  case TT_ACT_IDENTITY:
    return "g = u  (no activation)";
  case TT_ACT_GELU_ERF:
    return "g = GELU(u) = u \xC2\xB7 \xCE\xA6(u)";
  default:
    return "g = GELU(u) \xE2\x89\x88 \xC2\xBD"
           "u (1 + tanh(\xE2\x88\x9A(2/\xCF\x80) (u + 0.044715 u\xC2\xB3)))";
  }
}

// The formulas that depend on the config (cfg NULL: GPT-2's).
static const char *config_formula(const char *id, const tt_config *cfg, bool tied) {
  if (!strcmp(id, "positions")) {
    if (cfg && cfg->positions == TT_POS_SINUSOIDAL)
      return "p[t, 2i] = sin(t / 10000^(2i/C)),  p[t, 2i+1] = cos(t / 10000^(2i/C))";
    if (cfg && cfg->positions == TT_POS_NONE) return "p = 0  (no positions: ttrace_positions = none)";
    if (cfg && cfg->positions == TT_POS_ROPE)
      return "p = 0;  in attention q\xE2\x82\x9C, k\xE2\x82\x9C rotated by t \xC2\xB7 \xCE\xB8^(\xE2\x88\x92"
             "2i/D) (RoPE)";
    if (cfg && cfg->positions == TT_POS_ALIBI)
      return "p = 0;  in attention S[i, j] \xE2\x88\x92 m\xE2\x82\x95 \xC2\xB7 |i \xE2\x88\x92 j| (ALiBi)";
    return "p\xE2\x82\x9C = W_P[t]";
  }
  if (!strncmp(id, "ln", 2)) {
    if (cfg && cfg->norm == TT_NORM_RMSNORM)
      return "y = x / \xE2\x88\x9A(mean(x\xC2\xB2) + \xCE\xB5) \xC2\xB7 \xCE\xB3";
    return "y = (x \xE2\x88\x92 \xCE\xBC) / \xE2\x88\x9A(\xCF\x83\xC2\xB2 + \xCE\xB5) \xC2\xB7 \xCE\xB3 + \xCE\xB2";
  }
  if (!strcmp(id, "scale"))
    return cfg && !cfg->scale_attn ? "S' = S  (not scaled: ttrace_scale_attn = false)"
                                   : "S' = S / \xE2\x88\x9A"
                                     "D";
  if (!strcmp(id, "gelu")) return activation_formula(cfg ? cfg->activation : TT_ACT_GELU_TANH);
  if (!strcmp(id, "swiglu"))
    return cfg && cfg->activation != TT_ACT_SILU ? "a = act(g) \xE2\x8A\x99 u  (hidden_act of the config)"
                                                 : "a = SiLU(g) \xE2\x8A\x99 u = g \xC2\xB7 \xCF\x83(g) \xE2\x8A\x99 u";
  if (!strcmp(id, "logits"))
    return tied ? "z = y \xC2\xB7 W_E\xE1\xB5\x80" : "z = y \xC2\xB7 W_U\xE1\xB5\x80  (lm_head)";
  return "";
}

const char *tt_step_formula(const tt_trace *tr, int i) {
  const step_def *d = def_at(tr, i);
  if (!d) return "";
  if (d->formula) return d->formula;
  tt_config cfg;
  return config_formula(d->s.id, config_of(tr, &cfg) ? &cfg : NULL, tt_pipeline_tied(tr));
}

void tt_step_hook(const tt_trace *tr, int i, int layer, char *buf, size_t len) {
  const step_def *d = def_at(tr, i);
  tt_hook_ref ref;
  // Steps outside the block list that show a block hook ("sum") show block 0's.
  int L = d && d->s.in_block && layer > 0 ? layer : 0;
  if (!d || !tt_hook_at(d->s.suffix, L, &ref) || !tt_hook_name(&ref, buf, len)) snprintf(buf, len, "tokens");
}

// The catalogue names the step that shows each forward hook (hooks.h); a hook with a
// step is found at that step's position in tr's order.
int tt_step_find(const tt_trace *tr, const char *hook, int *layer) {
  tt_hook_ref ref;
  if (!tt_hook_lookup(hook, &ref) || ref.grad || ref.decode >= 0) return -1;
  tt_config cfg;
  bool llama = config_of(tr, &cfg) && cfg.arch == TT_ARCH_LLAMA;
  for (int i = 0; i < N_STEPS; i++) {
    const tt_step *s = tt_step_get(tr, i);
    // GPT-2: the catalogue's step; the Llama list: the step that shows this very hook.
    bool match = llama ? s->in_block == ref.def->in_block && strcmp(s->suffix, ref.def->suffix) == 0
                       : ref.step && strcmp(s->id, ref.step) == 0;
    if (match) {
      if (layer) *layer = ref.layer;
      return i;
    }
  }
  return -1;
}

tt_status tt_resolve_hook(const tt_trace *tr, const char *step, int layer, char *buf, size_t len, tt_error *err) {
  if (tt_trace_find(tr, step)) {
    snprintf(buf, len, "%s", step);
    return TT_OK;
  }
  char full[160] = "";
  tt_hook_ref ref;
  bool block =
      tt_hook_at(step, layer < 0 ? 0 : layer, &ref) && ref.def->in_block && tt_hook_name(&ref, full, sizeof full);
  if (block && tt_trace_find(tr, full)) {
    snprintf(buf, len, "%s", full);
    return TT_OK;
  }
  return tt_fail(err, TT_ERR_ARG, "the trace has no tensor '%s'%s%s (list them with `ttrace dump TRACE`)", step,
                 block ? " nor " : "", full);
}
