// logits: a (T, V) tensor (hook_logits, hook_probs) as a reader needs it. Tens of
// thousands of columns do not fit: on top, per token, the k columns with the largest
// values, with their token texts, largest first; below, the whole vocabulary in bins,
// each bin drawn twice, as its largest and as its smallest value, so both extremes stay
// visible.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

enum { TOP_K = 6, BINS = 96 };

// The k largest values of row r (indices in idx, largest first; ties: lower index first).
static int top_of(const tt_mat *m, int r, int k, int *idx) {
  int n = 0;
  for (int c = 0; c < m->cols; c++) {
    float v = tt_mat_at(m, r, c);
    if (!isfinite(v)) continue;
    if (n < k || v > tt_mat_at(m, r, idx[n - 1])) {
      int i = n < k ? n++ : k - 1;
      while (i > 0 && tt_mat_at(m, r, idx[i - 1]) < v) {
        idx[i] = idx[i - 1];
        i--;
      }
      idx[i] = c;
    }
  }
  return n;
}

// How the top table fits width w: the type and the number of columns (at most TOP_K) in
// which each cell holds its widest value beside three characters of its token, in the
// cell type where three or more columns fit so, else in small type.
typedef struct {
  int px, k;
} top_fit;

static top_fit top_layout(tt_paint *p, const tt_mat *m, int w) {
  const tt_type type = tt_type_for(p->unit);
  top_fit f = {type.cell, TOP_K};
  for (int pass = 0; pass < 2; pass++, f.px = type.small) {
    int widest = 0, idx[TOP_K];
    char num[32];
    for (int i = 0; i < m->rows && i < 256; i++)
      for (int j = 0, n = top_of(m, i, TOP_K, idx); j < n; j++)
        widest = tt_max_i(widest, tt_text_width(p->cv->fonts, tt_fmt_value(tt_mat_at(m, i, idx[j]), num, sizeof num),
                                                f.px, TT_FONT_BOLD));
    int cell = widest + tt_text_width(p->cv->fonts, "abc", f.px, TT_FONT_MONO) + p->unit * 3 / 2;
    f.k = tt_max_i(1, tt_min_i(TOP_K, w / tt_max_i(cell, 1)));
    if (f.k >= 3 || f.k == TOP_K) break;
  }
  return f;
}

static void top_table(tt_paint *p, SDL_Rect r, const tt_mat *m, const tt_scale *s, int row_w, top_fit f) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int px = f.px, k = f.k;
  int cw = (r.w - row_w) / k, ch = (r.h - type.line) / (m->rows ? m->rows : 1);
  if (ch > u * 3) ch = u * 3;
  if (ch < px + 4) ch = px + 4;  // readable rows; the ones that do not fit are counted below
  int fit_rows = (r.h - type.line) / ch;
  if (fit_rows < m->rows) fit_rows = (r.h - type.line * 2) / ch;  // a line for "… N more rows"
  if (fit_rows < 0) fit_rows = 0;
  char buf[160], fit[160], num[32];
  for (int j = 0; j < k; j++) {
    snprintf(buf, sizeof buf, "#%d", j + 1);
    tt_note(cv, "rank_header rank=%d", j);
    tt_draw_text(cv, r.x + row_w + j * cw + u / 4, r.y, buf, px, TT_FONT_BOLD, p->pal->dim, TT_ALIGN_LEFT);
  }
  int y = r.y + type.line;
  for (int i = 0; i < m->rows && i < fit_rows; i++, y += ch) {
    tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf);
    tt_text_fit(cv->fonts, buf, px, TT_FONT_SANS, row_w - u / 2, fit, sizeof fit);
    tt_note(cv, "label axis=T i=%d", i);
    tt_draw_text(cv, r.x + row_w - u / 2, y + (ch - px * 5 / 4) / 2, fit, px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
    int idx[TOP_K];
    int n = top_of(m, i, k, idx);
    for (int j = 0; j < n; j++) {
      float v = tt_mat_at(m, i, idx[j]);
      int x = r.x + row_w + j * cw;
      cv->fill(cv, x, y + 1, cw - 2, ch - 2, tt_scale_color(s, v));
      tt_pick_cell(p, (SDL_Rect){x, y + 1, cw - 2, ch - 2}, m, i, idx[j]);  // pointed at and pinned as cell (i, id)
      cv->fill(cv, x + u / 8, y + ch / 6, cw - 2 - u / 4, ch * 2 / 3, p->pal->bg);
      tt_axis_label(p->tr, p->ex, 'V', idx[j], buf, sizeof buf);
      tt_fmt_value(v, num, sizeof num);
      int nw = tt_text_width(cv->fonts, num, px, TT_FONT_BOLD);
      tt_text_fit(cv->fonts, buf, px, TT_FONT_MONO, cw - nw - u, fit, sizeof fit);
      int ty = y + (ch - px * 5 / 4) / 2;
      tt_note(cv, "top_token r=%d rank=%d", i, j);
      tt_draw_text(cv, x + u / 4, ty, fit, px, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
      tt_note(cv, "top_value r=%d rank=%d", i, j);
      tt_draw_text(cv, x + cw - u / 4 - 2, ty, num, px, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_RIGHT);
    }
  }
  if (fit_rows < m->rows) {  // rows left out are said, not dropped silently
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), m->rows - fit_rows);
    tt_note(cv, "rows_more shown=%d rows=%d", fit_rows, m->rows);
    tt_draw_text(cv, r.x, y + u / 4, buf, px, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  }
}

// Per row two strips over the vocabulary in bins: the bin's largest value, then its smallest.
static void binned(tt_paint *p, SDL_Rect r, const tt_mat *m, const tt_scale *s, int row_w) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int px = type.small;
  int bins = m->cols < BINS ? m->cols : BINS;
  // The caption wraps where the type is large; the strips start under it.
  int cap = tt_para_height(cv, r.w, tt_str(p->st->lang, TT_S_LOGITS_BINS), px, TT_FONT_SANS) - tt_para_line(px);
  SDL_Rect plot = {r.x + row_w, r.y + type.line + cap, r.w - row_w, r.h - u * 3 - cap};
  if (plot.h < m->rows * 4 || bins < 1) return;
  tt_note(cv, "prose");
  tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_LOGITS_BINS), px, TT_FONT_SANS, p->pal->dim);
  int n = m->rows * 2 * bins;
  tt_rgba *rgb = malloc(sizeof(tt_rgba) * (size_t)n);
  if (!rgb) return;
  for (int i = 0; i < m->rows; i++) {
    for (int b = 0; b < bins; b++) {
      int c0 = (int)((int64_t)b * m->cols / bins), c1 = (int)((int64_t)(b + 1) * m->cols / bins);
      float hi = -INFINITY, lo = INFINITY;
      for (int c = c0; c < c1; c++) {
        float v = tt_mat_at(m, i, c);
        if (!isfinite(v)) continue;
        hi = fmaxf(hi, v);
        lo = fminf(lo, v);
      }
      rgb[(2 * i) * bins + b] = isfinite(hi) ? tt_scale_color(s, hi) : p->pal->masked;
      rgb[(2 * i + 1) * bins + b] = isfinite(lo) ? tt_scale_color(s, lo) : p->pal->masked;
    }
  }
  float cell_h = (float)plot.h / (float)(2 * m->rows);
  tt_cells cells = {
      .rows = 2 * m->rows, .cols = bins, .rgb = rgb, .cell_w = (float)plot.w / (float)bins, .cell_h = cell_h};
  cv->cells(cv, tt_hash(tt_hash(0, &m->t->data, sizeof m->t->data), &s->hi, sizeof s->hi), &cells, plot);
  free(rgb);
  tt_draw_rect(cv, plot.x - 1, plot.y - 1, plot.w + 2, plot.h + 2, p->pal->dim);
  char buf[160], fit[160];
  for (int i = 0; i < m->rows; i++) {
    cv->fill(cv, plot.x, plot.y + (int)(cell_h * (float)(2 * i)), plot.w, 1, p->pal->bg);
    tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf);
    tt_text_fit(cv->fonts, buf, px, TT_FONT_SANS, row_w - u / 2, fit, sizeof fit);
    if (cell_h * 2 < (float)px) continue;
    tt_note(cv, "label axis=T i=%d", i);
    tt_draw_text(cv, plot.x - u / 2, plot.y + (int)(cell_h * (float)(2 * i + 1)) - px * 6 / 10, fit, px, TT_FONT_SANS,
                 p->pal->fg, TT_ALIGN_RIGHT);
  }
  // Column numbers at the quarters, or at the halves or the ends where they would touch.
  snprintf(buf, sizeof buf, "%d", m->cols);
  int lw = tt_text_width(cv->fonts, buf, px, TT_FONT_SANS) + u / 2, step = 1;
  while (step < 4 && lw * 2 > plot.w * step / 4) step *= 2;
  for (int q = 0; q <= 4; q += step) {
    int c = (int)((int64_t)q * m->cols / 4);
    snprintf(buf, sizeof buf, "%d", c);
    tt_note(cv, "index i=%d", c);
    tt_draw_text(cv, plot.x + (int)((float)plot.w * (float)q / 4.0f), plot.y + plot.h + u / 4, buf, px, TT_FONT_SANS,
                 p->pal->fg,
                 q == 0   ? TT_ALIGN_LEFT
                 : q == 4 ? TT_ALIGN_RIGHT
                          : TT_ALIGN_CENTER);
  }
}

void tt_paint_logits(tt_paint *p, SDL_Rect r, const tt_tensor *t) {
  tt_mat m;
  if (!tt_mat_of(p->tr, t, 0, &m)) return;
  tt_scale s;
  tt_scale_get(p, t, t->name, &s);
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int legend_w = tt_legend_width(p, &s);
  char buf[160];
  int row_w = 0;
  for (int i = 0; i < m.rows && i < 256; i++) {
    int w = tt_text_width(p->cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf), type.cell, TT_FONT_SANS);
    if (w > row_w) row_w = w;
  }
  row_w += u;
  if (row_w > r.w / 5) row_w = r.w / 5;
  SDL_Rect body = {r.x, r.y + u / 2, r.w - legend_w - u, r.h - u / 2};
  SDL_Rect top = {body.x, body.y, body.w, body.h * 55 / 100};
  SDL_Rect bottom = {body.x, body.y + top.h + u / 2, body.w, body.h - top.h - u / 2};
  top_fit f = top_layout(p, &m, top.w - row_w);
  tt_note_scope(p->cv, "panel=logits hook=%s head=-1 k=%d bins=%d", t->name, f.k, m.cols < BINS ? m.cols : BINS);
  top_table(p, top, &m, &s, row_w, f);
  binned(p, bottom, &m, &s, row_w);
  tt_paint_legend(p, (SDL_Rect){body.x + body.w + u, body.y, legend_w, body.h}, &s);
}
