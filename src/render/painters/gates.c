// gates: the FFN's activation as a gate, at one position of one block: the neurons that
// fire most after the activation and the ones it switches off (the most negative inputs),
// each with its pre-activation u (mlp.hook_pre) and a(u). GPT-2's block records a(u) as
// mlp.hook_post; in Llama's gated block the gate is silu(u) and hook_post = silu(u)·up
// (up = mlp.hook_pre_linear), so the view computes the gate and shows up and the product.
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define GATES_MAX 16  // neurons listed on each side

typedef struct {
  const float *u, *post, *up;  // (F) rows of hook_pre, hook_post, hook_pre_linear (NULL unless gated)
  int F;
  tt_act_kind act;
  bool gated;
} gate_row;

static double gate_of(const gate_row *g, int j) {
  return g->gated ? tt_activation(g->act, g->u[j]) : g->post[j];
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

typedef struct {
  int x_j, x_u, x_a, x_up, x_post, x_bar, w_bar;
  bool on;     // the side of the neurons that fire (bars grow right), else of those switched off
  double lim;  // the largest |u| and |a(u)| of the side: the bars' scale
} gate_columns;

// A value at three decimals; one that would print as 0.000 without being 0 in scientific
// notation (GELU of −7 is −3e−12: near 0, not 0).
static void number(tt_paint *p, int x, int y, double v, int px, const char *what, int j) {
  char buf[48];
  tt_fmt_num(v, v == 0 || fabs(v) >= 0.0005 ? "%.3f" : "%.1e", buf, sizeof buf);
  tt_note(p->cv, "%s j=%d", what, j);
  tt_draw_text(p->cv, x, y, buf, px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
}

// A neuron: its index, u, a(u) (and up, hook_post when gated), and bars of u (dim) and a(u).
static void neuron(tt_paint *p, const gate_row *g, const gate_columns *c, int j, int rank, int y, int h, int px) {
  tt_canvas *cv = p->cv;
  char buf[32];
  snprintf(buf, sizeof buf, "%d", j);
  tt_note(cv, "gate_neuron side=%s rank=%d j=%d", c->on ? "on" : "off", rank, j);
  tt_draw_text(cv, c->x_j, y, buf, px, TT_FONT_MONO, p->pal->dim, TT_ALIGN_RIGHT);
  number(p, c->x_u, y, g->u[j], px, "gate_u", j);
  number(p, c->x_a, y, gate_of(g, j), px, "gate_a", j);
  if (g->gated) {
    number(p, c->x_up, y, g->up[j], px, "gate_up", j);
    number(p, c->x_post, y, g->post[j], px, "gate_post", j);
  }
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

// One side's table in r: its heading, column heads and rows.
static void side(tt_paint *p, const gate_row *g, SDL_Rect r, bool on, const int *js, int n) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  int u = p->unit, h = (r.h - type.line * 2) / (n > 0 ? n : 1);
  if (h > type.line * 3 / 2) h = type.line * 3 / 2;
  int px = h < type.line ? type.label : type.body;
  int num = tt_text_width(cv->fonts,
                          "\xE2\x88\x92"
                          "0.0e\xE2\x88\x92"
                          "00",
                          px, TT_FONT_SANS) +
            u;
  gate_columns c = {.x_j = r.x + num * 3 / 4, .on = on, .lim = 1e-6};
  for (int i = 0; i < n; i++) c.lim = fmax(c.lim, fmax(fabs(g->u[js[i]]), fabs(gate_of(g, js[i]))));
  c.x_u = c.x_j + num;
  c.x_a = c.x_u + num;
  c.x_up = c.x_a + (g->gated ? num : 0);
  c.x_post = c.x_up + (g->gated ? num : 0);
  c.x_bar = c.x_post + u;
  c.w_bar = r.x + r.w - c.x_bar - u;
  bool identity = !g->gated && g->act == TT_ACT_IDENTITY;
  tt_note(cv, "fixed");
  tt_draw_text(cv, r.x, r.y,
               tt_str(lang, on         ? TT_S_GATES_ON
                            : identity ? TT_S_GATES_OFF_IDENTITY
                                       : TT_S_GATES_OFF),
               type.body, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  int y = r.y + type.line;
  tt_rgba dim = p->pal->dim;
  tt_draw_text(cv, c.x_j, y, tt_str(lang, TT_S_GATES_COL_NEURON), px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  tt_draw_text(cv, c.x_u, y, "u", px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  // the heads of u and a(u) in their bars' colours
  tt_draw_text(cv, c.x_a, y, g->gated ? "silu(u)" : "a(u)", px, TT_FONT_BOLD, p->pal->accent, TT_ALIGN_RIGHT);
  if (g->gated) {
    tt_draw_text(cv, c.x_up, y, "up", px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
    tt_draw_text(cv, c.x_post, y, "hook_post", px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  }
  for (int i = 0; i < n; i++) neuron(p, g, &c, js[i], i + 1, y + type.line + h * i, h, px);
}

// The caption (block, token, what u and a(u) are) and the count of open gates; the height used.
static int captions(tt_paint *p, SDL_Rect r, const gate_row *g, int layer, int pos) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  char label[200], line[600];
  tt_token_label(p->tr, pos, label, sizeof label);
  if (g->gated)
    snprintf(line, sizeof line, tt_str(lang, TT_S_GATES_GATED_FMT), layer, label, pos);
  else
    snprintf(line, sizeof line, tt_str(lang, TT_S_GATES_CAPTION_FMT), layer, label, pos, tt_act_name(g->act));
  tt_note(cv, "gates_caption layer=%d pos=%d", layer, pos);
  int y = r.y + tt_draw_para(cv, r.x, r.y, r.w, line, type.body, TT_FONT_BOLD, p->pal->fg);
  int open = 0;
  for (int j = 0; j < g->F; j++) open += g->u[j] > 0;
  if (!g->gated && g->act == TT_ACT_IDENTITY)
    snprintf(line, sizeof line, tt_str(lang, TT_S_GATES_IDENTITY_FMT), open, g->F);
  else
    snprintf(line, sizeof line, tt_str(lang, TT_S_GATES_COUNT_FMT), open, g->F, tt_act_name(g->act));
  tt_note(cv, "gates_count layer=%d pos=%d", layer, pos);
  y += type.line / 4;
  return y + tt_draw_para(cv, r.x, y, r.w, line, type.label, TT_FONT_SANS, p->pal->dim) - r.y;
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
  int on[GATES_MAX], off[GATES_MAX];
  int n_on = pick(&g, true, n, on), n_off = pick(&g, false, n, off);
  const tt_type type = tt_type_for(p->unit);
  tt_note_scope(p->cv, "panel=gates layer=%d pos=%d", layer, pos);
  int top = captions(p, r, &g, layer, pos) + type.line, gap = p->unit * 2, w = (r.w - gap) / 2;
  side(p, &g, (SDL_Rect){r.x, r.y + top, w, r.h - top}, true, on, n_on);
  side(p, &g, (SDL_Rect){r.x + w + gap, r.y + top, w, r.h - top}, false, off, n_off);
  tt_note_scope(p->cv, NULL);
}
