// compare_mat: the matrices of a comparison (a, b and a − b of one head or one 2-D tensor)
// laid out together so that they are as large as the area allows: the token labels once
// per row of panels, one colour legend for a and b (they share a scale) and one for the
// difference, in a row, as 2 × 2, or stacked for wide matrices (T × C), whichever gives
// the largest cells. In a row the two legends may stand one above the other after the
// difference, each titled with the panels it colours ("A, B", "A − B"): on a projector,
// legends beside the panels took half the row's width. Cells, labels and legends are the
// heatmap's own pieces.
#include <math.h>
#include <string.h>

#include "derived_int.h"

void tt_paint_compare_label(tt_paint *p, SDL_Rect r, int side, const tt_compare *cmp, const tt_trace *tr) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  static const char *const letters[3] = {"A", "B", "A \xE2\x88\x92 B"};
  int px = type.large;
  tt_rgba col = side == 2 ? p->pal->accent : p->pal->fg;
  tt_draw_text(cv, r.x, r.y, letters[side], px, TT_FONT_BOLD, col, TT_ALIGN_LEFT);
  int x = r.x + tt_text_width(cv->fonts, letters[side], px, TT_FONT_BOLD) + u / 2;
  char buf[400], fit[400];
  if (side < 2) {
    const char *label = side == 0 ? cmp->label_a : cmp->label_b;
    const char *prompt = tr ? tt_trace_meta(tr, "prompt") : NULL;
    char shown[300];
    size_t o = 0;  // the prompt on one line: a line break shows as ↵
    for (const char *c = prompt ? prompt : ""; *c && o + 4 < sizeof shown; c++) {
      if (*c == '\n') {
        memcpy(shown + o, "\xE2\x86\xB5", 3);
        o += 3;
      } else {
        shown[o++] = *c;
      }
    }
    shown[o] = 0;
    snprintf(buf, sizeof buf, "%s  \xE2\x80\x9C%s\xE2\x80\x9D", label ? label : "", shown);
  } else {
    // The difference is taken position by position: say so when the tokens there differ.
    bool differ = false;
    for (int i = 0; tr && i < tt_trace_n_tokens(tr) && !differ; i++)
      differ = tt_trace_token(tr, i) && strstr(tt_trace_token(tr, i), "\xE2\x89\xA0");
    snprintf(buf, sizeof buf, "%s%s", tt_str(p->st->lang, TT_S_CMP_COLOURS),
             differ ? tt_str(p->st->lang, TT_S_CMP_TOKENS_DIFFER) : "");
  }
  tt_text_fit(cv->fonts, buf, type.label, TT_FONT_SANS, r.x + r.w - x - u / 2, fit, sizeof fit);
  tt_note(cv, "%s", side < 2 ? "compare_side" : "prose");
  tt_draw_text(cv, x, r.y + (px - type.label) / 2, fit, type.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
}

static bool text_axis(int axis) {
  return axis == 'T' || axis == 'L';
}

// The two traces have other tokens (or another count of them).
static bool tokens_differ(const tt_trace *a, const tt_trace *b) {
  if (!a || !b) return false;
  if (tt_trace_n_tokens(a) != tt_trace_n_tokens(b)) return true;
  for (int i = 0; i < tt_trace_n_tokens(a); i++) {
    const char *x = tt_trace_token(a, i), *y = tt_trace_token(b, i);
    if (x && y && strcmp(x, y) != 0) return true;
  }
  return false;
}

// Widest label along an axis (the first 256 indices).
static int label_width(tt_paint *p, const tt_mat *m, int axis, int n, int px) {
  char buf[160];
  int w = 0;
  for (int i = 0; i < n && i < 256; i++) {
    int lw = tt_text_width(p->cv->fonts, tt_axis_label(p->tr, p->ex, axis, i, buf, sizeof buf), px, TT_FONT_SANS);
    if (lw > w) w = lw;
  }
  if (!text_axis(axis)) {
    snprintf(buf, sizeof buf, "%d", n);
    w = tt_text_width(p->cv->fonts, buf, px, TT_FONT_SANS);
  } else if (n > 24) {
    w += tt_text_width(p->cv->fonts, "000 ", px, TT_FONT_SANS);
  }
  (void)m;
  return w;
}

// One arrangement: panel rows, each a list of sides, with a legend after the sides that
// end a colour scale.
typedef struct {
  int n_rows;
  int rows[3][3];
  int n_in[3];
  bool legend_after[3][3];
  bool stacked;  // one row whose legends stand one above the other after its last panel
  float cell_w, cell_h;
  int col_h;
  int row_room;  // height of a row of panels beside its labels: cells, or a taller legend
} plan;

static void add_row(plan *pl, const int *sides, int k, int n_sides) {
  int r = pl->n_rows++;
  pl->n_in[r] = k;
  for (int i = 0; i < k; i++) {
    pl->rows[r][i] = sides[i];
    // a and b share a legend when they sit side by side; the difference has its own.
    bool next_shares = i + 1 < k && sides[i] == 0 && sides[i + 1] == 1;
    pl->legend_after[r][i] = !next_shares;
  }
  (void)n_sides;
}

// The sizes every arrangement shares.
typedef struct {
  int u, px, gap, row_w, lead, legend_w, legend_h, label_h, col_w_label;
  int legend_w_titled;  // a legend's width with its title (stacked legends)
  int col_gap;          // between panels side by side: room for the index labels under their edges
  bool own_rows, square, table;
  tt_cells_opts o;
} trio_sizes;

// The width the legend after panel i of row rr takes (0: none there).
static int legend_room(const plan *pl, const trio_sizes *z, int rr, int i) {
  if (!pl->legend_after[rr][i]) return 0;
  return pl->stacked ? z->legend_w_titled : z->legend_w;
}

// The height the legends of a row need at least: one, or two with a gap.
static int legends_min_height(const plan *pl, const trio_sizes *z) {
  return pl->stacked ? 2 * z->legend_h + z->gap : z->legend_h;
}

// Fills pl's cell size and column-label height for r; the cell area it gives.
static float fit_plan(plan *pl, SDL_Rect r, const trio_sizes *z, const tt_mat *m0) {
  int u = z->u, px = z->px;
  float cw = INFINITY;
  for (int rr = 0; rr < pl->n_rows; rr++) {
    int legends_w = 0;
    for (int i = 0; i < pl->n_in[rr]; i++) legends_w += legend_room(pl, z, rr, i);
    float w = (float)(r.w - z->lead * (z->own_rows ? pl->n_in[rr] : 1) - (pl->n_in[rr] - 1) * z->col_gap - legends_w);
    cw = fminf(cw, w / (float)(pl->n_in[rr] * z->o.vis_cols));
  }
  // Column labels lie flat under wide cells, else they are turned (and cut at a quarter of
  // the height of a row of panels).
  int turned_max = r.h / pl->n_rows / 4 > u * 3 ? r.h / pl->n_rows / 4 : u * 3;
  int col_h = !text_axis(m0->col_axis) ? px * 3 / 2
              : (float)(z->col_w_label + px / 2) <= cw
                  ? px * 3 / 2
                  : (z->col_w_label + px / 2 < turned_max ? z->col_w_label + px / 2 : turned_max);
  float h = (float)(r.h - pl->n_rows * (z->label_h + col_h + z->gap));
  float ch = h / (float)(pl->n_rows * z->o.vis_rows);
  pl->row_room = (int)(h / (float)pl->n_rows);
  float cap = (float)u * 8;
  if (z->square)
    cw = ch = fminf(fminf(cw, ch), cap);
  else {
    cw = fminf(cw, cap * 2);
    ch = fminf(ch, cap);
  }
  pl->cell_w = cw;
  pl->cell_h = ch;
  pl->col_h = col_h;
  return cw > 0 && ch > 0 ? cw * ch : -1;
}

// The height of a row of panels: the cells, or more where the legend wants room for its
// numbers (as much as the area has).
static int row_height(const plan *pl, const trio_sizes *z, int ph) {
  int want = tt_max_i(legends_min_height(pl, z), pl->stacked ? z->u * 12 + z->gap : z->u * 6);
  int legend = z->table ? 0 : tt_min_i(want, pl->row_room);
  return tt_max_i(ph, legend);
}

// The arrangement with the largest cells: in a row (its legends beside the panels, or one
// above the other at its end), 2 × 2 (a b / d), stacked.
static bool best_plan(SDL_Rect r, const trio_sizes *z, const tt_mat *m0, int n, plan *out) {
  plan cands[4];
  int n_cands = 0;
  static const int all[3] = {0, 1, 2};
  memset(cands, 0, sizeof cands);
  add_row(&cands[n_cands++], all, n, n);
  if (n == 3) {
    if (!z->table) {
      add_row(&cands[n_cands], all, n, n);
      cands[n_cands].legend_after[0][1] = false;
      cands[n_cands++].stacked = true;
    }
    add_row(&cands[n_cands], all, 2, n);
    add_row(&cands[n_cands++], all + 2, 1, n);
  }
  for (int i = 0; i < n; i++) add_row(&cands[n_cands], all + i, 1, n);
  n_cands++;
  int best = -1;
  float best_area = -1;
  // Plans whose rows leave the legends room come first; the others only if none does.
  for (int pass = 0; pass < 2 && best < 0; pass++)
    for (int c = 0; c < n_cands; c++) {
      float area = fit_plan(&cands[c], r, z, m0);
      bool legend_fits = z->table || cands[c].row_room >= legends_min_height(&cands[c], z);
      if ((legend_fits || pass == 1) && area > best_area) best_area = area, best = c;
    }
  if (best >= 0) *out = cands[best];
  return best >= 0;
}

// A and B's legend (one scale) above the difference's, each titled with its panels.
static void stacked_legends(tt_paint *p, SDL_Rect r, int gap, const tt_scale *sc) {
  int h = (r.h - gap) / 2;
  snprintf(p->cv->trace, sizeof p->cv->trace, "B");
  tt_paint_legend_titled(p, (SDL_Rect){r.x, r.y, r.w, h}, &sc[1], "A, B");
  snprintf(p->cv->trace, sizeof p->cv->trace, "D");
  tt_paint_legend_titled(p, (SDL_Rect){r.x, r.y + h + gap, r.w, h}, &sc[2], "A \xE2\x88\x92 B");
}

// The panels as planned, each with its label, row labels where they belong and legends.
static void draw_plan(tt_paint *p, SDL_Rect r, const plan *pl, trio_sizes *z, const tt_compare *cmp, const tt_mat *m,
                      const tt_trace *const *trs, const tt_scale *sc, int groups[3][2]) {
  int u = z->u, lead = z->lead;
  int pw = (int)(pl->cell_w * (float)z->o.vis_cols), ph = (int)(pl->cell_h * (float)z->o.vis_rows);
  int y = r.y;
  for (int rr = 0; rr < pl->n_rows; rr++) {
    int x = r.x + lead;
    int row_h = row_height(pl, z, ph);
    for (int i = 0; i < pl->n_in[rr]; i++) {
      int s = pl->rows[rr][i];
      tt_paint q = *p;
      q.tr = trs[s] ? trs[s] : p->tr;
      if (z->own_rows && i > 0) x += lead;
      bool labels_here = i == 0 || z->own_rows;
      snprintf(q.cv->trace, sizeof q.cv->trace, "%s", s == 0 ? "A" : s == 1 ? "B" : "D");
      int label_w = pw + (pl->legend_after[rr][i] ? legend_room(pl, z, rr, i) : z->col_gap);
      tt_paint_compare_label(&q,
                             (SDL_Rect){labels_here ? x - lead : x, y, label_w + (labels_here ? lead : 0), z->label_h},
                             s, cmp, trs[s]);
      SDL_Rect dst = {x, y + z->label_h, pw, ph};
      z->o.head = m[s].slice;
      groups[s][0] = p->lay->n_panels;
      int pi = tt_paint_cells(&q, dst, &m[s], &sc[s], &z->o);
      groups[s][1] = p->lay->n_panels;
      tt_draw_rect(q.cv, dst.x - 1, dst.y - 1, dst.w + 2, dst.h + 2, q.pal->dim);
      if (pi >= 0) tt_paint_axis_labels(&q, &p->lay->panels[pi], &m[s], z->px, labels_here ? z->row_w : 0, pl->col_h);
      x += pw;
      if (pl->stacked && pl->legend_after[rr][i]) {
        stacked_legends(&q, (SDL_Rect){x + u / 2, dst.y, z->legend_w_titled - u / 2, row_h}, z->gap, sc);
        x += z->legend_w_titled;
      } else if (pl->legend_after[rr][i]) {
        if (!z->table) tt_paint_legend(&q, (SDL_Rect){x + u / 2, dst.y, z->legend_w - u / 2, row_h}, &sc[s]);
        x += z->legend_w;
      } else {
        x += z->col_gap;
      }
    }
    y += z->label_h + row_h + pl->col_h + z->gap;
  }
  p->cv->trace[0] = 0;
}

bool tt_paint_matrix_trio(tt_paint *p, SDL_Rect r, const tt_compare *cmp, const tt_tensor *const *t,
                          const tt_trace *const *trs, const tt_scale *sc, int n, bool table, int groups[3][2]) {
  const tt_view_state *st = p->st;
  tt_mat m[3];
  memset(m, 0, sizeof m);
  if (n < 1 || n > 3) return false;
  for (int i = 0; i < n; i++)
    if (!t[i] || !tt_mat_of(trs[i] ? trs[i] : p->tr, t[i], st->head, &m[i])) return false;
  int R = m[0].rows, K = m[0].cols;
  if (n >= 2 && (m[1].rows != R || m[1].cols != K)) return false;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  trio_sizes z = {.u = u, .px = u, .gap = u, .square = m[0].row_axis == 'T' && m[0].col_axis == 'T', .table = table};
  // Each side is labelled with its own tokens; when they differ every panel gets its row labels.
  z.own_rows = text_axis(m[0].row_axis) && n >= 2 && tokens_differ(trs[0], trs[1]);
  z.row_w = label_width(p, &m[0], m[0].row_axis, R, z.px);
  for (int i = 1; z.own_rows && i < n; i++) {
    tt_paint qi = *p;
    qi.tr = trs[i] ? trs[i] : p->tr;
    int w = label_width(&qi, &m[i], m[i].row_axis, R, z.px);
    if (w > z.row_w) z.row_w = w;
  }
  if (z.row_w > r.w / (z.own_rows ? 9 : 6)) z.row_w = r.w / (z.own_rows ? 9 : 6);
  z.lead = z.row_w + z.px / 2;  // row labels left of each panel row
  for (int i = 0; i < n; i++) {
    z.legend_w = tt_max_i(z.legend_w, u / 2 + tt_legend_width(p, &sc[i]) + u / 2);
    z.legend_w_titled = tt_max_i(z.legend_w_titled, u / 2 + tt_legend_width_titled(p, &sc[i]) + u / 2);
    z.legend_h = tt_max_i(z.legend_h, tt_legend_min_height(p, &sc[i]));
  }
  z.label_h = type.line_loose;
  z.col_gap = z.gap;
  if (!text_axis(m[0].col_axis)) {  // an index centred on a panel's last columns reaches past its edge
    char last[24];
    snprintf(last, sizeof last, "%d", K - 1);
    z.col_gap = tt_max_i(z.gap, tt_text_width(p->cv->fonts, last, z.px, TT_FONT_SANS) + z.px / 2);
  }
  z.col_w_label = label_width(p, &m[0], m[0].col_axis, K, z.px);
  tt_view_window(st, R, K, r.w / n, r.h / 2, z.square, u, &z.o);
  z.o.numbers = true;
  z.o.table = table;
  z.o.layer = st->layer;
  plan pl;
  if (!best_plan(r, &z, &m[0], n, &pl)) return false;
  int pw = (int)(pl.cell_w * (float)z.o.vis_cols), ph = (int)(pl.cell_h * (float)z.o.vis_rows);
  if (pw < 4 || ph < 4) return false;
  draw_plan(p, r, &pl, &z, cmp, m, trs, sc, groups);
  return true;
}
