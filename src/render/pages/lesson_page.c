// lesson_page: one step of a lesson as the class sees it: the lesson's title and the step
// counter on top with a progress bar, the narration on the left in large type (reflowed,
// shrunk only as far as needed to fit), and on the right exactly the step's view, drawn
// by the same painters as the window (or a comparison, or vector lengths), with the token
// row the narration talks about outlined. Keys at the bottom; F1 shows them all.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "derived_int.h"

// ---- narration text ------------------------------------------------------------------------
// Paragraphs (split by blank lines) with their single newlines turned into spaces; each
// paragraph ends with '\n'. malloc'd.
static char *reflow(const char *s) {
  size_t n = strlen(s);
  char *out = malloc(n + 2);
  if (!out) return NULL;
  size_t o = 0;
  const char *p = s;
  while (*p == '\n' || *p == ' ') p++;
  while (*p) {
    if (*p == '\n') {
      const char *q = p;
      int nl = 0;
      while (*q == '\n' || *q == ' ' || *q == '\t' || *q == '\r') nl += *q++ == '\n';
      if (!*q) break;
      if (nl >= 2)
        out[o++] = '\n';
      else if (o && out[o - 1] != ' ')
        out[o++] = ' ';
      p = q;
      continue;
    }
    out[o++] = *p++;
  }
  out[o++] = '\n';
  out[o] = 0;
  return out;
}

// Word-wraps one paragraph (up to '\n' or the end) into width w; draws it when cv is set.
// Returns the height used and advances *s past the paragraph.
static int wrap(tt_canvas *cv, tt_fonts *f, const char **s, int x, int y, int w, int px, tt_font_kind k, tt_rgba c) {
  int lh = px * 14 / 10, used = 0;
  char line[1024];
  const char *p = *s;
  while (*p && *p != '\n') {
    size_t last_fit = 0;
    const char *q = p;
    while (*q && *q != '\n') {
      const char *e = q;
      while (*e == ' ') e++;
      while (*e && *e != ' ' && *e != '\n') e++;
      size_t cand = (size_t)(e - p);
      if (cand >= sizeof line) break;
      memcpy(line, p, cand);
      line[cand] = 0;
      if (tt_text_width(f, line, px, k) > w) break;  // a first word too wide is cut below
      last_fit = cand;
      q = e;
    }
    if (last_fit == 0) {  // a word wider than the line: cut it by characters
      size_t n = 0;
      while (p[n] && p[n] != '\n' && n < sizeof line - 8) {
        size_t m = n + 1;
        while (((unsigned char)p[m] & 0xC0) == 0x80) m++;
        memcpy(line, p, m);
        line[m] = 0;
        if (n > 0 && tt_text_width(f, line, px, k) > w) break;
        n = m;
      }
      last_fit = n ? n : 1;
    }
    memcpy(line, p, last_fit);
    line[last_fit] = 0;
    if (cv) cv->text(cv, x, y + used, line, px, k, c, false);
    used += lh;
    p += last_fit;
    while (*p == ' ') p++;
  }
  if (*p == '\n') p++;
  *s = p;
  return used;
}

// Height of (or draws) the title and narration at type size px.
static int narration_block(tt_canvas *cv, tt_fonts *f, const char *title, const char *text, SDL_Rect r, int px,
                           const tt_palette *pal, bool draw) {
  int y = r.y;
  if (title && title[0]) {
    const char *t = title;
    y += wrap(draw ? cv : NULL, f, &t, r.x, y, r.w, px * 13 / 10, TT_FONT_BOLD, pal->fg);
    y += px * 7 / 10;
  }
  const char *p = text;
  while (*p) {
    if (*p == '\n') {
      p++;
      continue;
    }
    y += wrap(draw ? cv : NULL, f, &p, r.x, y, r.w, px, TT_FONT_SANS, pal->fg);
    y += px * 7 / 10;
  }
  return y - r.y;
}

static void narration_panel(tt_paint *p, SDL_Rect r, const tt_lesson_page *pg) {
  tt_canvas *cv = p->cv;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  cv->fill(cv, r.x, r.y, r.w, r.h, p->pal->panel);
  SDL_Rect in = {r.x + u, r.y + u, r.w - 2 * u, r.h - 2 * u};
  char *flat = reflow(pg->error ? pg->error : pg->narration ? pg->narration : "");
  if (!flat) return;
  // The numbers the narration quotes get real minus signs, as every other number on screen.
  size_t cap = strlen(flat) * 3 + 1;
  char *text = realloc(flat, cap);
  if (!text) {
    free(flat);
    return;
  }
  tt_minus_signs(text, cap);
  tt_note_scope(cv, "panel=narration");
  // The largest type that fits, from 1.2 units down to the body size; longer text scrolls.
  int px = type.heading, min_px = type.body;
  int need = narration_block(cv, cv->fonts, pg->step_title, text, in, px, p->pal, false);
  while (px > min_px && need > in.h)
    need = narration_block(cv, cv->fonts, pg->step_title, text, in, --px, p->pal, false);
  int lh = px * 13 / 10, hidden = need > in.h ? (need - in.h + lh - 1) / lh : 0;
  int scroll = pg->narration_scroll < hidden ? pg->narration_scroll : hidden;
  if (scroll < 0) scroll = 0;
  if (pg->narration_below) *pg->narration_below = hidden - scroll;
  SDL_Rect shown = {in.x, in.y - scroll * lh, in.w, in.h + scroll * lh};
  SDL_Rect clip = {r.x, in.y - (scroll > 0 ? 0 : u), r.w, in.h + (scroll > 0 ? 0 : u)};
  cv->clip(cv, &clip);
  if (pg->error) {
    const char *t = text;
    wrap(cv, cv->fonts, &t, shown.x, shown.y, shown.w, px, TT_FONT_SANS, p->pal->warn);
  } else {
    narration_block(cv, cv->fonts, pg->step_title, text, shown, px, p->pal, true);
  }
  cv->clip(cv, NULL);
  if (scroll > 0 || scroll < hidden) {  // where there is more: arrows at the panel's edges
    tt_note(cv, "fixed");
    if (scroll > 0)
      tt_draw_text(cv, r.x + r.w - u, r.y, "\xE2\x96\xB2", type.label, TT_FONT_SANS, p->pal->accent, TT_ALIGN_RIGHT);
    tt_note(cv, "fixed");
    if (scroll < hidden)
      tt_draw_text(cv, r.x + r.w - u, in.y + in.h, "\xE2\x96\xBC \xE2\x86\x93", type.label, TT_FONT_SANS,
                   p->pal->accent, TT_ALIGN_RIGHT);
  }
  tt_note_scope(cv, NULL);
  free(text);
}

// ---- top bar, key line, help --------------------------------------------------------------
static int top_bar(tt_paint *p, SDL_Rect r, const tt_lesson_page *pg) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit, h = u * 3;
  const tt_type type = tt_type_for(u);
  cv->fill(cv, r.x, r.y, r.w, h, pal->panel);
  char counter[64], fit[512];
  snprintf(counter, sizeof counter, "%d / %d", pg->step + 1, pg->n_steps);
  tt_note_scope(cv, "panel=lesson_bar");
  tt_note(cv, "lesson_counter step=%d", pg->step);
  int cpx = type.display;
  int cw = tt_text_width(cv->fonts, counter, cpx, TT_FONT_BOLD);
  tt_draw_text(cv, r.x + r.w - u, r.y + (h - cpx * 5 / 4) / 2, counter, cpx, TT_FONT_BOLD, pal->accent, TT_ALIGN_RIGHT);
  int right = r.x + r.w - u - cw - u;
  if (pg->jump && pg->jump[0]) {
    // The step number being typed, boxed, left of the counter.
    char buf[64];
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_JUMP_FMT), pg->jump);
    int bw = tt_text_width(cv->fonts, buf, type.heading, TT_FONT_BOLD) + u;
    SDL_Rect b = {right - bw, r.y + u / 2, bw, h - u};
    cv->fill(cv, b.x, b.y, b.w, b.h, pal->bg);
    tt_draw_frame(cv, b.x, b.y, b.w, b.h, pal->accent, 2);
    tt_draw_text(cv, b.x + u / 2, b.y + (b.h - type.heading * 5 / 4) / 2, buf, type.heading, TT_FONT_BOLD, pal->fg,
                 TT_ALIGN_LEFT);
    right = b.x - u;
  }
  int tpx = type.title;
  tt_text_fit(cv->fonts, pg->lesson_title ? pg->lesson_title : "", tpx, TT_FONT_BOLD, right - r.x - u, fit, sizeof fit);
  tt_draw_text(cv, r.x + u, r.y + (h - tpx * 5 / 4) / 2, fit, tpx, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  tt_note_scope(cv, NULL);
  // Progress: one segment per step, the done ones filled.
  int ph = u / 4 > 3 ? u / 4 : 3;
  cv->fill(cv, r.x, r.y + h, r.w, ph, pal->grid);
  if (pg->n_steps > 0) cv->fill(cv, r.x, r.y + h, (int)((int64_t)r.w * (pg->step + 1) / pg->n_steps), ph, pal->accent);
  return h + ph;
}

static void key_line(tt_paint *p, SDL_Rect r, const tt_lesson_page *pg) {
  tt_lang lang = p->st->lang;
  char keys[400];
  snprintf(keys, sizeof keys, "%s%s%s%s%s", tt_str(lang, TT_S_KEYS_LESSON_NAV), pg->other_lang ? "L " : "",
           pg->other_lang ? pg->other_lang : "", pg->other_lang ? "   " : "", tt_str(lang, TT_S_KEYS_LESSON_END));
  tt_paint_key_line(p, r, keys);
}

static void help(tt_paint *p, SDL_Rect r, const tt_lesson_page *pg) {
  int u = p->unit;
  int n = 0, skip = -1;
  const tt_key_row *rows = tt_key_help(p->st->lang, TT_KEYS_LESSON, &n);
  // Without a twin in the other language the L row is left out.
  for (int i = 0; i < n && !pg->other_lang; i++)
    if (strcmp(rows[i][0], "L") == 0) skip = i;
  tt_paint_key_table(p, r, u, rows, n, 30, skip);
}

// ---- the page -------------------------------------------------------------------------------
typedef struct {
  const tt_trace *tr;
  const tt_view_state *st;
  const tt_lesson_page *pg;
  tt_derived *d;
  tt_layout *lay;
} page_job;

static void paint_page(tt_render *rc, tt_canvas *cv, SDL_Rect area, const page_job *j) {
  const tt_view_state *st = j->st;
  const tt_lesson_page *pg = j->pg;
  tt_paint p = {cv, j->tr, st, &rc->ex, tt_palette_for(st->theme), j->lay, tt_unit_for(st, area.w, area.h), rc};
  memset(j->lay, 0, sizeof *j->lay);
  int u = p.unit;
  const tt_type type = tt_type_for(u);
  cv->fill(cv, area.x, area.y, area.w, area.h, p.pal->bg);
  int top = pg->no_top_bar ? 0 : top_bar(&p, area, pg);
  int keys_h = u * 2;
  // A comparison needs room for three panels: the narration gets less of the width.
  bool cmp = pg->compare && pg->compare->b;
  int nar_w = area.w * (cmp ? 30 : 35) / 100;
  if (nar_w < u * 15) nar_w = u * 15;
  if (nar_w > u * 34) nar_w = u * 34;
  if (pg->narration_hidden) nar_w = 0;
  SDL_Rect nar = {area.x, area.y + top, nar_w, area.h - top - keys_h};
  if (nar_w > 0) narration_panel(&p, nar, pg);
  SDL_Rect view = {area.x + nar_w + u, area.y + top + u * 3 / 4, area.w - nar_w - u * 2,
                   area.h - top - keys_h - type.line};
  p.lay->view_rect = view;

  if (pg->error) {
    int h = tt_draw_para(cv, view.x, view.y, view.w, tt_str(st->lang, TT_S_NOT_RECORDED), u, TT_FONT_SANS, p.pal->warn);
    tt_draw_para(cv, view.x, view.y + h + u, view.w, pg->error, u, TT_FONT_SANS, p.pal->fg);
  } else if (cmp) {
    int th = tt_paint_compare_title(&p, view, pg->compare, pg->layers, pg->n_layers);
    SDL_Rect body = {view.x, view.y + th + u / 2, view.w, view.h - th - u / 2};
    tt_paint_compare(&p, body, pg->compare, j->d, pg->layers, pg->layers_b, pg->n_layers, pg->row);
  } else {
    // The view without the pointer, then the row outline, then the hovered cell on top.
    tt_view_state sub = *st;
    sub.mouse_x = sub.mouse_y = -1;
    sub.frame = false;
    tt_paint q = p;
    q.st = &sub;
    // The painters are laid out for the window's view area (about 77% of its width); in a
    // narrower area their type shrinks a little with it, so that labels keep their room.
    float f = (float)view.w / (0.77f * (float)area.w);
    if (f < 1) q.unit = (int)lrintf((float)u * (f < 0.75f ? 0.75f : f));
    if (q.unit < tt_unit_smaller(u)) q.unit = tt_unit_smaller(u);
    if (pg->n_layers > 0)
      tt_paint_norms_view(&q, view, j->d, pg->layers, pg->n_layers);
    else
      tt_paint_view(&q, view);
    tt_paint_row_marks(&p, pg->row, 0);
    tt_paint_cell_hover(&p, view, j->d);
  }
  if (!pg->no_key_line) key_line(&p, (SDL_Rect){area.x, area.y + area.h - keys_h, area.w, keys_h}, pg);
  if (st->show_help) help(&p, (SDL_Rect){area.x, area.y + top, area.w, area.h - top - keys_h}, pg);
}

void tt_render_draw_lesson(tt_render *rc, SDL_Renderer *r, SDL_Rect area, const tt_trace *tr, const tt_view_state *st,
                           const tt_lesson_page *pg, tt_derived *d, tt_layout *lay) {
  tt_layout *own = NULL;
  if (!lay) lay = own = malloc(sizeof *lay);
  if (!lay) return;
  if (!pg->error && ((pg->compare && pg->compare->b) || pg->n_layers > 0))
    tt_derived_update(d, rc, tr, pg->compare ? pg->compare->b : NULL, st, pg->layers, pg->layers_b, pg->n_layers);
  tt_canvas cv;
  tt_canvas_sdl(&cv, r, rc->cache, rc->fonts);
  page_job j = {tr, st, pg, d, lay};
  paint_page(rc, &cv, area, &j);
  SDL_RenderSetClipRect(r, NULL);
  free(own);
}

static void page_fn(tt_render *rc, SDL_Renderer *r, SDL_Rect area, void *ctx) {
  page_job *j = ctx;
  tt_render_draw_lesson(rc, r, area, j->tr, j->st, j->pg, j->d, j->lay);
}

tt_status tt_render_lesson_png(tt_render *rc, const tt_trace *tr, const tt_view_state *st, const tt_lesson_page *pg,
                               int w, int h, tt_derived *d, const char *path, tt_error *err) {
  tt_layout *lay = malloc(sizeof *lay);
  if (!lay) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  page_job j = {tr, st, pg, d, lay};
  tt_status s = tt_headless_png(rc, w, h, page_fn, &j, path, err);
  free(lay);
  return s;
}

tt_status tt_render_lesson_svg(tt_render *rc, const tt_trace *tr, const tt_view_state *st, const tt_lesson_page *pg,
                               int w, int h, tt_derived *d, const char *path, tt_error *err) {
  if (w < 64 || h < 64 || w > 16384 || h > 16384)
    return tt_fail(err, TT_ERR_ARG, "image size %dx%d is out of range (64 to 16384 pixels a side)", w, h);
  tt_layout *lay = malloc(sizeof *lay);
  if (!lay) return tt_fail(err, TT_ERR_NOMEM, "out of memory");
  tt_atomic_file af;
  tt_status s = tt_atomic_open(&af, path, err);
  if (s != TT_OK) {
    free(lay);
    return s;
  }
  if (!pg->error && ((pg->compare && pg->compare->b) || pg->n_layers > 0))
    tt_derived_update(d, rc, tr, pg->compare ? pg->compare->b : NULL, st, pg->layers, pg->layers_b, pg->n_layers);
  tt_canvas cv;
  tt_svg_state svg;
  tt_canvas_svg(&cv, &svg, af.fp, rc->fonts, w, h);
  page_job j = {tr, st, pg, d, lay};
  paint_page(rc, &cv, (SDL_Rect){0, 0, w, h}, &j);
  tt_status fonts = tt_canvas_svg_end(&cv, err);
  free(lay);
  if (fonts != TT_OK) {
    tt_atomic_abort(&af);
    return fonts;
  }
  return tt_atomic_commit(&af, err);
}
