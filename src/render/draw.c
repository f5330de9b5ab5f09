// draw: small helpers every painter uses on top of the canvas.
#include <string.h>

#include "render_int.h"

void tt_draw_text(tt_canvas *cv, int x, int y, const char *s, int px, tt_font_kind k, tt_rgba c,
                  int align) {
  if (!s || !s[0]) return;
  if (align != TT_ALIGN_LEFT) {
    int w = tt_text_width(cv->fonts, s, px, k);
    x -= align == TT_ALIGN_CENTER ? w / 2 : w;
  }
  cv->text(cv, x, y, s, px, k, c, false);
}

void tt_draw_rect(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c) { tt_draw_frame(cv, x, y, w, h, c, 1); }

void tt_draw_frame(tt_canvas *cv, int x, int y, int w, int h, tt_rgba c, int t) {
  if (w <= 0 || h <= 0) return;
  if (t < 1) t = 1;
  cv->fill(cv, x, y, w, t, c);
  cv->fill(cv, x, y + h - t, w, t, c);
  cv->fill(cv, x, y + t, t, h - 2 * t, c);
  cv->fill(cv, x + w - t, y + t, t, h - 2 * t, c);
}

int tt_draw_para(tt_canvas *cv, int x, int y, int w, const char *s, int px, tt_font_kind k, tt_rgba c) {
  if (!s) return 0;
  int lh = px * 13 / 10, used = 0;
  char line[1024];
  const char *p = s;
  while (*p) {
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
    cv->text(cv, x, y + used, line, px, k, c, false);
    used += lh;
    p += n;
    while (*p == ' ') p++;
    if (*p == '\n') p++;
  }
  return used;
}
