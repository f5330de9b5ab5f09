// timeline: a generation (`ttrace generate -o`) as a line of tokens, the prompt and then
// each new token with its probability under the model; below, for one new token (the
// view's position, default the last), the likeliest candidates of the distribution it was
// drawn from as bars, the cut of top-k / top-p drawn across them and the token drawn framed.
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

// The n numbers of a JSON array of numbers (generated_probs) into out; the count.
static int generated_reals(const tt_trace *tr, const char *key, double *out, int max) {
  const char *s = tt_trace_meta(tr, key);
  int n = 0;
  if (!s || *s != '[') return 0;
  for (const char *c = s + 1; *c && *c != ']' && n < max;) {
    char *end;
    double v = strtod(c, &end);
    if (end == c) break;
    out[n++] = v;
    c = end + strspn(end, ", ");
  }
  return n;
}

// A sampling setting from the metadata's JSON ("\"top_k\":5" → "5"), or "?".
static const char *setting(const tt_trace *tr, const char *key, char *buf, size_t len) {
  const char *s = tt_trace_meta(tr, "sampling");
  char pat[32];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *at = s ? strstr(s, pat) : NULL;
  if (!at) return snprintf(buf, len, "?"), buf;
  at += strlen(pat);
  if (*at == '"') at++;  // the seed: a string of digits
  size_t n = strcspn(at, "\",}");
  if (at[-1] != '"') return tt_fmt_num(strtod(at, NULL), "%g", buf, len);
  snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), at);
  return buf;
}

enum { MAX_GEN = 4096, MAX_BARS = 30 };

typedef struct {
  int32_t ids[MAX_GEN], kept[MAX_GEN];
  double probs[MAX_GEN];
  int n, pick;  // tokens generated, the one whose distribution is shown
} generation;

static const char *token_text(const tt_paint *p, int32_t id, char *buf, size_t len) {
  char t[160];
  const char *s = p->ex && p->ex->token_text ? p->ex->token_text(p->ex->token_ctx, id, t, sizeof t) : NULL;
  if (s) return tt_candidate_label(p->tr, -1, s, buf, len);  // a piece of a character as its bytes
  snprintf(buf, len, "id %d", (int)id);
  return buf;
}

static void percent(double prob, char *buf, size_t len) {
  tt_fmt_num(prob * 100, prob < 0.001 ? "%.3f%%" : "%.1f%%", buf, len);
}

// A chip's width: its text's or, wider, its probability's ("100.0%" under ".").
static int chip_width(tt_paint *p, const char *text, bool generated, double prob) {
  const tt_type type = tt_type_for(p->unit);
  int w = tt_text_width(p->cv->fonts, text, type.body, TT_FONT_MONO);
  if (generated) {
    char num[32];
    percent(prob, num, sizeof num);
    w = tt_max_i(w, tt_text_width(p->cv->fonts, num, type.small, TT_FONT_SANS));
  }
  return w + 2 * (p->unit / 3);
}

// One chip: the token's text in a box, its probability under it (generated tokens only).
static int chip(tt_paint *p, int x, int y, const char *text, bool generated, bool chosen, int i, double prob) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_type type = tt_type_for(p->unit);
  int pad = p->unit / 3, w = chip_width(p, text, generated, prob);
  cv->fill(cv, x, y, w, type.line, generated ? pal->accent_bg : pal->panel);
  if (chosen) tt_draw_frame(cv, x - 2, y - 2, w + 4, type.line + 4, pal->accent, 2);
  tt_note(cv, generated ? "tl_token i=%d" : "tl_prompt i=%d", i);
  tt_draw_text(cv, x + pad, y + type.line / 6, text, type.body, TT_FONT_MONO, generated ? pal->fg : pal->dim,
               TT_ALIGN_LEFT);
  if (generated) {
    char num[32];
    percent(prob, num, sizeof num);
    tt_note(cv, "tl_p i=%d", i);
    tt_draw_text(cv, x + w / 2, y + type.line, num, type.small, TT_FONT_SANS, pal->dim, TT_ALIGN_CENTER);
  }
  return w;
}

// Where the chips stop for want of room: "… N more tokens (i and after) not shown" on their
// last row's place; returns the y under it.
static int chips_more(tt_paint *p, int x, int y, int shown, int total) {
  const tt_type type = tt_type_for(p->unit);
  char line[200];
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_TOKENS_MORE_FMT), total - shown, shown);
  tt_note(p->cv, "tokens_more shown=%d", shown);
  tt_draw_text(p->cv, x, y, line, type.label, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  return y + type.line;
}

// A chip's text: the prompt's token i, or generated token i − T.
static const char *chip_text(const tt_paint *p, const generation *g, int i, char *buf, size_t len) {
  int T = tt_trace_n_tokens(p->tr);
  return i >= T ? token_text(p, g->ids[i - T], buf, len) : tt_token_label(p->tr, i, buf, len);
}

// The rows the chips of every token take in width w.
static int chip_rows(tt_paint *p, int w, const generation *g) {
  int T = tt_trace_n_tokens(p->tr), x = 0, rows = 1, gap = p->unit / 2;
  for (int i = 0; i < T + g->n; i++) {
    char text[160];
    int cw = chip_width(p, chip_text(p, g, i, text, sizeof text), i >= T, i >= T ? g->probs[i - T] : 0);
    if (x > 0 && x + cw > w) x = 0, rows++;
    x += cw + gap;
  }
  return rows;
}

// The prompt's tokens, then the generated ones, wrapped in lines down to bottom (what does
// not fit is counted on the line after); returns the y under them.
static int chips(tt_paint *p, SDL_Rect r, int y, int bottom, const generation *g) {
  const tt_type type = tt_type_for(p->unit);
  int T = tt_trace_n_tokens(p->tr), x = r.x, gap = p->unit / 2, row_h = type.line * 2;
  for (int i = 0; i < T + g->n; i++) {
    char text[160];
    bool gen = i >= T;
    chip_text(p, g, i, text, sizeof text);
    int w = chip_width(p, text, gen, gen ? g->probs[i - T] : 0);
    if (x > r.x && x + w > r.x + r.w) x = r.x, y += row_h;
    if (y + row_h > bottom) return chips_more(p, r.x, y, i, T + g->n);
    x += chip(p, x, y, text, gen, gen && i - T == g->pick, gen ? i - T : i, gen ? g->probs[i - T] : 0) + gap;
  }
  return y + row_h;
}

// The distribution token g->pick was drawn from: the prompt pass's last row of hook_probs
// for the first, decode step pick−1's for the others.
static const tt_tensor *source(const tt_paint *p, const generation *g, char *name, size_t len) {
  if (g->pick == 0)
    snprintf(name, len, "hook_probs");
  else
    snprintf(name, len, "decode.%d.hook_probs", g->pick - 1);
  const tt_tensor *t = tt_trace_find(p->tr, name);
  return t && t->ndim == 2 && t->shape[1] > 0 ? t : NULL;
}

// The n likeliest tokens of the last row of t, likeliest first (lower id among equals).
static int likeliest(const tt_tensor *t, int n, int *top, float *val) {
  int V = (int)t->shape[1], k = 0;
  int64_t base = (t->shape[0] - 1) * V;
  for (int v = 0; v < V; v++) {
    float x = tt_tensor_at(t, base + v);
    if (k == n && x <= val[k - 1]) continue;
    int i = k < n ? k++ : n - 1;
    for (; i > 0 && val[i - 1] < x; i--) top[i] = top[i - 1], val[i] = val[i - 1];
    top[i] = v, val[i] = x;
  }
  return k;
}

// A heading in width w: in smaller type down to the body's where it is too wide, then
// wrapped; returns the height it takes beyond one line.
static int heading_px(tt_paint *p, int w, const char *s) {
  const tt_type type = tt_type_for(p->unit);
  return tt_text_px_fit(p->cv->fonts, s, TT_FONT_BOLD, type.heading, type.body, w);
}

static int heading(tt_paint *p, int x, int y, int w, const char *s) {
  int px = heading_px(p, w, s);
  return tt_draw_para(p->cv, x, y, w, s, px, TT_FONT_BOLD, p->pal->fg) - tt_para_line(px);
}

// The height heading() takes for s, all its lines.
static int heading_height(tt_paint *p, int w, const char *s) {
  return tt_para_height(p->cv, w, s, heading_px(p, w, s), TT_FONT_BOLD);
}

// The height the candidates need at least: their heading, three bars and the lines under
// them ("… N more", the cut; the source line is left out first).
static int candidates_min_h(tt_paint *p, int w, const generation *g) {
  const tt_type type = tt_type_for(p->unit);
  char line[400], text[160];
  token_text(p, g->ids[g->pick], text, sizeof text);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_TL_DRAWN_FMT), g->pick, text);
  return heading_height(p, w, line) + type.line / 2 + 3 * (type.small * 10 / 6 + 1) +
         type.line * 2;  // "… N more" and the cut; the source line goes first
}

// One candidate bar at y; those past the cut are drawn pale.
static void candidate(tt_paint *p, SDL_Rect r, int y, int h, int rank, int id, float prob, bool kept, bool drawn) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  int px = h * 6 / 10 < p->unit ? h * 6 / 10 : p->unit, lab_w = r.w / 4, bx = r.x + lab_w + p->unit;
  int bw = r.w - lab_w - p->unit * 7;
  char text[160], num[32];
  token_text(p, id, text, sizeof text);
  tt_note(cv, "tl_bar_token rank=%d", rank);
  tt_draw_text(cv, r.x + lab_w, y + (h - px) / 3, text, px, TT_FONT_MONO, kept ? pal->fg : pal->dim, TT_ALIGN_RIGHT);
  int w = (int)((double)prob * bw);
  cv->fill(cv, bx, y + h / 8, w > 1 ? w : 1, h * 3 / 4, kept ? tt_cmap_viridis(0.25f + 0.75f * prob) : pal->masked);
  if (drawn) tt_draw_frame(cv, bx - 3, y, (w > 1 ? w : 1) + 6, h, pal->accent, 2);
  percent(prob, num, sizeof num);
  tt_note(cv, "tl_bar_p rank=%d", rank);
  tt_draw_text(cv, bx + w + p->unit / 2, y + (h - px) / 3, num, px, TT_FONT_BOLD, kept ? pal->fg : pal->dim,
               TT_ALIGN_LEFT);
}

// The candidates of token g->pick as bars from y down, with the cut line.
static void candidates(tt_paint *p, SDL_Rect r, int y, const generation *g) {
  tt_canvas *cv = p->cv;
  const tt_palette *pal = p->pal;
  const tt_type type = tt_type_for(p->unit);
  char name[64], line[400], text[160];
  const tt_tensor *t = source(p, g, name, sizeof name);
  token_text(p, g->ids[g->pick], text, sizeof text);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_TL_DRAWN_FMT), g->pick, text);
  tt_note(cv, "tl_drawn i=%d", g->pick);
  y += heading(p, r.x, y, r.w, line) + type.line * 3 / 2;
  if (!t) {
    tt_draw_para(cv, r.x, y, r.w, tt_str(p->st->lang, TT_S_NOT_RECORDED), p->unit, TT_FONT_SANS, pal->warn);
    return;
  }
  int top[MAX_BARS], kept = g->kept[g->pick], V = (int)t->shape[1];
  float val[MAX_BARS];
  int asked = p->st->top_k < 1 ? 10 : p->st->top_k;
  int found = likeliest(t, asked > MAX_BARS ? MAX_BARS : asked, top, val), n = found;
  if (asked > found && found == MAX_BARS) found = asked < V ? asked : V;  // more asked than drawn
  // As many bars as have room for labels of type.small; the line under them says how many
  // were left out. The source line goes where it would leave fewer than three bars.
  int foot = type.line * 2, min_h = type.small * 10 / 6 + 1, room = r.y + r.h - y - foot;
  bool source_line = (room - type.line) / min_h >= 3 || n <= room / min_h;
  if (!source_line) foot -= type.line, room += type.line;
  if (room / min_h < n) {
    room -= type.line;
    n = room > 0 ? room / min_h : 0;  // none where not even one has room
  }
  int h = n > 0 ? room / n : 0;
  if (h > p->unit * 2) h = p->unit * 2;
  for (int i = 0; i < n; i++) {
    if (i == kept) {  // the cut: the ranks above it could be drawn, those below could not
      cv->fill(cv, r.x, y + i * h - 1, r.w, 3, pal->accent);
      tt_note(cv, "tl_cut_at rank=%d", i);
      tt_draw_text(cv, r.x + r.w, y + i * h + 2, tt_str(p->st->lang, TT_S_TL_CUT_MARK), type.small, TT_FONT_SANS,
                   pal->accent, TT_ALIGN_RIGHT);
    }
    candidate(p, r, y + i * h, h, i, top[i], val[i], i < kept, top[i] == g->ids[g->pick]);
  }
  if (found > n) {  // more than there is room for: said, not dropped silently
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_BARS_MORE_FMT), found - n);
    tt_note(cv, "bars_more k=%d asked=%d", n, found);
    int more_y = y + n * h + type.line / 3;
    if (more_y > r.y + r.h - foot - type.line) more_y = r.y + r.h - foot - type.line;  // above the cut and source
    if (more_y < y) more_y = y;
    tt_draw_text(cv, r.x, more_y, line, type.label, TT_FONT_SANS, pal->fg, TT_ALIGN_LEFT);
    y = more_y + type.line - n * h - type.line / 3;
  }
  if (kept < V)
    snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_TL_CUT_FMT), kept, V);
  else
    snprintf(line, sizeof line, "%s", tt_str(p->st->lang, TT_S_TL_NO_CUT));
  tt_note(cv, "tl_cut i=%d", g->pick);
  int cut_y = y + n * h + type.line / 3;
  if (cut_y > r.y + r.h - foot) cut_y = r.y + r.h - foot;  // above the source line
  tt_draw_text(cv, r.x, cut_y, line, type.label, TT_FONT_SANS, pal->accent, TT_ALIGN_LEFT);
  if (!source_line) return;
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_TL_FOOT_FMT), name);
  tt_note(cv, "tl_foot i=%d", g->pick);
  tt_draw_text(cv, r.x, r.y + r.h - type.line, line, type.label, TT_FONT_SANS, pal->dim, TT_ALIGN_LEFT);
}

// The height the title, one row of chips and the candidates' least take in unit p->unit.
static int least_height(tt_paint *p, SDL_Rect r, const generation *g, const char *title) {
  const tt_type type = tt_type_for(p->unit);
  return heading_height(p, r.w, title) + type.line / 2 + type.line * 3 + candidates_min_h(p, r.w, g) + type.line / 2;
}

// The title, the chips and the candidates in r. The chips take the rows they need while
// the bars keep half the height, and while the bars keep their least (heading, three
// bars, their lines) where the height is short.
static void paint_parts(tt_paint *p, SDL_Rect r, const generation *g, const char *title) {
  const tt_type type = tt_type_for(p->unit);
  int y = r.y + heading(p, r.x, r.y, r.w, title) + type.line * 3 / 2;
  int bars_h = tt_max_i(r.h / 2, candidates_min_h(p, r.w, g) + type.line);
  int bottom = tt_min_i(y + chip_rows(p, r.w, g) * type.line * 2, r.y + r.h - bars_h);
  bottom = tt_max_i(bottom, y + type.line * 2);  // one row of chips at least
  y = chips(p, r, y, bottom, g);
  candidates(p, (SDL_Rect){r.x, y + type.line / 2, r.w, r.y + r.h - y - type.line / 2}, y + type.line / 2, g);
}

void tt_paint_timeline(tt_paint *p, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  generation *g = calloc(1, sizeof *g);
  if (g) g->n = tt_generated_ints(p->tr, "generated_ids", g->ids, MAX_GEN);
  if (!g || g->n == 0 || tt_generated_ints(p->tr, "generated_kept", g->kept, MAX_GEN) != g->n ||
      generated_reals(p->tr, "generated_probs", g->probs, MAX_GEN) != g->n) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(p->st->lang, TT_S_TL_NONE), p->unit, TT_FONT_SANS, p->pal->warn);
    free(g);
    return;
  }
  g->pick = p->st->position >= 0 && p->st->position < g->n ? p->st->position : g->n - 1;
  char line[400], tmp[32], k[32], pp[32], seed[32];
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_TL_TITLE_FMT), g->n, setting(p->tr, "temperature", tmp, 32),
           setting(p->tr, "top_k", k, 32), setting(p->tr, "top_p", pp, 32), setting(p->tr, "seed", seed, 32));
  // In the type of the unit where the title, the chips of one row and the candidates' least
  // fit the height, else a size smaller (a zoomed interface in a small window).
  tt_paint q = *p;
  if (least_height(p, r, g, line) > r.h) q.unit = tt_unit_smaller(p->unit);
  tt_note_scope(cv, "panel=timeline pick=%d", g->pick);
  tt_note(cv, "tl_title");
  paint_parts(&q, r, g, line);
  tt_note_scope(cv, NULL);
  free(g);
}
