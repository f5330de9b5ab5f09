// grid: many small heatmaps: all heads of one layer (grid), every layer × head of one
// hook (overview), and Q, K, V of one head side by side.
#include <math.h>
#include <string.h>

#include "render_int.h"
#include "trace/hooks.h"

// Columns of an arrangement of n panels of aspect (width / height) in w × h that makes
// the panels largest.
static int grid_cols(int n, int w, int h, float aspect) {
  int best = 1;
  float best_side = 0;
  for (int c = 1; c <= n; c++) {
    int rws = (n + c - 1) / c;
    float side = fminf((float)w / (float)c / aspect, (float)h / (float)rws);
    if (side > best_side) {
      best_side = side;
      best = c;
    }
  }
  return best;
}

// "word h" into buf, or h alone when word is NULL; returns word.
static const char *head_label(char *buf, size_t len, const char *word, int h) {
  if (word)
    snprintf(buf, len, "%s %d", word, h);
  else
    snprintf(buf, len, "%d", h);
  return word;
}

void tt_paint_grid(tt_paint *p, SDL_Rect r, const tt_tensor *t) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int H = (int)t->shape[0];
  tt_scale sc;
  tt_scale_get(p, t, t->name, &sc);
  int legend_w = tt_legend_width(p, &sc) + u;
  tt_mat m0;
  tt_mat_of(p->tr, t, 0, &m0);
  // Token labels left of the first column of panels and under the last row.
  int lab_px = type.small, row_w = 0, col_h = 0;
  if (m0.row_axis == 'T' && m0.col_axis == 'T') {
    char lb[160];
    for (int i = 0; i < m0.rows && i < 256; i++) {
      int w = tt_text_width(cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, lb, sizeof lb), lab_px, TT_FONT_SANS);
      if (w > row_w) row_w = w;
    }
    if (m0.rows > 24) row_w += tt_text_width(cv->fonts, "000 ", lab_px, TT_FONT_SANS);
    if (row_w > r.w / 6) row_w = r.w / 6;
    col_h = row_w + lab_px / 2 < r.h / 5 ? row_w + lab_px / 2 : r.h / 5;
    row_w += lab_px / 2;
  }
  SDL_Rect area = {r.x + row_w, r.y, r.w - legend_w - row_w, r.h - u * 2 - col_h};
  float aspect = m0.rows > 0 ? fminf(fmaxf((float)m0.cols / (float)m0.rows, 0.1f), 10.0f) : 1.0f;
  int label = type.label;
  int cols = grid_cols(H, area.w, area.h - label * 2, aspect);
  int rows = (H + cols - 1) / cols;
  int cw = area.w / cols, ch = area.h / rows;
  // Panel height (the width follows the aspect), leaving room for the label and a gap.
  int side = (int)fminf((float)(cw - u) / aspect, (float)(ch - label * 3 / 2 - u / 2));
  if (side < 8) return;
  cw = (int)((float)side * aspect) + u;
  ch = side + label * 3 / 2 + u / 2;
  // Where the widest "head N" is wider than a panel's pitch, every label is the number alone.
  char buf[48];
  const char *word = head_label(buf, sizeof buf, tt_str(p->st->lang, TT_S_HEAD), H - 1);
  if (tt_text_width(cv->fonts, buf, label, TT_FONT_BOLD) > cw - u / 2) word = NULL;
  for (int h = 0; h < H; h++) {
    int gx = h % cols, gy = h / cols;
    int x = area.x + gx * cw, y = area.y + gy * ch;
    head_label(buf, sizeof buf, word, h);
    bool cur = h == p->st->head && !p->st->figure;  // a figure marks no current head
    tt_note(cv, "head_label h=%d", h);
    tt_draw_text(cv, x, y, buf, label, cur ? TT_FONT_BOLD : TT_FONT_SANS, cur ? p->pal->accent : p->pal->fg,
                 TT_ALIGN_LEFT);
    tt_mat m;
    tt_mat_of(p->tr, t, h, &m);
    SDL_Rect dst = {x, y + label * 3 / 2, (int)((float)side * aspect), side};
    tt_cells_opts o = {.vis_rows = m.rows, .vis_cols = m.cols, .numbers = false, .layer = p->st->layer, .head = h};
    int pi = tt_paint_cells(p, dst, &m, &sc, &o);
    bool last_row = h + cols >= H;  // nothing under this panel
    if (pi >= 0 && (row_w > 0 || col_h > 0))
      tt_paint_axis_labels(p, &p->lay->panels[pi], &m, lab_px, gx == 0 ? row_w - lab_px / 2 : 0, last_row ? col_h : 0);
    tt_draw_frame(cv, dst.x - 1, dst.y - 1, dst.w + 2, dst.h + 2, cur ? p->pal->accent : p->pal->dim, cur ? 3 : 1);
  }
  // The legend right beside the panels.
  SDL_Rect lr = {area.x + cols * cw + u, r.y + u, legend_w - u, (r.h - u * 3) < u * 20 ? r.h - u * 3 : u * 20};
  tt_paint_legend(p, lr, &sc);
  // The pointer hint is for the window, and only whole (a cut hint says nothing).
  const char *hint = tt_str(p->st->lang, TT_S_GRID_HINT);
  if (p->st->figure || tt_text_width(cv->fonts, hint, type.label, TT_FONT_SANS) > r.w) return;
  tt_draw_text(cv, r.x, r.y + r.h - type.line, hint, type.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
}

void tt_paint_overview(tt_paint *p, SDL_Rect r, const char *suffix) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  // Which layers have this hook.
  int L = 0, H = 0;
  // Only block hooks have layers (a hook outside the blocks is found at every L), and no
  // trace has more layers than tensors: both bound the walk.
  const tt_hook_def *def = tt_hook_def_find(suffix);
  for (; def && def->in_block && L < (int)tt_trace_count(p->tr); L++) {
    const tt_tensor *t = tt_find_hook(p->tr, L, suffix);
    if (!t) break;
    if (t->ndim == 3 && (int)t->shape[0] > H) H = (int)t->shape[0];
  }
  if (L == 0 || H == 0) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_OVERVIEW_NONE), u, TT_FONT_SANS, p->pal->warn);
    return;
  }
  // The labels are drawn in label type at most: their column and the head numbers' line
  // take no more than that type needs.
  char word[48];
  snprintf(word, sizeof word, "%s %d", tt_str(p->st->lang, TT_S_LAYER), L - 1);
  int lab_w = tt_text_width(cv->fonts, word, type.label, TT_FONT_SANS) + u / 2;
  tt_scale sc;
  const tt_tensor *t0 = tt_find_hook(p->tr, 0, suffix);
  tt_scale_get(p, t0, t0->name, &sc);
  int legend_w = tt_legend_width(p, &sc) + u;
  int top = type.label * 3 / 2;
  int cw = (r.w - lab_w - legend_w) / H, ch = (r.h - top - u / 4) / L;
  int side = (cw < ch ? cw : ch) - (u / 4 > 2 ? u / 4 : 2);
  if (side < 4) side = 4;
  // Labels no larger than their pitch; where even 10 px is larger, every k-th one.
  int pitch = side + u / 4, lpx = type.label < pitch * 9 / 10 ? type.label : pitch * 9 / 10;
  if (lpx < 10) lpx = 10;
  int every_l = (lpx * 11 / 10 + pitch - 1) / pitch;
  int every_h = (tt_text_width(cv->fonts, "00", lpx, TT_FONT_SANS) + lpx / 2 + pitch - 1) / pitch;
  char buf[48];
  for (int h = 0; h < H; h += every_h) {
    snprintf(buf, sizeof buf, "%d", h);
    tt_note(cv, "index i=%d", h);
    tt_draw_text(cv, r.x + lab_w + h * pitch + side / 2, r.y, buf, lpx, TT_FONT_SANS,
                 h == p->st->head && !p->st->figure ? p->pal->accent : p->pal->fg, TT_ALIGN_CENTER);
  }
  tt_draw_text(cv, r.x, r.y, tt_str(p->st->lang, TT_S_HEAD), type.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  for (int l = 0; l < L; l++) {
    const tt_tensor *t = tt_find_hook(p->tr, l, suffix);
    int y = r.y + top + l * (side + u / 4);
    snprintf(buf, sizeof buf, "%s %d", tt_str(p->st->lang, TT_S_LAYER), l);
    if (l % every_l == 0) {
      tt_note(cv, "layer_label l=%d", l);
      tt_draw_text(cv, r.x, y + side / 2 - lpx * 2 / 3, buf, lpx, TT_FONT_SANS,
                   l == p->st->layer && !p->st->figure ? p->pal->accent : p->pal->fg, TT_ALIGN_LEFT);
    }
    tt_scale ls;
    tt_scale_get(p, t, t->name, &ls);
    if (ls.diverging)
      ls = sc.diverging ? (tt_scale){.diverging = true,
                                     .lo = -fmaxf(sc.hi, ls.hi),
                                     .hi = fmaxf(sc.hi, ls.hi),
                                     .has_masked = ls.has_masked,
                                     .gradient = ls.gradient,
                                     .qty = ls.qty}
                        : ls;
    for (int h = 0; h < (int)t->shape[0]; h++) {
      tt_mat m;
      tt_mat_of(p->tr, t, h, &m);
      SDL_Rect dst = {r.x + lab_w + h * (side + u / 4), y, side, side};
      tt_cells_opts o = {.vis_rows = m.rows, .vis_cols = m.cols, .layer = l, .head = h};
      tt_paint_cells(p, dst, &m, &ls, &o);
      bool cur = l == p->st->layer && h == p->st->head && !p->st->figure;
      if (cur) tt_draw_frame(cv, dst.x - 2, dst.y - 2, dst.w + 4, dst.h + 4, p->pal->accent, 2);
    }
  }
  SDL_Rect lr = {r.x + r.w - legend_w + u, r.y + top, legend_w - u, r.h - top - u < u * 20 ? r.h - top - u : u * 20};
  tt_paint_legend(p, lr, &sc);
}

void tt_paint_qkv(tt_paint *p, SDL_Rect r, int layer, int head) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  static const char *const parts[3] = {"attn.hook_q", "attn.hook_k", "attn.hook_v"};
  static const tt_str_id labels[3] = {TT_S_QKV_Q, TT_S_QKV_K, TT_S_QKV_V};
  const tt_tensor *ts[3];
  float lim = 0;
  for (int i = 0; i < 3; i++) {
    ts[i] = tt_find_hook(p->tr, layer, parts[i]);
    if (!ts[i]) {
      tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, p->pal->warn);
      return;
    }
    tt_scale s;
    tt_scale_get(p, ts[i], ts[i]->name, &s);
    lim = fmaxf(lim, fmaxf(fabsf(s.lo), fabsf(s.hi)));
  }
  tt_scale sc = {.diverging = true, .lo = -lim, .hi = lim, .qty = TT_S_QTY_ACTIVATION};
  int legend_w = tt_legend_width(p, &sc) + u / 2;
  tt_mat m0;
  tt_mat_of(p->tr, ts[0], head, &m0);
  char buf[128];
  int row_w = 0;
  for (int i = 0; i < m0.rows && i < 256; i++) {
    int w = tt_text_width(cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf), u, TT_FONT_SANS);
    if (w > row_w) row_w = w;
  }
  if (row_w > r.w / 6) row_w = r.w / 6;
  int x0 = r.x + row_w + u;
  int pw = (r.x + r.w - legend_w - x0) / 3 - u;
  int ph = r.h - u * 6;
  float cell_h = fminf((float)ph / (float)m0.rows, (float)u * 6);
  for (int i = 0; i < 3; i++) {
    tt_mat m;
    tt_mat_of(p->tr, ts[i], head, &m);
    SDL_Rect dst = {x0 + i * (pw + u), r.y + u * 2, pw, (int)(cell_h * (float)m.rows)};
    // "Q" large, then its question fitted to the panel's width.
    const char *label = tt_str(p->st->lang, labels[i]);
    char fit[160];
    tt_draw_text(cv, dst.x, r.y - u / 4, (char[2]){label[0], 0}, type.big, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
    int qw = tt_text_width(cv->fonts, "QQ", type.big, TT_FONT_BOLD);
    tt_text_fit(cv->fonts, label + 3, type.cell, TT_FONT_SANS, pw - qw, fit, sizeof fit);
    tt_draw_text(cv, dst.x + qw, r.y + u / 4, fit, type.cell, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
    tt_cells_opts o = {.vis_rows = m.rows, .vis_cols = m.cols, .layer = layer, .head = m.slice};
    int pi = tt_paint_cells(p, dst, &m, &sc, &o);
    tt_draw_rect(cv, dst.x - 1, dst.y - 1, dst.w + 2, dst.h + 2, p->pal->dim);
    if (pi >= 0) tt_paint_axis_labels(p, &p->lay->panels[pi], &m, u, i == 0 ? row_w : 0, type.line);
  }
  snprintf(buf, sizeof buf, "%s %d  \xC2\xB7  D = %d", tt_str(p->st->lang, TT_S_HEAD), m0.slice, m0.cols);
  tt_note(cv, "head_d h=%d", m0.slice);
  tt_draw_text(cv, x0, r.y + u * 2 + (int)(cell_h * (float)m0.rows) + u * 2, buf, u, TT_FONT_SANS, p->pal->dim,
               TT_ALIGN_LEFT);
  SDL_Rect lr = {r.x + r.w - legend_w + u / 2, r.y + u * 2, legend_w - u / 2,
                 (int)fmaxf(cell_h * (float)m0.rows, (float)u * 10)};
  tt_paint_legend(p, lr, &sc);
}
