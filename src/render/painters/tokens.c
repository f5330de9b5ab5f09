// tokens: the prompt's pieces as boxes, each with its position, its text (a leading
// space shown as ␣) and its id; tokens that together spell one character (a Hangul
// syllable is 3 bytes, often 2 or 3 tokens) are kept on one row and bracketed under the
// character. The BPE merges below (merges.c) when the tokenizer gave them. What does not
// fit ends with "… N more tokens", never cut silently.
#include <string.h>

#include "render_int.h"
#include "tokenizer/tokenizer.h"

typedef struct {
  int big, small, box_h, bracket_h;
} box_sizes;

static int box_width(tt_paint *p, int i, const box_sizes *z) {
  char piece[200], id[24];
  tt_token_label(p->tr, i, piece, sizeof piece);
  snprintf(id, sizeof id, "%d", tt_trace_token_id(p->tr, i));
  int w = tt_text_width(p->cv->fonts, piece, z->big, TT_FONT_MONO);
  int wi = tt_text_width(p->cv->fonts, id, z->big, TT_FONT_BOLD);
  return (w > wi ? w : wi) + z->big;
}

// The tokens from i that spell characters together (each after the first begins inside a
// character the one before began): their count.
static int group_len(const tt_trace *tr, int i) {
  int k = 1;
  while (i + k < tt_trace_n_tokens(tr) && tt_token_splits_before(tr, i + k)) k++;
  return k;
}

static void one_box(tt_paint *p, int i, int x, int y, int bw, const box_sizes *z) {
  static const tt_rgba tints_light[4] = {
      {255, 236, 200, 255}, {214, 234, 255, 255}, {220, 245, 220, 255}, {245, 222, 245, 255}};
  static const tt_rgba tints_dark[4] = {{88, 62, 30, 255}, {30, 60, 96, 255}, {32, 76, 40, 255}, {76, 40, 80, 255}};
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_rgba *tints = p->st->theme == TT_THEME_DARK ? tints_dark : tints_light;
  int big = z->big, small = z->small;
  char piece[200], buf[24];
  tt_token_label(p->tr, i, piece, sizeof piece);
  bool hov = p->st->mouse_x >= x && p->st->mouse_x < x + bw && p->st->mouse_y >= y && p->st->mouse_y < y + z->box_h;
  cv->fill(cv, x, y, bw, z->box_h, tints[i % 4]);
  tt_draw_frame(cv, x, y, bw, z->box_h, hov ? pal->highlight : pal->dim, hov ? 3 : 1);
  snprintf(buf, sizeof buf, "%d", i);
  tt_note(cv, "index i=%d", i);
  tt_draw_text(cv, x + bw / 2, y + small / 3, buf, small, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
  tt_note(cv, "label axis=T i=%d", i);
  tt_draw_text(cv, x + bw / 2, y + small * 3 / 2, piece, big, TT_FONT_MONO, pal->fg, TT_ALIGN_CENTER);
  cv->fill(cv, x + big / 3, y + small * 3 / 2 + big * 3 / 2, bw - big * 2 / 3, 1, pal->dim);
  snprintf(buf, sizeof buf, "%d", tt_trace_token_id(p->tr, i));
  tt_note(cv, "token_id i=%d", i);
  tt_draw_text(cv, x + bw / 2, y + small * 2 + big * 3 / 2, buf, big, TT_FONT_BOLD, pal->accent, TT_ALIGN_CENTER);
}

// The bracket under tokens [i, i + n) drawn from x0 to x1: the characters they spell.
static void bracket(tt_paint *p, int i, int n, int x0, int x1, int y, const box_sizes *z) {
  tt_canvas *cv = p->cv;
  char bytes[1024], text[1200];
  size_t k = 0;
  for (int j = i; j < i + n; j++) k += tt_token_bytes(p->tr, j, bytes + k, sizeof bytes - k);
  size_t skip = 0;
  while (skip < k && bytes[skip] == ' ') skip++;  // the characters, not the space before them
  tt_bytes_label("", 0, bytes + skip, k - skip, "", 0, text, sizeof text);
  int t = z->small / 3 > 2 ? z->small / 3 : 2;
  cv->fill(cv, x0, y + t, x1 - x0, 2, p->pal->accent);
  cv->fill(cv, x0, y, 2, t + 2, p->pal->accent);
  cv->fill(cv, x1 - 2, y, 2, t + 2, p->pal->accent);
  tt_note(cv, "token_group first=%d n=%d", i, n);
  tt_draw_text(cv, (x0 + x1) / 2, y + t + 4, text, z->big, TT_FONT_SANS, p->pal->fg, TT_ALIGN_CENTER);
}

// The boxes from y in r (only measured when !draw); returns the y under the last row (y
// when none) and in *shown how many tokens.
static int boxes(tt_paint *p, SDL_Rect r, int y, const box_sizes *z, int reserve, int *shown, bool draw) {
  int u = p->unit, T = tt_trace_n_tokens(p->tr), x = r.x, row_h = z->box_h + u;
  int i = 0, bottom = y;
  bool any_group = false;
  for (int k = 1; k < T && !any_group; k++) any_group = tt_token_splits_before(p->tr, k);
  if (any_group) row_h += z->bracket_h;
  while (i < T) {
    int n = group_len(p->tr, i), gw = 0;
    for (int j = i; j < i + n; j++) gw += box_width(p, j, z) + (j > i ? 2 : 0);
    if (x + gw > r.x + r.w && x > r.x) x = r.x, y += row_h;  // a group stays on one row
    if (y + row_h > r.y + r.h - (i + n < T ? reserve : 0)) break;
    int x0 = x;
    for (int j = i; j < i + n; j++) {
      int bw = box_width(p, j, z);
      if (draw) one_box(p, j, x, y, bw, z);
      x += bw + (j + 1 < i + n ? 2 : 0);
    }
    if (n > 1 && draw) bracket(p, i, n, x0, x, y + z->box_h + u / 4, z);
    x += u / 2;
    i += n;
    bottom = y + row_h;
  }
  *shown = i;
  return bottom;
}

// The ids step: the id column, and beside each id the row of W_E it selects (hook_embed's
// row, which is that row), as many rows as fit, the rest counted.
static void id_rows(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int u = p->unit;
  const tt_type type = tt_type_for(u);
  const tt_tensor *e = tt_trace_find(p->tr, "hook_embed");
  tt_mat m;
  if (!e || !tt_mat_of(p->tr, e, 0, &m)) return;
  tt_draw_text(cv, r.x, r.y, tt_str(p->st->lang, TT_S_IDS_ROWS_TITLE), u, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
  int y = r.y + type.line, T = m.rows;
  int lh = type.line, avail = r.y + r.h - y;
  int n = avail / lh < T ? (avail - lh) / lh : T;  // a line for "… N more" when they do not all fit
  if (n <= 0) return;
  float ch = fminf((float)(avail - (n < T ? lh : 0)) / (float)n, (float)u * 2);
  char buf[160], lab[160], fit[160];
  int id_w = tt_text_width(cv->fonts, "000000", u, TT_FONT_BOLD), lab_w = u * 7;
  tt_scale sc;
  tt_scale_get(p, e, e->name, &sc);
  int legend_w = tt_legend_width(p, &sc);
  SDL_Rect cells = {r.x + id_w + lab_w + u * 3, y, r.w - id_w - lab_w - u * 4 - legend_w, (int)(ch * (float)n)};
  for (int i = 0; i < n; i++) {
    int ty = y + (int)(ch * ((float)i + 0.5f)) - u * 5 / 8;
    snprintf(buf, sizeof buf, "%d", tt_trace_token_id(p->tr, i));
    tt_note(cv, "token_id i=%d", i);
    tt_draw_text(cv, r.x + id_w, ty, buf, u, TT_FONT_BOLD, pal->accent, TT_ALIGN_RIGHT);
    tt_text_fit(cv->fonts, tt_token_label(p->tr, i, lab, sizeof lab), u, TT_FONT_SANS, lab_w, fit, sizeof fit);
    tt_note(cv, "label axis=T i=%d dir=row", i);
    tt_draw_text(cv, r.x + id_w + u, ty, fit, u, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    tt_draw_text(cv, cells.x - u, ty, "\xE2\x86\x92", u, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
  }
  if (cells.w < 20) return;
  tt_mat shown = m;
  shown.rows = n;
  tt_cells_opts o = {.vis_rows = n, .vis_cols = m.cols, .layer = -1, .head = -1};
  tt_paint_cells(p, cells, &shown, &sc, &o);
  tt_draw_rect(cv, cells.x - 1, cells.y - 1, cells.w + 2, cells.h + 2, pal->dim);
  int room = r.y + r.h - cells.y, lh_min = u * 6 < room ? u * 6 : room;
  SDL_Rect lr = {cells.x + cells.w + u, cells.y, legend_w, cells.h > lh_min ? cells.h : lh_min};
  tt_paint_legend(p, lr, &sc);
  if (n < T) {
    snprintf(buf, sizeof buf, tt_str(p->st->lang, TT_S_ROWS_MORE_FMT), T - n);
    tt_note(cv, "rows_more shown=%d rows=%d", n, T);
    tt_draw_text(cv, r.x, cells.y + cells.h + u / 4, buf, type.label, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
  }
}

static bool ids_step(const tt_paint *p) {
  const tt_step *s = p->st->step >= 0 ? tt_step_get(p->tr, p->st->step) : NULL;
  return s && !strcmp(s->id, "ids");
}

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
  // The notes under the boxes keep their room: the count (it wraps where the type is
  // large) and the line on bytes where a character was split.
  char note[300];
  snprintf(note, sizeof note, tt_str(p->st->lang, TT_S_TOKENS_NOTE_FMT), T);
  int note_h = tt_para_height(cv, r.w, note, u, TT_FONT_SANS);
  bool split = false;
  for (int k = 1; k < T && !split; k++) split = tt_token_splits_before(p->tr, k);
  SDL_Rect room = {r.x, r.y, r.w, r.h - tt_max_i(note_h + u * 7 / 10, u * 2) - (split ? u * 3 / 2 : 0)};
  // Box size: large for a classroom prompt, smaller for many tokens (room for the merges
  // below), smaller still where that does not show every token; what never fits is said.
  const int sizes[4] = {u * 2, type.big, u, type.label};
  box_sizes z;
  int shown = 0;
  for (int k = T <= 12 ? 0 : T <= 40 ? 1 : 2; k < 4; k++) {
    z.big = sizes[k];
    z.small = z.big * 6 / 10 < 11 ? 11 : z.big * 6 / 10;
    z.box_h = z.big * 2 + z.small * 3;
    z.bracket_h = z.big * 3 / 2 + z.small / 2;
    boxes(p, room, y, &z, 0, &shown, false);
    if (shown == T) break;
  }
  // A line for "… N more tokens" is kept free only where they do not all fit.
  int reserve = shown == T ? 0 : u * 2;
  y = boxes(p, room, y, &z, reserve, &shown, true);
  if (shown < T) {  // what did not fit, said
    snprintf(note, sizeof note, tt_str(p->st->lang, TT_S_TOKENS_MORE_FMT), T - shown, shown);
    tt_note(cv, "tokens_more shown=%d", shown);
    tt_draw_text(cv, r.x, y - u / 2, note, u, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    y += u * 2;
  }
  snprintf(note, sizeof note, tt_str(p->st->lang, TT_S_TOKENS_NOTE_FMT), T);
  tt_note(cv, "token_count");
  tt_draw_para(cv, r.x, y, r.w, note, u, TT_FONT_SANS, pal->dim);
  y += tt_max_i(note_h + u * 7 / 10, u * 2);
  if (split && y + u * 3 / 2 <= r.y + r.h) {  // how a piece of a character is written
    tt_note(cv, "fixed");
    tt_draw_text(cv, r.x, y - u / 2, tt_str(p->st->lang, TT_S_BYTES_NOTE), type.label, TT_FONT_SANS, pal->dim,
                 TT_ALIGN_LEFT);
    y += u * 3 / 2;
  }
  const tt_render_extras *ex = p->ex;
  if (ids_step(p) && y + u * 4 < r.y + r.h) {  // what is new at this step: the ids and their rows
    id_rows(p, (SDL_Rect){r.x, y, r.w, r.y + r.h - y});
  } else if (ex && ex->n_merges > 0 && y + u * 3 < r.y + r.h) {
    tt_draw_text(cv, r.x, y, tt_str(p->st->lang, TT_S_MERGES_TITLE), u, TT_FONT_BOLD, pal->fg, TT_ALIGN_LEFT);
    y += type.line;
    tt_paint_merges(p, (SDL_Rect){r.x, y, r.w, r.y + r.h - y});
  } else if (ex && ex->n_merges > 0 && y + u * 3 / 2 <= r.y + r.h) {  // no room for them: say so
    snprintf(note, sizeof note, tt_str(p->st->lang, TT_S_MERGES_MORE_FMT), ex->n_merges, ex->n_merges == 1 ? "" : "s");
    tt_note(cv, "merge_more");
    tt_draw_text(cv, r.x, y, note, u, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
  }
}
