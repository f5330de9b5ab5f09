// layernorm: a LayerNorm step: the rows going in and coming out as heatmaps, and per
// token the recorded mean μ, the spread σ and 1/√(σ²+ε) (the trace's hook_scale is
// √(σ²+ε)), with the mean and spread after the norm and after γ, β. An RMSNorm (no
// hook_mean) shows its root mean square √mean(x²) in σ's place and no mean.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

static void row_stats(const tt_tensor *t, int row, double *mean, double *sd) {
  int64_t C = t->shape[1];
  double s = 0, s2 = 0;
  for (int64_t c = 0; c < C; c++) {
    double v = tt_tensor_at(t, row * C + c);
    s += v;
    s2 += v * v;
  }
  *mean = s / (double)C;
  double var = s2 / (double)C - *mean * *mean;
  *sd = sqrt(var > 0 ? var : 0);
}

// The tensors of one norm: what went in, its outputs and per-token statistics.
typedef struct {
  const tt_tensor *in, *out, *norm, *mean, *scale;
  double eps;
} norm_tensors;

// What went in: the residual stream before the norm (GPT-2's pre-LN order; post-LN
// does not record it separately). The final norm reads the last block's output.
static const tt_tensor *input_of(const tt_paint *p, const char *prefix, const tt_config *cfg) {
  if (cfg && cfg->post_ln) return NULL;
  char name[160];
  snprintf(name, sizeof name, "%s.hook_out", prefix);
  int block = tt_hook_block(name);
  if (block >= 0) return tt_find_hook(p->tr, block, strstr(prefix, "ln2") ? "hook_resid_mid" : "hook_resid_pre");
  const tt_tensor *in = NULL;
  for (int L = 0;; L++) {
    const tt_tensor *t = tt_find_hook(p->tr, L, "hook_resid_post");
    if (!t) return in;
    in = t;
  }
}

static const tt_tensor *part(const tt_paint *p, const char *prefix, const char *suffix) {
  char name[160];
  snprintf(name, sizeof name, "%s.%s", prefix, suffix);
  return tt_trace_find(p->tr, name);
}

// Top: the input and output rows as heatmaps in slightly smaller type.
static void rows_on_top(tt_paint *p, SDL_Rect r, int top_h, const norm_tensors *n) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  SDL_Rect left = {r.x, r.y + type.line, r.w / 2 - u, top_h - type.line};
  SDL_Rect right = {r.x + r.w / 2, r.y + type.line, r.w / 2, top_h - type.line};
  tt_view_state st = *p->st;
  st.zoom = 1;
  st.pan_row = st.pan_col = 0;
  tt_paint q = *p;
  q.st = &st;
  q.unit = tt_unit_smaller(u);
  // The two titles in one type, the largest (up to u) in which each fits over its half.
  const char *in_title = tt_str(st.lang, TT_S_LN_INPUT);
  const char *out_title = tt_str(st.lang, n->mean ? TT_S_LN_OUTPUT : TT_S_LN_OUTPUT_RMS);  // RMSNorm: no mean
  int px = tt_text_px_fit(cv->fonts, out_title, TT_FONT_BOLD, u, type.small, right.w - u / 2);
  if (n->in) px = tt_text_px_fit(cv->fonts, in_title, TT_FONT_BOLD, px, type.small, left.w);
  char fit[160];
  if (n->in) {
    tt_text_fit(cv->fonts, in_title, px, TT_FONT_BOLD, left.w, fit, sizeof fit);
    tt_draw_text(cv, left.x, r.y, fit, px, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
    tt_paint_heatmap(&q, left, n->in, 0, false);
  } else {
    tt_draw_para(cv, left.x, left.y, left.w, tt_str(st.lang, TT_S_LN_INPUT_NOT_RECORDED), u, TT_FONT_SANS, p->pal->dim);
  }
  tt_text_fit(cv->fonts, out_title, px, TT_FONT_BOLD, right.w - u / 2, fit, sizeof fit);
  tt_draw_text(cv, right.x, r.y, fit, px, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  tt_paint_heatmap(&q, right, n->out, 0, false);
}

// One token's row of the table in type u: label, μ, σ, 1/√(σ²+ε), then mean / std of the
// normalized and of the output row.
static void table_row(tt_paint *p, const norm_tensors *n, int i, const int *colx, int first_w, int y, int u) {
  tt_canvas *cv = p->cv;
  tt_rgba fg = p->pal->fg;
  char buf[160], fit[160], a[32], b[32];
  tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf);
  tt_text_fit(cv->fonts, buf, u, TT_FONT_SANS, first_w - u / 2, fit, sizeof fit);
  tt_note(cv, "label axis=T i=%d", i);
  tt_draw_text(cv, colx[0], y, fit, u, TT_FONT_SANS, fg, TT_ALIGN_LEFT);
  tt_note(cv, "ln col=mean r=%d", i);
  if (n->mean)
    tt_draw_text(cv, colx[1], y, tt_fmt_value(tt_tensor_at(n->mean, i), a, sizeof a), u, TT_FONT_SANS, fg,
                 TT_ALIGN_LEFT);
  if (n->scale) {
    // hook_scale is √(σ² + ε) (RMSNorm: √(mean(x²) + ε)): σ = √(scale² − ε), and the
    // factor the centred row is multiplied by is 1 / scale.
    double s = tt_tensor_at(n->scale, i);
    double sd = sqrt(fmax(s * s - n->eps, 0));
    tt_note(cv, "ln col=sigma r=%d", i);
    tt_draw_text(cv, colx[2], y, tt_fmt_value((float)sd, a, sizeof a), u, TT_FONT_SANS, fg, TT_ALIGN_LEFT);
    tt_note(cv, "ln col=rstd r=%d", i);
    tt_draw_text(cv, colx[3], y, tt_fmt_value(s > 0 ? (float)(1.0 / s) : INFINITY, a, sizeof a), u, TT_FONT_SANS, fg,
                 TT_ALIGN_LEFT);
  }
  double m, sd;
  if (n->norm) {
    row_stats(n->norm, i, &m, &sd);
    snprintf(buf, sizeof buf, "%s / %s", tt_fmt_value(fabs(m) < 5e-4 ? 0.0f : (float)m, a, sizeof a),
             tt_fmt_value((float)sd, b, sizeof b));
    tt_note(cv, "ln col=norm_stats r=%d", i);
    tt_draw_text(cv, colx[4], y, buf, u, TT_FONT_SANS, fg, TT_ALIGN_LEFT);
  }
  row_stats(n->out, i, &m, &sd);
  snprintf(buf, sizeof buf, "%s / %s", tt_fmt_value((float)m, a, sizeof a), tt_fmt_value((float)sd, b, sizeof b));
  tt_note(cv, "ln col=out_stats r=%d", i);
  tt_draw_text(cv, colx[5], y, buf, u, TT_FONT_SANS, fg, TT_ALIGN_LEFT);
}

// The table's columns in r: colx[0..5] where each starts, colx[6] its right end. The token
// column takes a sixth; the numbers get the largest type (up to the unit) in which a
// single number "−0.000" and a pair "−0.000 / 0.000" fit their columns (RMSNorm has no
// mean column). Returns that type.
static int table_columns(tt_paint *p, SDL_Rect r, bool rms, int colx[7]) {
  int u = p->unit, least = tt_type_for(u).small;
  int first_w = r.w * 16 / 100, gap = u / 2, px = u;
  int one = 0, two = 0;
  const char *single = "\u22120.000", *pair = "\u22120.000 / 0.000";  // U+2212 minus
  for (; px >= least; px--) {
    one = tt_text_width(p->cv->fonts, single, px, TT_FONT_SANS) + gap;
    two = tt_text_width(p->cv->fonts, pair, px, TT_FONT_SANS) + gap;
    if (first_w + (rms ? 2 : 3) * one + 2 * two <= r.w) break;
  }
  px = tt_max_i(px, least);
  // What is left over is shared out evenly.
  int spare = tt_max_i(0, r.w - first_w - (rms ? 2 : 3) * one - 2 * two) / (rms ? 4 : 5);
  const int widths[6] = {first_w, rms ? 0 : one + spare, one + spare, one + spare, two + spare, two + spare};
  colx[0] = r.x;
  for (int i = 0; i < 6; i++) colx[i + 1] = colx[i] + widths[i];
  return px;
}

// Bottom: the per-token numbers, from row st->pan_row on.
static void table(tt_paint *p, SDL_Rect r, int y, const norm_tensors *n, const char *prefix) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  tt_lang lang = p->st->lang;
  // RMSNorm (no hook_mean): no mean column, the root mean square where LayerNorm has σ.
  bool rms = !n->mean;
  const char *heads[] = {tt_str(lang, TT_S_TOKEN),
                         rms ? "" : tt_str(lang, TT_S_LN_COL_MEAN),
                         tt_str(lang, rms ? TT_S_LN_COL_RMS : TT_S_LN_COL_SIGMA),
                         rms ? "1/\xE2\x88\x9A(mean(x\xC2\xB2)+\xCE\xB5)" : "1/\xE2\x88\x9A(\xCF\x83\xC2\xB2+\xCE\xB5)",
                         tt_str(lang, TT_S_LN_COL_NORMALIZED),
                         "y: \xCE\xBC / \xCF\x83"};
  int colx[7], px = table_columns(p, r, rms, colx);
  static const char *const col_ids[6] = {"token", "mean", "sigma", "rstd", "norm_stats", "out_stats"};
  tt_note_scope(cv, "panel=layernorm prefix=%s", prefix);
  // The headers in one type, the largest (down to small) in which each fits its column.
  int head_px = type.label;
  for (int i = 0; i < 6; i++)
    head_px = tt_text_px_fit(cv->fonts, heads[i], TT_FONT_BOLD, head_px, type.small, colx[i + 1] - colx[i] - u / 3);
  char hfit[120], shortened[120];
  for (int i = 0; i < 6; i++) {
    if (!heads[i][0]) continue;
    tt_note(cv, "header col=%s", col_ids[i]);
    int w = colx[i + 1] - colx[i] - u / 3;
    // "μ (mean)" that does not fit says "μ": the symbol before the words in brackets.
    const char *h = heads[i], *words = strstr(h, " (");
    if (tt_text_width(cv->fonts, h, head_px, TT_FONT_BOLD) > w && words) {
      snprintf(shortened, sizeof shortened, "%.*s", (int)(words - h), h);
      h = shortened;
    }
    tt_text_fit(cv->fonts, h, head_px, TT_FONT_BOLD, w, hfit, sizeof hfit);
    tt_draw_text(cv, colx[i], y, hfit, head_px, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  }
  y += type.line;
  cv->fill(cv, r.x, y, r.w, 1, pal->dim);
  y += u / 3;
  int lh = type.line, T = (int)n->out->shape[0];
  int first = (int)fmaxf(0, fminf(p->st->pan_row, (float)T - 1));
  int fit = (r.y + r.h - y) / lh;                                     // rows that fit
  if (first + fit < T || first > 0) fit = (r.y + r.h - y - lh) / lh;  // one line says what is left out
  if (fit < 0) fit = 0;
  int i = first;
  for (; i < T && i < first + fit; i++, y += lh) table_row(p, n, i, colx, colx[1] - colx[0], y, px);
  if (T - (i - first) > 0) {
    char buf[120];
    snprintf(buf, sizeof buf, tt_str(lang, TT_S_ROWS_MORE_FMT), T - (i - first));
    tt_note(cv, "rows_more shown=%d rows=%d", i - first, T);
    tt_draw_text(cv, r.x, y, buf, type.label, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
  }
}

void tt_paint_layernorm(tt_paint *p, SDL_Rect r, const char *prefix) {
  tt_config cfg;
  bool have_cfg = tt_trace_config(p->tr, &cfg);
  norm_tensors n = {input_of(p, prefix, have_cfg ? &cfg : NULL),
                    part(p, prefix, "hook_out"),
                    part(p, prefix, "hook_normalized"),
                    part(p, prefix, "hook_mean"),
                    part(p, prefix, "hook_scale"),
                    have_cfg ? cfg.ln_eps : 1e-5};
  if (!n.out && !n.norm) {
    tt_draw_para(p->cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  if (!n.out) n.out = n.norm;
  // The heatmaps get half the height, less (down to 38%) where the table needs it for
  // every token's row, but never less than they need to be drawn at all (their title, the
  // column labels, axis title and note under a plot of two units): in a short view the
  // table shows fewer rows and says how many it leaves out.
  const tt_type type = tt_type_for(p->unit), small = tt_type_for(tt_unit_smaller(p->unit));
  int table_h = type.line + p->unit / 3 + (int)n.out->shape[0] * type.line + p->unit / 2;
  int heat_min = type.line + small.line * 4 + tt_unit_smaller(p->unit) * 2;
  int top_h = tt_max_i(r.h * 38 / 100, tt_min_i(r.h * 52 / 100, r.h - table_h));
  top_h = tt_min_i(tt_max_i(top_h, heat_min), r.h - type.line * 3);  // the table's heading and a row at least
  rows_on_top(p, r, top_h, &n);
  table(p, r, r.y + top_h + p->unit / 2, &n, prefix);
}
