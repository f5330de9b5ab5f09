// frame: the window's layout around a view: the step navigator on the left, the step's
// formula, shapes and explanation on top, the key line at the bottom, and the overlays
// (help, prompt box). The headless demo draws the same frame.
#include <string.h>

#include "render_int.h"

// The navigator's line height in a column h pixels tall: every step fits (its type is
// 62 % of the line, at most the unit).
static int nav_line_height(const tt_paint *p, int h) {
  int u = p->unit, lines = tt_step_count_for(p->tr) + 3;
  int lh = (h - u * 2) / lines;
  return lh > u * 19 / 10 ? u * 19 / 10 : lh;
}

// The navigator's lines: a step (its index), the block's heading (-1) or the rule after
// the block (-2); returns how many, *cur_line the current step's.
static int nav_lines(const tt_paint *p, int *lines, int max, int *cur_line) {
  int n = tt_step_count_for(p->tr), k = 0;
  bool in_block = false;
  *cur_line = 0;
  for (int i = 0; i < n && k + 2 <= max; i++) {
    const tt_step *s = tt_step_get(p->tr, i);
    if (s->in_block != in_block) lines[k++] = s->in_block ? -1 : -2, in_block = s->in_block;
    if (i == p->st->step) *cur_line = k;
    lines[k++] = i;
  }
  return k;
}

// One line of the navigator at y: a step, the block's heading or the rule.
static void nav_line(tt_paint *p, SDL_Rect r, int line, int y, int lh, int px, int L) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit;
  char buf[160], fit[160];
  if (line == -1) {
    snprintf(buf, sizeof buf, "%s %d   (\xE2\x86\x91\xE2\x86\x93 0\xE2\x80\x93%d)", tt_str(st->lang, TT_S_BLOCK),
             st->layer, L - 1);
    tt_note(cv, "nav_block");
    tt_draw_text(cv, r.x + u / 2, y + (lh - px) / 2, buf, px, TT_FONT_BOLD, pal->dim, TT_ALIGN_LEFT);
    return;
  }
  if (line == -2) {
    cv->fill(cv, r.x + u / 2, y + lh / 2, r.w - u, 1, pal->dim);
    return;
  }
  const tt_step *s = tt_step_get(p->tr, line);
  bool cur = line == st->step;
  int indent = s->in_block ? tt_type_for(u).line : u / 2;
  if (cur) {
    cv->fill(cv, r.x, y, r.w, lh, pal->accent_bg);
    cv->fill(cv, r.x, y, u / 4 > 3 ? u / 4 : 3, lh, pal->accent);
  }
  snprintf(buf, sizeof buf, "%d  %s", line + 1, tt_step_title(p->tr, line, st->lang));
  tt_text_fit(cv->fonts, buf, px, cur ? TT_FONT_BOLD : TT_FONT_SANS, r.w - indent - u / 2, fit, sizeof fit);
  tt_note(cv, "nav_step i=%d", line);
  tt_draw_text(cv, r.x + indent, y + (lh - px * 5 / 4) / 2, fit, px, cur ? TT_FONT_BOLD : TT_FONT_SANS,
               cur ? pal->fg : pal->dim, TT_ALIGN_LEFT);
  if (p->lay->n_nav < TT_MAX_NAV) {
    p->lay->nav_rects[p->lay->n_nav] = (SDL_Rect){r.x, y, r.w, lh};
    p->lay->nav_steps[p->lay->n_nav++] = line;
  }
}

// Every step in a type small enough for all to fit; where that would be under 10 px (a
// small window), the steps around the current one in 10 px type.
static void navigator(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_view_state *st = p->st;
  int u = p->unit;
  cv->fill(cv, r.x, r.y, r.w, r.h, p->pal->panel);
  tt_config cfg;
  int L = tt_trace_config(p->tr, &cfg) ? cfg.n_layer : 0;
  int lh = nav_line_height(p, r.h);
  int px = tt_min_i(lh * 62 / 100, u);
  if (px < 10) px = 10, lh = px * 100 / 62 + 1;
  int y = r.y + u / 2;
  tt_note_scope(cv, "panel=navigator layer=%d", st->layer);
  tt_draw_text(cv, r.x + u / 2, y, tt_str(st->lang, TT_S_STEPS), px * 12 / 10, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  y += lh * 13 / 10;
  int lines[256], cur = 0, m = nav_lines(p, lines, 256, &cur);
  int fits = tt_max_i(1, (r.y + r.h - y) / lh), first = 0;
  if (m > fits) first = tt_max_i(0, tt_min_i(cur - fits / 2, m - fits));  // the current step in view
  for (int k = first; k < m && k < first + fits; k++, y += lh) nav_line(p, r, lines[k], y, lh, px, L);
}

// The step's counter and title, formula, shapes and explanation, in at most max_h pixels
// (its unit shrinks toward the unzoomed one, the explanation is cut with "…" where it
// would take more); returns the height used.
static int header(tt_paint *p, SDL_Rect r, int max_h) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = tt_unit_fit(st, p->unit, max_h * 10 / 83);  // counter, formula, shapes, a line of prose: 8.3 units
  const tt_type type = tt_type_for(u);
  int y = r.y;
  char buf[600], fit[600];
  int step = st->step;
  if (step < 0) return 0;
  snprintf(buf, sizeof buf, "%d / %d   %s", step + 1, tt_step_count_for(p->tr), tt_step_title(p->tr, step, st->lang));
  tt_note_scope(cv, "panel=header step=%d layer=%d", step, st->layer);
  tt_note(cv, "step_counter");
  tt_draw_text(cv, r.x, y, tt_text_fit(cv->fonts, buf, type.display, TT_FONT_BOLD, r.w, fit, sizeof fit), type.display,
               TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  if (st->playing) {
    tt_draw_text(cv, r.x + r.w, y, "\xE2\x96\xB6", type.display, TT_FONT_BOLD, pal->accent, TT_ALIGN_RIGHT);
  }
  y += u * 23 / 10;
  const char *f = tt_step_formula(p->tr, step);
  if (f && f[0]) {
    tt_note(cv, "formula");
    tt_draw_text(cv, r.x, y, tt_text_fit(cv->fonts, f, type.formula, TT_FONT_SANS, r.w, fit, sizeof fit), type.formula,
                 TT_FONT_SANS, pal->accent, TT_ALIGN_LEFT);
    y += u * 2;
  }
  tt_step_shapes(p->tr, step, st->lang, buf, sizeof buf);
  if (buf[0]) {
    tt_note(cv, "shapes");
    tt_draw_text(cv, r.x, y, tt_text_fit(cv->fonts, buf, type.large, TT_FONT_MONO, r.w, fit, sizeof fit), type.large,
                 TT_FONT_MONO, pal->fg, TT_ALIGN_LEFT);
    y += type.line_loose;
  }
  tt_note(cv, "prose");
  int room = max_h - (y - r.y) - u;  // what the rule under it leaves
  if (room > 0)
    y += tt_draw_para_cut(cv, r.x, y, r.w, tt_step_text(p->tr, step, st->lang), u, TT_FONT_SANS, pal->fg, room);
  tt_note_scope(cv, NULL);
  y += u / 2;
  cv->fill(cv, r.x, y, r.w, 1, pal->dim);
  return y + u / 2 - r.y;
}

void tt_paint_key_line(tt_paint *p, SDL_Rect r, const char *keys) {
  tt_canvas *cv = p->cv;
  const tt_view_state *st = p->st;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  cv->fill(cv, r.x, r.y, r.w, r.h, p->pal->panel);
  bool status = st->status && st->status[0];
  int px = type.label;
  char fit[600];
  tt_text_fit(cv->fonts, status ? st->status : keys, px, TT_FONT_SANS, r.w - u, fit, sizeof fit);
  tt_note(cv, "prose");
  tt_draw_text(cv, r.x + u / 2, r.y + (r.h - px * 5 / 4) / 2, fit, px, TT_FONT_SANS,
               status ? p->pal->accent : p->pal->dim, TT_ALIGN_LEFT);
}

static void key_line(tt_paint *p, SDL_Rect r) {
  tt_paint_key_line(p, r, tt_str(p->st->lang, TT_S_KEYS_WINDOW));
}

static void prompt_box(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  SDL_Rect b = {r.x + r.w / 10, r.y + r.h / 3, r.w * 8 / 10, u * 6};
  cv->fill(cv, b.x, b.y, b.w, b.h, pal->panel);
  tt_draw_frame(cv, b.x, b.y, b.w, b.h, pal->accent, 3);
  tt_draw_text(cv, b.x + u, b.y + u / 2, tt_str(p->st->lang, TT_S_TYPE_PROMPT), type.label, TT_FONT_SANS, pal->dim,
               TT_ALIGN_LEFT);
  char buf[600], fit[600];
  snprintf(buf, sizeof buf, "%s\xE2\x96\x8F", p->st->prompt_edit);  // text and a caret
  // Keep the end visible: cut from the left when too long.
  const char *s = buf;
  while (tt_text_width(cv->fonts, s, type.big, TT_FONT_SANS) > b.w - u * 2 && *s) {
    s++;
    while ((*s & 0xC0) == 0x80) s++;
  }
  snprintf(fit, sizeof fit, "%s", s);
  tt_draw_text(cv, b.x + u, b.y + u * 2 + u / 2, fit, type.big, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
}

void tt_paint_help(tt_paint *p, SDL_Rect r) {
  int u = p->unit;
  int n = 0;
  const tt_key_row *rows = tt_key_help(p->st->lang, TT_KEYS_WINDOW, &n);
  tt_paint_key_table(p, r, u * 2, rows, n, 25, -1);
}

void tt_paint_knobs(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_view_state *st = p->st;
  int u = p->unit, n = st->n_knob_rows;
  const tt_type type = tt_type_for(u);
  int lh = type.line, px = type.label, title_h = lh + u / 2;
  // A box in the lower right corner of the view, over it, so most of the comparison stays
  // visible. Never taller than the view: on a zoomed projector the knobs' lines come closer
  // (down to one line of type), then the hint under them is cut with "…".
  int w = r.w * 36 / 100 < u * 20 ? u * 20 : r.w * 36 / 100;
  const char *hint = tt_str(st->lang, TT_S_KNOBS_HINT);
  int hint_h = tt_para_height(cv, w - u * 2, hint, px, TT_FONT_SANS), margins = u / 4 + u * 5 / 4;
  if (n > 0 && title_h + n * lh + hint_h + margins > r.h)
    lh = tt_max_i(px * 5 / 4, tt_min_i(lh, (r.h - title_h - hint_h - margins) / n));
  int h = tt_min_i(title_h + n * lh + hint_h + margins, r.h);
  SDL_Rect b = {r.x + r.w - w, tt_max_i(r.y, r.y + r.h - h), w, h};
  cv->fill(cv, b.x, b.y, b.w, b.h, pal->bg);
  tt_draw_frame(cv, b.x, b.y, b.w, b.h, pal->accent, 3);
  tt_note_scope(cv, "panel=knobs");
  tt_draw_text(cv, b.x + u, b.y + u / 2, tt_str(st->lang, TT_S_KNOBS_TITLE), type.title, TT_FONT_BOLD, pal->fg,
               TT_ALIGN_LEFT);
  int y = b.y + title_h;
  char fit[200];
  for (int i = 0; i < n && y + lh <= b.y + b.h; i++) {
    tt_note(cv, "knob_key");
    tt_draw_text(cv, b.x + u, y, st->knob_rows[i][0], px, TT_FONT_BOLD, pal->accent, TT_ALIGN_LEFT);
    tt_text_fit(cv->fonts, st->knob_rows[i][1], px, TT_FONT_MONO, b.w - u * 3, fit, sizeof fit);
    tt_note(cv, "knob");
    tt_draw_text(cv, b.x + u * 2 + u / 2, y, fit, px, TT_FONT_MONO, pal->fg, TT_ALIGN_LEFT);
    y += lh;
  }
  y += u / 4;
  if (b.y + b.h - u / 2 - y >= px) {
    tt_note(cv, "prose");
    tt_draw_para_cut(cv, b.x + u, y, b.w - u * 2, hint, px, TT_FONT_SANS, pal->dim, b.y + b.h - u / 2 - y);
  }
  tt_note_scope(cv, NULL);
}

void tt_paint_key_table(tt_paint *p, SDL_Rect r, int top, const char *const (*rows)[2], int n, int col2_pct, int skip) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  // Every row shows: the lines get closer (down to one line of type) before the box would
  // cut any; the keys' column is as wide as its widest key (at least col2_pct % of the box).
  SDL_Rect b = {r.x + r.w / 16, r.y + top, r.w * 7 / 8, 0};
  int shown = n - (skip >= 0 && skip < n), room = r.h - top - u;
  int head = u / 2 + type.title * 5 / 4 + u / 4;  // the title and the gap under it
  int lh = type.line_loose;
  if (lh * shown + head + u / 2 > room) lh = (room - head - u / 2) / shown;
  if (lh < u * 5 / 4) lh = u * 5 / 4;
  int px = lh < u * 13 / 10 ? lh * 10 / 13 : u;
  b.h = head + lh * shown + u / 2;
  if (b.h > room) b.h = room;
  int key_w = 0;
  for (int i = 0; i < n; i++) {
    int w = i == skip ? 0 : tt_text_width(cv->fonts, rows[i][0], px, TT_FONT_BOLD);
    if (w > key_w) key_w = w;
  }
  int col2 = b.x + u + key_w + u;
  if (col2 < b.x + b.w * col2_pct / 100) col2 = b.x + b.w * col2_pct / 100;
  cv->fill(cv, b.x, b.y, b.w, b.h, pal->bg);
  tt_draw_frame(cv, b.x, b.y, b.w, b.h, pal->accent, 3);
  tt_draw_text(cv, b.x + u, b.y + u / 2, tt_str(p->st->lang, TT_S_KEYS), type.title, TT_FONT_BOLD, pal->fg,
               TT_ALIGN_LEFT);
  int y = b.y + head, drawn = 0;
  char fit[400];
  for (int i = 0; i < n && y + lh <= b.y + b.h; i++) {
    if (i == skip) continue;
    tt_draw_text(cv, b.x + u, y, rows[i][0], px, TT_FONT_BOLD, pal->accent, TT_ALIGN_LEFT);
    tt_text_fit(cv->fonts, rows[i][1], px, TT_FONT_SANS, b.x + b.w - u - col2, fit, sizeof fit);
    tt_draw_text(cv, col2, y, fit, px, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    y += lh;
    drawn++;
  }
  if (drawn < shown) {  // a screen too small for every row: say how many are left out
    char more[120];
    snprintf(more, sizeof more, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), shown - drawn);
    tt_draw_text(cv, b.x + b.w - u, b.y + u / 2, more, type.label, TT_FONT_SANS, pal->dim, TT_ALIGN_RIGHT);
  }
}

void tt_paint_frame(tt_paint *p, SDL_Rect r, tt_view_painter view_painter, void *ctx) {
  int u = p->unit;
  int keys_h = u * 2;
  int nav_w = r.w / 5;
  if (nav_w < u * 13) nav_w = u * 13;
  if (nav_w > u * 20) nav_w = u * 20;
  // With large type the steps' lines (not the type) bound the navigator's text: no wider
  // than that text needs (26 of its type), so the view keeps the room.
  int nav_px = nav_line_height(p, r.h - keys_h) * 62 / 100, nav_need = nav_px * 26;
  if (nav_w > nav_need) nav_w = nav_need > r.w / 5 ? nav_need : r.w / 5;
  SDL_Rect nav = {r.x, r.y, nav_w, r.h - keys_h};
  navigator(p, nav);
  SDL_Rect main = {r.x + nav_w + u, r.y + u / 2, r.w - nav_w - u * 2, r.h - keys_h - u};
  int hh = header(p, main, main.h * 2 / 5);  // the view keeps at least 3/5, however large the type
  SDL_Rect view = {main.x, main.y + hh, main.w, main.h - hh};
  tt_paint vp = *p;
  vp.unit = tt_unit_fit(p->st, p->unit, view.h / 16);
  if (view_painter)
    view_painter(&vp, view, ctx);
  else
    tt_paint_view(&vp, view);
  if (!p->st->figure) key_line(p, (SDL_Rect){r.x, r.y + r.h - keys_h, r.w, keys_h});  // keys: the window's
  if (p->st->prompt_edit) prompt_box(p, main);
  if (p->st->knob_rows) tt_paint_knobs(p, main);
  // The keys over the whole window but its key line: every row in the type of the window.
  if (p->st->show_help) tt_paint_help(p, (SDL_Rect){r.x, r.y, r.w, r.h - keys_h});
}
