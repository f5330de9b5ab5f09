// draw: small helpers every painter uses on top of the canvas.
#include <limits.h>
#include <math.h>
#include <string.h>

#include "render_int.h"

void tt_draw_text(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c, int align) {
  if (!s || !s[0]) {
    cv->note[0] = 0;  // the note was for this text
    return;
  }
  if (align != TT_ALIGN_LEFT) {
    int w = tt_text_width(cv->fonts, s, px, k);
    x -= align == TT_ALIGN_CENTER ? w / 2 : w;
  }
  cv->text(cv, x, y, s, px, k, c, false);
}

void tt_draw_rect(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c) {
  tt_draw_frame(cv, x, y, w, h, c, 1);
}

void tt_draw_frame(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c, int t) {
  if (w <= 0 || h <= 0) return;
  if (t < 1) t = 1;
  cv->fill(cv, x, y, w, t, c);
  cv->fill(cv, x, y + h - t, w, t, c);
  cv->fill(cv, x, y + t, t, h - 2 * t, c);
  cv->fill(cv, x + w - t, y + t, t, h - 2 * t, c);
}

int tt_draw_para(tt_canvas *cv, int x, int y, int w, const char *s, int px, tt_font_kind k, tt_rgba c) {
  return tt_draw_para_cut(cv, x, y, w, s, px, k, c, INT_MAX);
}

static void no_text(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c, bool rot90) {
  (void)cv, (void)x, (void)y, (void)s, (void)px, (void)k, (void)c, (void)rot90;
}

int tt_para_height(const tt_canvas *cv, int w, const char *s, int px, tt_font_kind k) {
  tt_canvas measure = *cv;
  measure.text = no_text;
  return tt_draw_para(&measure, 0, 0, w, s, px, k, (tt_rgba){0, 0, 0, 0});
}

int tt_draw_para_cut(tt_canvas *cv, int x, int y, int w, const char *s, int px, tt_font_kind k, tt_rgba c, int max_h) {
  char note[sizeof cv->note];  // a note on a paragraph is on each of its lines
  memcpy(note, cv->note, sizeof note);
  cv->note[0] = 0;
  if (!s) return 0;
  int lh = tt_para_line(px), used = 0;
  char line[1024];
  const char *p = s;
  while (*p && used + lh <= max_h) {
    // Greedy: take words while the line fits; a newline ends the line.
    size_t n = 0, last_fit = 0;
    const char *q = p;
    while (*q && *q != '\n') {
      const char *word_end = q;
      while (*word_end == ' ') word_end++;
      while (*word_end && *word_end != ' ' && *word_end != '\n') word_end++;
      size_t cand = (size_t)(word_end - p);
      if (cand >= sizeof line) break;
      memcpy(line, p, cand);
      line[cand] = 0;
      if (tt_text_width(cv->fonts, line, px, k) > w && last_fit > 0) break;
      last_fit = cand;
      q = word_end;
    }
    n = last_fit;
    if (n == 0) {  // one word wider than the line, or an empty line
      while (p[n] && p[n] != '\n' && n < sizeof line - 1) n++;
    }
    memcpy(line, p, n);
    line[n] = 0;
    const char *shown = line;
    char fit[sizeof line + 4];
    bool more = p[n + strspn(p + n, " \n")] != 0;
    if (used + 2 * lh > max_h && more) {  // the last line there is room for, and more text: "…"
      char cut[sizeof line + 4];
      snprintf(cut, sizeof cut, "%s\xE2\x80\xA6", line);
      shown = tt_text_fit(cv->fonts, cut, px, k, w, fit, sizeof fit);
    }
    memcpy(cv->note, note, sizeof note);
    cv->text(cv, x, y + used, shown, px, k, c, false);
    used += lh;
    p += n;
    while (*p == ' ') p++;
    if (*p == '\n') p++;
  }
  return used;
}

void tt_draw_cell_mark(tt_canvas *cv, const tt_panel *pn, int row, int col, tt_rgba c) {
  int x = pn->rect.x + (int)floorf(((float)col - pn->col0) * pn->cell_w);
  int y = pn->rect.y + (int)floorf(((float)row - pn->row0) * pn->cell_h);
  int w = (int)ceilf(pn->cell_w), h = (int)ceilf(pn->cell_h);
  cv->clip(cv, &pn->rect);
  if (w >= 4 && h >= 4) {
    tt_draw_frame(cv, x - 1, y - 1, w + 2, h + 2, c, w > 16 && h > 16 ? 3 : 2);
  } else {
    cv->fill(cv, pn->rect.x, y + h / 2, pn->rect.w, 1, c);
    cv->fill(cv, x + w / 2, pn->rect.y, 1, pn->rect.h, c);
  }
  cv->clip(cv, NULL);
}

void tt_draw_tooltip(tt_canvas *cv, const tt_palette *pal, SDL_Rect area, int mx, int my, int u,
                     const tt_tip_line *lines, int n) {
  int bw = 0, bh = u / 2;
  for (int i = 0; i < n; i++) {
    int tw = tt_text_width(cv->fonts, lines[i].s, lines[i].px, lines[i].k);
    if (tw > bw) bw = tw;
    bh += lines[i].px * 14 / 10;
  }
  bw += u;
  int bx = mx + u, by = my + u;
  if (bx + bw > area.x + area.w) bx = mx - u - bw;
  if (by + bh > area.y + area.h) by = my - u - bh;
  if (bx < area.x) bx = area.x;
  if (by < area.y) by = area.y;
  cv->fill(cv, bx, by, bw, bh, pal->panel);
  tt_draw_frame(cv, bx, by, bw, bh, pal->highlight, 2);
  int ty = by + u / 4;
  for (int i = 0; i < n; i++) {
    if (lines[i].note) tt_note(cv, "%s", lines[i].note);
    tt_draw_text(cv, bx + u / 2, ty, lines[i].s, lines[i].px, lines[i].k, lines[i].c, TT_ALIGN_LEFT);
    ty += lines[i].px * 14 / 10;
  }
}
