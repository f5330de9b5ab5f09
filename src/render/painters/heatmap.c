// heatmap: one matrix with token labels (or indices) on both axes, the colour legend
// with numbers, masked cells hatched, and a note when the view is downsampled or zoomed.
// The numeric table is the same figure with numbers in every cell.
#include <math.h>
#include <string.h>

#include "render_int.h"

static const char *axis_title(tt_lang lang, int axis, bool rows, bool attention) {
  switch (axis) {
  case 'T':
    return tt_str(lang, !attention ? TT_S_AXIS_TOKEN : rows ? TT_S_AXIS_QUERY : TT_S_AXIS_KEY);
  case 'C':
    return tt_str(lang, TT_S_AXIS_C);
  case 'Q':
    return tt_str(lang, TT_S_AXIS_3C);
  case 'D':
    return tt_str(lang, TT_S_AXIS_D);
  case 'F':
    return tt_str(lang, TT_S_AXIS_F);
  case 'V':
    return tt_str(lang, TT_S_AXIS_V);
  case 'L':
    return tt_str(lang, TT_S_AXIS_PREDICTION);
  case '1':
    return "";
  }
  return "";
}

// A step of 1, 2, 5, 10, ... cells so that labels at least `need` pixels apart fit.
static int label_step(float cell_px, int need) {
  static const int steps[] = {1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000};
  for (size_t i = 0; i < sizeof steps / sizeof *steps; i++)
    if ((float)steps[i] * cell_px >= (float)need) return steps[i];
  return 100000;
}

static bool text_axis(int axis) {
  return axis == 'T' || axis == 'L';
}

// Width of the widest label of the first n (at most 256) indices along an axis.
static int widest_label(tt_paint *p, int axis, int n, int px) {
  char buf[128];
  int w = 0;
  if (n > 256) n = 256;
  for (int i = 0; i < n; i++) {
    int lw = tt_text_width(p->cv->fonts, tt_axis_label(p->tr, p->ex, axis, i, buf, sizeof buf), px, TT_FONT_SANS);
    if (lw > w) w = lw;
  }
  return w;
}

// Width the row labels need (capped).
static int row_label_width(tt_paint *p, const tt_mat *m, int px, int cap) {
  char buf[128];
  int w = widest_label(p, m->row_axis, m->rows, px);
  if (text_axis(m->row_axis) && m->rows > 24) w += tt_text_width(p->cv->fonts, "000 ", px, TT_FONT_SANS);
  if (!text_axis(m->row_axis)) {
    snprintf(buf, sizeof buf, "%d", m->rows);
    w = tt_text_width(p->cv->fonts, buf, px, TT_FONT_SANS);
  }
  return w > cap ? cap : w;
}

static int col_label_height(tt_paint *p, const tt_mat *m, int px, int cap, float cell_w) {
  if (!text_axis(m->col_axis)) return px * 3 / 2;
  int w = widest_label(p, m->col_axis, m->cols, px);
  if ((float)(w + px / 2) <= cell_w) return px * 3 / 2;                          // labels lie flat under wide cells
  if (m->cols > 24) w += tt_text_width(p->cv->fonts, "000 ", px, TT_FONT_SANS);  // index prefixes
  return w + px / 2 > cap ? cap : w + px / 2;
}

// Labels left of the rows and under the columns of a drawn panel.
void tt_paint_axis_labels(tt_paint *p, const tt_panel *pn, const tt_mat *m, int px, int row_w, int col_h) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  char buf[128], fit[128];
  SDL_Rect r = pn->rect;
  int lh = px * 5 / 4;
  int rstep = label_step(pn->cell_h, lh);
  int r_end = (int)ceilf(pn->row0 + (float)r.h / pn->cell_h);
  if (r_end > m->rows) r_end = m->rows;
  for (int i = (int)ceilf(pn->row0 / (float)rstep) * rstep; row_w > 0 && i < r_end; i += rstep) {
    int y = r.y + (int)(((float)i - pn->row0 + 0.5f) * pn->cell_h) - lh / 2;
    if (!text_axis(m->row_axis) && rstep > 1) y = r.y + (int)(((float)i - pn->row0) * pn->cell_h) - lh / 2;
    if (y < r.y - lh / 2 || y > r.y + r.h - lh / 2) continue;
    tt_axis_label(p->tr, p->ex, m->row_axis, i, buf, sizeof buf);
    if (rstep > 1 && text_axis(m->row_axis)) {  // not every row is labelled: say which one this is
      char tmp[140];
      snprintf(tmp, sizeof tmp, "%d %.100s", i, buf);
      snprintf(buf, sizeof buf, "%.120s", tmp);
    }
    tt_text_fit(cv->fonts, buf, px, TT_FONT_SANS, row_w, fit, sizeof fit);
    tt_note(cv, "label axis=%c i=%d dir=row%s", m->row_axis, i,
            rstep > 1 && text_axis(m->row_axis) ? " indexed=1" : "");
    tt_draw_text(cv, r.x - px / 2, y, fit, px, TT_FONT_SANS, pal->fg, TT_ALIGN_RIGHT);
  }
  // Columns: text labels rotated when the cells are narrow; indices at round steps.
  int c_end = (int)ceilf(pn->col0 + (float)r.w / pn->cell_w);
  if (c_end > m->cols) c_end = m->cols;
  if (text_axis(m->col_axis)) {
    int wmax = 0;
    for (int i = (int)pn->col0; i < c_end && i < (int)pn->col0 + 64; i++) {
      int w = tt_text_width(cv->fonts, tt_axis_label(p->tr, p->ex, m->col_axis, i, buf, sizeof buf), px, TT_FONT_SANS);
      if (w > wmax) wmax = w;
    }
    bool flat = (float)wmax + (float)(px / 2) <= pn->cell_w;
    int cstep = flat ? 1 : label_step(pn->cell_w, lh);
    for (int i = (int)ceilf(pn->col0 / (float)cstep) * cstep; i < c_end; i += cstep) {
      int x = r.x + (int)(((float)i - pn->col0 + 0.5f) * pn->cell_w);
      if (x < r.x || x > r.x + r.w) continue;
      tt_axis_label(p->tr, p->ex, m->col_axis, i, buf, sizeof buf);
      if (cstep > 1) {
        char tmp[140];
        snprintf(tmp, sizeof tmp, "%d %.100s", i, buf);
        snprintf(buf, sizeof buf, "%.120s", tmp);
      }
      tt_note(cv, "label axis=%c i=%d dir=col%s", m->col_axis, i, cstep > 1 ? " indexed=1" : "");
      if (flat) {
        tt_draw_text(cv, x, r.y + r.h + px / 3, buf, px, TT_FONT_SANS, pal->fg, TT_ALIGN_CENTER);
      } else {
        tt_text_fit(cv->fonts, buf, px, TT_FONT_SANS, col_h - px / 2, fit, sizeof fit);
        int w = tt_text_width(cv->fonts, fit, px, TT_FONT_SANS);
        // Rotated: reads upwards, its top end just under the cells.
        cv->text(cv, x - lh / 2, r.y + r.h + px / 3 + (col_h - px / 2 - w) * 0, fit, px, TT_FONT_SANS, pal->fg, true);
      }
    }
  } else if (m->col_axis != '1') {
    int wnum = tt_text_width(cv->fonts, "00000", px, TT_FONT_SANS);
    int cstep = label_step(pn->cell_w, wnum + px);
    for (int i = (int)ceilf(pn->col0 / (float)cstep) * cstep; i < c_end; i += cstep) {
      float off = 0.5f;
      int x = r.x + (int)(((float)i - pn->col0 + off) * pn->cell_w);
      if (x < r.x || x > r.x + r.w) continue;
      cv->fill(cv, x, r.y + r.h, 1, px / 3, pal->dim);
      snprintf(buf, sizeof buf, "%d", i);
      tt_note(cv, "index i=%d", i);
      tt_draw_text(cv, x, r.y + r.h + px / 3, buf, px, TT_FONT_SANS, pal->fg, TT_ALIGN_CENTER);
    }
  }
}

// The table's window: fixed readable cells; the zoom does not apply, panning moves it.
static void table_window(tt_paint *p, const tt_mat *m, SDL_Rect *plot, tt_cells_opts *o) {
  const tt_view_state *st = p->st;
  int u = p->unit, px = u;
  tt_canvas *cv = p->cv;
  // Fixed readable cells; the zoom does not apply, panning moves the window.
  char buf[32];
  int cw = tt_text_width(cv->fonts, tt_fmt_value(-88.88f, buf, sizeof buf), px, TT_FONT_SANS) + u;
  int ch = u * 2;
  // A small table grows into the space it has, up to twice its readable size.
  if (m->cols * cw < plot->w) cw = plot->w / m->cols < cw * 2 ? plot->w / m->cols : cw * 2;
  if (m->rows * ch < plot->h) ch = plot->h / m->rows < ch * 2 ? plot->h / m->rows : ch * 2;
  memset(o, 0, sizeof *o);
  o->vis_cols = plot->w / cw < m->cols ? plot->w / cw : m->cols;
  o->vis_rows = plot->h / ch < m->rows ? plot->h / ch : m->rows;
  if (o->vis_cols < 1) o->vis_cols = 1;
  if (o->vis_rows < 1) o->vis_rows = 1;
  o->row0 = fminf(fmaxf(0, st->pan_row), (float)(m->rows - o->vis_rows));
  o->col0 = fminf(fmaxf(0, st->pan_col), (float)(m->cols - o->vis_cols));
  o->row0 = floorf(o->row0);
  o->col0 = floorf(o->col0);
  plot->w = o->vis_cols * cw;
  plot->h = o->vis_rows * ch;
  o->table = true;
}

// The heatmap's window for the zoom and pan, with cells square for (T, T) and capped.
static void heat_window(tt_paint *p, const tt_mat *m, bool square, SDL_Rect *plot, tt_cells_opts *o) {
  const tt_view_state *st = p->st;
  int u = p->unit;
  tt_view_window(st, m->rows, m->cols, plot->w, plot->h, square, u, o);
  float cw = (float)plot->w / (float)o->vis_cols, ch = (float)plot->h / (float)o->vis_rows;
  float cap = (float)u * 8;
  if (square) cw = ch = fminf(cw, ch);
  if (!square && ch > cap && cw < ch) ch = fmaxf(cap, fminf(ch, cw));
  if (!square && cw > cap * 2 && m->cols <= 4) cw = cap * 2;
  if (cw >= 1) plot->w = (int)(cw * (float)o->vis_cols);
  if (ch >= 1) plot->h = (int)(ch * (float)o->vis_rows);
  if (square && cw < 1) plot->w = plot->h = plot->w < plot->h ? plot->w : plot->h;  // downsampled: still square
}

// Axis titles: the rows' rotated at the left edge of r, the columns' under the labels.
static void axis_titles(tt_paint *p, SDL_Rect r, SDL_Rect plot, const tt_mat *m, bool square, int col_h) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  const char *rt = axis_title(st->lang, m->row_axis, true, square),
             *ct = axis_title(st->lang, m->col_axis, false, square);
  int sp = type.label;
  if (rt[0]) {
    int w = tt_text_width(cv->fonts, rt, sp, TT_FONT_SANS);
    tt_note(cv, "axis_title axis=%c dir=row", m->row_axis);
    if (w < plot.h) cv->text(cv, r.x, plot.y + (plot.h - w) / 2, rt, sp, TT_FONT_SANS, pal->dim, true);
  }
  if (!ct[0]) return;
  tt_note(cv, "axis_title axis=%c dir=col", m->col_axis);
  // Centred under the plot; one wider than the plot ends where the plot ends (the legend's
  // numbers are to the right) and reaches left, cut where even that is too little.
  char fit[160];
  int w = tt_text_width(cv->fonts, ct, sp, TT_FONT_SANS), y = plot.y + plot.h + col_h + u / 3;
  if (w <= plot.w) {
    tt_draw_text(cv, plot.x + plot.w / 2, y, ct, sp, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
    return;
  }
  int room = plot.x + plot.w - r.x;
  tt_text_fit(cv->fonts, ct, sp, TT_FONT_SANS, room, fit, sizeof fit);
  tt_draw_text(cv, plot.x + plot.w, y, fit, sp, TT_FONT_SANS, pal->dim, TT_ALIGN_RIGHT);
}

// The note under the plot: what part of the tensor is visible and how it is drawn, in the
// heatmap's area r (a heatmap beside another keeps to its own width).
static void window_note(tt_paint *p, SDL_Rect r, SDL_Rect plot, const tt_mat *m, const tt_cells_opts *o, bool table,
                        int col_h) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  char note[320];
  int r_end = (int)(o->row0 + (float)o->vis_rows), c_end = (int)(o->col0 + (float)o->vis_cols);
  int n = 0;
  if (o->vis_rows < m->rows || o->vis_cols < m->cols)
    n += snprintf(note + n, sizeof note - (size_t)n, tt_str(st->lang, TT_S_WINDOW_FMT), (int)o->row0, r_end - 1,
                  m->rows, (int)o->col0, c_end - 1, m->cols);
  float cwf = (float)plot.w / (float)o->vis_cols, chf = (float)plot.h / (float)o->vis_rows;
  if (!table && (cwf < 1 || chf < 1) && n < (int)sizeof note)
    n += snprintf(note + n, sizeof note - (size_t)n, "%s", tt_str(st->lang, TT_S_DOWNSAMPLED));
  tt_note(cv, "window rows=%d cols=%d", m->rows, m->cols);
  int room = r.x + r.w - plot.x;
  if (room < plot.w) room = plot.w;
  char fit[320];
  tt_text_fit(cv->fonts, note, type.label, TT_FONT_SANS, room, fit, sizeof fit);
  if (n)
    tt_draw_text(cv, plot.x, plot.y + plot.h + col_h + u / 3 + type.line, fit, type.label, TT_FONT_SANS, pal->dim,
                 TT_ALIGN_LEFT);
}

// Whether the note under the plot has something to say for a plot of about w × h pixels:
// a zoomed window, or more cells than pixels.
static bool needs_note(const tt_view_state *st, const tt_mat *m, int w, int h, bool table) {
  return st->zoom > 1 || (!table && (m->rows > h || m->cols > w));
}

// The plot's rectangle in r: room left for the row labels and the axis title, below for the
// column labels, the axis title and (when it has one) the note, right for the legend.
// Column labels lie flat when the cells they would get are wide enough, else they are
// rotated and take the height they need (at most a quarter of r).
static SDL_Rect plot_rect(tt_paint *p, SDL_Rect r, const tt_mat *m, bool square, bool table, int legend_w, int top,
                          int *col_h, int *note_h) {
  const tt_view_state *st = p->st;
  int u = p->unit, px = u;
  const tt_type type = tt_type_for(u);
  int row_w = row_label_width(p, m, px, r.w / 4);
  int axis_t = type.line;  // rotated axis title column
  SDL_Rect plot = {r.x + axis_t + row_w + px, r.y + u / 2 + top, 0, 0};
  plot.w = r.x + r.w - legend_w - plot.x - u;
  int below = type.line + u / 2;  // the columns' axis title
  float vc = fmaxf(1.0f, ceilf((float)m->cols / fmaxf(st->zoom, 1.0f)));
  float vr = fmaxf(1.0f, ceilf((float)m->rows / fmaxf(st->zoom, 1.0f)));
  // Flat labels: the cells that a plot with one line of labels below would have.
  int flat_h = px * 3 / 2;
  float cw = (float)plot.w / vc;
  if (square) cw = fminf(cw, (float)(r.y + r.h - flat_h - below - plot.y) / vr);
  *col_h = col_label_height(p, m, px, r.h / 4, table ? 0 : cw);
  plot.h = r.y + r.h - *col_h - below - plot.y;
  *note_h = needs_note(st, m, plot.w, plot.h, table) ? type.line : 0;
  plot.h -= *note_h;
  return plot;
}

void tt_paint_heatmap(tt_paint *p, SDL_Rect r, const tt_tensor *t, int head, bool table) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  tt_mat m;
  if (!tt_mat_of(p->tr, t, head, &m)) return;
  if (!table && m.col_axis == 'V' && st->zoom <= 1) {  // tens of thousands of columns: top-k and bins
    tt_paint_logits(p, r, t);
    return;
  }
  tt_scale sc;
  tt_scale_get(p, t, t->name, &sc);
  int u = p->unit, px = u;
  bool square = m.row_axis == 'T' && m.col_axis == 'T';

  int legend_w = table ? 0 : tt_legend_width(p, &sc);
  int row_w = row_label_width(p, &m, px, r.w / 4);
  int thirds = tt_qkv_third(t);  // C of a fused Q/K/V tensor: its thirds are marked
  int top = thirds ? tt_thirds_height(u) : 0;
  int col_h = 0, note_h = 0;
  SDL_Rect plot = plot_rect(p, r, &m, square, table, legend_w, top, &col_h, &note_h);
  if (plot.w < 20 || plot.h < 20) return;

  tt_cells_opts o;
  if (table)
    table_window(p, &m, &plot, &o);
  else
    heat_window(p, &m, square, &plot, &o);
  // The column labels of the cells as drawn (a table's or a capped heatmap's are narrower
  // or wider than the first guess): the axis title and the note sit right under them.
  int drawn_h = col_label_height(p, &m, px, r.h / 4, (float)plot.w / (float)o.vis_cols);
  if (drawn_h < col_h) col_h = drawn_h;
  o.layer = p->st->layer;
  o.head = m.slice;
  int pi = tt_paint_cells(p, plot, &m, &sc, &o);
  if (pi < 0) return;
  tt_draw_rect(cv, plot.x - 1, plot.y - 1, plot.w + 2, plot.h + 2, pal->dim);
  tt_paint_axis_labels(p, &p->lay->panels[pi], &m, px, row_w, col_h);
  if (thirds) tt_paint_thirds(p, &p->lay->panels[pi], thirds);

  axis_titles(p, r, plot, &m, square, col_h);

  if (!table) {
    SDL_Rect lr = {plot.x + plot.w + u, plot.y, legend_w, plot.h < u * 8 ? u * 8 : plot.h};
    if (lr.y + lr.h > r.y + r.h - note_h) lr.h = r.y + r.h - note_h - lr.y;
    // The note under the plot reaches under the legend: the legend ends above it.
    int note_y = plot.y + plot.h + col_h + u / 3 + tt_type_for(u).line;
    if (note_h && lr.y + lr.h > note_y) lr.h = note_y - lr.y;
    tt_paint_legend(p, lr, &sc);
  }

  window_note(p, r, plot, &m, &o, table, col_h);
}

// The widest tick label of a legend.
static int tick_width(tt_paint *p, const tt_scale *s, int px) {
  char num[48];
  int w = 0;
  for (int i = 0; i <= 4; i++) {
    float v = s->hi - (float)i / 4.0f * (s->hi - s->lo);
    int tw = tt_text_width(p->cv->fonts, tt_fmt_value(v, num, sizeof num), px, TT_FONT_SANS);
    if (tw > w) w = tw;
  }
  return w + (s->clipped ? tt_text_width(p->cv->fonts, "\xE2\x89\xA5 ", px, TT_FONT_SANS) : 0);
}

// The width of the widest word of s (words end at spaces) in px type.
static int widest_word(const tt_canvas *cv, const char *s, int px) {
  char word[64];
  int w = 0;
  while (*s) {
    size_t n = strcspn(s, " ");
    snprintf(word, sizeof word, "%.*s", (int)n, s);
    w = tt_max_i(w, tt_text_width(cv->fonts, word, px, TT_FONT_SANS));
    s += n + (s[n] == ' ');
  }
  return w;
}

// The width with a title beside the numbers when titled (else only when the scale names a
// quantity). The masked swatch's words wrap beside it: its widest word has to fit.
static int legend_width(tt_paint *p, const tt_scale *s, bool titled) {
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int w = u + u / 2 + tick_width(p, s, type.label) + u / 2 + (titled ? type.line : 0);
  if (s->has_masked) w = tt_max_i(w, widest_word(p->cv, tt_str(p->st->lang, TT_S_MASKED), type.label) + u * 3);
  return w;
}

int tt_legend_width(tt_paint *p, const tt_scale *s) {
  return legend_width(p, s, s->qty != 0);
}

int tt_legend_width_titled(tt_paint *p, const tt_scale *s) {
  return legend_width(p, s, true);
}

int tt_legend_min_height(tt_paint *p, const tt_scale *s) {
  int u = p->unit, px = tt_type_for(u).label;
  return px * 5 / 2 + px + (s->has_masked ? u * 4 : 0) + (s->gradient ? px * 3 : 0);  // a bar for 2 numbers
}

// The bar's colours, top (hi) to bottom (lo): a continuous ramp where the canvas has one.
static void legend_bar(tt_paint *p, SDL_Rect bar, const tt_scale *s) {
  tt_canvas *cv = p->cv;
  enum { STEPS = 128, STOPS = 65 };
  if (cv->vgradient) {
    tt_rgba stops[STOPS];
    for (int i = 0; i < STOPS; i++) stops[i] = tt_scale_color(s, s->hi - (float)i / (STOPS - 1) * (s->hi - s->lo));
    cv->vgradient(cv, bar, stops, STOPS);
    return;
  }
  tt_rgba rgb[STEPS];
  for (int i = 0; i < STEPS; i++) {
    float t = 1.0f - ((float)i + 0.5f) / STEPS;
    rgb[i] = tt_scale_color(s, s->lo + t * (s->hi - s->lo));
  }
  tt_cells cells = {.rows = STEPS, .cols = 1, .rgb = rgb, .cell_w = (float)bar.w, .cell_h = (float)bar.h / STEPS};
  uint64_t key = tt_hash(0, rgb, sizeof rgb);
  if (!cv->cells_cached(cv, key, bar)) cv->cells(cv, key, &cells, bar);
}

// The masked swatch under the bar.
static void legend_masked(tt_paint *p, SDL_Rect r, int y, int px) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  SDL_Rect sw = {r.x, y + u, u * 2, u * 2};
  tt_rgba one = pal->masked;
  uint8_t m = 1;
  tt_cells mc = {.rows = 1,
                 .cols = 1,
                 .rgb = &one,
                 .masked = &m,
                 .cell_w = (float)sw.w,
                 .cell_h = (float)sw.h,
                 .mask_bg = pal->masked,
                 .mask_line = pal->masked_line};
  cv->cells(cv, 0, &mc, sw);
  tt_draw_rect(cv, sw.x - 1, sw.y - 1, sw.w + 2, sw.h + 2, pal->dim);
  // "masked (−∞)" on one line, or two where the legend is narrow, beside the swatch's middle
  const char *what = tt_str(p->st->lang, TT_S_MASKED);
  int x = sw.x + sw.w + u / 3, w = r.x + r.w - x;
  int top = sw.y + (sw.h - tt_para_height(cv, w, what, px, TT_FONT_SANS)) / 2;
  tt_draw_para(cv, x, top, w, what, px, TT_FONT_SANS, pal->fg);
}

void tt_paint_legend(tt_paint *p, SDL_Rect r, const tt_scale *s) {
  tt_paint_legend_titled(p, r, s, s->qty ? tt_str(p->st->lang, (tt_str_id)s->qty) : NULL);
}

void tt_paint_legend_titled(tt_paint *p, SDL_Rect r, const tt_scale *s, const char *title) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int px = type.label;
  int bar_w = u;
  int mask_h = s->has_masked ? u * 4 : 0;
  int grad_h = s->gradient ? px * 3 : 0;  // two lines under the bar: "∂L/∂x", "gradient"
  SDL_Rect bar = {r.x, r.y + px / 2, bar_w, r.h - px - mask_h - grad_h};
  if (r.h < tt_legend_min_height(p, s)) return;
  legend_bar(p, bar, s);
  tt_draw_rect(cv, bar.x - 1, bar.y - 1, bar.w + 2, bar.h + 2, pal->dim);
  char buf[48], num[32];
  int n = 5;  // numbers along the bar: 5, or 3 or 2 where a short bar has no room for 5
  while (n > 2 && (bar.h - 1) / (n - 1) < px * 5 / 4) n = n == 5 ? 3 : 2;
  for (int i = 0; i < n; i++) {
    float f = (float)i / (float)(n - 1);
    float v = s->hi - f * (s->hi - s->lo);
    int y = bar.y + (int)(f * (float)(bar.h - 1));
    cv->fill(cv, bar.x + bar.w, y, u / 3, 1, pal->fg);
    tt_fmt_value(v, num, sizeof num);
    if (s->clipped && i == 0)
      snprintf(buf, sizeof buf, "\xE2\x89\xA5 %s", num);  // ≥
    else if (s->clipped && i == n - 1)
      snprintf(buf, sizeof buf, "\xE2\x89\xA4 %s", num);  // ≤
    else
      snprintf(buf, sizeof buf, "%s", num);
    tt_note(cv, "tick i=%d n=%d", i, n);
    tt_draw_text(cv, bar.x + bar.w + u / 2, y - px * 6 / 10, buf, px, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
  }
  if (title) {  // the quantity and its units (or the panels it colours), reading upwards beside the numbers
    char fit[160];
    tt_text_fit(cv->fonts, title, px, TT_FONT_SANS, bar.h, fit, sizeof fit);
    int w = tt_text_width(cv->fonts, fit, px, TT_FONT_SANS);
    int x = bar.x + bar.w + u / 2 + tick_width(p, s, px) + u / 2;
    tt_note(cv, "legend_title");
    cv->text(cv, x, bar.y + (bar.h - w) / 2, fit, px, TT_FONT_SANS, pal->dim, true);
  }
  if (s->gradient) {
    int y = bar.y + bar.h + px;
    tt_note(cv, "legend_gradient");
    tt_draw_text(cv, r.x, y, "\xE2\x88\x82L/\xE2\x88\x82x", px, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    tt_note(cv, "legend_gradient");
    tt_draw_text(cv, r.x, y + px * 5 / 4, tt_str(p->st->lang, TT_S_LEGEND_GRADIENT), px, TT_FONT_SANS, pal->dim,
                 TT_ALIGN_LEFT);
  }
  if (s->has_masked) legend_masked(p, r, bar.y + bar.h + grad_h, px);
}

int tt_paint_title(tt_paint *p, SDL_Rect r, const char *title, const char *subtitle) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  char fit[512];
  int tp = type.title;
  tt_text_fit(cv->fonts, title, tp, TT_FONT_BOLD, r.w, fit, sizeof fit);
  tt_note(cv, "title");
  tt_draw_text(cv, r.x, r.y, fit, tp, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  int h = tp * 3 / 2;
  if (subtitle && subtitle[0]) {
    tt_text_fit(cv->fonts, subtitle, u, TT_FONT_SANS, r.w, fit, sizeof fit);
    tt_note(cv, "subtitle");
    tt_draw_text(cv, r.x, r.y + h, fit, u, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
    h += type.line;
  }
  return h;
}
