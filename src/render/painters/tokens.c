// tokens: the prompt's pieces as boxes, each with its position, its text (a leading
// space shown as ␣) and its id; the BPE merges below (merges.c) when the tokenizer gave them.
#include <string.h>

#include "render_int.h"

void tt_paint_tokens(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  int T = tt_trace_n_tokens(p->tr);
  const char *prompt = tt_trace_meta(p->tr, "prompt");
  int y = r.y;
  if (prompt) {
    char line[600];
    snprintf(line, sizeof line, "%s: \xE2\x80\x9C%s\xE2\x80\x9D", tt_str(p->st->lang, TT_S_PROMPT), prompt);
    tt_note(cv, "prompt");
    y += tt_draw_para(cv, r.x, y, r.w, line, type.title, TT_FONT_SANS, pal->fg) + u;
  }
  // Box size: large for a classroom prompt, smaller when there are many tokens.
  int big = T <= 12 ? u * 2 : T <= 40 ? type.big : u;
  int small = big * 6 / 10 < 11 ? 11 : big * 6 / 10;
  int box_h = big * 2 + small * 3;
  int x = r.x;
  char piece[160], buf[48];
  static const tt_rgba tints_light[4] = {
      {255, 236, 200, 255}, {214, 234, 255, 255}, {220, 245, 220, 255}, {245, 222, 245, 255}};
  static const tt_rgba tints_dark[4] = {{88, 62, 30, 255}, {30, 60, 96, 255}, {32, 76, 40, 255}, {76, 40, 80, 255}};
  const tt_rgba *tints = p->st->theme == TT_THEME_DARK ? tints_dark : tints_light;
  for (int i = 0; i < T; i++) {
    tt_token_display(tt_trace_token(p->tr, i), piece, sizeof piece);
    snprintf(buf, sizeof buf, "%d", tt_trace_token_id(p->tr, i));
    int w = tt_text_width(cv->fonts, piece, big, TT_FONT_MONO);
    int wi = tt_text_width(cv->fonts, buf, big, TT_FONT_BOLD);
    int bw = (w > wi ? w : wi) + big;
    if (x + bw > r.x + r.w && x > r.x) {
      x = r.x;
      y += box_h + u;
    }
    if (y + box_h > r.y + r.h) break;
    bool hov = p->st->mouse_x >= x && p->st->mouse_x < x + bw && p->st->mouse_y >= y && p->st->mouse_y < y + box_h;
    cv->fill(cv, x, y, bw, box_h, tints[i % 4]);
    tt_draw_frame(cv, x, y, bw, box_h, hov ? pal->highlight : pal->dim, hov ? 3 : 1);
    snprintf(buf, sizeof buf, "%d", i);
    tt_note(cv, "index i=%d", i);
    tt_draw_text(cv, x + bw / 2, y + small / 3, buf, small, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
    tt_note(cv, "label axis=T i=%d", i);
    tt_draw_text(cv, x + bw / 2, y + small * 3 / 2, piece, big, TT_FONT_MONO, pal->fg, TT_ALIGN_CENTER);
    cv->fill(cv, x + big / 3, y + small * 3 / 2 + big * 3 / 2, bw - big * 2 / 3, 1, pal->dim);
    snprintf(buf, sizeof buf, "%d", tt_trace_token_id(p->tr, i));
    tt_note(cv, "token_id i=%d", i);
    tt_draw_text(cv, x + bw / 2, y + small * 2 + big * 3 / 2, buf, big, TT_FONT_BOLD, pal->accent, TT_ALIGN_CENTER);
    x += bw + u / 2;
  }
  y += box_h + u;
  char note[300];
  snprintf(note, sizeof note, tt_str(p->st->lang, TT_S_TOKENS_NOTE_FMT), T);
  tt_note(cv, "token_count");
  tt_draw_text(cv, r.x, y, note, u, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
  y += u * 2;
  const tt_render_extras *ex = p->ex;
  if (ex && ex->n_merges > 0 && y + u * 3 < r.y + r.h) {
    tt_draw_text(cv, r.x, y, tt_str(p->st->lang, TT_S_MERGES_TITLE), u, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    y += type.line;
    tt_paint_merges(p, (SDL_Rect){r.x, y, r.w, r.y + r.h - y});
  }
}
