// collapse: lesson 9's identity-activation FFN as one matrix. The model's two FFN matrices
// are multiplied into W = W_fc·W_proj (C,C) and the biases into b = b_fc·W_proj + b_proj;
// the FFN's recorded output (A, hook_mlp_out) is drawn beside x·W + b (B, from the FFN's
// input x = ln2.hook_out alone), with the largest |A − B| under them.
#include <stdio.h>
#include <string.h>

#include "render_int.h"
#include "trace/hooks.h"

static void note(tt_paint *p, SDL_Rect r, const char *msg) {
  tt_draw_para(p->cv, r.x + p->unit, r.y + p->unit, r.w - 2 * p->unit, msg, p->unit, TT_FONT_SANS, p->pal->warn);
}

// x·W + b for the shown FFN output, computed once and kept in the render context.
static const tt_tensor *direct_output(tt_paint *p, const tt_tensor *x, const tt_tensor *out, int layer, tt_error *err) {
  tt_render *rc = p->rc;
  if (rc->collapse_of == out->data && rc->collapse_layer == layer) return &rc->collapse_view;
  tt_ffn_collapse_free(&rc->collapse);
  rc->collapse_of = NULL;
  if (tt_ffn_collapse_compute(p->ex->model, layer, x, out, &rc->collapse, err) != TT_OK) return NULL;
  rc->collapse_of = out->data;
  rc->collapse_layer = layer;
  snprintf(rc->collapse_name, sizeof rc->collapse_name, "collapse.blocks.%d", layer);
  rc->collapse_view = (tt_tensor){.name = rc->collapse_name,
                                  .dtype = TT_F32,
                                  .ndim = 2,
                                  .shape = {rc->collapse.T, rc->collapse.C},
                                  .data = rc->collapse.direct};
  return &rc->collapse_view;
}

// The shapes of the collapsed W and b: one line where it fits (in smaller type where
// needed), else W's and b's on lines of their own; returns the height used.
static int shapes_lines(tt_paint *p, SDL_Rect r, const tt_ffn_collapse *c, const char *hook, int layer) {
  const tt_type type = tt_type_for(p->unit);
  char w[160], both[240];
  const char *b = "b = b_fc\xC2\xB7W_proj + b_proj";
  snprintf(w, sizeof w, "W = W_fc\xC2\xB7W_proj: (%d, %d)\xC2\xB7(%d, %d) = (%d, %d)", c->C, c->F, c->F, c->C, c->C,
           c->C);
  snprintf(both, sizeof both, "%s    %s", w, b);
  int px = tt_text_px_fit(p->cv->fonts, both, TT_FONT_MONO, p->unit, type.small, r.w);
  bool one = tt_text_width(p->cv->fonts, both, px, TT_FONT_MONO) <= r.w;
  if (!one) px = tt_text_px_fit(p->cv->fonts, w, TT_FONT_MONO, p->unit, 10, r.w);
  tt_note_scope(p->cv, "panel=collapse hook=%s layer=%d", hook, layer);
  tt_note(p->cv, "collapse_shapes layer=%d", layer);
  tt_draw_text(p->cv, r.x, r.y, one ? both : w, px, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
  if (!one) tt_draw_text(p->cv, r.x, r.y + px * 3 / 2, b, px, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
  return one ? px * 3 / 2 : px * 3;
}

void tt_paint_collapse(tt_paint *p, SDL_Rect r, int layer) {
  tt_lang lang = p->st->lang;
  char xn[96], on[96], line[256];
  tt_hook_ref xr, or ;
  if (!tt_hook_at("ln2.hook_out", layer, &xr) || !tt_hook_at("hook_mlp_out", layer, & or) ||
      !tt_hook_name(&xr, xn, sizeof xn) || !tt_hook_name(& or, on, sizeof on))
    return;
  const tt_tensor *x = tt_trace_find(p->tr, xn), *out = tt_trace_find(p->tr, on);
  if (!x || !out) {
    snprintf(line, sizeof line, tt_str(lang, TT_S_COLLAPSE_NEEDS_FMT), xn, on);
    note(p, r, line);
    return;
  }
  if (!p->ex || !p->ex->model) {
    note(p, r, tt_str(lang, TT_S_COLLAPSE_NO_MODEL));
    return;
  }
  tt_error err = {0};
  const tt_tensor *direct = direct_output(p, x, out, layer, &err);
  if (!direct) {
    note(p, r, err.msg);
    return;
  }
  const tt_ffn_collapse *c = &p->rc->collapse;
  int u = p->unit, top = r.y + shapes_lines(p, r, c, out->name, layer) + u / 2;
  char num[32];
  tt_fmt_num(c->max_diff, "%.3g", num, sizeof num);
  snprintf(line, sizeof line, tt_str(lang, TT_S_COLLAPSE_MAX_FMT), num, (long long)(c->max_at / c->C),
           (long long)(c->max_at % c->C), c->T, c->C);
  int max_h = tt_para_height(p->cv, r.w, line, u, TT_FONT_BOLD);
  int bottom = r.y + r.h - max_h - u / 2, half = (r.w - u) / 2;
  const char *labels[2] = {tt_str(lang, TT_S_COLLAPSE_A), tt_str(lang, TT_S_COLLAPSE_B)};
  const tt_tensor *shown[2] = {out, direct};
  for (int k = 0; k < 2; k++) {
    SDL_Rect side = {r.x + k * (half + u), top, half, bottom - top};
    int lh = tt_draw_para(p->cv, side.x, side.y, side.w, labels[k], u, TT_FONT_BOLD, p->pal->fg);
    side.y += lh + u / 4;
    side.h -= lh + u / 4;
    tt_paint_heatmap(p, side, shown[k], 0, false);
  }
  tt_note_scope(p->cv, "panel=collapse hook=%s layer=%d", out->name, layer);
  tt_note(p->cv, "collapse_max layer=%d", layer);
  tt_draw_para(p->cv, r.x, bottom + u / 2, r.w, line, u, TT_FONT_BOLD, p->pal->fg);
}
