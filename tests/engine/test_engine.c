// The engine on small hand-made random models: every recorded step is checked against
// naive double-precision math applied to the step's own recorded inputs; the hooks come
// in the catalogue's order; partial recording, no recording and a device-style backend
// (no wrapping: upload + download) give the same numbers, and so does a trace that keeps
// what it can as exact rules (src/trace/derived.c), read back; bad input is refused.
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "engine/engine.h"
#include "trace/hooks.h"
#include "trace/trace.h"

// ---- random model ------------------------------------------------------------------------------
static uint64_t rng = 0x2545f4914f6cdd1dull;
static float frand(float lo, float hi) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return lo + (hi - lo) * (float)((rng >> 11) * (1.0 / 9007199254740992.0));
}
static float *rvec(size_t n, float lo, float hi) {
  float *v = malloc(n * sizeof *v);
  for (size_t i = 0; i < n; i++) v[i] = frand(lo, hi);
  return v;
}

typedef struct {
  tt_model m;
  float *blocks[64];  // every allocation, to free
  int n_blocks;
} test_model;

static const float *keep(test_model *tm, float *p) {
  tm->blocks[tm->n_blocks++] = p;
  return p;
}

static test_model *make_model(const tt_config *cfg, bool tied) {
  test_model *tm = calloc(1, sizeof *tm);
  tm->m.cfg = *cfg;
  int C = cfg->n_embd, F = cfg->n_inner, V = cfg->vocab_size, P = cfg->n_positions;
  tm->m.wte = keep(tm, rvec((size_t)V * C, -0.5f, 0.5f));
  tm->m.wpe = keep(tm, rvec((size_t)P * C, -0.3f, 0.3f));
  tm->m.lnf_w = keep(tm, rvec(C, 0.7f, 1.3f));
  tm->m.lnf_b = keep(tm, rvec(C, -0.2f, 0.2f));
  tm->m.lm_head = tied ? tm->m.wte : keep(tm, rvec((size_t)V * C, -0.5f, 0.5f));
  tm->m.layers = calloc(cfg->n_layer, sizeof *tm->m.layers);
  float ws = 1.0f / sqrtf((float)C);
  for (int l = 0; l < cfg->n_layer; l++) {
    tt_layer_weights *w = &tm->m.layers[l];
    w->ln1_w = keep(tm, rvec(C, 0.7f, 1.3f));
    w->ln1_b = keep(tm, rvec(C, -0.2f, 0.2f));
    w->attn_w = keep(tm, rvec((size_t)C * 3 * C, -2 * ws, 2 * ws));
    w->attn_b = keep(tm, rvec(3 * C, -0.1f, 0.1f));
    w->attn_proj_w = keep(tm, rvec((size_t)C * C, -ws, ws));
    w->attn_proj_b = keep(tm, rvec(C, -0.1f, 0.1f));
    w->ln2_w = keep(tm, rvec(C, 0.7f, 1.3f));
    w->ln2_b = keep(tm, rvec(C, -0.2f, 0.2f));
    w->fc_w = keep(tm, rvec((size_t)C * F, -ws, ws));
    w->fc_b = keep(tm, rvec(F, -0.1f, 0.1f));
    w->fc_proj_w = keep(tm, rvec((size_t)F * C, -ws, ws));
    w->fc_proj_b = keep(tm, rvec(C, -0.1f, 0.1f));
  }
  return tm;
}

static void free_model(test_model *tm) {
  for (int i = 0; i < tm->n_blocks; i++) free(tm->blocks[i]);
  free(tm->m.layers);
  free(tm);
}

static tt_config small_config(void) {
  tt_config c;
  tt_config_default(&c);
  c.n_layer = 2, c.n_head = 3, c.n_embd = 15, c.n_inner = 22, c.vocab_size = 41, c.n_positions = 9;
  return c;
}

// ---- a recorder that keeps copies -----------------------------------------------------------
typedef struct {
  char name[64];
  tt_dtype dtype;
  int ndim;
  int64_t shape[TT_MAX_DIMS];
  size_t n;
  void *data;
} rec_tensor;

typedef struct {
  rec_tensor t[512];
  int n;
  int offered;
  int keep_every;    // keep one hook in keep_every (1: all); 0 keeps none
  const char *only;  // when set, keep only this hook
} rec_store;

static void *reserve(void *ctx, const char *name, tt_dtype dtype, int ndim, const int64_t *shape) {
  rec_store *s = ctx;
  int k = s->offered++;
  if (s->only ? strcmp(s->only, name) != 0 : (s->keep_every == 0 || k % s->keep_every != 0)) return NULL;
  rec_tensor *t = &s->t[s->n++];
  snprintf(t->name, sizeof t->name, "%s", name);
  t->dtype = dtype;
  t->ndim = ndim;
  t->n = 1;
  for (int i = 0; i < ndim; i++) t->shape[i] = shape[i], t->n *= (size_t)shape[i];
  t->data = malloc(t->n * 4 + 4);
  memset(t->data, 0xff, t->n * 4 + 4);  // NaN pattern: a step that writes nothing shows up
  return t->data;
}

static void store_free(rec_store *s) {
  for (int i = 0; i < s->n; i++) free(s->t[i].data);
  free(s);
}

static const float *get(const rec_store *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const float *get(const rec_store *s, const char *fmt, ...) {
  char name[96];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(name, sizeof name, fmt, ap);
  va_end(ap);
  for (int i = 0; i < s->n; i++)
    if (strcmp(s->t[i].name, name) == 0) return s->t[i].data;
  fail_msg("hook %s was not recorded", name);
  return NULL;
}

static rec_store *run(const tt_model *m, tt_backend *be, const int32_t *ids, int T, int keep_every) {
  rec_store *s = calloc(1, sizeof *s);
  s->keep_every = keep_every;
  tt_engine *eng;
  tt_error err = {0};
  assert_int_equal(tt_engine_create(m, be, 8, &eng, &err), TT_OK);
  tt_recorder rec = {.reserve = reserve, .ctx = s};
  tt_status st = tt_engine_run(eng, ids, T, &rec, &err);
  if (st != TT_OK) fail_msg("run: %s", err.msg);
  tt_engine_destroy(eng);
  return s;
}

// ---- naive math ---------------------------------------------------------------------------
static void expect_close(const float *got, const double *want, size_t n, double tol, const char *what, int layer) {
  double scale = 1.0;
  for (size_t i = 0; i < n; i++)
    if (isfinite(want[i]) && fabs(want[i]) > scale) scale = fabs(want[i]);
  for (size_t i = 0; i < n; i++) {
    if (isinf(want[i])) {
      if (got[i] != (float)want[i]) fail_msg("L%d %s[%zu]: got %g, want %g", layer, what, i, got[i], want[i]);
      continue;
    }
    if (!(fabs(got[i] - want[i]) <= tol * scale))
      fail_msg("L%d %s[%zu]: got %.8g, want %.8g", layer, what, i, got[i], want[i]);
  }
}

// want (M,N) = a (M,K) · b (K,N) + bias (or b (N,K) transposed).
static double *mm(const float *a, const float *b, const float *bias, int M, int K, int N, bool trans_b) {
  double *o = malloc((size_t)M * N * sizeof *o);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double s = bias ? bias[j] : 0.0;
      for (int k = 0; k < K; k++) s += (double)a[i * K + k] * (trans_b ? b[j * K + k] : b[(size_t)k * N + j]);
      o[(size_t)i * N + j] = s;
    }
  return o;
}

static void check_norm(const rec_store *s, const char *prefix, const float *x, const float *g, const float *b,
                       const tt_config *c, int T, int layer) {
  int C = c->n_embd;
  bool rms = c->norm == TT_NORM_RMSNORM;
  double *m = malloc(T * sizeof *m), *sc = malloc(T * sizeof *sc), *nr = malloc((size_t)T * C * sizeof *nr),
         *o = malloc((size_t)T * C * sizeof *o);
  for (int t = 0; t < T; t++) {
    double mean = 0, var = 0;
    for (int i = 0; i < C && !rms; i++) mean += x[t * C + i] / (double)C;
    for (int i = 0; i < C; i++) var += (x[t * C + i] - mean) * (x[t * C + i] - mean) / C;
    m[t] = mean, sc[t] = sqrt(var + c->ln_eps);
    for (int i = 0; i < C; i++) {
      nr[t * C + i] = (x[t * C + i] - mean) / sc[t];
      o[t * C + i] = nr[t * C + i] * g[i] + (rms ? 0 : b[i]);
    }
  }
  char p[64];
  const char *pre = layer >= 0 ? "blocks." : "";
  if (layer >= 0)
    snprintf(p, sizeof p, "%s%d.%s", pre, layer, prefix);
  else
    snprintf(p, sizeof p, "%s", prefix);
  expect_close(get(s, "%s.hook_mean", p), m, T, 1e-5, "mean", layer);
  expect_close(get(s, "%s.hook_scale", p), sc, T, 1e-5, "scale", layer);
  expect_close(get(s, "%s.hook_normalized", p), nr, (size_t)T * C, 1e-5, "normalized", layer);
  expect_close(get(s, "%s.hook_out", p), o, (size_t)T * C, 1e-5, "norm out", layer);
  free(m), free(sc), free(nr), free(o);
}

static double act(double x, tt_act_kind a) {
  switch (a) {
  case TT_ACT_GELU_TANH:
    return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case TT_ACT_GELU_ERF:
    return 0.5 * x * (1 + erf(x / sqrt(2)));
  case TT_ACT_RELU:
    return x > 0 ? x : 0;
  case TT_ACT_SILU:
    return x / (1 + exp(-x));
  default:
    return x;
  }
}

static void check_add(const float *got, const float *a, const float *b, size_t n, bool residual, const char *what,
                      int layer) {
  double *w = malloc(n * sizeof *w);
  for (size_t i = 0; i < n; i++) w[i] = (residual ? a[i] : 0.0) + b[i];
  expect_close(got, w, n, 1e-6, what, layer);
  free(w);
}

static void check_softmax_rows(const float *got, const float *x, int rows, int cols, const char *what, int layer) {
  double *w = malloc((size_t)rows * cols * sizeof *w);
  for (int r = 0; r < rows; r++) {
    double mx = -INFINITY, sum = 0;
    for (int j = 0; j < cols; j++) mx = fmax(mx, x[(size_t)r * cols + j]);
    for (int j = 0; j < cols; j++) sum += exp(x[(size_t)r * cols + j] - mx);
    for (int j = 0; j < cols; j++) w[(size_t)r * cols + j] = exp(x[(size_t)r * cols + j] - mx) / sum;
  }
  expect_close(got, w, (size_t)rows * cols, 1e-6, what, layer);
  free(w);
}

// Checks every step of a full recording of ids (T) through m.
static void check_steps(const rec_store *s, const tt_model *m, const int32_t *ids, int T) {
  const tt_config *c = &m->cfg;
  int C = c->n_embd, H = c->n_head, D = C / H, F = c->n_inner, V = c->vocab_size;
  size_t TC = (size_t)T * C;
  const int32_t *tok = (const int32_t *)(const void *)get(s, "tokens");
  for (int t = 0; t < T; t++) assert_int_equal(tok[t], ids[t]);

  double *w = malloc((size_t)T * (V > 3 * C ? V : 3 * C) * H * sizeof *w + TC * 8 * sizeof *w);
  const float *emb = get(s, "hook_embed");
  for (int t = 0; t < T; t++)
    for (int i = 0; i < C; i++) w[t * C + i] = m->wte[ids[t] * C + i];
  expect_close(emb, w, TC, 0, "embed", -1);
  const float *pos = NULL;
  if (c->positions != TT_POS_NONE) {
    pos = get(s, "hook_pos_embed");
    for (int t = 0; t < T; t++)
      for (int i = 0; i < C; i++)
        w[t * C + i] = c->positions == TT_POS_LEARNED ? m->wpe[t * C + i]
                       : (i % 2 == 0)                 ? sin(t / pow(10000.0, (double)i / C))
                                                      : cos(t / pow(10000.0, (double)(i - 1) / C));
    expect_close(pos, w, TC, 1e-6, "pos_embed", -1);
  }
  for (size_t i = 0; i < TC; i++) w[i] = emb[i] + (pos ? pos[i] : 0.0);
  expect_close(get(s, "blocks.0.hook_resid_pre"), w, TC, 1e-6, "resid_pre", 0);

  const float *x = NULL;
  for (int l = 0; l < c->n_layer; l++) {
    const tt_layer_weights *lw = &m->layers[l];
    const float *pre = get(s, "blocks.%d.hook_resid_pre", l);
    if (x) {
      for (size_t i = 0; i < TC; i++) w[i] = x[i];
      expect_close(pre, w, TC, 0, "resid_pre = previous block's output", l);
    }
    const float *attn_in = pre;
    if (!c->post_ln) {
      check_norm(s, "ln1", pre, lw->ln1_w, lw->ln1_b, c, T, l);
      attn_in = get(s, "blocks.%d.ln1.hook_out", l);
    }
    double *qkv = mm(attn_in, lw->attn_w, lw->attn_b, T, C, 3 * C, false);
    const float *gqkv = get(s, "blocks.%d.attn.hook_qkv", l);
    expect_close(gqkv, qkv, (size_t)T * 3 * C, 1e-5, "qkv", l);
    free(qkv);
    const float *q = get(s, "blocks.%d.attn.hook_q", l), *k = get(s, "blocks.%d.attn.hook_k", l),
                *v = get(s, "blocks.%d.attn.hook_v", l);
    for (int part = 0; part < 3; part++) {
      for (int h = 0; h < H; h++)
        for (int t = 0; t < T; t++)
          for (int d = 0; d < D; d++) w[(h * T + t) * D + d] = gqkv[t * 3 * C + part * C + h * D + d];
      expect_close(part == 0 ? q : part == 1 ? k : v, w, TC, 0, "split", l);
    }
    const float *raw = get(s, "blocks.%d.attn.hook_attn_scores_raw", l);
    for (int h = 0; h < H; h++)
      for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++) {
          double acc = 0;
          for (int d = 0; d < D; d++) acc += (double)q[(h * T + i) * D + d] * k[(h * T + j) * D + d];
          w[(h * T + i) * T + j] = acc;
        }
    size_t HTT = (size_t)H * T * T;
    expect_close(raw, w, HTT, 1e-5, "scores_raw", l);
    const float *scaled = get(s, "blocks.%d.attn.hook_attn_scores_scaled", l);
    for (size_t i = 0; i < HTT; i++)
      w[i] = raw[i] * (c->scale_attn ? 1.0 / sqrt(D) : 1.0) / (c->scale_attn_by_layer ? l + 1.0 : 1.0);
    expect_close(scaled, w, HTT, 1e-6, "scores_scaled", l);
    const float *masked = get(s, "blocks.%d.attn.hook_attn_scores", l);
    for (int h = 0; h < H; h++)
      for (int i = 0; i < T; i++)
        for (int j = 0; j < T; j++)
          w[(h * T + i) * T + j] = (c->causal && j > i) ? -INFINITY : scaled[(h * T + i) * T + j];
    expect_close(masked, w, HTT, 0, "scores (masked)", l);
    const float *pattern = get(s, "blocks.%d.attn.hook_pattern", l);
    check_softmax_rows(pattern, masked, H * T, T, "pattern", l);
    const float *z = get(s, "blocks.%d.attn.hook_z", l);
    for (int h = 0; h < H; h++)
      for (int i = 0; i < T; i++)
        for (int d = 0; d < D; d++) {
          double acc = 0;
          for (int j = 0; j < T; j++) acc += (double)pattern[(h * T + i) * T + j] * v[(h * T + j) * D + d];
          w[(h * T + i) * D + d] = acc;
        }
    expect_close(z, w, TC, 1e-6, "z", l);
    float *merged = malloc(TC * sizeof *merged);
    for (int t = 0; t < T; t++)
      for (int i = 0; i < C; i++) merged[t * C + i] = z[((i / D) * T + t) * D + i % D];
    double *ao = mm(merged, lw->attn_proj_w, lw->attn_proj_b, T, C, C, false);
    const float *attn_out = get(s, "blocks.%d.hook_attn_out", l);
    expect_close(attn_out, ao, TC, 1e-5, "attn_out", l);
    free(ao), free(merged);
    const float *mid = get(s, "blocks.%d.hook_resid_mid", l);
    check_add(mid, pre, attn_out, TC, c->residual, "resid_mid", l);
    const float *mlp_in;
    if (!c->post_ln) {
      check_norm(s, "ln2", mid, lw->ln2_w, lw->ln2_b, c, T, l);
      mlp_in = get(s, "blocks.%d.ln2.hook_out", l);
    } else {
      check_norm(s, "ln1", mid, lw->ln1_w, lw->ln1_b, c, T, l);
      mlp_in = get(s, "blocks.%d.ln1.hook_out", l);
    }
    double *hp = mm(mlp_in, lw->fc_w, lw->fc_b, T, C, F, false);
    const float *gpre = get(s, "blocks.%d.mlp.hook_pre", l);
    expect_close(gpre, hp, (size_t)T * F, 1e-5, "mlp pre", l);
    for (size_t i = 0; i < (size_t)T * F; i++) hp[i] = act(gpre[i], c->activation);
    const float *gpost = get(s, "blocks.%d.mlp.hook_post", l);
    expect_close(gpost, hp, (size_t)T * F, 1e-6, "mlp post", l);
    free(hp);
    double *mo = mm(gpost, lw->fc_proj_w, lw->fc_proj_b, T, F, C, false);
    const float *mlp_out = get(s, "blocks.%d.hook_mlp_out", l);
    expect_close(mlp_out, mo, TC, 1e-5, "mlp_out", l);
    free(mo);
    const float *post = get(s, "blocks.%d.hook_resid_post", l);
    check_add(post, c->post_ln ? mlp_in : mid, mlp_out, TC, c->residual, "resid_post", l);
    if (c->post_ln) {
      check_norm(s, "ln2", post, lw->ln2_w, lw->ln2_b, c, T, l);
      x = get(s, "blocks.%d.ln2.hook_out", l);
    } else {
      x = post;
    }
  }
  check_norm(s, "ln_final", x, m->lnf_w, m->lnf_b, c, T, -1);
  double *lg = mm(get(s, "ln_final.hook_out"), m->lm_head, NULL, T, C, V, true);
  const float *logits = get(s, "hook_logits");
  expect_close(logits, lg, (size_t)T * V, 1e-5, "logits", -1);
  free(lg);
  check_softmax_rows(get(s, "hook_probs"), logits, T, V, "probs", -1);
  if (T > 1) {
    for (int t = 0; t + 1 < T; t++) {
      double mx = -INFINITY, sum = 0;
      for (int j = 0; j < V; j++) mx = fmax(mx, logits[t * V + j]);
      for (int j = 0; j < V; j++) sum += exp(logits[t * V + j] - mx);
      w[t] = mx + log(sum) - logits[t * V + ids[t + 1]];
    }
    expect_close(get(s, "hook_loss"), w, T - 1, 1e-5, "loss", -1);
  }
  free(w);
}

// ---- hook order against the catalogue -------------------------------------------------------
typedef struct {
  const rec_store *s;
  int i, T;
  const tt_config *cfg;
} order_ctx;

static void order_fn(void *ctx, const tt_hook *h) {
  order_ctx *o = ctx;
  if (strcmp(h->name, "hook_loss") == 0 && o->T == 1) return;  // no next token, no loss
  if (o->i >= o->s->n) fail_msg("hook %s (catalogue) was not recorded", h->name);
  const rec_tensor *t = &o->s->t[o->i++];
  if (strcmp(t->name, h->name) != 0)
    fail_msg("hook %d: engine recorded %s, catalogue says %s", o->i - 1, t->name, h->name);
  int64_t shape[TT_MAX_DIMS];
  int nd = tt_hook_shape(h->axes, o->cfg, o->T, shape);
  assert_int_equal(nd, t->ndim);
  for (int i = 0; i < nd; i++) assert_int_equal(shape[i], t->shape[i]);
  assert_int_equal(h->dtype, t->dtype);
}

static void check_order(const rec_store *s, const tt_config *cfg, int T) {
  order_ctx o = {s, 0, T, cfg};
  tt_hooks_each(cfg, order_fn, &o);
  assert_int_equal(o.i, s->n);
  for (int i = 0; i < s->n; i++) {
    const float *d = s->t[i].data;
    if (s->t[i].dtype != TT_F32) continue;
    for (size_t j = 0; j < s->t[i].n; j++)
      if (isnan(d[j])) fail_msg("%s[%zu] was never written", s->t[i].name, j);
  }
}

// ---- tests ---------------------------------------------------------------------------------
static tt_backend *openblas(void) {
  tt_backend *be;
  tt_error err = {0};
  assert_int_equal(tt_backend_create("openblas", &be, NULL, 0, &err), TT_OK);
  return be;
}

static void check_variant(tt_config c, bool tied, int T) {
  test_model *tm = make_model(&c, tied);
  tt_backend *be = openblas();
  int32_t ids[8] = {3, 40, 0, 17, 17, 29, 8, 1};
  rec_store *s = run(&tm->m, be, ids, T, 1);
  check_order(s, &c, T);
  check_steps(s, &tm->m, ids, T);
  store_free(s);
  tt_backend_destroy(be);
  free_model(tm);
}

static void test_gpt2(void **state) {
  (void)state;
  tt_config c = small_config();
  check_variant(c, true, 7);
  check_variant(c, false, 8);
  check_variant(c, true, 1);
  check_variant(c, true, 2);
}

static void test_variants(void **state) {
  (void)state;
  tt_config base = small_config(), c;
  c = base, c.positions = TT_POS_SINUSOIDAL, check_variant(c, true, 6);
  c = base, c.positions = TT_POS_NONE, check_variant(c, true, 6);
  c = base, c.post_ln = true, check_variant(c, true, 6);
  c = base, c.post_ln = true, c.residual = false, check_variant(c, false, 5);
  c = base, c.norm = TT_NORM_RMSNORM, check_variant(c, true, 6);
  c = base, c.scale_attn = false, check_variant(c, true, 6);
  c = base, c.scale_attn_by_layer = true, c.n_layer = 3, check_variant(c, true, 6);
  c = base, c.scale_attn_by_layer = true, c.scale_attn = false, c.reorder_upcast = true, check_variant(c, false, 5);
  c = base, c.causal = false, check_variant(c, true, 6);
  c = base, c.residual = false, check_variant(c, true, 6);
  const tt_act_kind acts[] = {TT_ACT_GELU_ERF, TT_ACT_RELU, TT_ACT_SILU, TT_ACT_IDENTITY};
  for (int i = 0; i < 4; i++) c = base, c.activation = acts[i], check_variant(c, true, 4);
  c = base, c.n_head = 5, c.n_embd = 20, c.n_inner = 7, c.n_layer = 3, check_variant(c, false, 8);
}

// Partial, single-hook and device-style runs give the bits of a full zero-copy run.
static void compare_stores(const rec_store *full, const rec_store *part) {
  for (int i = 0; i < part->n; i++) {
    const rec_tensor *p = &part->t[i];
    int j = 0;
    while (j < full->n && strcmp(full->t[j].name, p->name) != 0) j++;
    assert_true(j < full->n);
    assert_int_equal(p->n, full->t[j].n);
    const float *a = p->data, *b = full->t[j].data;
    for (size_t k = 0; k < p->n; k++)
      if (memcmp(&a[k], &b[k], sizeof *a) != 0)
        fail_msg("%s[%zu]: %.9g here, %.9g in the full run", p->name, k, a[k], b[k]);
  }
}

// A trace of the same run (it keeps the norms, the residual stream, the heads, the scores,
// the pattern, the activation and the probabilities as rules): every tensor, read, has the
// bits of the full run, where nothing is a rule.
static void compare_trace(const rec_store *full, tt_engine *eng, const int32_t *ids, int T) {
  tt_trace *tr = tt_trace_create();
  tt_recorder rec = tt_trace_recorder(tr);
  tt_error err = {0};
  assert_int_equal(tt_engine_run(eng, ids, T, &rec, &err), TT_OK);
  assert_true(tt_trace_held_bytes(tr) < tt_trace_bytes(tr));  // rules held nothing yet
  assert_int_equal(tt_trace_count(tr), full->n);
  for (size_t i = tt_trace_count(tr); i-- > 0;) {  // last first: each rule made down its chain
    const tt_tensor *t = tt_trace_get(tr, i);
    const rec_tensor *want = &full->t[i];
    assert_string_equal(t->name, want->name);
    assert_int_equal(tt_tensor_numel(t), want->n);
    const float *a = t->data, *b = want->data;
    for (size_t k = 0; k < want->n; k++)
      if (memcmp(&a[k], &b[k], sizeof *a) != 0)
        fail_msg("%s[%zu]: %.9g in the trace, %.9g in the full run", t->name, k, a[k], b[k]);
  }
  tt_trace_destroy(tr);
}

static void check_paths(tt_config c) {
  test_model *tm = make_model(&c, false);
  tt_backend *be = openblas();
  int32_t ids[8] = {5, 4, 3, 2, 1, 0, 40, 39};
  const int T = 8;
  rec_store *full = run(&tm->m, be, ids, T, 1);
  for (int every = 2; every <= 5; every++) {
    rec_store *part = run(&tm->m, be, ids, T, every);
    assert_true(part->n > 0);
    compare_stores(full, part);
    store_free(part);
  }
  const char *singles[] = {"hook_logits", "hook_loss", "blocks.1.hook_resid_post", "blocks.0.attn.hook_pattern"};
  for (int i = 0; i < 4; i++) {
    rec_store *one = calloc(1, sizeof *one);
    one->only = singles[i];
    tt_engine *eng;
    tt_error err = {0};
    assert_int_equal(tt_engine_create(&tm->m, be, T, &eng, &err), TT_OK);
    tt_recorder rec = {.reserve = reserve, .ctx = one};
    assert_int_equal(tt_engine_run(eng, ids, T, NULL, &err), TT_OK);  // nothing recorded
    assert_int_equal(tt_engine_run(eng, ids, T, &rec, &err), TT_OK);  // the same engine again
    assert_int_equal(one->n, 1);
    compare_stores(full, one);
    if (i == 0) compare_trace(full, eng, ids, T);
    tt_engine_destroy(eng);
    store_free(one);
  }
  // A backend that cannot wrap host memory: weights are uploaded, results downloaded.
  be->wrap = NULL;
  be->host_memory = false;
  rec_store *dev = run(&tm->m, be, ids, T, 1);
  assert_int_equal(dev->n, full->n);
  compare_stores(full, dev);
  store_free(dev);
  rec_store *dev_part = run(&tm->m, be, ids, T, 3);
  compare_stores(full, dev_part);
  store_free(dev_part);
  store_free(full);
  tt_backend_destroy(be);
  free_model(tm);
}

static void test_recording_paths(void **state) {
  (void)state;
  tt_config c = small_config();
  check_paths(c);
  c.post_ln = true;
  check_paths(c);
  c = small_config();
  c.positions = TT_POS_SINUSOIDAL;
  c.residual = false;
  check_paths(c);
  c = small_config();
  c.norm = TT_NORM_RMSNORM;
  c.n_layer = 3;
  check_paths(c);
}

// Longer than one block of the causal attention (TT_ATTN_BLOCK_ROWS = 64 query rows): a
// run that records nothing (the attention in one op per block, the scores of the blocks
// above the diagonal never made) gives the logits of one that records everything (op by
// op, every score made), bit for bit (the last row, tt_engine_last_logits); so do runs
// that record only z or the logits.
static void test_recording_paths_long(void **state) {
  (void)state;
  tt_config c = small_config();
  c.n_positions = 140;
  test_model *tm = make_model(&c, false);
  tt_backend *be = openblas();
  int32_t ids[140];
  for (int t = 0; t < 140; t++) ids[t] = (int32_t)((t * 7 + 3) % c.vocab_size);
  const int Ts[] = {64, 65, 140};
  for (int i = 0; i < 3; i++) {
    tt_engine *eng;
    tt_error err = {0};
    assert_int_equal(tt_engine_create(&tm->m, be, 140, &eng, &err), TT_OK);
    rec_store *full = calloc(1, sizeof *full), *z = calloc(1, sizeof *z), *logits = calloc(1, sizeof *logits);
    full->keep_every = 1, z->only = "blocks.1.attn.hook_z", logits->only = "hook_logits";
    rec_store *stores[] = {full, z, logits};
    for (int k = 0; k < 3; k++) {
      tt_recorder rec = {.reserve = reserve, .ctx = stores[k]};
      assert_int_equal(tt_engine_run(eng, ids, Ts[i], &rec, &err), TT_OK);
    }
    assert_int_equal(z->n, 1);
    assert_int_equal(logits->n, 1);
    size_t nl = (size_t)c.vocab_size;  // the last row
    float *none = malloc(nl * sizeof *none);
    assert_int_equal(tt_engine_run(eng, ids, Ts[i], NULL, &err), TT_OK);
    assert_int_equal(tt_engine_last_logits(eng, none, &err), TT_OK);
    const float *want = get(full, "hook_logits") + (size_t)(Ts[i] - 1) * nl;
    for (size_t k = 0; k < nl; k++)
      if (memcmp(&none[k], &want[k], sizeof *none) != 0)
        fail_msg("T=%d: logits[%zu] %.9g recording nothing, %.9g recording everything", Ts[i], k, none[k], want[k]);
    free(none);
    compare_stores(full, z);
    compare_stores(full, logits);
    store_free(full), store_free(z), store_free(logits);
    tt_engine_destroy(eng);
  }
  tt_backend_destroy(be);
  free_model(tm);
}

static void test_bad_input(void **state) {
  (void)state;
  tt_config c = small_config();
  test_model *tm = make_model(&c, true);
  tt_backend *be = openblas();
  tt_engine *eng;
  tt_error err = {0};
  assert_int_equal(tt_engine_create(&tm->m, be, 4, &eng, &err), TT_OK);
  int32_t ids[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
  assert_int_equal(tt_engine_run(eng, ids, 0, NULL, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "empty"));
  assert_int_equal(tt_engine_run(eng, ids, 5, NULL, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "5 tokens"));
  int32_t bad[3] = {1, 41, 2};
  assert_int_equal(tt_engine_run(eng, bad, 3, NULL, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "41"));
  bad[1] = -1;
  assert_int_equal(tt_engine_run(eng, bad, 3, NULL, &err), TT_ERR_ARG);
  tt_engine_destroy(eng);
  // max_T beyond n_positions (9): the run is limited by the positions.
  assert_int_equal(tt_engine_create(&tm->m, be, 100, &eng, &err), TT_OK);
  assert_int_equal(tt_engine_run(eng, ids, 9, NULL, &err), TT_OK);
  assert_int_equal(tt_engine_run(eng, ids, 10, NULL, &err), TT_ERR_ARG);
  assert_non_null(strstr(err.msg, "n_positions"));
  tt_engine_destroy(eng);
  assert_int_equal(tt_engine_create(&tm->m, be, 0, &eng, &err), TT_ERR_ARG);
  tm->m.cfg.n_head = 4;  // 15 is not a multiple of 4
  assert_int_equal(tt_engine_create(&tm->m, be, 4, &eng, &err), TT_ERR_ARG);
  tt_backend_destroy(be);
  free_model(tm);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gpt2),
      cmocka_unit_test(test_variants),
      cmocka_unit_test(test_recording_paths),
      cmocka_unit_test(test_recording_paths_long),
      cmocka_unit_test(test_bad_input),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
