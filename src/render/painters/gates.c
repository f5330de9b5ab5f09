// gates: the FFN's activation as a gate, at one position of one block: the neurons that
// fire most after the activation and the ones it switches off (the most negative inputs),
// each with its pre-activation u (mlp.hook_pre) and a(u). GPT-2's block records a(u) as
// mlp.hook_post; in Llama's gated block the gate is silu(u) and hook_post = silu(u)·up
// (up = mlp.hook_pre_linear), so the view computes the gate and shows up and the product.
// Every text is measured: the view takes the largest unit (p->unit at most, no text under
// MIN_PX) at which the captions and the sides' headings wrap inside their widths, both
// tables fit side by side (each column as wide as its head and its widest number) with room
// for bars, and every row has room; where not even the smallest type leaves room for every
// row, each side shows the rows that fit and a line counting the rest.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define GATES_MAX 16  // neurons listed on each side
#define MIN_PX 10     // no text smaller than this
#define N_COLS 5      // neuron, u, a(u), up, hook_post (the last two when gated)

typedef struct {
  const float *u, *post, *up;  // (F) rows of hook_pre, hook_post, hook_pre_linear (NULL unless gated)
  int F;
  tt_act_kind act;
  bool gated;
} gate_row;

static double gate_of(const gate_row *g, int j) {
  return g->gated ? tt_activation(g->act, g->u[j]) : g->post[j];
}

// The value of column c (1 u, 2 a(u), 3 up, 4 hook_post) at neuron j.
static double col_value(const gate_row *g, int c, int j) {
  return c == 1 ? g->u[j] : c == 2 ? gate_of(g, j) : c == 3 ? g->up[j] : g->post[j];
}

// The n neurons with the largest key (a(u) when on, −u when off), finite values only.
static int pick(const gate_row *g, bool on, int n, int *out) {
  int k = 0;
  while (k < n) {
    int best = -1;
    double bv = 0;
    for (int j = 0; j < g->F; j++) {
      double v = on ? gate_of(g, j) : -(double)g->u[j];
      bool taken = false;
      for (int i = 0; i < k && !taken; i++) taken = out[i] == j;
      if (taken || !isfinite(v) || (best >= 0 && v <= bv)) continue;
      best = j, bv = v;
    }
    if (best < 0) break;
    out[k++] = best;
  }
  return k;
}

// A value at three decimals; one that would print as 0.000 without being 0 in scientific
// notation (GELU of −7 is −3e−12: near 0, not 0).
static const char *num_text(double v, char *buf, size_t len) {
  return tt_fmt_num(v, v == 0 || fabs(v) >= 0.0005 ? "%.3f" : "%.1e", buf, len);
}

// The view's texts and neurons (side 0 fires most, side 1 is switched off), and its layout
// at unit v: the type t (no size under MIN_PX), the rows' type px, the captions' height
// (with the gap under them), the taller side heading's, the rows' height and how many rows
// each side shows.
typedef struct {
  char caption[600], count[600];
  const char *head[2], *cols[N_COLS];  // the sides' headings; the column heads
  int n_cols, js[2][GATES_MAX], n[2];
  tt_type t;
  int v, px, cap_h, head_h, row_h, shown;
} gates_view;

// The sizes of unit v, none under MIN_PX.
static tt_type type_at(int v) {
  tt_type t = tt_type_for(v);
  int *sizes[] = {&t.body, &t.label};
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) *sizes[i] = *sizes[i] < MIN_PX ? MIN_PX : *sizes[i];
  return t;
}

// The right edges of side s's columns (x_right[c]) from x0 in px type, gap apart: each column
// as wide as its head and its widest value. The width they take.
static int side_columns(tt_paint *p, const gates_view *gv, const gate_row *g, int s, int px, int gap, int x0,
                        int *x_right) {
  tt_fonts *f = p->cv->fonts;
  char buf[48];
  int x = x0;
  for (int c = 0; c < gv->n_cols; c++) {
    int w = tt_text_width(f, gv->cols[c], px, TT_FONT_BOLD);
    for (int i = 0; i < gv->n[s]; i++) {
      int j = gv->js[s][i], vw;
      if (c == 0) {
        snprintf(buf, sizeof buf, "%d", j);
        vw = tt_text_width(f, buf, px, TT_FONT_MONO);
      } else {
        vw = tt_text_width(f, num_text(col_value(g, c, j), buf, sizeof buf), px, TT_FONT_SANS);
      }
      w = vw > w ? vw : w;
    }
    x += (c ? gap : 0) + w;
    x_right[c] = x;
  }
  return x - x0;
}

// The layout at unit v in r: true where the captions, the headings, both sides' columns
// with bars of at least 2v, and all rows fit.
static bool layout_at(tt_paint *p, gates_view *gv, const gate_row *g, SDL_Rect r, int v) {
  tt_canvas *cv = p->cv;
  gv->v = v;
  gv->t = type_at(v);
  const tt_type *t = &gv->t;
  int w = (r.w - v * 2) / 2, n = gv->n[0] > gv->n[1] ? gv->n[0] : gv->n[1], x_right[N_COLS];
  gv->cap_h = tt_para_height(cv, r.w, gv->caption, t->body, TT_FONT_BOLD) + t->line / 4 +
              tt_para_height(cv, r.w, gv->count, t->label, TT_FONT_SANS) + t->line;
  gv->head_h = 0;
  for (int s = 0; s < 2; s++) {
    int h = tt_para_height(cv, w, gv->head[s], t->body, TT_FONT_BOLD);
    gv->head_h = h > gv->head_h ? h : gv->head_h;
  }
  int room = r.h - gv->cap_h - gv->head_h - t->line / 6 - t->line;  // under the column heads
  gv->row_h = n > 0 ? room / n : t->line;
  if (gv->row_h > t->line * 3 / 2) gv->row_h = t->line * 3 / 2;
  gv->px = gv->row_h < t->line ? t->label : t->body;
  gv->shown = n;
  bool fits = gv->row_h >= gv->px * 13 / 10;
  for (int s = 0; s < 2; s++) fits &= side_columns(p, gv, g, s, gv->px, v, 0, x_right) + v * 4 <= w;
  return fits;
}

// The largest unit that fits (by halving: a smaller unit never needs more room); where none
// does, the smallest, showing the rows there is room for above a line that counts the rest.
static void fit(tt_paint *p, gates_view *gv, const gate_row *g, SDL_Rect r) {
  int lo = MIN_PX, hi = p->unit > MIN_PX ? p->unit : MIN_PX;
  if (layout_at(p, gv, g, r, hi)) return;
  while (hi - lo > 1) {
    int mid = (lo + hi) / 2;
    if (layout_at(p, gv, g, r, mid))
      lo = mid;
    else
      hi = mid;
  }
  if (layout_at(p, gv, g, r, lo)) return;
  const tt_type *t = &gv->t;
  int n = gv->shown, room = r.h - gv->cap_h - gv->head_h - t->line / 6 - t->line - t->label * 13 / 10;
  gv->px = t->label;
  gv->row_h = gv->px * 13 / 10;
  gv->shown = room > 0 ? room / gv->row_h : 0;
  if (gv->shown > n) gv->shown = n;
}

typedef struct {
  int x_right[N_COLS], x_bar, w_bar;
  bool on;     // the side of the neurons that fire (bars grow right), else of those switched off
  double lim;  // the largest |u| and |a(u)| of the side: the bars' scale
} gate_columns;

static void number(tt_paint *p, int x, int y, double v, int px, const char *what, int j) {
  char buf[48];
  tt_note(p->cv, "%s j=%d", what, j);
  tt_draw_text(p->cv, x, y, num_text(v, buf, sizeof buf), px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
}

// A neuron: its index, u, a(u) (and up, hook_post when gated), and bars of u (dim) and a(u).
static void neuron(tt_paint *p, const gate_row *g, const gate_columns *c, int j, int rank, int y, int h, int px) {
  tt_canvas *cv = p->cv;
  const char *const what[N_COLS] = {"", "gate_u", "gate_a", "gate_up", "gate_post"};
  char buf[32];
  snprintf(buf, sizeof buf, "%d", j);
  tt_note(cv, "gate_neuron side=%s rank=%d j=%d", c->on ? "on" : "off", rank, j);
  tt_draw_text(cv, c->x_right[0], y, buf, px, TT_FONT_MONO, p->pal->dim, TT_ALIGN_RIGHT);
  for (int k = 1; k < (g->gated ? N_COLS : 3); k++) number(p, c->x_right[k], y, col_value(g, k, j), px, what[k], j);
  // zero a fifth in from the side the values lie on; the longest bar of the side fills the rest
  int zero = c->x_bar + (c->on ? c->w_bar / 5 : c->w_bar * 4 / 5), room = c->w_bar * 4 / 5;
  double vals[2] = {g->u[j], gate_of(g, j)};
  for (int b = 0; b < 2; b++) {
    int len = (int)(fmin(1, fabs(vals[b]) / c->lim) * room);
    int x = vals[b] < 0 ? zero - len : zero;
    cv->fill(cv, x, y + h * b * 3 / 8, len > 1 ? len : 1, h * 3 / 8 - 1, b ? p->pal->accent : p->pal->dim);
  }
  cv->fill(cv, zero, y, 1, h * 3 / 4, p->pal->fg);
}

// Side s's table in r: its heading, column heads (those of u and a(u) in their bars'
// colours), rows, and the count of rows left out.
static void side(tt_paint *p, const gates_view *gv, const gate_row *g, SDL_Rect r, int s) {
  tt_canvas *cv = p->cv;
  const tt_type *t = &gv->t;
  int n = gv->n[s] < gv->shown ? gv->n[s] : gv->shown, px = gv->px;
  gate_columns c = {.on = s == 0, .lim = 1e-6};
  for (int i = 0; i < n; i++)
    for (int k = 1; k <= 2; k++) c.lim = fmax(c.lim, fabs(col_value(g, k, gv->js[s][i])));
  c.x_bar = r.x + side_columns(p, gv, g, s, px, gv->v, r.x, c.x_right) + gv->v;
  c.w_bar = r.x + r.w - c.x_bar - gv->v;
  if (c.w_bar < 1) c.w_bar = 1;
  tt_note(cv, "fixed");
  tt_draw_para(cv, r.x, r.y, r.w, gv->head[s], t->body, TT_FONT_BOLD, p->pal->fg);
  int y = r.y + gv->head_h + t->line / 6;
  for (int k = 0; k < gv->n_cols; k++)
    tt_draw_text(cv, c.x_right[k], y, gv->cols[k], px, TT_FONT_BOLD, k == 2 ? p->pal->accent : p->pal->dim,
                 TT_ALIGN_RIGHT);
  y += t->line;
  for (int i = 0; i < n; i++) neuron(p, g, &c, gv->js[s][i], i + 1, y + gv->row_h * i, gv->row_h, px);
  if (n < gv->n[s]) {
    char line[160];
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), gv->n[s] - n);
    tt_note(cv, "rows_more shown=%d rows=%d", n, gv->n[s]);
    tt_draw_text(cv, r.x, y + gv->row_h * n, line, t->label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  }
}

// The texts: the caption (block, token, what u and a(u) are), the count of open gates, the
// sides' headings and the column heads.
static void texts(tt_paint *p, gates_view *gv, const gate_row *g, int layer, int pos) {
  tt_lang lang = p->st->lang;
  char label[200];
  tt_token_label(p->tr, pos, label, sizeof label);
  if (g->gated)
    snprintf(gv->caption, sizeof gv->caption, tt_str(lang, TT_S_GATES_GATED_FMT), layer, label, pos);
  else
    snprintf(gv->caption, sizeof gv->caption, tt_str(lang, TT_S_GATES_CAPTION_FMT), layer, label, pos,
             tt_act_name(g->act));
  int open = 0;
  for (int j = 0; j < g->F; j++) open += g->u[j] > 0;
  bool identity = !g->gated && g->act == TT_ACT_IDENTITY;
  if (identity)
    snprintf(gv->count, sizeof gv->count, tt_str(lang, TT_S_GATES_IDENTITY_FMT), open, g->F);
  else
    snprintf(gv->count, sizeof gv->count, tt_str(lang, TT_S_GATES_COUNT_FMT), open, g->F, tt_act_name(g->act));
  gv->head[0] = tt_str(lang, TT_S_GATES_ON);
  gv->head[1] = tt_str(lang, identity ? TT_S_GATES_OFF_IDENTITY : TT_S_GATES_OFF);
  const char *cols[N_COLS] = {tt_str(lang, TT_S_GATES_COL_NEURON), "u", g->gated ? "silu(u)" : "a(u)", "up",
                              "hook_post"};
  memcpy(gv->cols, cols, sizeof cols);
  gv->n_cols = g->gated ? N_COLS : 3;
}

// The captions in r at the layout's type; their notes say which block and token.
static void captions(tt_paint *p, const gates_view *gv, SDL_Rect r, int layer, int pos) {
  tt_canvas *cv = p->cv;
  const tt_type *t = &gv->t;
  tt_note(cv, "gates_caption layer=%d pos=%d", layer, pos);
  int y = r.y + tt_draw_para(cv, r.x, r.y, r.w, gv->caption, t->body, TT_FONT_BOLD, p->pal->fg) + t->line / 4;
  tt_note(cv, "gates_count layer=%d pos=%d", layer, pos);
  tt_draw_para(cv, r.x, y, r.w, gv->count, t->label, TT_FONT_SANS, p->pal->dim);
}

void tt_paint_gates(tt_paint *p, SDL_Rect r, int layer) {
  const tt_tensor *pre = tt_find_hook(p->tr, layer, "mlp.hook_pre");
  const tt_tensor *post = tt_find_hook(p->tr, layer, "mlp.hook_post");
  const tt_tensor *up = tt_find_hook(p->tr, layer, "mlp.hook_pre_linear");
  tt_config cfg;
  bool have_cfg = tt_trace_config(p->tr, &cfg);
  gate_row g = {.act = have_cfg ? cfg.activation : TT_ACT_GELU_TANH, .gated = have_cfg && cfg.arch == TT_ARCH_LLAMA};
  bool ok = pre && post && pre->ndim == 2 && post->ndim == 2 && pre->dtype == TT_F32 && post->dtype == TT_F32 &&
            pre->shape[0] == post->shape[0] && pre->shape[1] == post->shape[1] &&
            (!g.gated || (up && up->dtype == TT_F32 && tt_tensor_numel(up) == tt_tensor_numel(pre)));
  if (!ok) {
    tt_draw_para(p->cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  int T = (int)pre->shape[0], pos = p->st->position < 0 || p->st->position >= T ? T - 1 : p->st->position;
  g.F = (int)pre->shape[1];
  g.u = (const float *)pre->data + (size_t)pos * (size_t)g.F;
  g.post = (const float *)post->data + (size_t)pos * (size_t)g.F;
  g.up = g.gated ? (const float *)up->data + (size_t)pos * (size_t)g.F : NULL;
  int n = p->st->top_k < 1 ? 1 : p->st->top_k > GATES_MAX ? GATES_MAX : p->st->top_k;
  gates_view gv = {0};
  gv.n[0] = pick(&g, true, n, gv.js[0]);
  gv.n[1] = pick(&g, false, n, gv.js[1]);
  texts(p, &gv, &g, layer, pos);
  fit(p, &gv, &g, r);
  tt_note_scope(p->cv, "panel=gates layer=%d pos=%d", layer, pos);
  captions(p, &gv, r, layer, pos);
  int top = gv.cap_h, gap = gv.v * 2, w = (r.w - gap) / 2;
  side(p, &gv, &g, (SDL_Rect){r.x, r.y + top, w, r.h - top}, 0);
  side(p, &gv, &g, (SDL_Rect){r.x + w + gap, r.y + top, w, r.h - top}, 1);
  tt_note_scope(p->cv, NULL);
}
