// inspect_grad: the pinned cell's arithmetic for gradients where it is short, recomputed
// from the trace's forward tensors: the logits' gradient (p − 1 at the true next token, p
// elsewhere, ÷ (T − 1)), softmax's Jacobian-vector product for one row of the attention
// scores (dS_ij = A_ij (dA_ij − Σ_k A_ik dA_ik)) and the pattern's gradient dz_i · v_j.
// The lines are handed to the inspector, which draws them (inspect.c).
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "render_int.h"

typedef struct {
  tt_pin_line *out;
  int n, max;
} lines;

static void add(lines *ls, const char *note, tt_pin_style style, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(lines *ls, const char *note, tt_pin_style style, const char *fmt, ...) {
  if (ls->n >= ls->max) return;
  tt_pin_line *l = &ls->out[ls->n++];
  snprintf(l->note, sizeof l->note, "%s", note);
  l->style = style;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(l->text, sizeof l->text, fmt, ap);
  va_end(ap);
}

static const char *fmt(double v, char (*buf)[40], int k) {
  return tt_fmt_num(v, "%.6g", buf[k], sizeof buf[k]);
}

static void recorded(lines *ls, tt_lang lang, float v) {
  char b[1][40];
  add(ls, "pin_g_recorded", TT_PIN_DIM, "      %s %s", tt_str(lang, TT_S_PIN_RECORDED), fmt(v, b, 0));
}

// grad.hook_logits[t, v] = (softmax(z_t)[v] − [v = id_{t+1}]) / (T − 1), 0 on the last row.
static void logits_lines(const tt_trace *tr, tt_lang lang, const tt_tensor *g, int t, int v, lines *ls) {
  const tt_tensor *z = tt_trace_find(tr, "hook_logits");
  int T = (int)g->shape[0], V = (int)g->shape[1];
  float got = tt_tensor_at(g, (int64_t)t * V + v);
  add(ls, "formula", TT_PIN_DIM, "%s", tt_str(lang, TT_S_PING_LOSS));
  if (t == T - 1) {
    add(ls, "pin_g_last", TT_PIN_STEP, "%s", tt_str(lang, TT_S_PING_LAST));
    recorded(ls, lang, got);
    return;
  }
  if (!z || z->ndim != 2 || z->shape[1] != V) {
    add(ls, "", TT_PIN_WARN, "hook_logits: %s", tt_str(lang, TT_S_NOT_RECORDED));
    return;
  }
  double mx = -INFINITY, sum = 0;
  for (int k = 0; k < V; k++) mx = fmax(mx, (double)tt_tensor_at(z, (int64_t)t * V + k));
  for (int k = 0; k < V; k++) sum += exp((double)tt_tensor_at(z, (int64_t)t * V + k) - mx);
  double p = exp((double)tt_tensor_at(z, (int64_t)t * V + v) - mx) / sum;
  int next = tt_trace_token_id(tr, t + 1);
  char b[3][40], tok[96];
  tt_token_label(tr, t + 1, tok, sizeof tok);  // a piece of a character with the character
  add(ls, "pin_g_p", TT_PIN_STEP, tt_str(lang, TT_S_PING_P_FMT), fmt(p, b, 0));
  bool is = next == v;
  add(ls, is ? "pin_g_next is=1" : "pin_g_next is=0", TT_PIN_STEP,
      tt_str(lang, is ? TT_S_PING_NEXT_FMT : TT_S_PING_OTHER_FMT), tok, next);
  double d = p - (is ? 1.0 : 0.0);
  add(ls, "pin_g_minus", TT_PIN_MONO, "     %s \xE2\x88\x92 %d = %s", fmt(p, b, 0), is ? 1 : 0, fmt(d, b, 1));
  add(ls, "pin_g_div", TT_PIN_STEP, tt_str(lang, TT_S_PING_DIV_FMT), T - 1);
  add(ls, "pin_g_result", TT_PIN_RESULT, "     %s / %d = %s", fmt(d, b, 0), T - 1, fmt(d / (T - 1), b, 1));
  recorded(ls, lang, got);
}

static float at3(const tt_tensor *t, int h, int i, int j) {
  return tt_tensor_at(t, ((int64_t)h * t->shape[1] + i) * t->shape[2] + j);
}

// grad.attn.hook_attn_scores[h, i, j] (and _scaled, equal where visible, 0 where masked):
// softmax's Jacobian-vector product for row i from the pattern A and its gradient dA.
static void softmax_lines(const tt_trace *tr, tt_lang lang, const tt_tensor *g, int L, int h, int i, int j, lines *ls) {
  const tt_tensor *A = tt_find_hook(tr, L, "attn.hook_pattern");
  char name[96];
  snprintf(name, sizeof name, "grad.blocks.%d.attn.hook_pattern", L);
  const tt_tensor *dA = tt_trace_find(tr, name);
  add(ls, "formula", TT_PIN_DIM, "%s", tt_str(lang, TT_S_PING_JVP));
  if (!A || !dA || A->ndim != 3) {
    add(ls, "", TT_PIN_WARN, "%s: %s", A ? name : "attn.hook_pattern", tt_str(lang, TT_S_NOT_RECORDED));
    return;
  }
  int T = (int)A->shape[2];
  double row = 0;
  for (int k = 0; k < T; k++) row += (double)at3(A, h, i, k) * (double)at3(dA, h, i, k);
  double a = at3(A, h, i, j), da = at3(dA, h, i, j);
  char b[4][40];
  add(ls, "pin_g_a", TT_PIN_STEP, "1.  A[%d, %d] = %s   dA[%d, %d] = %s", i, j, fmt(a, b, 0), i, j, fmt(da, b, 1));
  add(ls, "pin_g_rowdot", TT_PIN_STEP, tt_str(lang, TT_S_PING_ROWDOT_FMT), i, i, fmt(row, b, 0));
  char rs[48];  // a negative row sum in parentheses: "x − (−y)"
  snprintf(rs, sizeof rs, row < 0 ? "(%s)" : "%s", fmt(row, b, 2));
  add(ls, "pin_g_jvp", TT_PIN_STEP, "3.  %s \xC3\x97 (%s \xE2\x88\x92 %s)", fmt(a, b, 0), fmt(da, b, 1), rs);
  add(ls, "pin_g_jvp_result", TT_PIN_RESULT, "     = %s", fmt(a * (da - row), b, 0));
  recorded(ls, lang, at3(g, h, i, j));
}

// grad.attn.hook_pattern[h, i, j] = dz_i · v_j (above the diagonal too, although A is 0 there).
static void pattern_lines(const tt_trace *tr, tt_lang lang, const tt_tensor *g, int L, int h, int i, int j, lines *ls) {
  const tt_tensor *v = tt_find_hook(tr, L, "attn.hook_v");
  char name[96];
  snprintf(name, sizeof name, "grad.blocks.%d.attn.hook_z", L);
  const tt_tensor *dz = tt_trace_find(tr, name);
  if (!v || !dz || v->ndim != 3 || dz->ndim != 3) {
    add(ls, "", TT_PIN_WARN, "%s: %s", dz ? "attn.hook_v" : name, tt_str(lang, TT_S_NOT_RECORDED));
    return;
  }
  int D = (int)dz->shape[2];
  int hv = (int)((int64_t)h * v->shape[0] / dz->shape[0]);  // the K/V group of head h
  double s = 0;
  for (int d = 0; d < D; d++) s += (double)at3(dz, h, i, d) * (double)at3(v, hv, j, d);
  char b[1][40];
  add(ls, "pin_g_dzv_head", TT_PIN_STEP, tt_str(lang, TT_S_PING_DZV_FMT), i, j, D);
  add(ls, "pin_g_dzv", TT_PIN_RESULT, "     \xCE\xA3_d dz[%d, d] v[%d, d] = %s", i, j, fmt(s, b, 0));
  recorded(ls, lang, at3(g, h, i, j));
}

int tt_grad_pin_lines(const tt_trace *tr, tt_lang lang, const char *hook, int head, int i, int j, tt_pin_line *out,
                      int max) {
  lines ls = {out, 0, max};
  const tt_tensor *g = tt_trace_find(tr, hook);
  if (!g || strncmp(hook, "grad.", 5) != 0) return 0;
  const char *fwd = hook + 5;
  int L = tt_hook_block(fwd);
  const char *suffix = tt_hook_suffix(fwd);
  if (strcmp(fwd, "hook_logits") == 0 && g->ndim == 2)
    logits_lines(tr, lang, g, i, j, &ls);
  else if (L >= 0 && g->ndim == 3 &&
           (!strcmp(suffix, "attn.hook_attn_scores") || !strcmp(suffix, "attn.hook_attn_scores_scaled")))
    softmax_lines(tr, lang, g, L, head, i, j, &ls);
  else if (L >= 0 && g->ndim == 3 && !strcmp(suffix, "attn.hook_pattern"))
    pattern_lines(tr, lang, g, L, head, i, j, &ls);
  return ls.n;
}
