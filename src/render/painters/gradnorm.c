// gradnorm: the size of the gradient through the model, from a trace made with --grad.
// Left: ‖∂L/∂h‖ (over all T × C entries) of the residual stream at each block, before
// the block (resid_pre), after attention (resid_mid) and after the FFN (resid_post): the
// residual "gradient highway". Right: ‖∂L/∂W‖ of each weight matrix, per block, and of the
// embeddings and unembedding. Bars are to one scale per side; every number is the norm.
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "render_int.h"

static double norm_of(const tt_tensor *t) {
  double s = 0;
  int64_t n = t ? tt_tensor_numel(t) : 0;
  for (int64_t i = 0; i < n; i++) {
    double v = tt_tensor_at(t, i);
    s += v * v;
  }
  return sqrt(s);
}

static const char *const resid_parts[3] = {"hook_resid_pre", "hook_resid_mid", "hook_resid_post"};
static const char *const matrices[4] = {"attn.c_attn.weight", "attn.c_proj.weight", "mlp.c_fc.weight",
                                        "mlp.c_proj.weight"};
static const char *const outer[3] = {"wte.weight", "wpe.weight", "lm_head.weight"};

// One row: a label, a bar of length v / vmax of the bar width, the number ‖hook‖.
typedef struct {
  tt_paint *p;
  int x, w, label_w, px;
  double vmax;
} bar_rows;

static void bar_row(const bar_rows *b, int y, const char *label, double v, const char *hook) {
  tt_canvas *cv = b->p->cv;
  const tt_palette *pal = b->p->pal;
  char num[40];
  tt_note(cv, "gn_label hook=%s", hook);
  tt_draw_text(cv, b->x + b->label_w - b->px / 2, y, label, b->px, TT_FONT_MONO, pal->fg, TT_ALIGN_RIGHT);
  int num_w = b->px * 6, bar_w = b->w - b->label_w - num_w;
  int len = b->vmax > 0 ? (int)lround(v / b->vmax * bar_w) : 0;
  if (bar_w > 0 && len > 0) cv->fill(cv, b->x + b->label_w, y + b->px / 8, len, b->px, pal->accent);
  tt_note(cv, "gn_norm hook=%s", hook);
  tt_draw_text(cv, b->x + b->label_w + (len > 0 ? len : 0) + b->px / 2, y, tt_fmt_num(v, "%.4g", num, sizeof num),
               b->px, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
}

// A side's heading, wrapped to its width; returns where its rows start.
static int heading(tt_paint *p, SDL_Rect r, const char *s) {
  const tt_type type = tt_type_for(p->unit);
  return r.y + tt_draw_para(p->cv, r.x, r.y, r.w - p->unit, s, type.large, TT_FONT_BOLD, p->pal->fg) + type.line / 2;
}

static int n_layers(const tt_trace *tr) {
  tt_config cfg;
  return tt_trace_config(tr, &cfg) ? cfg.n_layer : 0;
}

static void paint_resid(tt_paint *p, SDL_Rect r, int L) {
  const tt_type type = tt_type_for(p->unit);
  char name[96], label[64];
  double vmax = 0;
  for (int l = 0; l < L; l++)
    for (int k = 0; k < 3; k++) {
      snprintf(name, sizeof name, "grad.blocks.%d.%s", l, resid_parts[k]);
      vmax = fmax(vmax, norm_of(tt_trace_find(p->tr, name)));
    }
  int y = heading(p, r, tt_str(p->st->lang, TT_S_GN_RESID));
  int rows = L * 3 + L, line = (r.y + r.h - y) / (rows > 0 ? rows : 1);
  int px = line * 3 / 4 < type.body ? line * 3 / 4 : type.body;
  bar_rows b = {p, r.x, r.w, px * 9, px, vmax};
  // From the output back to the input: the order the gradient flows in.
  for (int l = L - 1; l >= 0; l--) {
    for (int k = 2; k >= 0; k--) {
      snprintf(name, sizeof name, "grad.blocks.%d.%s", l, resid_parts[k]);
      const tt_tensor *t = tt_trace_find(p->tr, name);
      if (!t) continue;
      snprintf(label, sizeof label, "%d %s", l, resid_parts[k] + 5);
      tt_note_scope(p->cv, "panel=gradnorm");
      bar_row(&b, y, label, norm_of(t), name);
      y += line;
    }
    y += line;
  }
}

// ‖∂L/∂W‖ of the block matrices (block by block) and of W_E, W_P and a separate W_U.
static void paint_weights(tt_paint *p, SDL_Rect r, int L) {
  const tt_type type = tt_type_for(p->unit);
  char name[96], label[64];
  double vmax = 0;
  int rows = 0;
  for (int l = 0; l < L; l++)
    for (int k = 0; k < 4; k++) {
      snprintf(name, sizeof name, "grad.h.%d.%s", l, matrices[k]);
      const tt_tensor *t = tt_trace_find(p->tr, name);
      vmax = fmax(vmax, norm_of(t));
      rows += t != NULL;
    }
  for (int k = 0; k < 3; k++) {
    snprintf(name, sizeof name, "grad.%s", outer[k]);
    const tt_tensor *t = tt_trace_find(p->tr, name);
    vmax = fmax(vmax, norm_of(t));
    rows += t != NULL;
  }
  int y = heading(p, r, tt_str(p->st->lang, TT_S_GN_WEIGHTS));
  int line = (r.y + r.h - y) / (rows + L + 1 > 0 ? rows + L + 1 : 1);
  int px = line * 3 / 4 < type.body ? line * 3 / 4 : type.body;
  bar_rows b = {p, r.x, r.w, px * 13, px, vmax};
  for (int k = 0; k < 3; k++) {
    snprintf(name, sizeof name, "grad.%s", outer[k]);
    const tt_tensor *t = tt_trace_find(p->tr, name);
    if (!t) continue;
    bar_row(&b, y, outer[k], norm_of(t), name);
    y += line;
  }
  for (int l = L - 1; l >= 0; l--) {
    y += line;
    for (int k = 0; k < 4; k++) {
      snprintf(name, sizeof name, "grad.h.%d.%s", l, matrices[k]);
      const tt_tensor *t = tt_trace_find(p->tr, name);
      if (!t) continue;
      snprintf(label, sizeof label, "h.%d.%s", l, matrices[k]);
      bar_row(&b, y, label, norm_of(t), name);
      y += line;
    }
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
  tt_draw_text(p->cv, r.x, r.y, tt_str(p->st->lang, TT_S_GN_TITLE), type.title, TT_FONT_BOLD, p->pal->fg,
               TT_ALIGN_LEFT);
  int top = type.title * 2, gap = p->unit * 2;
  bool weights = false;  // a trace recorded without weight gradients gives the stream the width
  for (size_t i = 0; i < tt_trace_count(p->tr) && !weights; i++)
    weights = strncmp(tt_trace_get(p->tr, i)->name, "grad.", 5) == 0 && strstr(tt_trace_get(p->tr, i)->name, ".weight");
  SDL_Rect left = {r.x, r.y + top, weights ? (r.w - gap) * 45 / 100 : r.w * 2 / 3, r.h - top};
  SDL_Rect right = {left.x + left.w + gap, r.y + top, r.w - left.w - gap, r.h - top};
  paint_resid(p, left, L);
  if (weights) paint_weights(p, right, L);
  tt_note_scope(p->cv, NULL);
}
