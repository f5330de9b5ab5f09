// cells: the part every matrix view shares: which cells are visible for a zoom and pan,
// the cell image (downsampled when cells are smaller than a pixel: each pixel then
// shows the value of largest magnitude in its block), numbers inside large cells, and
// the panel record used for picking.
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

void tt_view_window(const tt_view_state *st, int rows, int cols, int w, int h, bool square, int unit,
                    tt_cells_opts *o) {
  memset(o, 0, sizeof *o);
  float z = st->zoom < 1 ? 1 : st->zoom;
  int vr = (int)ceilf((float)rows / z), vc = (int)ceilf((float)cols / z);
  // Zoom stops at one cell; an axis whose cells are already large does not zoom further.
  int max_cell = unit * 12;
  int min_r = h / max_cell, min_c = w / max_cell;
  if (square) min_r = min_c = (w < h ? w : h) / max_cell;
  if (vr < min_r) vr = min_r;
  if (vc < min_c) vc = min_c;
  if (vr < 1) vr = 1;
  if (vc < 1) vc = 1;
  if (vr > rows) vr = rows;
  if (vc > cols) vc = cols;
  if (square) {
    int v = vr > vc ? vr : vc;
    vr = v < rows ? v : rows;
    vc = v < cols ? v : cols;
  }
  o->vis_rows = vr;
  o->vis_cols = vc;
  float r0 = st->pan_row, c0 = st->pan_col;
  if (r0 > (float)(rows - vr)) r0 = (float)(rows - vr);
  if (c0 > (float)(cols - vc)) c0 = (float)(cols - vc);
  o->row0 = r0 < 0 ? 0 : r0;
  o->col0 = c0 < 0 ? 0 : c0;
  o->numbers = true;
}

static tt_rgba mix(tt_rgba a, tt_rgba b, float t) {
  tt_rgba c = {(uint8_t)(a.r + (b.r - a.r) * t), (uint8_t)(a.g + (b.g - a.g) * t), (uint8_t)(a.b + (b.b - a.b) * t),
               255};
  return c;
}

static float luminance(tt_rgba c) {
  return 0.2126f * c.r + 0.7152f * c.g + 0.0722f * c.b;
}

// The visible cells of one panel and how they map to the pixels of dst.
typedef struct {
  int r_first, c_first, r_last, c_last;  // visible cells [first, last)
  int nr, nc, out_r, out_c;              // visible cells, drawn blocks (fewer when downsampled)
  bool down;
  float cell_w, cell_h;  // pixels per cell
} cell_window;

static cell_window window_of(const tt_canvas *cv, SDL_Rect dst, const tt_mat *m, const tt_cells_opts *o) {
  cell_window w;
  w.cell_w = (float)dst.w / (float)o->vis_cols, w.cell_h = (float)dst.h / (float)o->vis_rows;
  w.r_first = (int)floorf(o->row0), w.c_first = (int)floorf(o->col0);
  w.r_last = (int)ceilf(o->row0 + (float)o->vis_rows), w.c_last = (int)ceilf(o->col0 + (float)o->vis_cols);
  if (w.r_last > m->rows) w.r_last = m->rows;
  if (w.c_last > m->cols) w.c_last = m->cols;
  w.nr = w.r_last - w.r_first, w.nc = w.c_last - w.c_first;
  // Downsample when there are more cells than pixels (or than the canvas allows).
  int lim_r = dst.h < cv->max_cells ? dst.h : cv->max_cells;
  int lim_c = dst.w < cv->max_cells ? dst.w : cv->max_cells;
  w.out_r = w.nr > lim_r ? lim_r : w.nr, w.out_c = w.nc > lim_c ? lim_c : w.nc;
  w.down = w.out_r < w.nr || w.out_c < w.nc;
  return w;
}

typedef struct {
  float v;
  bool masked;
} agg;

// Folds one row of cells into best (largest finite magnitude so far, -1 when none) and
// best_v (the value that has it): row-major order, so on ties the earlier row keeps its
// value. Branch-free, so that it vectorizes.
static void fold_row(float *restrict best, float *restrict best_v, const float *restrict row, int n) {
  for (int c = 0; c < n; c++) {
    float v = row[c], a = fabsf(v), b = best[c];
    int take = (a <= FLT_MAX) & (a > b);  // NaN and ±inf (masked) are never taken
    best[c] = take ? a : b;
    best_v[c] = take ? v : best_v[c];
  }
}

// Row r of m from column c0, n cells, as floats: in place when they are F32 and aligned,
// else copied into buf.
static const float *mat_row(const tt_mat *m, int r, int c0, int n, float *buf) {
  int64_t at = m->offset + (int64_t)r * m->row_stride + c0;
  const unsigned char *p = (const unsigned char *)m->t->data + (size_t)at * sizeof(float);
  if (m->t->dtype == TT_F32 && (uintptr_t)p % sizeof(float) == 0) return (const float *)(const void *)p;
  for (int c = 0; c < n; c++) buf[c] = tt_tensor_at(m->t, at + c);
  return buf;
}

// One drawn row of a downsampled image: for each of its out_c blocks (the visible cells'
// columns [col_start[j], col_start[j + 1])), the value of largest magnitude over the
// unmasked cells of rows [ra, rb) (masked when all are masked). The rows are folded column
// by column first, then each block's columns: the same value as a scan of the block, order
// aside on exact ties of magnitude. scratch: 3 · w->nc floats.
static void block_row(const tt_mat *m, const cell_window *w, const int *col_start, int ra, int rb, agg *out,
                      float *scratch) {
  int nc = w->nc;
  float *best = scratch, *best_v = scratch + nc, *buf = scratch + 2 * nc;
  for (int c = 0; c < nc; c++) best[c] = -1.0f, best_v[c] = 0.0f;
  for (int r = ra; r < rb; r++) fold_row(best, best_v, mat_row(m, r, w->c_first, nc, buf), nc);
  for (int j = 0; j < w->out_c; j++) {
    int k = col_start[j];
    float bk = best[k];
    for (int c = k + 1; c < col_start[j + 1]; c++) {  // branch-free: the largest is anywhere
      bool larger = best[c] > bk;
      k = larger ? c : k;
      bk = larger ? best[c] : bk;
    }
    out[j] = bk < 0 ? (agg){0, true} : (agg){best_v[k], false};
  }
}

// The cell image (one block per drawn cell, hatched where masked), cached under key.
static void cell_image(tt_paint *p, SDL_Rect dst, const tt_mat *m, const tt_scale *s, const tt_cells_opts *o,
                       const cell_window *w, uint64_t key) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int out_r = w->out_r, out_c = w->out_c, nr = w->nr, nc = w->nc;
  tt_rgba *rgb = malloc(sizeof(tt_rgba) * (size_t)out_r * (size_t)out_c);
  uint8_t *mask = malloc((size_t)out_r * (size_t)out_c);
  agg *row = malloc(sizeof(agg) * (size_t)out_c);
  float *scratch = malloc(sizeof(float) * 3 * (size_t)nc);
  int *col_start = malloc(sizeof(int) * ((size_t)out_c + 1));  // drawn column j: cells [col_start[j], [j + 1])
  if (rgb && mask && row && scratch && col_start) {
    bool any_mask = false;
    for (int j = 0; j <= out_c; j++) col_start[j] = (int)((int64_t)j * nc / out_c);
    for (int i = 0; i < out_r; i++) {
      int ra = w->r_first + (int)((int64_t)i * nr / out_r), rb = w->r_first + (int)((int64_t)(i + 1) * nr / out_r);
      if (w->down) block_row(m, w, col_start, ra, rb, row, scratch);
      for (int j = 0; j < out_c; j++) {
        agg a = w->down ? row[j] : (agg){tt_mat_at(m, ra, w->c_first + j), false};
        if (!w->down && !isfinite(a.v)) a.masked = true;
        size_t k = (size_t)i * (size_t)out_c + (size_t)j;
        mask[k] = a.masked;
        any_mask |= a.masked;
        tt_rgba c = a.masked ? pal->masked : tt_scale_color(s, a.v);
        if (o->table && !a.masked) c = mix(c, pal->bg, 0.55f);
        rgb[k] = c;
      }
    }
    tt_cells cells = {
        .rows = out_r,
        .cols = out_c,
        .rgb = rgb,
        .masked = any_mask ? mask : NULL,
        .cell_w = w->down ? (float)dst.w / (float)out_c : w->cell_w,
        .cell_h = w->down ? (float)dst.h / (float)out_r : w->cell_h,
        .off_x = w->down ? 0 : (o->col0 - (float)w->c_first) * w->cell_w,
        .off_y = w->down ? 0 : (o->row0 - (float)w->r_first) * w->cell_h,
        .grid = !w->down,
        .grid_rgb = pal->grid,
        .mask_bg = pal->masked,
        .mask_line = pal->masked_line,
    };
    cv->cells(cv, key, &cells, dst);
  }
  free(rgb);
  free(mask);
  free(row);
  free(scratch);
  free(col_start);
}

// Numbers inside cells that are large enough to hold them.
static void cell_numbers(tt_paint *p, SDL_Rect dst, const tt_mat *m, const tt_scale *s, const tt_cells_opts *o,
                         const cell_window *w) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  float cell_w = w->cell_w, cell_h = w->cell_h;
  int px = (int)fminf((float)p->unit * 1.2f, fminf(cell_h * 0.45f, cell_w * 0.22f));
  char buf[32];
  if (px < tt_cell_number_min(p->unit) || tt_text_width(cv->fonts,
                                                        "\xE2\x88\x92"
                                                        "0.00",
                                                        px, TT_FONT_SANS) +
                                                  6 >
                                              cell_w)
    return;
  cv->clip(cv, &dst);
  for (int r = w->r_first; r < w->r_last; r++) {
    for (int c = w->c_first; c < w->c_last; c++) {
      float v = tt_mat_at(m, r, c);
      int x = dst.x + (int)(((float)c - o->col0 + 0.5f) * cell_w);
      int y = dst.y + (int)(((float)r - o->row0 + 0.5f) * cell_h) - px * 6 / 10;
      tt_rgba bgc = isfinite(v) ? tt_scale_color(s, v) : pal->masked;
      if (o->table && isfinite(v)) bgc = mix(bgc, pal->bg, 0.55f);
      tt_rgba fg = luminance(bgc) > 140 ? (tt_rgba){0, 0, 0, 255} : (tt_rgba){255, 255, 255, 255};
      tt_note(cv, "cell r=%d c=%d", r, c);
      tt_draw_text(cv, x, y, tt_fmt_value(v, buf, sizeof buf), px, TT_FONT_SANS, fg, TT_ALIGN_CENTER);
    }
  }
  cv->clip(cv, NULL);
}

int tt_paint_cells(tt_paint *p, SDL_Rect dst, const tt_mat *m, const tt_scale *s, const tt_cells_opts *o) {
  tt_canvas *cv = p->cv;
  if (dst.w <= 0 || dst.h <= 0 || o->vis_rows <= 0 || o->vis_cols <= 0) return -1;
  cell_window w = window_of(cv, dst, m, o);
  uint64_t key = tt_hash(0, &m->t->data, sizeof m->t->data);
  float kf[8] = {o->row0, o->col0, (float)o->vis_rows, (float)o->vis_cols,
                 s->lo,   s->hi,   (float)o->table,    (float)p->st->theme};
  key = tt_hash(key, kf, sizeof kf);
  key = tt_hash(key, &m->offset, sizeof m->offset);
  if (!cv->cells_cached(cv, key, dst)) {
    if (cv->budget_ns && cv->images_made == 0) cv->deadline_ns = tt_now_ns() + cv->budget_ns;
    if (cv->budget_ns && cv->images_made > 0 && tt_now_ns() > cv->deadline_ns) {
      cv->fill(cv, dst.x, dst.y, dst.w, dst.h, mix(p->pal->grid, p->pal->bg, 0.5f));  // its place, until made
      if (cv->deferred) (*cv->deferred)++;
    } else {
      cell_image(p, dst, m, s, o, &w, key);
      cv->images_made++;
    }
  }

  // What the texts of this panel (numbers, labels, legend) belong to.
  tt_note_scope(cv, "panel=cells hook=%s head=%d", m->t->name ? m->t->name : "?", m->slice);
  if ((o->numbers || o->table) && !w.down) cell_numbers(p, dst, m, s, o, &w);

  tt_layout *lay = p->lay;
  if (lay->n_panels >= TT_MAX_PANELS) return -1;
  lay->panels[lay->n_panels] = (tt_panel){.rect = dst,
                                          .t = m->t,
                                          .offset = m->offset,
                                          .row_stride = m->row_stride,
                                          .rows = m->rows,
                                          .cols = m->cols,
                                          .row0 = o->row0,
                                          .col0 = o->col0,
                                          .cell_w = w.cell_w,
                                          .cell_h = w.cell_h,
                                          .layer = o->layer,
                                          .head = o->head,
                                          .row_axis = m->row_axis,
                                          .col_axis = m->col_axis};
  return lay->n_panels++;
}

// The topmost panel with a cell at (x, y), and that cell; -1 when none.
static int panel_at(const tt_layout *lay, int x, int y, int *row, int *col) {
  for (int i = lay->n_panels - 1; i >= 0; i--) {
    const tt_panel *pn = &lay->panels[i];
    const SDL_Rect *r = &pn->rect;
    if (x < r->x || y < r->y || x >= r->x + r->w || y >= r->y + r->h) continue;
    *row = (int)floorf(pn->row0 + ((float)(y - r->y) + 0.5f) / pn->cell_h);
    *col = (int)floorf(pn->col0 + ((float)(x - r->x) + 0.5f) / pn->cell_w);
    if (*row >= 0 && *col >= 0 && *row < pn->rows && *col < pn->cols) return i;
  }
  return -1;
}

// The centre of cell (row, col) of panel i, when tt_render_pick finds that cell there.
static bool centre_of(const tt_layout *lay, int i, int row, int col, int *x, int *y) {
  const tt_panel *pn = &lay->panels[i];
  if (row < 0 || col < 0 || row >= pn->rows || col >= pn->cols) return false;
  int px = pn->rect.x + (int)floorf(((float)col - pn->col0 + 0.5f) * pn->cell_w);
  int py = pn->rect.y + (int)floorf(((float)row - pn->row0 + 0.5f) * pn->cell_h);
  int r, c;
  if (panel_at(lay, px, py, &r, &c) != i || r != row || c != col) return false;
  *x = px, *y = py;
  return true;
}

bool tt_layout_point_at(const tt_layout *lay, int head, int row, int col, int *x, int *y) {
  for (int pass = 0; pass < 2; pass++)  // the head's panels first, then any
    for (int i = lay->n_panels - 1; i >= 0; i--)
      if ((pass || lay->panels[i].head == head) && centre_of(lay, i, row, col, x, y)) return true;
  return false;
}

bool tt_render_pick(const tt_layout *lay, const tt_trace *tr, int x, int y, tt_pick *out) {
  int row, col, i = panel_at(lay, x, y, &row, &col);
  if (i < 0) return false;
  const tt_panel *pn = &lay->panels[i];
  memset(out, 0, sizeof *out);
  out->panel = i;
  out->t = pn->t;
  out->layer = pn->layer;
  out->head = pn->head;
  out->row = row;
  out->col = col;
  out->value = tt_tensor_at(pn->t, pn->offset + (int64_t)row * pn->row_stride + col);
  tt_axis_label(tr, NULL, pn->row_axis, row, out->row_label, sizeof out->row_label);
  tt_axis_label(tr, NULL, pn->col_axis, col, out->col_label, sizeof out->col_label);
  return true;
}

int tt_pick_cell(tt_paint *p, SDL_Rect r, const tt_mat *m, int row, int col) {
  tt_layout *lay = p->lay;
  if (lay->n_panels >= TT_MAX_PANELS || r.w <= 0 || r.h <= 0) return -1;
  lay->panels[lay->n_panels] = (tt_panel){.rect = r,
                                          .t = m->t,
                                          .offset = m->offset,
                                          .row_stride = m->row_stride,
                                          .rows = m->rows,
                                          .cols = m->cols,
                                          .row0 = (float)row,
                                          .col0 = (float)col,
                                          .cell_w = (float)r.w,
                                          .cell_h = (float)r.h,
                                          .layer = -1,
                                          .head = m->slice,
                                          .row_axis = m->row_axis,
                                          .col_axis = m->col_axis};
  return lay->n_panels++;
}
