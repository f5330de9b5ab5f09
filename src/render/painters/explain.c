// explain: the arithmetic behind a pinned cell of every step but the attention scores and
// weights (inspect.c does those): the embedding row and the position row, every matrix
// product (Σ x·W + b with its largest terms, positive and negative), the mix of value
// vectors, the residual sums, LayerNorm, the activation, softmax and the loss. Each number
// is recomputed here from the trace and the model's weights and shown beside the recorded
// one; each line says what it is (data-tt) so tests/numbers can recompute it with numpy.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

typedef struct {
  int k;
  double x, w, prod;
} term;

static int by_product_desc(const void *a, const void *b) {
  double x = ((const term *)a)->prod, y = ((const term *)b)->prod;
  return (x < y) - (x > y);
}

static float at(const tt_tensor *t, int64_t i) {
  return tt_tensor_at(t, i);
}

static void recorded(tt_insp_writer *w, double v) {
  tt_paint *p = w->p;
  tt_insp_put(w, "pin_recorded", TT_FONT_SANS, p->pal->dim, "      %s %s", tt_str(p->st->lang, TT_S_PIN_RECORDED),
              tt_insp_num(w, "%+.6g", v));
}

// The largest `n` terms of one sign (terms sorted by product, largest first), as lines.
static int sign_lines(tt_insp_writer *w, const term *terms, int K, int n, bool positive, const char *xname) {
  tt_paint *p = w->p;
  int shown = 0;
  char note[48];
  for (int m = 0; m < K && shown < n; m++) {
    const term *t = &terms[positive ? m : K - 1 - m];
    if (positive ? t->prod <= 0 : t->prod >= 0) break;
    snprintf(note, sizeof note, "pin_mm_term k=%d", t->k);
    tt_insp_put(w, note, TT_FONT_MONO, positive ? p->pal->fg : p->pal->dim, " %s%-4d %s \xC3\x97 %s = %s", xname, t->k,
                tt_insp_num(w, "%.4f", t->x), tt_insp_num(w, "%.4f", t->w), tt_insp_num(w, "%+.4f", t->prod));
    shown++;
  }
  return shown;
}

// Σₖ x[k]·W[k] + b: the counts and sums of positive and negative terms, the largest of
// each sign, the rest summed, the bias and the total beside the recorded value. x and wcol
// hold K numbers; b is added when has_b.
static void matmul_lines(tt_insp_writer *w, const double *x, const double *wcol, int K, double b, bool has_b,
                         double rec, const char *xname) {
  tt_paint *p = w->p;
  const tt_palette *pal = p->pal;
  tt_lang lang = p->st->lang;
  term *terms = malloc(sizeof(term) * (size_t)K);
  if (!terms) return;
  double total = 0, pos = 0, neg = 0;
  int n_pos = 0, n_neg = 0;
  for (int k = 0; k < K; k++) {
    terms[k] = (term){k, x[k], wcol[k], x[k] * wcol[k]};
    total += terms[k].prod;
    if (terms[k].prod > 0) pos += terms[k].prod, n_pos++;
    if (terms[k].prod < 0) neg += terms[k].prod, n_neg++;
  }
  qsort(terms, (size_t)K, sizeof(term), by_product_desc);
  tt_insp_put(w, "pin_mm_counts", TT_FONT_SANS, pal->fg, tt_str(lang, TT_S_PIN_TERMS_FMT), K);
  tt_insp_put(w, "pin_mm_pos", TT_FONT_MONO, pal->fg, tt_str(lang, TT_S_PIN_POS_FMT), n_pos,
              tt_insp_num(w, "%+.4f", pos));
  tt_insp_put(w, "pin_mm_neg", TT_FONT_MONO, pal->fg, tt_str(lang, TT_S_PIN_NEG_FMT), n_neg,
              tt_insp_num(w, "%+.4f", neg));
  int room = tt_insp_room(w) - 9;
  int each = room / 2 > 5 ? 5 : room / 2 < 1 ? 1 : room / 2;
  tt_insp_put(w, "", TT_FONT_BOLD, pal->fg, "%s", tt_str(lang, TT_S_PIN_LARGEST_POS));
  double shown_sum = 0;
  int a = sign_lines(w, terms, K, each, true, xname);
  tt_insp_put(w, "", TT_FONT_BOLD, pal->fg, "%s", tt_str(lang, TT_S_PIN_LARGEST_NEG));
  int c = sign_lines(w, terms, K, each, false, xname);
  for (int m = 0; m < a; m++) shown_sum += terms[m].prod;
  for (int m = 0; m < c; m++) shown_sum += terms[K - 1 - m].prod;
  char note[48];
  snprintf(note, sizeof note, "pin_mm_rest shown=%d", a + c);
  tt_insp_put(w, note, TT_FONT_MONO, pal->dim, tt_str(lang, TT_S_PIN_OTHERS_FMT), K - a - c,
              tt_insp_num(w, "%+.4f", total - shown_sum));
  if (has_b) tt_insp_put(w, "pin_mm_bias", TT_FONT_MONO, pal->fg, " + b = %s", tt_insp_num(w, "%+.4f", b));
  tt_insp_put(w, "pin_mm_sum", TT_FONT_BOLD, pal->accent, "= %s", tt_insp_num(w, "%+.6g", total + b));
  recorded(w, rec);
  free(terms);
}

// A product whose input is row i of tensor `in` (T, K) and whose weight column j is
// W[k * ws + j * js] (+ bias[j] when bias is not NULL).
static void row_times_weights(tt_insp_writer *w, const tt_tensor *in, int i, const float *W, int64_t ws, int64_t js,
                              const float *bias, int j, double rec, const char *xname) {
  int K = (int)in->shape[in->ndim - 1];
  double *buf = malloc(sizeof(double) * 2 * (size_t)K);
  if (!buf) return;
  for (int k = 0; k < K; k++) {
    buf[k] = at(in, (int64_t)i * K + k);
    buf[K + k] = W[(int64_t)k * ws + (int64_t)j * js];
  }
  matmul_lines(w, buf, buf + K, K, bias ? bias[j] : 0, bias != NULL, rec, xname);
  free(buf);
}

static bool no_weights(tt_insp_writer *w) {
  if (w->p->ex->model) return false;
  tt_insp_put(w, "", TT_FONT_SANS, w->p->pal->warn, "%s", tt_str(w->p->st->lang, TT_S_PIN_NO_WEIGHTS));
  return true;
}

// hook_attn_out[i, j] = Σ_(h,d) z[h, i, d]·W_O[h·D + d, j] + b_O[j].
static void attn_out_lines(tt_insp_writer *w, int L, int i, int j, double rec) {
  const tt_tensor *z = tt_find_hook(w->p->tr, L, "attn.hook_z");
  if (!z || z->ndim != 3 || no_weights(w)) return;
  const tt_layer_weights *lw = &w->p->ex->model->layers[L];
  int H = (int)z->shape[0], T = (int)z->shape[1], D = (int)z->shape[2], K = H * D;
  bool llama = lw->o_w != NULL;  // nn.Linear (C, H·D), else Conv1D (C, C)
  int C = llama ? (int)(w->p->ex->model->cfg.n_embd) : K;
  double *buf = malloc(sizeof(double) * 2 * (size_t)K);
  if (!buf) return;
  for (int h = 0; h < H; h++)
    for (int d = 0; d < D; d++) {
      int k = h * D + d;
      buf[k] = at(z, ((int64_t)h * T + i) * D + d);
      buf[K + k] = llama ? lw->o_w[(int64_t)j * K + k] : lw->attn_proj_w[(int64_t)k * C + j];
    }
  const float *b = llama ? lw->o_b : lw->attn_proj_b;
  matmul_lines(w, buf, buf + K, K, b ? b[j] : 0, b != NULL, rec, "z");
  free(buf);
}

// z[h, i, d] = Σⱼ A[h, i, j]·v[h, j, d]: each token's share, largest first.
static void mix_lines(tt_insp_writer *w, int L, int h, int i, int d, double rec) {
  tt_paint *p = w->p;
  const tt_tensor *A = tt_find_hook(p->tr, L, "attn.hook_pattern"), *v = tt_find_hook(p->tr, L, "attn.hook_v");
  if (!A || !v || A->ndim != 3 || v->ndim != 3) return;
  int T = (int)A->shape[1], D = (int)v->shape[2];
  term *terms = malloc(sizeof(term) * (size_t)T);
  if (!terms) return;
  double total = 0;
  for (int j = 0; j < T; j++) {
    double a = at(A, ((int64_t)h * T + i) * T + j), x = at(v, ((int64_t)h * T + j) * D + d);
    terms[j] = (term){j, a, x, a * x};
    total += a * x;
  }
  qsort(terms, (size_t)T, sizeof(term), by_product_desc);
  tt_insp_put(w, "", TT_FONT_BOLD, p->pal->fg, "%s", tt_str(p->st->lang, TT_S_PIN_SHARES));
  int room = tt_insp_room(w) - 3, shown = 0;
  char note[48], lab[96];
  // Largest |share| first: walk both ends of the sorted list.
  for (int lo = 0, hi = T - 1; lo <= hi && shown < room; shown++) {
    const term *t = fabs(terms[lo].prod) >= fabs(terms[hi].prod) ? &terms[lo++] : &terms[hi--];
    snprintf(note, sizeof note, "pin_mix_term j=%d", t->k);
    tt_axis_label(p->tr, p->ex, 'T', t->k, lab, sizeof lab);
    tt_insp_put(w, note, TT_FONT_MONO, p->pal->fg, " %s  %s \xC3\x97 %s = %s", lab, tt_insp_num(w, "%.4f", t->x),
                tt_insp_num(w, "%.4f", t->w), tt_insp_num(w, "%+.4f", t->prod));
  }
  snprintf(note, sizeof note, "pin_mix_rest shown=%d", shown);
  if (shown < T)
    tt_insp_put(w, note, TT_FONT_MONO, p->pal->dim, tt_str(p->st->lang, TT_S_PIN_OTHERS_FMT), T - shown, "");
  tt_insp_put(w, "pin_mix_sum", TT_FONT_BOLD, p->pal->accent, "= %s", tt_insp_num(w, "%+.6g", total));
  recorded(w, rec);
  free(terms);
}

// a + b = sum for one cell of two (T, C) tensors named an and bn.
static void sum_lines(tt_insp_writer *w, const tt_tensor *a, const char *an, const tt_tensor *b, const char *bn,
                      int64_t flat, double rec) {
  const tt_palette *pal = w->p->pal;
  if (!a || !b) return;
  double x = at(a, flat), y = at(b, flat);
  tt_insp_put(w, "pin_sum_a", TT_FONT_MONO, pal->fg, " %s = %s", an, tt_insp_num(w, "%+.6g", x));
  tt_insp_put(w, "pin_sum_b", TT_FONT_MONO, pal->fg, " %s = %s", bn, tt_insp_num(w, "%+.6g", y));
  tt_insp_put(w, "pin_sum_total", TT_FONT_BOLD, pal->accent, "%s + %s = %s", an, bn, tt_insp_num(w, "%+.6g", x + y));
  recorded(w, rec);
}

// The embedding of token t, column c: its id, W_E[id, c], the position row and the sum.
static void embed_lines(tt_insp_writer *w, int t, int c, double rec) {
  tt_paint *p = w->p;
  const tt_trace *tr = p->tr;
  int32_t id = tt_trace_token_id(tr, t);
  char lab[96];
  tt_axis_label(tr, p->ex, 'T', t, lab, sizeof lab);
  tt_insp_put(w, "pin_embed_id", TT_FONT_MONO, p->pal->fg, " %s \xE2\x86\x92 id %d", lab, (int)id);
  const tt_tensor *e = tt_trace_find(tr, "hook_embed"), *pos = tt_trace_find(tr, "hook_pos_embed");
  if (!e) return;
  int C = (int)e->shape[1];
  double x = p->ex->wte && id >= 0 && id < p->ex->vocab ? p->ex->wte[(int64_t)id * C + c] : at(e, (int64_t)t * C + c);
  tt_insp_put(w, "pin_embed_row", TT_FONT_MONO, p->pal->fg, " W_E[%d, %d] = %s", (int)id, c,
              tt_insp_num(w, "%+.6g", x));
  if (pos) {
    double y = at(pos, (int64_t)t * C + c);
    tt_insp_put(w, "pin_embed_pos", TT_FONT_MONO, p->pal->fg, " p[%d, %d] = %s", t, c, tt_insp_num(w, "%+.6g", y));
    tt_insp_put(w, "pin_embed_sum", TT_FONT_BOLD, p->pal->accent, "x + p = %s", tt_insp_num(w, "%+.6g", x + y));
  }
  recorded(w, rec);
}

// The norm's input: what the engine normalised (pre-LN: the stream; post-LN: the sums).
static const tt_tensor *norm_input(const tt_trace *tr, const tt_config *cfg, const char *prefix, int L, int *L_in,
                                   const char **name) {
  *L_in = L;
  if (strcmp(prefix, "ln_final") == 0) {
    *L_in = cfg->n_layer - 1;
    *name = "hook_resid_post";
  } else if (!cfg->post_ln) {
    *name = strcmp(prefix, "ln1") == 0 ? "hook_resid_pre" : "hook_resid_mid";
  } else {
    *name = strcmp(prefix, "ln1") == 0 ? "hook_resid_mid" : "hook_resid_post";
  }
  return tt_find_hook(tr, *L_in, *name);
}

// (x − μ)/σ·γ + β for row t, column c of a norm `prefix` ("ln1", "ln2", "ln_final").
static void norm_lines(tt_insp_writer *w, const char *prefix, int L, int t, int c, double rec) {
  tt_paint *p = w->p;
  tt_config cfg;
  if (!tt_trace_config(p->tr, &cfg)) return;
  int L_in;
  const char *in_name;
  const tt_tensor *x = norm_input(p->tr, &cfg, prefix, L, &L_in, &in_name);
  if (!x || no_weights(w)) return;
  int C = (int)x->shape[1];
  bool rms = cfg.norm == TT_NORM_RMSNORM;
  double mu = 0, ss = 0;
  for (int k = 0; k < C; k++) mu += at(x, (int64_t)t * C + k);
  mu = rms ? 0 : mu / C;
  for (int k = 0; k < C; k++) {
    double d = at(x, (int64_t)t * C + k) - mu;
    ss += d * d;
  }
  double sigma = sqrt(ss / C + (double)(float)cfg.ln_eps), xv = at(x, (int64_t)t * C + c);
  const tt_model *m = p->ex->model;
  bool fin = strcmp(prefix, "ln_final") == 0;
  const float *g = fin ? m->lnf_w : strcmp(prefix, "ln1") == 0 ? m->layers[L].ln1_w : m->layers[L].ln2_w;
  const float *b = fin ? m->lnf_b : strcmp(prefix, "ln1") == 0 ? m->layers[L].ln1_b : m->layers[L].ln2_b;
  double n = (xv - mu) / sigma, gb = b ? b[c] : 0;
  tt_lang lang = p->st->lang;
  tt_insp_put(w, "", TT_FONT_SANS, p->pal->dim, " x: %s", in_name);
  tt_insp_put(w, "pin_ln_x", TT_FONT_MONO, p->pal->fg, " x = %s", tt_insp_num(w, "%+.6g", xv));
  if (!rms)
    tt_insp_put(w, "pin_ln_mu", TT_FONT_MONO, p->pal->fg, " \xCE\xBC = %s = %s", tt_str(lang, TT_S_PIN_ROW_MEAN),
                tt_insp_num(w, "%+.6g", mu));
  tt_insp_put(w, "pin_ln_sigma", TT_FONT_MONO, p->pal->fg, " \xCF\x83 = %s = %s", tt_str(lang, TT_S_PIN_ROW_SD),
              tt_insp_num(w, "%.5f", sigma));
  tt_insp_put(w, "pin_ln_norm", TT_FONT_MONO, p->pal->fg, " (x \xE2\x88\x92 \xCE\xBC) / \xCF\x83 = %s",
              tt_insp_num(w, "%+.6g", n));
  tt_insp_put(w, "pin_ln_affine", TT_FONT_MONO, p->pal->fg, " \xC2\xB7 \xCE\xB3 %s + \xCE\xB2 %s",
              tt_insp_num(w, "%+.6g", g[c]), tt_insp_num(w, "%+.6g", gb));
  tt_insp_put(w, "pin_ln_out", TT_FONT_BOLD, p->pal->accent, "= %s", tt_insp_num(w, "%+.6g", n * g[c] + gb));
  recorded(w, rec);
}

// A small plot of the activation over [−4, 4] with the point (u, act(u)) on it.
static void curve(tt_insp_writer *w, tt_act_kind a, double u) {
  tt_paint *p = w->p;
  int h = w->px * 6, x0 = w->r.x + w->px / 2, wd = w->r.w - w->px;
  if (w->y + h > w->r.y + w->r.h || wd < w->px * 4) return;
  int y0 = w->y;
  double lo = -4, hi = 4, ylo = -1, yhi = 4;
  p->cv->fill(p->cv, x0, y0 + (int)(h * yhi / (yhi - ylo)), wd, 1, p->pal->dim);  // y = 0
  p->cv->fill(p->cv, x0 + wd / 2, y0, 1, h, p->pal->dim);                         // x = 0
  int px = -1, py = -1;
  for (int s = 0; s <= 64; s++) {
    double x = lo + (hi - lo) * s / 64, y = tt_activation(a, x);
    int X = x0 + (int)((x - lo) / (hi - lo) * wd), Y = y0 + (int)((yhi - fmin(fmax(y, ylo), yhi)) / (yhi - ylo) * h);
    if (s) p->cv->line(p->cv, px, py, X, Y, p->pal->accent);
    px = X, py = Y;
  }
  double uc = fmin(fmax(u, lo), hi), yc = fmin(fmax(tt_activation(a, u), ylo), yhi);
  int X = x0 + (int)((uc - lo) / (hi - lo) * wd), Y = y0 + (int)((yhi - yc) / (yhi - ylo) * h);
  p->cv->fill(p->cv, X - w->px / 4, Y - w->px / 4, w->px / 2, w->px / 2, p->pal->highlight);
  w->y += h + w->px / 2;
}

// g = act(u) for one FFN neuron, with u and the point on the curve.
static void activation_lines(tt_insp_writer *w, int L, int t, int f, double rec) {
  tt_paint *p = w->p;
  const tt_tensor *pre = tt_find_hook(p->tr, L, "mlp.hook_pre");
  tt_config cfg;
  if (!pre || !tt_trace_config(p->tr, &cfg)) return;
  double u = at(pre, (int64_t)t * pre->shape[1] + f);
  tt_insp_put(w, "pin_act_u", TT_FONT_MONO, p->pal->fg, " u = %s", tt_insp_num(w, "%+.6g", u));
  tt_insp_put(w, "pin_act", TT_FONT_BOLD, p->pal->accent, "%s(u) = %s", tt_act_name(cfg.activation),
              tt_insp_num(w, "%+.6g", tt_activation(cfg.activation, u)));
  recorded(w, rec);
  tt_insp_put(w, "", TT_FONT_SANS, p->pal->dim, "%s", tt_str(p->st->lang, TT_S_PIN_ON_CURVE));
  curve(w, cfg.activation, u);
}

// p[t, v] = exp(z_v − max) / Σ exp(z − max) over the logits row t.
static void softmax_lines(tt_insp_writer *w, int t, int v, double rec) {
  const tt_tensor *z = tt_trace_find(w->p->tr, "hook_logits");
  if (!z) return;
  int64_t V = z->shape[1];
  double mx = -INFINITY, sum = 0;
  for (int64_t k = 0; k < V; k++) mx = fmax(mx, at(z, t * V + k));
  for (int64_t k = 0; k < V; k++) sum += exp(at(z, t * V + k) - mx);
  double zv = at(z, t * V + v), e = exp(zv - mx);
  const tt_palette *pal = w->p->pal;
  tt_insp_put(w, "pin_sm_z", TT_FONT_MONO, pal->fg, " z = %s   max = %s", tt_insp_num(w, "%+.4f", zv),
              tt_insp_num(w, "%+.4f", mx));
  tt_insp_put(w, "pin_sm_exp", TT_FONT_MONO, pal->fg, " exp(z \xE2\x88\x92 max) = %s", tt_insp_num(w, "%.6g", e));
  tt_insp_put(w, "pin_sm_sum", TT_FONT_MONO, pal->fg, " \xCE\xA3 exp = %s   (V = %d)", tt_insp_num(w, "%.6g", sum),
              (int)V);
  tt_insp_put(w, "pin_sm_p", TT_FONT_BOLD, pal->accent, "p = %s", tt_insp_num(w, "%.6g", e / sum));
  recorded(w, rec);
}

// loss[t] = −log p[t, id of token t + 1].
static void loss_lines(tt_insp_writer *w, int t, double rec) {
  tt_paint *p = w->p;
  const tt_tensor *pr = tt_trace_find(p->tr, "hook_probs");
  if (!pr || t + 1 >= tt_trace_n_tokens(p->tr)) return;
  int32_t id = tt_trace_token_id(p->tr, t + 1);
  double pv = at(pr, (int64_t)t * pr->shape[1] + id);
  char lab[96];
  tt_axis_label(p->tr, p->ex, 'T', t + 1, lab, sizeof lab);
  tt_insp_put(w, "pin_loss_target", TT_FONT_MONO, p->pal->fg, " %s: %s \xE2\x86\x92 id %d",
              tt_str(p->st->lang, TT_S_PIN_NEXT_TOKEN), lab, (int)id);
  tt_insp_put(w, "pin_loss_p", TT_FONT_MONO, p->pal->fg, " p[%d, %d] = %s", t, (int)id, tt_insp_num(w, "%.6g", pv));
  tt_insp_put(w, "pin_loss", TT_FONT_BOLD, p->pal->accent, "\xE2\x88\x92log p = %s", tt_insp_num(w, "%.5f", -log(pv)));
  recorded(w, rec);
}

// The fused Q/K/V column of q, k or v (which 0, 1, 2) for head h, dimension d.
static void qkv_lines(tt_insp_writer *w, int L, int which, int h, int t, int d, double rec) {
  const tt_tensor *in = NULL;
  tt_config cfg;
  if (!tt_trace_config(w->p->tr, &cfg) || no_weights(w)) return;
  in = cfg.post_ln ? tt_find_hook(w->p->tr, L, "hook_resid_pre") : tt_find_hook(w->p->tr, L, "ln1.hook_out");
  if (!in) return;
  const tt_layer_weights *lw = &w->p->ex->model->layers[L];
  int C = cfg.n_embd, D = tt_config_head_dim(&cfg);
  if (cfg.arch == TT_ARCH_LLAMA) {  // separate nn.Linear projections (H·D or G·D, C): head h's rows
    const float *W[3] = {lw->q_w, lw->k_w, lw->v_w}, *b[3] = {lw->q_b, lw->k_b, lw->v_b};
    row_times_weights(w, in, t, W[which], 1, C, b[which], h * D + d, rec, "y");
    return;
  }
  row_times_weights(w, in, t, lw->attn_w, 3 * C, 1, lw->attn_b, which * C + h * D + d, rec, "y");
}

// The FFN's products: in (u = y·W₁ + b₁) and out (m = g·W₂ + b₂); for Llama the gate
// (hook_pre), the up projection (hook_pre_linear) and the down projection.
typedef enum { FFN_IN, FFN_UP, FFN_OUT } ffn_product;
static void ffn_lines(tt_insp_writer *w, int L, ffn_product which, int t, int j, double rec) {
  tt_config cfg;
  if (!tt_trace_config(w->p->tr, &cfg) || no_weights(w)) return;
  const tt_layer_weights *lw = &w->p->ex->model->layers[L];
  bool in_side = which != FFN_OUT;
  const char *in_name = in_side ? (cfg.post_ln ? "ln1.hook_out" : "ln2.hook_out") : "mlp.hook_post";
  const tt_tensor *in = tt_find_hook(w->p->tr, L, in_name);
  if (!in) return;
  int F = cfg.n_inner, C = cfg.n_embd;
  if (cfg.arch == TT_ARCH_LLAMA) {  // nn.Linear (out, in)
    const float *W = which == FFN_IN ? lw->gate_w : which == FFN_UP ? lw->up_w : lw->down_w;
    const float *b = which == FFN_IN ? lw->gate_b : which == FFN_UP ? lw->up_b : lw->down_b;
    row_times_weights(w, in, t, W, 1, in_side ? C : F, b, j, rec, in_side ? "y" : "a");
  } else if (in_side) {
    row_times_weights(w, in, t, lw->fc_w, F, 1, lw->fc_b, j, rec, "y");
  } else {
    row_times_weights(w, in, t, lw->fc_proj_w, C, 1, lw->fc_proj_b, j, rec, "g");
  }
}

// q′ or k′ after RoPE (rotate-half): the pair (x[i], x[i + D/2]) of the unrotated row turned
// by the angle p·θᵢ, θᵢ = θ^(−2i/D), p the token's rotary position.
static void rope_lines(tt_insp_writer *w, int L, bool is_q, int h, int t, int d, double rec) {
  tt_paint *p = w->p;
  tt_config cfg;
  const tt_tensor *x = tt_find_hook(p->tr, L, is_q ? "attn.hook_q" : "attn.hook_k");
  if (!x || x->ndim != 3 || !tt_trace_config(p->tr, &cfg)) return;
  int T = (int)x->shape[1], D = (int)x->shape[2], half = D / 2, i = d % half, pos = t + cfg.rope_offset;
  const char *xn = is_q ? "q" : "k";
  double a = at(x, ((int64_t)h * T + t) * D + i), b = at(x, ((int64_t)h * T + t) * D + i + half);
  double theta_i = pow(cfg.rope_theta, -2.0 * i / D), ang = pos * theta_i, c = cos(ang), s = sin(ang);
  tt_insp_put(w, "pin_rope_pair", TT_FONT_MONO, p->pal->fg, " %s[%d] = %s   %s[%d] = %s", xn, i,
              tt_insp_num(w, "%+.6g", a), xn, i + half, tt_insp_num(w, "%+.6g", b));
  tt_insp_put(w, "pin_rope_theta", TT_FONT_MONO, p->pal->fg, " \xCE\xB8_%d = %g^(\xE2\x88\x92%d/%d) = %s", i,
              cfg.rope_theta, 2 * i, D, tt_insp_num(w, "%.6g", theta_i));
  tt_insp_put(w, "pin_rope_angle", TT_FONT_MONO, p->pal->fg, " %d \xC2\xB7 \xCE\xB8_%d = %s rad", pos, i,
              tt_insp_num(w, "%.6g", ang));
  if (d < half)
    tt_insp_put(w, "pin_rope_out", TT_FONT_BOLD, p->pal->accent,
                "%s[%d]\xC2\xB7"
                "cos \xE2\x88\x92 %s[%d]\xC2\xB7sin = %s",
                xn, i, xn, i + half, tt_insp_num(w, "%+.6g", a * c - b * s));
  else
    tt_insp_put(w, "pin_rope_out", TT_FONT_BOLD, p->pal->accent,
                "%s[%d]\xC2\xB7"
                "cos + %s[%d]\xC2\xB7sin = %s",
                xn, i + half, xn, i, tt_insp_num(w, "%+.6g", b * c + a * s));
  recorded(w, rec);
}

// a = act(g)·u for one SwiGLU neuron: the gate g (hook_pre) on its curve, times the up
// projection u (hook_pre_linear).
static void glu_lines(tt_insp_writer *w, int L, int t, int f, double rec) {
  tt_paint *p = w->p;
  const tt_tensor *gate = tt_find_hook(p->tr, L, "mlp.hook_pre"), *up = tt_find_hook(p->tr, L, "mlp.hook_pre_linear");
  tt_config cfg;
  if (!gate || !up || !tt_trace_config(p->tr, &cfg)) return;
  double g = at(gate, (int64_t)t * gate->shape[1] + f), u = at(up, (int64_t)t * up->shape[1] + f);
  double s = tt_activation(cfg.activation, g);
  tt_insp_put(w, "pin_glu_g", TT_FONT_MONO, p->pal->fg, " g = %s", tt_insp_num(w, "%+.6g", g));
  tt_insp_put(w, "pin_glu_act", TT_FONT_MONO, p->pal->fg, " %s(g) = %s", tt_act_name(cfg.activation),
              tt_insp_num(w, "%+.6g", s));
  tt_insp_put(w, "pin_glu_up", TT_FONT_MONO, p->pal->fg, " u = %s", tt_insp_num(w, "%+.6g", u));
  tt_insp_put(w, "pin_glu_out", TT_FONT_BOLD, p->pal->accent, "%s(g) \xC2\xB7 u = %s", tt_act_name(cfg.activation),
              tt_insp_num(w, "%+.6g", s * u));
  recorded(w, rec);
  tt_insp_put(w, "", TT_FONT_SANS, p->pal->dim, "%s", tt_str(p->st->lang, TT_S_PIN_ON_CURVE));
  curve(w, cfg.activation, g);
}

static bool block_cell(tt_insp_writer *w, const char *sfx, int L, int head, int i, int j, double rec) {
  const tt_trace *tr = w->p->tr;
  tt_config cfg;
  if (!tt_trace_config(tr, &cfg)) return false;
  int64_t flat = (int64_t)i * cfg.n_embd + j;
  const char *qkv[3] = {"attn.hook_q", "attn.hook_k", "attn.hook_v"};
  for (int q = 0; q < 3; q++)
    if (strcmp(sfx, qkv[q]) == 0) return qkv_lines(w, L, q, head, i, j, rec), true;
  if (strcmp(sfx, "attn.hook_qkv") == 0) {
    int C = cfg.n_embd, D = tt_config_head_dim(&cfg);
    return qkv_lines(w, L, j / C, (j % C) / D, i, j % D, rec), true;
  }
  if (strcmp(sfx, "attn.hook_z") == 0) return mix_lines(w, L, head, i, j, rec), true;
  if (strcmp(sfx, "hook_attn_out") == 0) return attn_out_lines(w, L, i, j, rec), true;
  if (strcmp(sfx, "attn.hook_rot_q") == 0 || strcmp(sfx, "attn.hook_rot_k") == 0)
    return rope_lines(w, L, sfx[strlen(sfx) - 1] == 'q', head, i, j, rec), true;
  if (strcmp(sfx, "mlp.hook_pre") == 0) return ffn_lines(w, L, FFN_IN, i, j, rec), true;
  if (strcmp(sfx, "mlp.hook_pre_linear") == 0) return ffn_lines(w, L, FFN_UP, i, j, rec), true;
  if (strcmp(sfx, "hook_mlp_out") == 0) return ffn_lines(w, L, FFN_OUT, i, j, rec), true;
  if (strcmp(sfx, "mlp.hook_post") == 0 && tt_find_hook(tr, L, "mlp.hook_pre_linear"))
    return glu_lines(w, L, i, j, rec), true;
  if (strcmp(sfx, "mlp.hook_post") == 0) return activation_lines(w, L, i, j, rec), true;
  if (strcmp(sfx, "ln1.hook_out") == 0 || strcmp(sfx, "ln2.hook_out") == 0) {
    char prefix[8];
    snprintf(prefix, sizeof prefix, "%.3s", sfx);
    return norm_lines(w, prefix, L, i, j, rec), true;
  }
  if (strcmp(sfx, "hook_resid_pre") == 0 && L == 0) return embed_lines(w, i, j, rec), true;
  bool mid = strcmp(sfx, "hook_resid_mid") == 0, post = strcmp(sfx, "hook_resid_post") == 0;
  if (!mid && !post) return false;
  const tt_tensor *a = tt_find_hook(tr, L, mid ? "hook_resid_pre" : cfg.post_ln ? "ln1.hook_out" : "hook_resid_mid");
  const tt_tensor *b = tt_find_hook(tr, L, mid ? "hook_attn_out" : "hook_mlp_out");
  if (cfg.residual) return sum_lines(w, a, mid ? "h" : "h'", b, mid ? "o" : "m", flat, rec), true;
  if (!b) return false;
  // residual = false: the sum is the sublayer's output alone
  tt_insp_put(w, "pin_sum_b", TT_FONT_MONO, w->p->pal->fg, " %s = %s", mid ? "o" : "m",
              tt_insp_num(w, "%+.6g", at(b, flat)));
  recorded(w, rec);
  return true;
}

bool tt_explain_cell(tt_insp_writer *w, const char *hook, int head, int i, int j) {
  tt_paint *p = w->p;
  const tt_tensor *t = tt_trace_find(p->tr, hook);
  if (!t) return false;
  int L = tt_hook_block(hook);
  const char *sfx = tt_hook_suffix(hook);
  int64_t flat = t->ndim == 3   ? ((int64_t)head * t->shape[1] + i) * t->shape[2] + j
                 : t->ndim == 2 ? (int64_t)i * t->shape[1] + j
                                : i;
  double rec = at(t, flat);
  tt_note_scope(p->cv, "panel=inspector hook=%s layer=%d head=%d r=%d c=%d", hook, L, head, i, j);
  // A decode step's rows are at positions the row index does not give: no rotation shown there.
  if (strncmp(hook, "decode.", 7) == 0 && strstr(sfx, "hook_rot_")) return false;
  if (L >= 0) return block_cell(w, sfx, L, head, i, j, rec);
  if (strcmp(sfx, "hook_embed") == 0 || strcmp(sfx, "hook_pos_embed") == 0) return embed_lines(w, i, j, rec), true;
  if (strcmp(sfx, "ln_final.hook_out") == 0) return norm_lines(w, "ln_final", 0, i, j, rec), true;
  if (strcmp(sfx, "hook_probs") == 0) return softmax_lines(w, i, j, rec), true;
  if (strcmp(sfx, "hook_loss") == 0) return loss_lines(w, i, rec), true;
  if (strcmp(sfx, "hook_logits") == 0) {
    if (no_weights(w)) return true;
    const tt_tensor *in = tt_trace_find(p->tr, "ln_final.hook_out");
    if (!in) return false;
    int C = (int)in->shape[1];
    row_times_weights(w, in, i, p->ex->model->lm_head, 1, C, NULL, j, rec, "y");
    return true;
  }
  return false;
}
