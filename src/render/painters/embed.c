// embed: the embedding lookup (the whole matrix W_E with the prompt's rows marked, when
// the model is at hand, beside the rows that were looked up) and the position step
// (token rows + position rows = the first block's input).
#include <math.h>
#include <string.h>

#include "render_int.h"

void tt_paint_embed(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  const tt_tensor *e = tt_trace_find(p->tr, "hook_embed");
  if (!e) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  const tt_render_extras *ex = p->ex;
  SDL_Rect right = r;
  int T = tt_trace_n_tokens(p->tr);
  (void)T;
  if (ex && ex->wte && ex->width == (int)e->shape[1]) {
    // Left: W_E (V, C) whole, downsampled, the looked-up rows marked.
    SDL_Rect left = {r.x + u * 7, r.y + u * 2, r.w * 2 / 5 - u * 7, r.h - u * 5};
    right = (SDL_Rect){r.x + r.w * 2 / 5 + u, r.y, r.w - r.w * 2 / 5 - u, r.h};
    char buf[200];
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_EMBED_MATRIX_FMT), ex->vocab, ex->width);
    tt_note(cv, "wte_shape");
    tt_draw_text(cv, r.x, r.y, buf, u, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    const tt_tensor *w = &p->rc->wte_view;  // lives in the render context: the panel points at it
    tt_mat m = {.t = w,
                .rows = ex->vocab,
                .cols = ex->width,
                .row_stride = ex->width,
                .row_axis = 'V',
                .col_axis = 'C',
                .slice = -1};
    tt_scale sc;
    tt_scale_get(p, w, "wte", &sc);
    tt_cells_opts o = {.vis_rows = m.rows, .vis_cols = m.cols, .layer = -1, .head = -1};
    tt_paint_cells(p, left, &m, &sc, &o);
    tt_draw_rect(cv, left.x - 1, left.y - 1, left.w + 2, left.h + 2, pal->dim);
    snprintf(buf, sizeof buf, "0");
    tt_note(cv, "index i=0");
    tt_draw_text(cv, left.x + left.w + u / 3, left.y - u / 2, buf, type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
    snprintf(buf, sizeof buf, "%d", ex->vocab - 1);
    tt_note(cv, "vocab_last");
    tt_draw_text(cv, left.x + left.w + u / 3, left.y + left.h - u / 2, buf, type.small, TT_FONT_SANS, pal->dim,
                 TT_ALIGN_LEFT);
    int last_y = -1000;
    for (int i = 0; i < T; i++) {
      int id = tt_trace_token_id(p->tr, i);
      int y = left.y + (int)((double)id / ex->vocab * left.h);
      cv->fill(cv, left.x - u / 2, y - 1, left.w + u, 3, pal->highlight);
      if (y - last_y >= u) {
        snprintf(buf, sizeof buf, "%d", id);
        tt_note(cv, "token_id i=%d", i);
        tt_draw_text(cv, left.x - u, y - u / 2, buf, type.small, TT_FONT_BOLD, pal->highlight, TT_ALIGN_RIGHT);
        last_y = y;
      }
    }
    tt_draw_text(cv, left.x, left.y + left.h + u / 2, tt_str(p->st->lang, TT_S_EMBED_ROWS_HINT), type.label,
                 TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
  }
  tt_draw_text(cv, right.x, right.y, tt_str(p->st->lang, TT_S_EMBED_LOOKED_UP), u, TT_FONT_BOLD, pal->fg,
               TT_ALIGN_LEFT);
  SDL_Rect rr = {right.x, right.y + u * 2, right.w, right.h - u * 2};
  tt_paint_heatmap(p, rr, e, 0, false);
  // Ids beside the token labels are on the tokens view; the rows here are labelled by piece.
}

void tt_paint_positions(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  const tt_tensor *ts[3] = {tt_trace_find(p->tr, "hook_embed"), tt_trace_find(p->tr, "hook_pos_embed"),
                            tt_find_hook(p->tr, 0, "hook_resid_pre")};
  const char *titles[3] = {tt_str(p->st->lang, TT_S_POS_TOKEN), tt_str(p->st->lang, TT_S_POS_POSITION), "x + p"};
  int n = 0;
  for (int i = 0; i < 3; i++) n += ts[i] != NULL;
  if (!ts[0] || !ts[2]) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  // One scale for all three, so that colours add up visibly.
  float lim = 0;
  for (int i = 0; i < 3; i++) {
    if (!ts[i]) continue;
    tt_scale s;
    tt_scale_get(p, ts[i], ts[i]->name, &s);
    lim = fmaxf(lim, fmaxf(fabsf(s.lo), fabsf(s.hi)));
  }
  tt_scale sc = {.diverging = true, .lo = -lim, .hi = lim, .qty = TT_S_QTY_ACTIVATION};
  char buf[160];
  int row_w = 0, T = (int)ts[0]->shape[0];
  for (int i = 0; i < T && i < 256; i++) {
    int w = tt_text_width(cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf), u, TT_FONT_SANS);
    if (w > row_w) row_w = w;
  }
  if (row_w > r.w / 6) row_w = r.w / 6;
  int legend_w = tt_legend_width(p, &sc) + u / 2, sign_w = u * 2;
  int x0 = r.x + row_w + u;
  int pw = (r.x + r.w - legend_w - x0 - sign_w * (n - 1)) / n;
  float cell_h = fminf((float)(r.h - u * 6) / (float)T, (float)u * 5);
  int ph = (int)(cell_h * (float)T);
  int k = 0;
  for (int i = 0; i < 3; i++) {
    if (!ts[i]) continue;
    tt_mat m;
    tt_mat_of(p->tr, ts[i], 0, &m);
    SDL_Rect dst = {x0 + k * (pw + sign_w), r.y + u * 2, pw, ph};
    tt_draw_text(cv, dst.x, r.y, titles[i], type.large, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    tt_cells_opts o = {.vis_rows = m.rows, .vis_cols = m.cols, .layer = i == 2 ? 0 : -1, .head = -1};
    int pi = tt_paint_cells(p, dst, &m, &sc, &o);
    tt_draw_rect(cv, dst.x - 1, dst.y - 1, dst.w + 2, dst.h + 2, pal->dim);
    if (pi >= 0) tt_paint_axis_labels(p, &p->lay->panels[pi], &m, type.label, k == 0 ? row_w : 0, type.line);
    if (k > 0)
      tt_draw_text(cv, dst.x - sign_w / 2, dst.y + ph / 2 - u, i == 2 ? "=" : "+", u * 2, TT_FONT_BOLD, pal->fg,
                   TT_ALIGN_CENTER);
    k++;
  }
  if (!ts[1]) {
    tt_draw_text(cv, x0, r.y + u * 4 + ph, tt_str(p->st->lang, TT_S_POS_NONE), u, TT_FONT_SANS, pal->warn,
                 TT_ALIGN_LEFT);
  } else {
    tt_note(cv, "prose");
    tt_draw_text(cv, x0, r.y + u * 4 + ph, tt_str(p->st->lang, TT_S_POS_COLUMNS), type.label, TT_FONT_SANS, pal->dim,
                 TT_ALIGN_LEFT);
  }
  SDL_Rect lr = {r.x + r.w - legend_w + u / 2, r.y + u * 2, legend_w - u / 2, ph > u * 10 ? ph : u * 10};
  tt_paint_legend(p, lr, &sc);
}
