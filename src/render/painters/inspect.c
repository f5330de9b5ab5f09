// inspect: the pinned cell and the arithmetic behind it. For attention scores and
// weights it recomputes that one number from the trace's Q and K: the products per
// dimension (largest first), their sum, ÷√D, the mask, exp, the row sum and the division,
// each next to the value the engine recorded.
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "inspect_int.h"

typedef struct {
  int d;
  double prod;
} term;

static int by_magnitude(const void *a, const void *b) {
  double x = fabs(((const term *)a)->prod), y = fabs(((const term *)b)->prod);
  return (x < y) - (x > y);
}

const char *tt_insp_num(tt_insp_writer *w, const char *fmt, double v) {
  char *b = w->nums[w->n_nums++ % 12];
  return tt_fmt_num(v, fmt, b, sizeof w->nums[0]);
}

int tt_insp_room(const tt_insp_writer *w) {
  return (w->r.y + w->r.h - w->y) / (w->px * 13 / 10);
}

bool tt_insp_put(tt_insp_writer *w, const char *note, tt_font_kind k, tt_rgba c, const char *fmt, ...) {
  w->n_nums = 0;
  if (w->y + w->px * 5 / 4 > w->r.y + w->r.h) return false;
  char buf[400], fit[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (note[0]) tt_note(w->p->cv, "%s", note);
  if (k == TT_FONT_MONO) {
    tt_text_fit(w->p->cv->fonts, buf, w->px, k, w->r.w - w->px, fit, sizeof fit);
    tt_draw_text(w->p->cv, w->r.x + w->px / 2, w->y, fit, w->px, k, c, TT_ALIGN_LEFT);
    w->y += w->px * 13 / 10;
  } else {  // words wrap; the indent of continuation lines follows the leading spaces
    w->y += tt_draw_para(w->p->cv, w->r.x + w->px / 2, w->y, w->r.w - w->px, buf, w->px, k, c);
  }
  return true;
}

static float at3(const tt_tensor *t, int h, int i, int j) {
  return tt_tensor_at(t, ((int64_t)h * t->shape[1] + i) * t->shape[2] + j);
}

// Scaled score (i, c) of head h: the recorded one from sc, else recomputed as q·k / sdiv.
static double score_at(const tt_tensor *sc, const tt_tensor *q, const tt_tensor *k, int h, int i, int c, int D,
                       double sdiv) {
  if (sc) return at3(sc, h, i, c);
  double acc = 0;
  for (int d = 0; d < D; d++) acc += (double)at3(q, h, i, d) * (double)at3(k, h, c, d);
  return acc / sdiv;
}

// Step 1: q_i · k_j as its D products, the largest first (as many as fit), and the rest
// summed; *out gets the dot product. false when out of memory.
static bool dot_terms(tt_insp_writer *w, const tt_tensor *q, const tt_tensor *k, int L, int h, int i, int j,
                      double *out) {
  tt_paint *p = w->p;
  const tt_palette *pal = p->pal;
  tt_lang lang = p->st->lang;
  int D = (int)q->shape[2];
  term *terms = malloc(sizeof(term) * (size_t)D);
  if (!terms) return false;
  double sum = 0;
  for (int d = 0; d < D; d++) {
    terms[d].d = d;
    terms[d].prod = (double)at3(q, h, i, d) * (double)at3(k, h, j, d);
    sum += terms[d].prod;
  }
  qsort(terms, (size_t)D, sizeof(term), by_magnitude);
  tt_note_scope(p->cv, "panel=inspector layer=%d head=%d r=%d c=%d", L, h, i, j);
  tt_insp_put(w, "pin_dot", TT_FONT_BOLD, pal->fg, "1.  q%d \xC2\xB7 k%d  (%s, D = %d)", i, j,
              tt_str(lang, TT_S_PIN_PRODUCTS), D);
  int shown = 0;
  int room = (w->r.y + w->r.h - w->y) / (w->px * 13 / 10) - 12;
  if (room > 8) room = 8;
  if (room < 2) room = 2;
  double rest = sum;
  char note[48];
  for (int n = 0; n < D && shown < room; n++, shown++) {
    int d = terms[n].d;
    snprintf(note, sizeof note, "pin_term d=%d", d);
    tt_insp_put(w, note, TT_FONT_MONO, pal->fg, " d%-3d %s \xC3\x97 %s = %s", d,
                tt_insp_num(w, "%6.3f", at3(q, h, i, d)), tt_insp_num(w, "%6.3f", at3(k, h, j, d)),
                tt_insp_num(w, "%6.3f", terms[n].prod));
    rest -= terms[n].prod;
  }
  snprintf(note, sizeof note, "pin_rest shown=%d", shown);
  if (shown < D)
    tt_insp_put(w, note, TT_FONT_MONO, pal->dim, " \xE2\x80\xA6 %d %s %s", D - shown, tt_str(lang, TT_S_PIN_MORE_SUM),
                tt_insp_num(w, "%.3f", rest));
  free(terms);
  *out = sum;
  return true;
}

// Softmax over row i, from the recorded scaled scores sc (or recomputed when absent):
// its maximum and the sum of exp(score − maximum) over the visible cells.
static void row_softmax(const tt_tensor *sc, const tt_tensor *q, const tt_tensor *k, int h, int i, bool causal,
                        double sdiv, double *mx_out, double *sum_out) {
  int D = (int)q->shape[2], T = (int)q->shape[1];
  double mx = -INFINITY, row_sum = 0;
  for (int c = 0; c < T; c++) {
    if (causal && c > i) continue;
    double v = score_at(sc, q, k, h, i, c, D, sdiv);
    if (v > mx) mx = v;
  }
  for (int c = 0; c < T; c++) {
    if (causal && c > i) continue;
    double v = score_at(sc, q, k, h, i, c, D, sdiv);
    row_sum += exp(v - mx);
  }
  *mx_out = mx;
  *sum_out = row_sum;
}

static void attention_arithmetic(tt_insp_writer *w, const tt_trace *tr, int L, int h, int i, int j) {
  tt_paint *p = w->p;
  const tt_palette *pal = p->pal;
  tt_lang lang = p->st->lang;
  const tt_tensor *q = tt_find_hook(tr, L, "attn.hook_q");
  const tt_tensor *k = tt_find_hook(tr, L, "attn.hook_k");
  if (!q || !k || q->ndim != 3) {
    tt_insp_put(w, "", TT_FONT_SANS, pal->warn, "%s", tt_str(lang, TT_S_PIN_NO_QK));
    return;
  }
  int D = (int)q->shape[2];
  tt_config cfg;
  bool have = tt_trace_config(tr, &cfg);
  bool scale = !have || cfg.scale_attn, causal = !have || cfg.causal;
  double sum = 0;
  if (!dot_terms(w, q, k, L, h, i, j, &sum)) return;
  const tt_tensor *raw = tt_find_hook(tr, L, "attn.hook_attn_scores_raw");
  tt_insp_put(w, "pin_sum", TT_FONT_MONO, pal->accent, " \xCE\xA3 = %s", tt_insp_num(w, "%.4f", sum));
  if (raw)
    tt_insp_put(w, "pin_recorded_raw", TT_FONT_SANS, pal->dim, "      %s %s", tt_str(lang, TT_S_PIN_RECORDED),
                tt_insp_num(w, "%+.4f", at3(raw, h, i, j)));
  double sdiv = scale ? sqrt((double)D) : 1.0;
  double s = sum / sdiv;
  if (scale)
    tt_insp_put(w, "pin_scaled", TT_FONT_BOLD, pal->fg, "2.  \xC3\xB7 \xE2\x88\x9A%d = %s   \xE2\x86\x92 %s", D,
                tt_insp_num(w, "%.4g", sdiv), tt_insp_num(w, "%+.4f", s));
  else
    tt_insp_put(w, "pin_unscaled", TT_FONT_BOLD, pal->fg, "2.  %s", tt_str(lang, TT_S_PIN_NOT_SCALED));
  bool masked = causal && j > i;
  tt_insp_put(w, masked ? "pin_mask masked=1" : "pin_mask masked=0", TT_FONT_BOLD, pal->fg, "3.  %s",
              tt_str(lang, masked ? TT_S_PIN_MASKED : TT_S_PIN_VISIBLE));
  double mx, row_sum;
  row_softmax(tt_find_hook(tr, L, "attn.hook_attn_scores"), q, k, h, i, causal, sdiv, &mx, &row_sum);
  double e = masked ? 0 : exp(s - mx);
  if (masked) {
    // The score is −∞ here: its exponential is 0 whatever the row holds.
    tt_insp_put(w, "pin_exp_masked", TT_FONT_BOLD, pal->fg, "4.  exp(\xE2\x88\x92\xE2\x88\x9E) = 0");
    tt_insp_put(w, "prose", TT_FONT_SANS, pal->dim, "%s", tt_str(lang, TT_S_PIN_MASKED_EXP));
  } else {
    tt_insp_put(w, "pin_exp", TT_FONT_BOLD, pal->fg, "4.  exp(%s \xE2\x88\x92 %s) = %s", tt_insp_num(w, "%.4f", s),
                mx < 0 ? tt_insp_num(w, "(%.4f)", mx) : tt_insp_num(w, "%.4f", mx), tt_insp_num(w, "%.4f", e));
    tt_insp_put(w, "pin_max", TT_FONT_SANS, pal->dim, tt_str(lang, TT_S_PIN_ROW_MAX_FMT), tt_insp_num(w, "%.4f", mx));
  }
  tt_insp_put(w, "pin_rowsum", TT_FONT_BOLD, pal->fg, "5.  %s = %s", tt_str(lang, TT_S_PIN_ROW_SUM),
              tt_insp_num(w, "%.4f", row_sum));
  tt_insp_put(w, "pin_div", TT_FONT_BOLD, pal->accent, "6.  %s / %s = %s", tt_insp_num(w, "%.4f", e),
              tt_insp_num(w, "%.4f", row_sum), tt_insp_num(w, "%.4f", e / row_sum));
  const tt_tensor *pat = tt_find_hook(tr, L, "attn.hook_pattern");
  if (pat)
    tt_insp_put(w, "pin_recorded_w", TT_FONT_SANS, pal->dim, "      %s %s", tt_str(lang, TT_S_PIN_RECORDED_WEIGHT),
                tt_insp_num(w, "%.4f", at3(pat, h, i, j)));
}

// A gradient's arithmetic (inspect_grad.c), in the inspector's lines; false when it has none.
static bool grad_arithmetic(tt_insp_writer *w, const char *hook, int head, int i, int j) {
  tt_pin_line lines[12];
  int n = tt_grad_pin_lines(w->p->tr, w->p->st->lang, hook, head, i, j, lines, 12);
  const tt_palette *pal = w->p->pal;
  tt_note_scope(w->p->cv, "panel=inspector hook=%s layer=%d head=%d r=%d c=%d", hook, tt_hook_block(hook + 5), head, i,
                j);
  for (int k = 0; k < n; k++) {
    tt_pin_style s = lines[k].style;
    tt_font_kind font = s == TT_PIN_MONO                      ? TT_FONT_MONO
                        : s == TT_PIN_DIM || s == TT_PIN_WARN ? TT_FONT_SANS
                                                              : TT_FONT_BOLD;
    tt_rgba c = s == TT_PIN_DIM ? pal->dim : s == TT_PIN_WARN ? pal->warn : s == TT_PIN_RESULT ? pal->accent : pal->fg;
    tt_insp_put(w, lines[k].note, font, c, "%s", lines[k].text);
  }
  return n > 0;
}

void tt_paint_inspector(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  cv->fill(cv, r.x, r.y, r.w, r.h, pal->panel);
  tt_draw_frame(cv, r.x, r.y, r.w, r.h, pal->accent, 2);
  const tt_tensor *t = tt_trace_find(p->tr, st->hook);
  if (!t) return;
  tt_mat m;
  if (!tt_mat_of(p->tr, t, st->head, &m)) return;
  int i = st->pin_row, j = st->pin_col;
  if (i >= m.rows || j >= m.cols) return;
  tt_insp_writer w = {.p = p, .r = {r.x + u / 4, r.y + u / 2, r.w - u / 2, r.h - u}, .y = r.y + u / 2, .px = type.cell};
  char a[120], b[120];
  tt_note_scope(cv, "panel=inspector hook=%s head=%d r=%d c=%d", t->name, m.slice, i, j);
  tt_insp_put(&w, "", TT_FONT_BOLD, pal->accent, "%s", tt_str(st->lang, TT_S_PINNED));
  if (t->ndim == 3)
    tt_insp_put(&w, "pin_index", TT_FONT_MONO, pal->fg, "%s[%d, %d, %d]", t->name, m.slice, i, j);
  else
    tt_insp_put(&w, "pin_index", TT_FONT_MONO, pal->fg, "%s[%d, %d]", t->name, i, j);
  tt_insp_put(&w, "pin_labels", TT_FONT_SANS, pal->fg, "%s %d: %s   %s %d: %s", tt_str(st->lang, TT_S_ROW), i,
              tt_axis_label(p->tr, p->ex, m.row_axis, i, a, sizeof a), tt_str(st->lang, TT_S_COLUMN), j,
              tt_axis_label(p->tr, p->ex, m.col_axis, j, b, sizeof b));
  float v = tt_mat_at(&m, i, j);
  tt_insp_put(&w, "pin_value", TT_FONT_BOLD, pal->fg, "= %s", tt_fmt_num(v, "%.6g", a, sizeof a));
  w.y += u / 3;
  const char *hook = st->hook;
  bool attn = strstr(hook, "attn.hook_attn_scores") || strstr(hook, "attn.hook_pattern");
  if (strncmp(hook, "grad.", 5) == 0) {
    grad_arithmetic(&w, hook, m.slice, i, j);
  } else if (attn && tt_hook_block(hook) >= 0) {
    attention_arithmetic(&w, p->tr, tt_hook_block(hook), m.slice, i, j);
  } else {
    int step = tt_step_find(p->tr, hook, NULL);
    if (step >= 0) {
      const char *f = tt_step_formula(p->tr, step);
      if (f && f[0]) tt_insp_put(&w, "formula", TT_FONT_SANS, pal->dim, "%s", f);
    }
    tt_explain_cell(&w, hook, m.slice, i, j);
  }
}
