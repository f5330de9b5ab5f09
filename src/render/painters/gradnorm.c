// gradnorm: the size of the gradient through the model, from a trace made with --grad.
// Left: ‖∂L/∂h‖ (over all T × C entries) of the residual stream at each block, before
// the block (resid_pre), after attention (resid_mid) and after the FFN (resid_post): the
// residual "gradient highway". Right: ‖∂L/∂W‖ of each weight matrix, per block, and of the
// embeddings and unembedding. Bars are to one scale per side; every number is the norm.
// The rows take the largest type that fits: blocks apart or packed, in one column or more;
// where none is readable the view says so instead of drawing them smaller.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

enum { GN_MIN_PX = 10, GN_MAX_COLS = 4 };

static const char *const resid_parts[3] = {"hook_resid_pre", "hook_resid_mid", "hook_resid_post"};
static const char *const matrices[4] = {"attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj"};
static const char *const outer[3] = {"wte", "wpe", "lm_head"};

// One bar: its label, the hook whose norm it shows, the norm.
typedef struct {
  char label[64], hook[96], num[32];  // num: v as printed
  double v;
  int group;  // the block it belongs to (groups are drawn apart, in order)
} gn_row;

// The rows of one side, in the order they are drawn.
typedef struct {
  gn_row *rows;
  int n, groups;
  double vmax;
  size_t widest;      // index of the longest label (labels are ASCII, drawn monospaced)
  size_t widest_num;  // index of the longest number
  bool open;          // the current group has no row yet
  tt_render *rc;      // where the norms are kept
} gn_list;

// How a side's rows are laid out: px type on lines of line pixels, gap pixels between
// blocks, in cols columns of col_w with label_w for labels and num_w for the norms.
typedef struct {
  int px, line, gap, cols, col_w, label_w, num_w;
} gn_layout;

static double norm_of(const tt_tensor *t) {
  double s = 0;
  int64_t n = t ? tt_tensor_numel(t) : 0;
  if (t && t->dtype == TT_F32) {  // read in place: most gradients are float32
    const float *f = t->data;
    for (int64_t i = 0; i < n; i++) s += (double)f[i] * f[i];
    return sqrt(s);
  }
  for (int64_t i = 0; i < n; i++) {
    double v = tt_tensor_at(t, i);
    s += v * v;
  }
  return sqrt(s);
}

double tt_norm_cached(tt_render *rc, const tt_tensor *t) {
  int64_t n = tt_tensor_numel(t);
  for (int i = 0; i < rc->n_norms; i++)
    if (rc->norms[i].data == t->data && rc->norms[i].numel == n && t->data) return rc->norms[i].norm;
  double v = norm_of(t);
  if (rc->n_norms < TT_NORM_CACHE && t->data) rc->norms[rc->n_norms++] = (tt_norm_entry){t->data, n, v};
  return v;
}

static void begin_group(gn_list *l) {
  l->open = true;
}

// Adds hook's row when the trace holds it (room for every row is made by the caller).
static void add_row(gn_list *l, const tt_trace *tr, const char *hook, const char *label) {
  const tt_tensor *t = tt_trace_find(tr, hook);
  if (!t) return;
  if (l->open) l->groups++, l->open = false;
  gn_row *r = &l->rows[l->n];
  snprintf(r->label, sizeof r->label, "%s", label);
  snprintf(r->hook, sizeof r->hook, "%s", hook);
  r->v = tt_norm_cached(l->rc, t);
  tt_fmt_num(r->v, "%.4g", r->num, sizeof r->num);
  r->group = l->groups - 1;
  l->vmax = fmax(l->vmax, r->v);
  if (strlen(r->label) > strlen(l->rows[l->widest].label)) l->widest = (size_t)l->n;
  if (strlen(r->num) > strlen(l->rows[l->widest_num].num)) l->widest_num = (size_t)l->n;
  l->n++;
}

// The residual stream, from the output back to the input: the order the gradient flows in.
static void list_resid(gn_list *l, const tt_trace *tr, int L) {
  char name[96], label[64];
  for (int b = L - 1; b >= 0; b--) {
    begin_group(l);
    for (int k = 2; k >= 0; k--) {
      snprintf(name, sizeof name, "grad.blocks.%d.%s", b, resid_parts[k]);
      snprintf(label, sizeof label, "%d %s", b, resid_parts[k] + 5);
      add_row(l, tr, name, label);
    }
  }
}

// W_E, W_P and a separate W_U, then the block matrices block by block.
static void list_weights(gn_list *l, const tt_trace *tr, int L) {
  char name[96], label[64];
  begin_group(l);
  for (int k = 0; k < 3; k++) {
    snprintf(name, sizeof name, "grad.%s.weight", outer[k]);
    add_row(l, tr, name, outer[k]);
  }
  for (int b = L - 1; b >= 0; b--) {
    begin_group(l);
    for (int k = 0; k < 4; k++) {
      snprintf(name, sizeof name, "grad.h.%d.%s.weight", b, matrices[k]);
      snprintf(label, sizeof label, "%d %s", b, matrices[k]);
      add_row(l, tr, name, label);
    }
  }
}

// Column c's rows and block gaps when the groups are dealt out per_col to a column.
static void column_extent(const gn_list *l, int c, int per_col, int *rows, int *gaps) {
  *rows = *gaps = 0;
  for (int i = 0; i < l->n; i++) {
    if (l->rows[i].group / per_col != c) continue;
    (*rows)++;
    if (i > 0 && l->rows[i].group != l->rows[i - 1].group && l->rows[i - 1].group / per_col == c) (*gaps)++;
  }
}

// The layout of l in cols columns, blocks apart (a gap of half a line) or packed, in r;
// its px is 0 when the columns are too narrow.
static gn_layout try_layout(tt_paint *p, const gn_list *l, SDL_Rect r, int cols, bool apart) {
  gn_layout g = {0};
  int per_col = (l->groups + cols - 1) / cols;
  double line = r.h;
  for (int c = 0; c < cols; c++) {
    int rows, gaps;
    column_extent(l, c, per_col, &rows, &gaps);
    if (rows > 0) line = fmin(line, r.h / (rows + (apart ? gaps * 0.5 : 0)));
  }
  int body = tt_type_for(p->unit).body;
  g.px = (int)fmin(body, line * 3 / 4);
  g.line = (int)fmin(line, g.px * 3 / 2);
  g.gap = apart ? g.line / 2 : 0;
  g.cols = cols;
  for (; g.px > 0; g.px = g.px * g.col_w / (g.label_w + g.num_w + g.px * 3)) {  // smaller type where too wide
    g.col_w = (r.w - (cols - 1) * g.px * 2) / cols;
    g.label_w = tt_text_width(p->cv->fonts, l->rows[l->widest].label, g.px, TT_FONT_MONO) + g.px / 2;
    g.num_w = tt_text_width(p->cv->fonts, l->rows[l->widest_num].num, g.px, TT_FONT_SANS) + g.px;
    if (g.col_w >= g.label_w + g.num_w + g.px * 3) break;
  }
  return g;
}

// The layout with the largest type, or one with fewer columns, then with blocks apart,
// whose type is at least four fifths of it.
static gn_layout best_layout(tt_paint *p, const gn_list *l, SDL_Rect r) {
  gn_layout all[GN_MAX_COLS * 2] = {{0}}, best = {0};
  int n = 0;
  for (int cols = 1; cols <= GN_MAX_COLS && cols <= l->groups; cols++)
    for (int apart = 1; apart >= 0; apart--) {
      all[n] = try_layout(p, l, r, cols, apart);
      if (all[n].px > best.px) best = all[n];
      n++;
    }
  for (int i = 0; i < n; i++)
    if (all[i].px * 5 >= best.px * 4) return all[i];
  return best;
}

static void bar_row(tt_paint *p, const gn_layout *g, int x, int y, const gn_row *row, double vmax) {
  tt_canvas *cv = p->cv;
  tt_note(cv, "gn_label hook=%s", row->hook);
  tt_draw_text(cv, x + g->label_w - g->px / 2, y, row->label, g->px, TT_FONT_MONO, p->pal->fg, TT_ALIGN_RIGHT);
  int bar_w = g->col_w - g->label_w - g->num_w;
  int len = vmax > 0 && bar_w > 0 ? (int)lround(row->v / vmax * bar_w) : 0;
  if (len > 0) cv->fill(cv, x + g->label_w, y + g->px / 8, len, g->px, p->pal->accent);
  tt_note(cv, "gn_norm hook=%s", row->hook);
  tt_draw_text(cv, x + g->label_w + len + g->px / 2, y, row->num, g->px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
}

static void draw_rows(tt_paint *p, SDL_Rect r, const gn_list *l, const gn_layout *g) {
  int per_col = (l->groups + g->cols - 1) / g->cols, col = -1, y = r.y;
  for (int i = 0; i < l->n; i++) {
    const gn_row *row = &l->rows[i];
    if (row->group / per_col != col)
      col = row->group / per_col, y = r.y;
    else if (row->group != l->rows[i - 1].group)
      y += g->gap;
    bar_row(p, g, r.x + col * (g->col_w + g->px * 2), y, row, l->vmax);
    y += g->line;
  }
}

static int n_layers(const tt_trace *tr) {
  tt_config cfg;
  return tt_trace_config(tr, &cfg) ? cfg.n_layer : 0;
}

static bool has_weight_grads(const tt_trace *tr) {
  for (size_t i = 0; i < tt_trace_count(tr); i++) {
    const char *name = tt_trace_get(tr, i)->name;
    if (strncmp(name, "grad.", 5) == 0 && strstr(name, ".weight")) return true;
  }
  return false;
}

// The sides (the stream; the weights when the trace has their gradients) under their
// headings, every row in the same type size; where that would be unreadable, a line
// that says so instead.
static void paint_sides(tt_paint *p, SDL_Rect r, gn_list *sides, int n_sides) {
  const tt_type type = tt_type_for(p->unit);
  const int headings[2] = {TT_S_GN_RESID, TT_S_GN_WEIGHTS};
  int gap = p->unit * 2, px = type.body;
  SDL_Rect area[2], rows[2];  // a side; where its rows go, under its heading
  gn_layout g[2];
  for (int s = 0; s < n_sides; s++) {
    int w = n_sides == 1 ? r.w : s == 0 ? (r.w - gap) * 45 / 100 : r.w - area[0].w - gap;
    area[s] = (SDL_Rect){s == 0 ? r.x : area[0].x + area[0].w + gap, r.y, w, r.h};
    int head = tt_para_height(p->cv, w - p->unit, tt_str(p->st->lang, headings[s]), type.large, TT_FONT_BOLD);
    rows[s] = (SDL_Rect){area[s].x, r.y + head + type.line / 2, w, r.h - head - type.line / 2};
    g[s] = best_layout(p, &sides[s], rows[s]);
    if (sides[s].n > 0 && g[s].px >= GN_MIN_PX && g[s].px < px) px = g[s].px;
  }
  for (int s = 0; s < n_sides; s++) {
    if (sides[s].n == 0) continue;
    tt_draw_para(p->cv, area[s].x, r.y, area[s].w - p->unit, tt_str(p->st->lang, headings[s]), type.large, TT_FONT_BOLD,
                 p->pal->fg);
    if (g[s].px < GN_MIN_PX) {
      tt_note(p->cv, "gn_small");
      tt_draw_para_cut(p->cv, rows[s].x, rows[s].y, rows[s].w, tt_str(p->st->lang, TT_S_GN_SMALL), type.body,
                       TT_FONT_SANS, p->pal->warn, rows[s].h);
      continue;
    }
    g[s].px = px;  // the same type on every side that has room; columns and lines as each chose
    draw_rows(p, rows[s], &sides[s], &g[s]);
  }
}

void tt_paint_gradnorm(tt_paint *p, SDL_Rect r) {
  const tt_type type = tt_type_for(p->unit);
  int L = n_layers(p->tr);
  if (!tt_trace_has_grad(p->tr) || L <= 0) {
    tt_draw_para(p->cv, r.x + p->unit, r.y + p->unit, r.w - 2 * p->unit, tt_str(p->st->lang, TT_S_GN_NONE), p->unit,
                 TT_FONT_SANS, p->pal->warn);
    return;
  }
  tt_note_scope(p->cv, "panel=gradnorm");
  char title[160];
  tt_draw_text(
      p->cv, r.x, r.y,
      tt_text_fit(p->cv->fonts, tt_str(p->st->lang, TT_S_GN_TITLE), type.title, TT_FONT_BOLD, r.w, title, sizeof title),
      type.title, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  int top = type.title * 3 / 2;
  top += tt_draw_para(p->cv, r.x, r.y + top, r.w, tt_str(p->st->lang, TT_S_GN_SCALE), type.label, TT_FONT_SANS,
                      p->pal->dim) +
         type.line / 2;
  int n_sides = has_weight_grads(p->tr) ? 2 : 1;
  gn_list sides[2] = {{.rc = p->rc}, {.rc = p->rc}};
  sides[0].rows = calloc((size_t)L * 3, sizeof(gn_row));
  sides[1].rows = calloc((size_t)L * 4 + 3, sizeof(gn_row));
  if (sides[0].rows && sides[1].rows) {
    list_resid(&sides[0], p->tr, L);
    list_weights(&sides[1], p->tr, L);
    paint_sides(p, (SDL_Rect){r.x, r.y + top, r.w, r.h - top}, sides, n_sides);
  }
  free(sides[0].rows);
  free(sides[1].rows);
  tt_note_scope(p->cv, NULL);
}
