// embed: the embedding lookup (the whole matrix W_E with the prompt's rows marked, when
// the model is at hand, beside the rows that were looked up) and the position step
// (token rows + position rows = the first block's input).
#include <math.h>
#include <string.h>

#include "render_int.h"

// A title cut to width w (it must not run into the panel beside it).
// A panel's title in width w: one line, in smaller type where needed, else wrapped onto two
// (what does not fit those is cut with "…"); returns the height it takes with its gap.
static int title_in(tt_paint *p, int x, int y, int w, const char *s) {
  const tt_type type = tt_type_for(p->unit);
  int px = p->unit;
  if (tt_text_width(p->cv->fonts, s, px, TT_FONT_BOLD) > w) px = type.label;
  int two_lines = tt_para_line(px) * 2;
  int h = tt_draw_para_cut(p->cv, x, y, w, s, px, TT_FONT_BOLD, p->pal->fg, two_lines);
  return h > tt_para_line(px) ? h + p->unit / 2 : p->unit * 2;
}

// The label of every looked-up row of W_E, left of the matrix: "id piece" with a line
// to its row; labels that would overlap move apart, a row looked up twice is labelled once
// (with its first token), and what does not fit is counted.
static void row_labels(tt_paint *p, SDL_Rect left, int label_w) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_type type = tt_type_for(p->unit);
  int T = tt_trace_n_tokens(p->tr), V = p->ex->vocab;
  int lh = type.small * 5 / 4;
  int max_labels = left.h / lh;
  enum { MAXL = 512 };
  int tok[MAXL], ys[MAXL], n = 0, unique = 0;
  // Tokens of distinct ids in order of id (insertion sort: a prompt is short).
  for (int i = 0; i < T; i++) {
    int id = tt_trace_token_id(p->tr, i);
    bool seen = false;
    for (int k = 0; k < i && !seen; k++) seen = tt_trace_token_id(p->tr, k) == id;
    if (seen) continue;
    unique++;
    if (n >= MAXL || n >= max_labels) continue;
    int k = n++;
    while (k > 0 && tt_trace_token_id(p->tr, tok[k - 1]) > id) {
      tok[k] = tok[k - 1];
      k--;
    }
    tok[k] = i;
  }
  if (unique > n && n > 0) n = n - 1 < max_labels - 1 ? n : max_labels - 1;  // a line for "… N more"
  for (int k = 0; k < n; k++) {
    int id = tt_trace_token_id(p->tr, tok[k]);
    ys[k] = left.y + (int)((double)id / V * left.h) - lh / 2;
    if (k > 0 && ys[k] < ys[k - 1] + lh) ys[k] = ys[k - 1] + lh;
  }
  int bottom = left.y + left.h - lh / 2 - (unique > n ? lh : 0);
  for (int k = n - 1; k >= 0; k--) {
    int lim = k == n - 1 ? bottom : ys[k + 1] - lh;
    if (ys[k] > lim) ys[k] = lim;
  }
  char buf[160], lab[160], fit[160];
  int x = left.x - p->unit / 2;
  for (int k = 0; k < n; k++) {
    int id = tt_trace_token_id(p->tr, tok[k]);
    int row_y = left.y + (int)((double)id / V * left.h);
    cv->line(cv, x - p->unit / 4, ys[k] + lh / 2, left.x, row_y, pal->highlight);
    snprintf(buf, sizeof buf, "%d", id);
    int idw = tt_text_width(cv->fonts, buf, type.small, TT_FONT_BOLD);
    tt_note(cv, "token_id i=%d", tok[k]);
    tt_draw_text(cv, x - label_w, ys[k], buf, type.small, TT_FONT_BOLD, pal->highlight, TT_ALIGN_LEFT);
    tt_text_fit(cv->fonts, tt_token_label(p->tr, tok[k], lab, sizeof lab), type.small, TT_FONT_SANS,
                label_w - idw - p->unit / 2, fit, sizeof fit);
    tt_note(cv, "label axis=T i=%d dir=row", tok[k]);
    tt_draw_text(cv, x - label_w + idw + p->unit / 3, ys[k], fit, type.small, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
  }
  if (unique > n) {
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), unique - n);
    tt_note(cv, "embed_rows_more shown=%d rows=%d", n, unique);
    tt_draw_text(cv, x - label_w, bottom + lh, buf, type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
  }
}

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
  if (ex && ex->wte && ex->width == (int)e->shape[1]) {
    // Left: W_E (V, C) whole, downsampled, the looked-up rows marked and labelled.
    int label_w = u * 8, col_w = r.w * 2 / 5;
    char buf[200];
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_EMBED_MATRIX_FMT), ex->vocab, ex->width);
    tt_note(cv, "wte_shape");
    int top = title_in(p, r.x, r.y, col_w - u, buf);
    SDL_Rect left = {r.x + label_w + u, r.y + top, col_w - label_w - u * 2, r.h - top - u * 3};
    right = (SDL_Rect){r.x + col_w + u, r.y, r.w - col_w - u, r.h};
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
    for (int i = 0; i < tt_trace_n_tokens(p->tr); i++) {
      int y = left.y + (int)((double)tt_trace_token_id(p->tr, i) / ex->vocab * left.h);
      cv->fill(cv, left.x, y - 1, left.w + u / 2, 3, pal->highlight);
    }
    row_labels(p, left, label_w);
    tt_draw_para_cut(cv, r.x, left.y + left.h + u / 2, col_w - u, tt_str(p->st->lang, TT_S_EMBED_ROWS_HINT), type.label,
                     TT_FONT_SANS, pal->dim, r.y + r.h - (left.y + left.h + u / 2));
  }
  int top = title_in(p, right.x, right.y, right.w, tt_str(p->st->lang, TT_S_EMBED_LOOKED_UP));
  SDL_Rect rr = {right.x, right.y + top, right.w, right.h - top};
  tt_paint_heatmap(p, rr, e, 0, false);
}

// One scale for the three, so that colours add up visibly.
static tt_scale sum_scale(tt_paint *p, const tt_tensor *const ts[3]) {
  float lim = 0;
  for (int i = 0; i < 3; i++) {
    if (!ts[i]) continue;
    tt_scale s;
    tt_scale_get(p, ts[i], ts[i]->name, &s);
    lim = fmaxf(lim, fmaxf(fabsf(s.lo), fabsf(s.hi)));
  }
  return (tt_scale){.diverging = true, .lo = -lim, .hi = lim, .qty = TT_S_QTY_ACTIVATION};
}

// The widest token label (of the first 256) in the unit's type.
static int token_label_width(tt_paint *p, int T) {
  char buf[160];
  int w = 0;
  for (int i = 0; i < T && i < 256; i++)
    w = tt_max_i(
        w, tt_text_width(p->cv->fonts, tt_axis_label(p->tr, p->ex, 'T', i, buf, sizeof buf), p->unit, TT_FONT_SANS));
  return w;
}

// The panels' height in r from top down, with the column labels and the note (note_w wide)
// under them.
static int panels_height(tt_paint *p, SDL_Rect r, int T, int top, const char *note, int note_px, int note_w) {
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int note_h = note ? tt_para_height(p->cv, note_w, note, note_px, TT_FONT_SANS) : 0;
  float cell_h = fminf((float)(r.h - top - (type.line + u + note_h)) / (float)T, (float)u * 5);
  return (int)(cell_h * (float)T);
}

// a + b = the sum, side by side with one colour scale: ts[0] + ts[1] = ts[2] (ts[1] may be
// missing: no position vectors); `positions` adds the note on the columns.
static void paint_sum(tt_paint *p, SDL_Rect r, const tt_tensor *const ts[3], const char *const titles[3],
                      bool positions) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int n = 0;
  for (int i = 0; i < 3; i++) n += ts[i] != NULL;
  if (!ts[0] || !ts[2]) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, pal->warn);
    return;
  }
  tt_scale sc = sum_scale(p, ts);
  int T = (int)ts[0]->shape[0];
  int row_w = tt_min_i(token_label_width(p, T), r.w / 6);
  int legend_w = tt_legend_width(p, &sc) + u / 2, sign_w = u * 2;
  int x0 = r.x + row_w + u;
  int pw = (r.x + r.w - legend_w - x0 - sign_w * (n - 1)) / n;
  // The titles in one type, the largest in which each fits over its panel (and its sign).
  int title_px = type.large;
  for (int i = 0; i < 3; i++)
    if (ts[i]) title_px = tt_text_px_fit(cv->fonts, titles[i], TT_FONT_BOLD, title_px, type.small, pw + sign_w - u / 2);
  int top = tt_max_i(u * 2, tt_para_line(title_px) + u / 2);
  const char *note = !ts[1]      ? tt_str(p->st->lang, TT_S_POS_NONE)
                     : positions ? tt_str(p->st->lang, TT_S_POS_COLUMNS)
                                 : NULL;
  int note_px = ts[1] ? type.label : u, note_w = r.x + r.w - x0;
  int ph = panels_height(p, r, T, top, note, note_px, note_w);
  if (note && tt_min_i(tt_max_i(ph, u * 10), r.h - top) > ph + type.line + u) {  // the legend reaches the note
    note_w = r.x + r.w - legend_w - x0;                                          // which keeps left of it
    ph = panels_height(p, r, T, top, note, note_px, note_w);
  }
  int k = 0;
  char fit[160];
  for (int i = 0; i < 3; i++) {
    if (!ts[i]) continue;
    tt_mat m;
    tt_mat_of(p->tr, ts[i], 0, &m);
    SDL_Rect dst = {x0 + k * (pw + sign_w), r.y + top, pw, ph};
    tt_text_fit(cv->fonts, titles[i], title_px, TT_FONT_BOLD, pw + sign_w - u / 2, fit, sizeof fit);
    tt_draw_text(cv, dst.x, r.y, fit, title_px, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    tt_cells_opts o = {.vis_rows = m.rows, .vis_cols = m.cols, .layer = tt_hook_block(ts[i]->name), .head = -1};
    int pi = tt_paint_cells(p, dst, &m, &sc, &o);
    tt_draw_rect(cv, dst.x - 1, dst.y - 1, dst.w + 2, dst.h + 2, pal->dim);
    if (pi >= 0) tt_paint_axis_labels(p, &p->lay->panels[pi], &m, type.label, k == 0 ? row_w : 0, type.line);
    if (k > 0)
      tt_draw_text(cv, dst.x - sign_w / 2, dst.y + ph / 2 - u, i == 2 ? "=" : "+", u * 2, TT_FONT_BOLD, pal->fg,
                   TT_ALIGN_CENTER);
    k++;
  }
  if (note) {
    if (ts[1]) tt_note(cv, "prose");
    tt_draw_para(cv, x0, r.y + top + ph + type.line + u, note_w, note, note_px, TT_FONT_SANS,
                 ts[1] ? pal->dim : pal->warn);
  }
  SDL_Rect lr = {r.x + r.w - legend_w + u / 2, r.y + top, legend_w - u / 2, tt_min_i(tt_max_i(ph, u * 10), r.h - top)};
  // The legend's numbers are the joint scale of the tensors drawn (the SVG says which).
  tt_note_scope(cv, "panel=sum hooks=%s,%s,%s", ts[0]->name, ts[1] ? ts[1]->name : "-", ts[2]->name);
  tt_paint_legend(p, lr, &sc);
  tt_note_scope(cv, NULL);
}

void tt_paint_positions(tt_paint *p, SDL_Rect r) {
  const tt_tensor *ts[3] = {tt_trace_find(p->tr, "hook_embed"), tt_trace_find(p->tr, "hook_pos_embed"),
                            tt_find_hook(p->tr, 0, "hook_resid_pre")};
  const char *titles[3] = {tt_str(p->st->lang, TT_S_POS_TOKEN), tt_str(p->st->lang, TT_S_POS_POSITION), "x + p"};
  paint_sum(p, r, ts, titles, true);
}

bool tt_paint_residual(tt_paint *p, SDL_Rect r, const char *hook) {
  tt_config cfg;
  if (!tt_trace_config(p->tr, &cfg) || !cfg.residual || cfg.post_ln) return false;  // not a plain h + o
  int layer = tt_hook_block(hook);
  const char *suffix = layer >= 0 ? tt_hook_suffix(hook) : "";
  bool mid = !strcmp(suffix, "hook_resid_mid");
  if (!mid && strcmp(suffix, "hook_resid_post") != 0) return false;
  const tt_tensor *ts[3] = {tt_find_hook(p->tr, layer, mid ? "hook_resid_pre" : "hook_resid_mid"),
                            tt_find_hook(p->tr, layer, mid ? "hook_attn_out" : "hook_mlp_out"),
                            tt_find_hook(p->tr, layer, suffix)};
  if (!ts[0] || !ts[1] || !ts[2]) return false;
  static const char *const mid_titles[3] = {"h", "o", "h' = h + o"};
  static const char *const post_titles[3] = {"h'", "m", "h'' = h' + m"};
  paint_sum(p, r, ts, mid ? mid_titles : post_titles, false);
  return true;
}
