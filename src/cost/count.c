// count: the FLOPs and bytes of each op of a pass, from the config alone (docs/cost.md has
// the rules). The op list follows forward.c line by line; each op is named by the hook
// its op line writes last, which is the name the engine's timing callback reports.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"

#define F32 4.0  // bytes per float

static tt_cost_op *push(tt_cost_pass *p, const char *name, const char *what, tt_cost_kind kind) {
  if (p->n == p->cap) {
    int cap = p->cap ? p->cap * 2 : 64;
    tt_cost_op *ops = realloc(p->ops, sizeof *ops * (size_t)cap);
    if (!ops) return NULL;
    p->ops = ops;
    p->cap = cap;
  }
  tt_cost_op *o = &p->ops[p->n++];
  memset(o, 0, sizeof *o);
  snprintf(o->name, sizeof o->name, "%s", name);
  o->what = what;
  o->kind = kind;
  o->seconds = -1;
  return o;
}

// batch × (M,K)·(K,N) (+ a bias of N per row): 2·batch·M·N·K FLOPs (+ M·N).
static bool matmul(tt_cost_pass *p, const char *name, const char *what, int64_t batch, int64_t M, int64_t K, int64_t N,
                   bool bias) {
  tt_cost_op *o = push(p, name, what, TT_COST_MATMUL);
  if (!o) return false;
  o->batch = batch, o->M = M, o->K = K, o->N = N;
  o->flops = 2.0 * (double)batch * (double)M * (double)N * (double)K + (bias ? (double)M * (double)N : 0);
  o->bytes_read = F32 * ((double)batch * (double)(M * K + K * N) + (bias ? (double)N : 0));
  o->bytes_written = F32 * (double)batch * (double)(M * N);
  return true;
}

// n elements at `per` FLOPs each; reads `in` floats and writes `out` floats (+ extra bytes read).
static bool elementwise(tt_cost_pass *p, const char *name, const char *what, double n, double per, double in,
                        double out, double extra_read) {
  tt_cost_op *o = push(p, name, what, per > 0 ? TT_COST_ELEMENTWISE : TT_COST_MOVE);
  if (!o) return false;
  o->flops = n * per;
  o->bytes_read = F32 * in + extra_read;
  o->bytes_written = F32 * out;
  return true;
}

// FLOPs per element of the activation (docs/cost.md).
static double activation_flops(tt_act_kind a) {
  switch (a) {
  case TT_ACT_GELU_TANH:
    return 9;  // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
  case TT_ACT_GELU_ERF:
    return 5;  // 0.5·x·(1 + erf(x/√2))
  case TT_ACT_RELU:
    return 1;  // max(0, x)
  case TT_ACT_SILU:
    return 4;  // x / (1 + exp(−x))
  case TT_ACT_IDENTITY:
    return 0;  // a copy
  }
  return 0;
}

typedef struct {
  const tt_config *cfg;
  tt_cost_pass *p;
  int64_t T, S;  // new rows; keys each row attends to at most (T for prefill, T_ctx + 1 for decode)
  int64_t C, H, D, F, V;
  bool decode;
} counter;

static bool norm(counter *c, int l, const char *which) {
  char name[96];
  if (l < 0)
    snprintf(name, sizeof name, "%s.hook_out", which);
  else
    snprintf(name, sizeof name, "blocks.%d.%s.hook_out", l, which);
  bool rms = c->cfg->norm == TT_NORM_RMSNORM;
  double n = (double)(c->T * c->C);
  // reads x and γ (and β); writes out, normalized, mean and scale
  return elementwise(c->p, name, rms ? "RMSNorm" : "LayerNorm", n, rms ? 4 : 7, n + (double)c->C * (rms ? 1 : 2),
                     2 * n + 2 * (double)c->T, 0);
}

static bool add_or_copy(counter *c, const char *name, const char *what, bool add) {
  double n = (double)(c->T * c->C);
  return elementwise(c->p, name, add ? what : "copy", n, add ? 1 : 0, add ? 2 * n : n, n, 0);
}

static bool attention(counter *c, int l) {
  char n[8][96];
  const char *suffix[8] = {"attn.hook_qkv",
                           "attn.hook_v",
                           "attn.hook_attn_scores_raw",
                           "attn.hook_attn_scores_scaled",
                           "attn.hook_attn_scores",
                           "attn.hook_pattern",
                           "attn.hook_z",
                           "hook_attn_out"};
  for (int i = 0; i < 8; i++) snprintf(n[i], sizeof n[i], "blocks.%d.%s", l, suffix[i]);
  int64_t T = c->T, S = c->S, C = c->C, H = c->H, D = c->D;
  double hts = (double)(H * T * S), tc = (double)(T * C);
  // prefill: every row of the T×T scores is computed (the mask then hides the upper half)
  return matmul(c->p, n[0], "Q/K/V projection", 1, T, C, 3 * C, true) &&
         elementwise(c->p, n[1], "split into heads", 0, 0, 3 * tc, 3 * tc, 0) &&
         matmul(c->p, n[2], c->decode ? "scores q\xC2\xB7K\xE1\xB5\x80 (cached K)" : "scores Q\xC2\xB7K\xE1\xB5\x80", H,
                T, D, S, false) &&
         elementwise(c->p, n[3], "scale", hts, 1, hts, hts, 0) &&
         elementwise(c->p, n[4], c->cfg->causal && !c->decode ? "causal mask" : "copy", hts, 0, hts, hts, 0) &&
         elementwise(c->p, n[5], "softmax", hts, 5, hts, hts, 0) &&
         matmul(c->p, n[6], c->decode ? "pattern\xC2\xB7V (cached V)" : "pattern\xC2\xB7V", H, T, S, D, false) &&
         // the heads' merge (T·C read and written, no hook) is timed with the output projection
         matmul(c->p, n[7], "output projection", 1, T, C, C, true);
}

static bool block(counter *c, int l) {
  char mid[96], post[96], pre[96], act[96], out[96];
  snprintf(mid, sizeof mid, "blocks.%d.hook_resid_mid", l);
  snprintf(post, sizeof post, "blocks.%d.hook_resid_post", l);
  snprintf(pre, sizeof pre, "blocks.%d.mlp.hook_pre", l);
  snprintf(act, sizeof act, "blocks.%d.mlp.hook_post", l);
  snprintf(out, sizeof out, "blocks.%d.hook_mlp_out", l);
  double tf = (double)(c->T * c->F);
  bool res = c->cfg->residual, ok = true;
  if (!c->cfg->post_ln) ok = norm(c, l, "ln1");
  ok = ok && attention(c, l) && add_or_copy(c, mid, "residual add", res);
  if (c->cfg->post_ln) ok = ok && norm(c, l, "ln1");
  if (!c->cfg->post_ln) ok = ok && norm(c, l, "ln2");
  ok = ok && matmul(c->p, pre, "FFN in", 1, c->T, c->C, c->F, true) &&
       elementwise(c->p, act, tt_act_name(c->cfg->activation), tf, activation_flops(c->cfg->activation), tf, tf, 0) &&
       matmul(c->p, out, "FFN out", 1, c->T, c->F, c->C, true) && add_or_copy(c, post, "residual add", res);
  if (c->cfg->post_ln) ok = ok && norm(c, l, "ln2");
  return ok;
}

static bool pass(counter *c) {
  double tc = (double)(c->T * c->C), tv = (double)(c->T * c->V);
  bool pos = c->cfg->positions != TT_POS_NONE;
  bool ok = elementwise(c->p, "hook_embed", "embedding rows", 0, 0, tc, tc, 4.0 * (double)c->T) &&
            add_or_copy(c, "blocks.0.hook_resid_pre", "+ positions", pos);
  for (int l = 0; ok && l < c->cfg->n_layer; l++) ok = block(c, l);
  ok = ok && norm(c, -1, "ln_final") && matmul(c->p, "hook_logits", "unembedding", 1, c->T, c->C, c->V, false) &&
       elementwise(c->p, "hook_probs", "softmax", tv, 5, tv, tv, 0);
  if (ok && !c->decode && c->T >= 2) {  // the loss: logsumexp of T−1 rows and the next token's logit
    double n = (double)((c->T - 1) * c->V);
    ok = elementwise(c->p, "hook_loss", "\xE2\x88\x92log p(next)", n, 3, n, (double)(c->T - 1), 4.0 * (double)c->T);
  }
  return ok;
}

static void totals(tt_cost_pass *p) {
  p->flops = p->matmul_flops = p->bytes = 0;
  for (int i = 0; i < p->n; i++) {
    p->flops += p->ops[i].flops;
    if (p->ops[i].kind == TT_COST_MATMUL) p->matmul_flops += p->ops[i].flops;
    p->bytes += p->ops[i].bytes_read + p->ops[i].bytes_written;
  }
}

static tt_status count(const tt_config *cfg, int T, int T_ctx, bool decode, tt_cost_pass *out, tt_error *err) {
  memset(out, 0, sizeof *out);
  out->seconds = out->wall_seconds = -1;
  if (T < 1 || T_ctx < 0 || T + T_ctx > cfg->n_positions)
    return tt_fail(err, TT_ERR_ARG, "%d tokens is outside the model's context of %d", T + T_ctx, cfg->n_positions);
  out->T = T;
  out->T_ctx = T_ctx;
  counter c = {
      cfg,   out, T, T + T_ctx, cfg->n_embd, cfg->n_head, cfg->n_embd / cfg->n_head, cfg->n_inner, cfg->vocab_size,
      decode};
  if (!pass(&c)) {
    tt_cost_pass_free(out);
    return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  }
  totals(out);
  return TT_OK;
}

tt_status tt_cost_prefill(const tt_config *cfg, int T, tt_cost_pass *out, tt_error *err) {
  return count(cfg, T, 0, false, out, err);
}

tt_status tt_cost_decode(const tt_config *cfg, int T_ctx, tt_cost_pass *out, tt_error *err) {
  return count(cfg, 1, T_ctx, true, out, err);
}

void tt_cost_pass_free(tt_cost_pass *p) {
  free(p->ops);
  memset(p, 0, sizeof *p);
}

int tt_cost_find(const tt_cost_pass *p, const char *name) {
  for (int i = 0; i < p->n; i++)
    if (strcmp(p->ops[i].name, name) == 0) return i;
  return -1;
}

void tt_cost_roofline(const tt_cost_pass *p, const tt_cost_machine *m, tt_cost_roof *out) {
  out->compute_seconds = m->sgemm_flops > 0 ? p->flops / m->sgemm_flops : 0;
  out->memory_seconds = m->bandwidth > 0 ? p->bytes / m->bandwidth : 0;
  out->intensity = p->bytes > 0 ? p->flops / p->bytes : 0;
  out->ridge = m->bandwidth > 0 ? m->sgemm_flops / m->bandwidth : 0;
  out->memory_bound = out->memory_seconds > out->compute_seconds;
}

// name without its "blocks.L." prefix.
static const char *suffix_of(const char *name) {
  if (strncmp(name, "blocks.", 7) != 0) return name;
  const char *dot = strchr(name + 7, '.');
  return dot ? dot + 1 : name;
}

int tt_cost_steps(const tt_cost_pass *p, tt_cost_step *steps) {
  int n = 0;
  for (int i = 0; i < p->n; i++) {
    const tt_cost_op *o = &p->ops[i];
    const char *suf = suffix_of(o->name);
    int k = 0;
    while (k < n && strcmp(steps[k].suffix, suf) != 0) k++;
    if (k == n) {
      steps[n++] = (tt_cost_step){.what = o->what, .kind = o->kind, .seconds = o->seconds < 0 ? -1 : 0};
      snprintf(steps[k].suffix, sizeof steps[k].suffix, "%s", suf);
    }
    steps[k].count++;
    steps[k].flops += o->flops;
    steps[k].bytes += o->bytes_read + o->bytes_written;
    if (o->seconds >= 0 && steps[k].seconds >= 0) steps[k].seconds += o->seconds;
  }
  return n;
}
