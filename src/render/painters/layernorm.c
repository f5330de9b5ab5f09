// layernorm: a LayerNorm step: the rows going in and coming out as heatmaps, and per
// token the recorded mean μ, the spread σ and 1/√(σ²+ε) (the trace's hook_scale is
// √(σ²+ε)), with the mean and spread after the norm and after γ, β.
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

void tt_paint_layernorm(tt_paint *p, SDL_Rect r, const char *prefix) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  char name[160];
  tt_config cfg;
  bool have_cfg = tt_trace_config(p->tr, &cfg);
  // What went in: the residual stream before the norm (GPT-2's pre-LN order).
  const tt_tensor *in = NULL;
  if (!have_cfg || !cfg.post_ln) {
    snprintf(name, sizeof name, "%s.hook_out", prefix);
    int block = tt_hook_block(name);
    if (block >= 0) {
      in = tt_find_hook(p->tr, block, strstr(prefix, "ln2") ? "hook_resid_mid" : "hook_resid_pre");
    } else {
      for (int L = 0;; L++) {
        const tt_tensor *t = tt_find_hook(p->tr, L, "hook_resid_post");
        if (!t) break;
        in = t;
      }
    }
  }
  snprintf(name, sizeof name, "%s.hook_out", prefix);
  const tt_tensor *out = tt_trace_find(p->tr, name);
  snprintf(name, sizeof name, "%s.hook_normalized", prefix);
  const tt_tensor *norm = tt_trace_find(p->tr, name);
  snprintf(name, sizeof name, "%s.hook_mean", prefix);
  const tt_tensor *mean = tt_trace_find(p->tr, name);
  snprintf(name, sizeof name, "%s.hook_scale", prefix);
  const tt_tensor *scale = tt_trace_find(p->tr, name);
  if (!out && !norm) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  if (!out) out = norm;
  int T = (int)out->shape[0];
  // Top: input and output rows.
  int top_h = r.h * 52 / 100;
  SDL_Rect left = {r.x, r.y + u * 3 / 2, r.w / 2 - u, top_h - u * 3 / 2};
  SDL_Rect right = {r.x + r.w / 2, r.y + u * 3 / 2, r.w / 2, top_h - u * 3 / 2};
  tt_view_state st = *p->st;
  st.zoom = 1;
  st.pan_row = st.pan_col = 0;
  st.lang = p->st->lang;
  tt_paint q = *p;
  q.st = &st;
  q.unit = u * 85 / 100;
  if (in) {
    tt_draw_text(cv, left.x, r.y, tt_str(p->st->lang, TT_S_LN_INPUT), u, TT_FONT_BOLD, pal->fg,
                 TT_ALIGN_LEFT);
    tt_paint_heatmap(&q, left, in, 0, false);
  } else {
    tt_draw_para(cv, left.x, left.y, left.w,
                 tt_str(p->st->lang, TT_S_LN_INPUT_NOT_RECORDED),
                 u, TT_FONT_SANS, pal->dim);
  }
  tt_draw_text(cv, right.x, r.y, tt_str(p->st->lang, TT_S_LN_OUTPUT), u,
               TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  tt_paint_heatmap(&q, right, out, 0, false);

  // Bottom: per-token numbers.
  int y = r.y + top_h + u / 2;
  tt_lang lang = p->st->lang;
  const char *heads[] = {tt_str(lang, TT_S_TOKEN), tt_str(lang, TT_S_LN_COL_MEAN), tt_str(lang, TT_S_LN_COL_SIGMA),
                         "1/\xE2\x88\x9A(\xCF\x83\xC2\xB2+\xCE\xB5)", tt_str(lang, TT_S_LN_COL_NORMALIZED),
                         "y: \xCE\xBC / \xCF\x83"};
  int colx[6];
  int first_w = r.w * 16 / 100, cw = (r.w - first_w) / 5;
  colx[0] = r.x;
  for (int i = 1; i < 6; i++) colx[i] = r.x + first_w + (i - 1) * cw;
  char hfit[120];
  static const char *const col_ids[6] = {"token", "mean", "sigma", "rstd", "norm_stats", "out_stats"};
  tt_note_scope(cv, "panel=layernorm prefix=%s", prefix);
  for (int i = 0; i < 6; i++) {
    tt_note(cv, "header col=%s", col_ids[i]);
    tt_text_fit(cv->fonts, heads[i], u * 9 / 10, TT_FONT_BOLD, (i ? cw : first_w) - u / 2, hfit, sizeof hfit);
    tt_draw_text(cv, colx[i], y, hfit, u * 9 / 10, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  }
  y += u * 3 / 2;
  cv->fill(cv, r.x, y, r.w, 1, pal->dim);
  y += u / 3;
  int lh = u * 3 / 2;
  char buf[160], a[32], b[32];
  int first = (int)fmaxf(0, fminf(p->st->pan_row, (float)T - 1));
  for (int i = first; i < T && y + lh <= r.y + r.h; i++) {
    tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf);
    char fit[160];
    tt_text_fit(cv->fonts, buf, u, TT_FONT_SANS, first_w - u / 2, fit, sizeof fit);
    tt_note(cv, "label axis=T i=%d", i);
    tt_draw_text(cv, colx[0], y, fit, u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    tt_note(cv, "ln col=mean r=%d", i);
    if (mean) tt_draw_text(cv, colx[1], y, tt_fmt_value(tt_tensor_at(mean, i), a, sizeof a), u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    if (scale) {
      // hook_scale is √(σ² + ε) (RMSNorm: √(mean(x²) + ε)): σ = √(scale² − ε), and the
      // factor the centred row is multiplied by is 1 / scale.
      double s = tt_tensor_at(scale, i);
      double eps = have_cfg ? cfg.ln_eps : 1e-5;
      double sd = sqrt(fmax(s * s - eps, 0));
      tt_note(cv, "ln col=sigma r=%d", i);
      tt_draw_text(cv, colx[2], y, tt_fmt_value((float)sd, a, sizeof a), u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
      tt_note(cv, "ln col=rstd r=%d", i);
      tt_draw_text(cv, colx[3], y, tt_fmt_value(s > 0 ? (float)(1.0 / s) : INFINITY, a, sizeof a), u, TT_FONT_SANS,
                   pal->fg, TT_ALIGN_LEFT);
    }
    double m, sd;
    if (norm) {
      row_stats(norm, i, &m, &sd);
      snprintf(buf, sizeof buf, "%s / %s", tt_fmt_value(fabs(m) < 5e-4 ? 0.0f : (float)m, a, sizeof a),
               tt_fmt_value((float)sd, b, sizeof b));
      tt_note(cv, "ln col=norm_stats r=%d", i);
      tt_draw_text(cv, colx[4], y, buf, u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    }
    row_stats(out, i, &m, &sd);
    snprintf(buf, sizeof buf, "%s / %s", tt_fmt_value((float)m, a, sizeof a), tt_fmt_value((float)sd, b, sizeof b));
    tt_note(cv, "ln col=out_stats r=%d", i);
    tt_draw_text(cv, colx[5], y, buf, u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    y += lh;
  }
}
