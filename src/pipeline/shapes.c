// shapes: the tensor shapes of each step with the trace's numbers ("(4, 768) × (768, 2304)
// → (4, 2304)").
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pipeline.h"

#define ARROW "\xE2\x86\x92"
#define TIMES "\xC3\x97"
#define LARROW "\xE2\x86\x90"

typedef struct {
  int64_t T, C, H, G, D, F, V, P, L;  // G: key/value heads, L: blocks
  char a[64], b[64], c[64];
} dims;

static const char *sh(char *buf, int n, int64_t d0, int64_t d1, int64_t d2) {
  int64_t d[3] = {d0, d1, d2};
  return tt_shape_str(d, n, buf, 64);
}

// "A × B → C" for a matrix product (T,X) × (X,Y) → (T,Y).
static void product(char *out, size_t len, dims *d, int64_t x, int64_t y) {
  snprintf(out, len, "%s " TIMES " %s " ARROW " %s", sh(d->a, 2, d->T, x, 0), sh(d->b, 2, x, y, 0),
           sh(d->c, 2, d->T, y, 0));
}

// The steps inside attention (H heads of D).
static bool attention_shapes(const char *id, dims *d, tt_lang lang, char *out, size_t len) {
  const char *htt = sh(d->c, 3, d->H, d->T, d->T);
  if (!strcmp(id, "split"))
    snprintf(out, len, "%s " ARROW " 3 " TIMES " %s,  D = %lld / %lld = %lld", sh(d->a, 2, d->T, 3 * d->C, 0),
             sh(d->b, 3, d->H, d->T, d->D), (long long)d->C, (long long)d->H, (long long)d->D);
  else if (!strcmp(id, "scores"))
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s", sh(d->a, 3, d->H, d->T, d->D), sh(d->b, 3, d->H, d->D, d->T),
             htt);
  else if (!strcmp(id, "scale"))
    snprintf(out, len, "%s \xC3\xB7 \xE2\x88\x9A%lld = %.4g " ARROW " %s", htt, (long long)d->D, sqrt((double)d->D),
             htt);
  else if (!strcmp(id, "mask"))
    snprintf(out, len, "%s " ARROW " %s", htt, htt);
  else if (!strcmp(id, "softmax"))
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_ROWS_SUM_TO_1_FMT), htt, ARROW, htt);
  else if (!strcmp(id, "weighted"))
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s", htt, sh(d->a, 3, d->H, d->T, d->D), d->a);
  else
    return false;
  return true;
}

static void position_shapes(const tt_config *cfg, dims *d, tt_lang lang, char *out, size_t len) {
  const char *tc = sh(d->b, 2, d->T, d->C, 0);
  if (cfg->positions == TT_POS_SINUSOIDAL)
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_POS_SINUSOIDAL_FMT), ARROW, tc);
  else if (!tt_config_adds_positions(cfg))  // none, or positions inside attention
    snprintf(out, len, "%s", tt_str(lang, TT_S_SHAPE_POS_NONE));
  else
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_POS_LEARNED_FMT), sh(d->a, 2, d->P, d->C, 0), (long long)d->T - 1, ARROW,
             tc);
}

// Which query heads read each key/value head: "0 <- 0-1, 1 <- 2-3" (the first three groups, then an ellipsis).
static void head_groups(const dims *d, char *out, size_t len) {
  int64_t per = d->G ? d->H / d->G : 1;
  size_t n = 0;
  out[0] = 0;
  for (int64_t g = 0; g < d->G && n < len; g++) {
    if (g == 3) {
      snprintf(out + n, len - n, ", \xE2\x80\xA6");
      break;
    }
    if (per == 1)
      n += (size_t)snprintf(out + n, len - n, "%s%lld " LARROW " %lld", g ? ", " : "", (long long)g, (long long)g);
    else
      n += (size_t)snprintf(out + n, len - n, "%s%lld " LARROW " %lld\xE2\x80\x93%lld", g ? ", " : "", (long long)g,
                            (long long)(g * per), (long long)(g * per + per - 1));
  }
}

// The Llama block's own steps and the attention steps whose K and V have G heads: separate
// projections, RoPE, grouped-query scores and sums, the SwiGLU product.
static bool llama_shapes(const char *id, dims *d, tt_lang lang, char *out, size_t len) {
  int64_t HD = d->H * d->D, GD = d->G * d->D;
  char htd[64];
  const char *htt = sh(d->c, 3, d->H, d->T, d->T);
  if (!strcmp(id, "q_proj"))
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s " ARROW " %s,  H = %lld, D = %lld", sh(d->a, 2, d->T, d->C, 0),
             sh(d->b, 2, d->C, HD, 0), sh(d->c, 2, d->T, HD, 0), sh(htd, 3, d->H, d->T, d->D), (long long)d->H,
             (long long)d->D);
  else if (!strcmp(id, "kv_proj"))
    // The KV cache of T positions in float32: 2 (K and V) · L · G · D · T · 4 bytes.
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_KV_PROJ_FMT), sh(d->c, 3, d->G, d->T, d->D),
             (long long)(8 * d->L * GD * d->T), (long long)d->G, (long long)(8 * d->L * HD * d->T), (long long)d->H);
  else if (!strcmp(id, "rope"))
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_ROPE_FMT), sh(d->a, 3, d->H, d->T, d->D), sh(d->b, 3, d->G, d->T, d->D),
             (long long)(d->D / 2), ARROW);
  else if (!strcmp(id, "scores")) {
    char groups[160];
    head_groups(d, groups, sizeof groups);
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_GQA_SCORES_FMT), sh(d->a, 3, d->H, d->T, d->D),
             sh(d->b, 3, d->G, d->D, d->T), ARROW, htt, groups);
  } else if (!strcmp(id, "weighted"))
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s", htt, sh(d->a, 3, d->G, d->T, d->D),
             sh(d->b, 3, d->H, d->T, d->D));
  else if (!strcmp(id, "o_proj"))
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s", sh(d->a, 2, d->T, HD, 0), sh(d->b, 2, HD, d->C, 0),
             sh(d->c, 2, d->T, d->C, 0));
  else if (!strcmp(id, "gate") || !strcmp(id, "up"))
    product(out, len, d, d->C, d->F);
  else if (!strcmp(id, "swiglu"))
    snprintf(out, len, "%s \xE2\x8A\x99 %s " ARROW " %s", sh(d->a, 2, d->T, d->F, 0), d->a, d->a);
  else if (!strcmp(id, "down"))
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s", sh(d->a, 2, d->T, d->F, 0), sh(d->b, 2, d->F, d->C, 0),
             sh(d->c, 2, d->T, d->C, 0));
  else
    return false;
  return true;
}

void tt_step_shapes(const tt_trace *tr, int i, tt_lang lang, char *out, size_t len) {
  out[0] = 0;
  tt_config cfg;
  const tt_step *s = tt_step_get(tr, i);
  if (!s || !tr || !tt_trace_config(tr, &cfg)) return;
  dims d = {.T = tt_trace_n_tokens(tr),
            .C = cfg.n_embd,
            .H = cfg.n_head,
            .G = tt_config_kv_heads(&cfg),
            .L = cfg.n_layer,
            .D = tt_config_head_dim(&cfg),
            .F = cfg.n_inner > 0 ? cfg.n_inner : 4 * cfg.n_embd,
            .V = cfg.vocab_size,
            .P = cfg.n_positions};
  // (T, C) in a buffer of its own: the attention shapes below write into d.a, d.b and d.c.
  char tc_buf[64];
  const char *id = s->id, *tc = sh(tc_buf, 2, d.T, d.C, 0);
  if (cfg.arch == TT_ARCH_LLAMA && llama_shapes(id, &d, lang, out, len)) return;
  if (attention_shapes(id, &d, lang, out, len)) return;
  if (!strcmp(id, "tokenize"))
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_TOKENIZE_FMT), ARROW, sh(d.a, 1, d.T, 0, 0));
  else if (!strcmp(id, "ids"))
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_IDS_FMT), sh(d.a, 1, d.T, 0, 0), (long long)d.V);
  else if (!strcmp(id, "embed"))
    snprintf(out, len, "W_E %s, ids %s " ARROW " %s", sh(d.a, 2, d.V, d.C, 0), sh(d.b, 1, d.T, 0, 0), tc);
  else if (!strcmp(id, "positions"))
    position_shapes(&cfg, &d, lang, out, len);
  else if (!strcmp(id, "sum") || !strcmp(id, "resid1") || !strcmp(id, "resid2"))
    snprintf(out, len, "%s + %s " ARROW " %s", tc, tc, tc);
  else if (!strncmp(id, "ln", 2) && cfg.norm == TT_NORM_RMSNORM)
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_RMSNORM_FMT), tc, ARROW, tc, sh(d.a, 1, d.T, 0, 0));
  else if (!strncmp(id, "ln", 2))
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_NORM_FMT), tc, ARROW, tc, sh(d.a, 1, d.T, 0, 0));
  else if (!strcmp(id, "qkv"))
    product(out, len, &d, d.C, 3 * d.C);
  else if (!strcmp(id, "proj"))
    product(out, len, &d, d.C, d.C);
  else if (!strcmp(id, "ffn_up"))
    product(out, len, &d, d.C, d.F);
  else if (!strcmp(id, "gelu")) {
    const char *tf = sh(d.a, 2, d.T, d.F, 0);
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_ELEMENTWISE_FMT), tf, ARROW, tf);
  } else if (!strcmp(id, "ffn_down")) {
    snprintf(out, len, "%s " TIMES " %s " ARROW " %s", sh(d.a, 2, d.T, d.F, 0), sh(d.b, 2, d.F, d.C, 0), tc);
  } else if (!strcmp(id, "logits"))
    product(out, len, &d, d.C, d.V);
  else if (!strcmp(id, "probs")) {
    const char *tv = sh(d.a, 2, d.T, d.V, 0);
    snprintf(out, len, tt_str(lang, TT_S_SHAPE_ROWS_SUM_TO_1_FMT), tv, ARROW, tv);
  }
}
