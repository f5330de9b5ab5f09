// norms: the length of every token's vector through the layers, as a table of coloured
// cells (tokens down, layers across), and the outline of the token row a lesson talks
// about.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "derived_int.h"

bool tt_norms_compute(const tt_tensor *const *layers, int n, tt_tensor *out) {
  memset(out, 0, sizeof *out);
  if (n <= 0 || !layers[0] || layers[0]->ndim < 1 || layers[0]->ndim > 2) return false;
  int64_t T = layers[0]->shape[0];
  for (int l = 0; l < n; l++)
    if (!layers[l] || layers[l]->ndim != layers[0]->ndim || layers[l]->shape[0] != T) return false;
  float *v = malloc(sizeof(float) * (size_t)(T * n));  // (T, L)
  if (!v) return false;
  for (int l = 0; l < n; l++) {
    const tt_tensor *x = layers[l];
    int64_t C = x->ndim == 2 ? x->shape[1] : 1;
    for (int64_t t = 0; t < T; t++) {
      double s = 0;
      for (int64_t c = 0; c < C; c++) {
        double a = tt_tensor_at(x, t * C + c);
        s += a * a;
      }
      v[t * n + l] = (float)sqrt(s);
    }
  }
  out->name = "norms";
  out->dtype = TT_F32;
  out->ndim = 2;
  out->shape[0] = T;
  out->shape[1] = n;
  out->data = v;
  return true;
}

int tt_paint_norms(tt_paint *p, SDL_Rect r, const tt_tensor *t, const tt_scale *s) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int T = (int)t->shape[0], L = (int)t->shape[1];
  tt_mat m = {
      .t = t, .offset = 0, .row_stride = L, .rows = T, .cols = L, .row_axis = 'T', .col_axis = 'C', .slice = -1};
  char buf[160], fit[160];
  int row_w = 0;
  for (int i = 0; i < T && i < 256; i++) {
    int w = tt_text_width(cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf), u, TT_FONT_SANS);
    if (w > row_w) row_w = w;
  }
  if (row_w > r.w / 4) row_w = r.w / 4;
  // The word "token" up the side, where the cells keep room for a column per layer.
  int legend_w = tt_legend_width(p, s), top = tt_max_i(type.line, u * 3 / 2);
  int axis_t = r.w - row_w - u - legend_w - u - type.line >= L * u * 2 ? type.line : 0;
  int x0 = r.x + axis_t + row_w + u;
  int avail_w = r.x + r.w - legend_w - u - x0, avail_h = r.h - top - u / 2;
  if (avail_w < 20 || avail_h < 20) return -1;
  float cw = fminf((float)avail_w / (float)L, (float)u * 9), ch = fminf((float)avail_h / (float)T, (float)u * 4);
  SDL_Rect dst = {x0, r.y + top, (int)(cw * (float)L), (int)(ch * (float)T)};
  tt_cells_opts o = {.vis_rows = T, .vis_cols = L, .numbers = true, .layer = -1, .head = -1};
  int pi = tt_paint_cells(p, dst, &m, s, &o);
  tt_draw_rect(cv, dst.x - 1, dst.y - 1, dst.w + 2, dst.h + 2, pal->dim);
  // Layers across the top ("block 0", or only the number when narrow, and only every
  // k-th where even the numbers would touch), tokens on the left.
  int px = type.label;
  snprintf(buf, sizeof buf, "%d", L - 1);
  int every = (int)ceilf((float)(tt_text_width(cv->fonts, buf, px, TT_FONT_SANS) + u / 4) / cw);
  for (int l = 0; l < L; l += tt_max_i(every, 1)) {
    snprintf(buf, sizeof buf, "%s %d", tt_str(p->st->lang, TT_S_BLOCK), l);
    if (tt_text_width(cv->fonts, buf, px, TT_FONT_SANS) > (int)cw - u / 4) snprintf(buf, sizeof buf, "%d", l);
    tt_note(cv, "block_label l=%d", l);
    tt_draw_text(cv, dst.x + (int)((float)l * cw + cw / 2), r.y + u / 3, buf, px, TT_FONT_SANS, pal->fg,
                 TT_ALIGN_CENTER);
  }
  for (int i = 0; i < T; i++) {
    int y = dst.y + (int)(((float)i + 0.5f) * ch) - u * 6 / 10;
    if (ch < (float)u && i % (int)ceilf((float)u / ch) != 0) continue;
    tt_text_fit(cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf), u, TT_FONT_SANS, row_w, fit,
                sizeof fit);
    tt_note(cv, "label axis=T i=%d dir=row", i);
    tt_draw_text(cv, dst.x - u / 2, y, fit, u, TT_FONT_SANS, pal->fg, TT_ALIGN_RIGHT);
  }
  const char *rt = tt_str(p->st->lang, TT_S_TOKEN);
  int tw = tt_text_width(cv->fonts, rt, type.label, TT_FONT_SANS);
  if (axis_t && tw < dst.h) cv->text(cv, r.x, dst.y + (dst.h - tw) / 2, rt, type.label, TT_FONT_SANS, pal->dim, true);
  SDL_Rect lr = {dst.x + dst.w + u, dst.y, legend_w, dst.h < u * 8 ? u * 8 : dst.h};
  if (lr.y + lr.h > r.y + r.h) lr.h = r.y + r.h - lr.y;
  tt_paint_legend(p, lr, s);
  return pi;
}

void tt_paint_row_marks(tt_paint *p, int row, int first) {
  if (row < 0) return;
  tt_canvas *cv = p->cv;
  for (int i = first; i < p->lay->n_panels; i++) {
    const tt_panel *pn = &p->lay->panels[i];
    if (pn->row_axis != 'T' || row >= pn->rows) continue;
    float y0 = ((float)row - pn->row0) * pn->cell_h;
    if (y0 + pn->cell_h <= 0 || y0 >= (float)pn->rect.h) continue;
    int y = pn->rect.y + (int)floorf(y0), h = (int)ceilf(pn->cell_h);
    int t = pn->cell_h >= 12 ? 3 : 2;
    // Just outside the cells, so the values stay readable.
    SDL_Rect clip = {pn->rect.x - t - 1, pn->rect.y - t - 1, pn->rect.w + 2 * t + 2, pn->rect.h + 2 * t + 2};
    cv->clip(cv, &clip);
    tt_draw_frame(cv, pn->rect.x - t, y - t, pn->rect.w + 2 * t, h + 2 * t, p->pal->accent, t);
    cv->clip(cv, NULL);
  }
}
