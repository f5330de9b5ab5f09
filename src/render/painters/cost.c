// cost: where the computation goes, for the shown trace's pass: one row per step (summed
// over the layers) with a bar of its share of the FLOPs, its FLOPs, bytes read and written,
// FLOPs per byte and, when the trace holds them (`ttrace cost -o`), the measured times.
// Counted from the trace's config and tokens by cost/cost.h's rules.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

static void note(tt_paint *p, SDL_Rect r, const char *msg) {
  tt_draw_para(p->cv, r.x + p->unit, r.y + p->unit, r.w - 2 * p->unit, msg, p->unit, TT_FONT_SANS, p->pal->warn);
}

// v with an SI prefix at three significant digits ("1.23 M").
static const char *si(double v, char *buf, size_t len) {
  const char *units[] = {"", " k", " M", " G", " T"};
  int u = 0;
  while (v >= 999.5 && u < 4) v /= 1000, u++;
  char num[32];
  tt_fmt_num(v, u ? "%.3g" : "%.0f", num, sizeof num);
  snprintf(buf, len, "%s%s", num, units[u]);
  return buf;
}

typedef struct {
  int x_step, x_bar, w_bar, x_flops, x_bytes, x_int, x_time;
  bool two_line_heads;  // the number columns' headings wrapped onto two lines
} columns;

// A heading on two lines, split at the space that leaves the longer line shortest
// ("bytes read" / "+ written"); first[] is empty where it has no space. Returns the
// width of the longer line.
static int split_heading(tt_fonts *f, const char *s, int px, char *first, size_t len, const char **second) {
  int best = tt_text_width(f, s, px, TT_FONT_BOLD);
  first[0] = 0;
  *second = s;
  for (const char *sp = strchr(s, ' '); sp; sp = strchr(sp + 1, ' ')) {
    char a[128];
    snprintf(a, sizeof a, "%.*s", (int)(sp - s), s);
    int w = tt_max_i(tt_text_width(f, a, px, TT_FONT_BOLD), tt_text_width(f, sp + 1, px, TT_FONT_BOLD));
    if (w < best) best = w, snprintf(first, len, "%s", a), *second = sp + 1;
  }
  return best;
}

// A number column's heading, right-aligned at x, on one line or two.
static void heading(tt_paint *p, const char *s, int x, int y, int px, bool two_lines) {
  char first[128];
  const char *second = s;
  if (two_lines) split_heading(p->cv->fonts, s, px, first, sizeof first, &second);
  if (two_lines && first[0]) {
    tt_draw_text(p->cv, x, y - tt_para_line(px), first, px, TT_FONT_BOLD, p->pal->dim, TT_ALIGN_RIGHT);
    s = second;
  }
  tt_draw_text(p->cv, x, y, s, px, TT_FONT_BOLD, p->pal->dim, TT_ALIGN_RIGHT);
}

// The headings on the line at y (a heading wrapped onto two lines starts a line above).
static void header(tt_paint *p, const columns *c, int y, int px, bool timed) {
  tt_lang lang = p->st->lang;
  bool two = c->two_line_heads;
  tt_draw_text(p->cv, c->x_step, y, tt_str(lang, TT_S_COST_STEP), px, TT_FONT_BOLD, p->pal->dim, TT_ALIGN_LEFT);
  heading(p, tt_str(lang, TT_S_COST_FLOPS), c->x_flops, y, px, two);
  heading(p, tt_str(lang, TT_S_COST_BYTES), c->x_bytes, y, px, two);
  heading(p, tt_str(lang, TT_S_COST_INTENSITY), c->x_int, y, px, two);
  if (timed) heading(p, tt_str(lang, TT_S_COST_TIME), c->x_time, y, px, two);
}

// A step's name in width w: whole, or its part up to the first dot, "…" and as much of its
// end as fits ("attn.…scores_raw"): the ends tell the attention steps apart.
static void fit_name(tt_fonts *f, const char *name, int px, int w, char *buf, size_t len) {
  snprintf(buf, len, "%s", name);
  if (tt_text_width(f, buf, px, TT_FONT_MONO) <= w) return;
  const char *dot = strchr(name, '.');
  int head = dot ? (int)(dot - name) + 1 : 0;
  for (size_t tail = strlen(name) - (size_t)head; tail > 0; tail--) {
    const char *end = name + strlen(name) - tail;
    if (((unsigned char)*end & 0xC0) == 0x80) continue;  // not inside a character
    snprintf(buf, len, "%.*s\xE2\x80\xA6%s", head, name, end);
    if (tt_text_width(f, buf, px, TT_FONT_MONO) <= w) return;
  }
  tt_text_fit(f, name, px, TT_FONT_MONO, w, buf, len);
}

static void row(tt_paint *p, const columns *c, const tt_cost_step *s, const tt_cost_pass *pass, int y, int h, int px) {
  tt_canvas *cv = p->cv;
  char buf[64], line[160];
  double share = pass->flops > 0 ? s->flops / pass->flops : 0;
  tt_rgba col = s->kind == TT_COST_MATMUL ? p->pal->accent : p->pal->dim;
  int w = (int)(share * c->w_bar);
  cv->fill(cv, c->x_bar, y + h / 6, w > 1 ? w : 1, h * 2 / 3, col);
  fit_name(cv->fonts, s->suffix, px, c->x_bar - c->x_step - p->unit / 2, buf, sizeof buf);
  tt_note(cv, "fixed");
  tt_draw_text(cv, c->x_step, y, buf, px, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
  tt_note(cv, "cost_flops step=%s", s->suffix);
  tt_draw_text(cv, c->x_flops, y, si(s->flops, buf, sizeof buf), px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
  tt_note(cv, "cost_bytes step=%s", s->suffix);
  tt_draw_text(cv, c->x_bytes, y, si(s->bytes, buf, sizeof buf), px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
  tt_note(cv, "cost_intensity step=%s", s->suffix);
  tt_draw_text(cv, c->x_int, y, tt_fmt_num(s->bytes > 0 ? s->flops / s->bytes : 0, "%.2f", buf, sizeof buf), px,
               TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
  if (s->seconds < 0) return;
  tt_fmt_num(s->seconds * 1e6, "%.1f", buf, sizeof buf);
  snprintf(line, sizeof line, "%s \xC2\xB5s", buf);
  tt_note(cv, "cost_time step=%s", s->suffix);
  tt_draw_text(cv, c->x_time, y, line, px, TT_FONT_SANS, p->pal->fg, TT_ALIGN_RIGHT);
}

// The number columns from the right edge, each as wide as its heading or its widest number
// (the headings on two lines where on one they leave the step names too little); the step
// labels, as wide as the longest shown (at least 62% of the rest), then the bars.
static columns columns_for(tt_paint *p, SDL_Rect r, bool timed, const tt_cost_step *steps, int n, int px) {
  columns c = {0};
  int u = p->unit;
  tt_lang lang = p->st->lang;
  tt_fonts *f = p->cv->fonts;
  const char *heads[4] = {tt_str(lang, TT_S_COST_TIME), tt_str(lang, TT_S_COST_INTENSITY),
                          tt_str(lang, TT_S_COST_BYTES), tt_str(lang, TT_S_COST_FLOPS)};
  const char *widest[4] = {"99999.9 \xC2\xB5s", "9999.99", "99.9 M", "99.9 M"};
  int *rights[4] = {&c.x_time, &c.x_int, &c.x_bytes, &c.x_flops};
  int names = 0;
  for (int i = 0; i < n; i++) names = tt_max_i(names, tt_text_width(f, steps[i].suffix, px, TT_FONT_MONO) + u / 2);
  int x = 0;
  for (int pass = 0; pass < 2; pass++) {
    x = r.x + r.w - u / 2;
    for (int i = timed ? 0 : 1; i < 4; i++) {
      char first[128];
      const char *second;
      int w = c.two_line_heads ? split_heading(f, heads[i], px, first, sizeof first, &second)
                               : tt_text_width(f, heads[i], px, TT_FONT_BOLD);
      *rights[i] = x;
      x -= tt_max_i(w, tt_text_width(f, widest[i], px, TT_FONT_SANS)) + u;
    }
    if (names <= x - r.x - u * 5) break;
    c.two_line_heads = true;
  }
  int left = x - r.x;
  // A cut name can stand for several steps ("attn.hook_attn_sco…"): the names take what
  // they need, down to a bar four units long.
  if (names > left - u * 5) names = tt_max_i(left - u * 5, left * 62 / 100);
  if (names < left * 62 / 100) names = left * 62 / 100;
  c.x_step = r.x;
  c.x_bar = r.x + names;
  c.w_bar = left - names - u;
  return c;
}

// The "… N smaller rows not shown" line under the shown rows.
static void rows_more(tt_paint *p, const columns *c, int y, int shown, int n, int px) {
  char line[128];
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_ROWS_SMALLER_FMT), n - shown);
  tt_note(p->cv, "rows_more shown=%d rows=%d", shown, n);
  tt_draw_text(p->cv, c->x_step, y, line, px, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
}

// The rows' type and pitch in r (a heading line, then the rows): the label size while the
// rows fit, then the small size; when even those do not fit at 1.3 lines apart, *shown
// counts the rows that do, one line kept for "… N more rows".
static int row_layout(const tt_type *type, int height, int n, int *h, int *shown) {
  int avail = height - type->line, sizes[2] = {type->label, type->small};
  for (int i = 0; i < 2; i++) {
    int px = sizes[i], pitch = (px * 13 + 9) / 10;
    *h = n > 0 ? avail / (n + 1) : pitch;
    if (*h > type->line) *h = type->line;
    *shown = n;
    if (*h >= pitch) return px;
  }
  int px = type->small, pitch = (px * 13 + 9) / 10;
  *h = pitch;
  *shown = height / pitch - 2;  // the heading and the "more" line
  if (*shown < 0) *shown = 0;
  if (*shown > n) *shown = n;
  return px;
}

// rows[0, shown): the shown steps with the most FLOPs (the earlier of equals), in the pass's
// order: a table cut short keeps where the computation goes (on a projector, 4 rows of 21
// in the window's frame: the four matrix products). Every step when all are shown.
static void largest_steps(const tt_cost_step *steps, int n, int shown, tt_cost_step *rows) {
  bool *keep = calloc((size_t)n + 1, sizeof *keep);
  for (int k = 0; k < shown && keep; k++) {
    int best = -1;
    for (int i = 0; i < n; i++)
      if (!keep[i] && (best < 0 || steps[i].flops > steps[best].flops)) best = i;
    keep[best] = true;
  }
  for (int i = 0, k = 0; i < n; i++)
    if (!keep || keep[i]) rows[k++] = steps[i];  // out of memory: the first ones
  free(keep);
}

static void table(tt_paint *p, SDL_Rect r, const tt_cost_pass *pass, const tt_cost_step *steps, int n) {
  tt_cost_step *rows = calloc((size_t)n + 1, sizeof *rows);
  if (!rows) return;
  const tt_type type = tt_type_for(p->unit);
  int h, shown;
  int px = row_layout(&type, r.h, n, &h, &shown);
  largest_steps(steps, n, shown, rows);
  columns c = columns_for(p, r, pass->seconds >= 0, rows, shown, px);
  if (c.two_line_heads) {  // the headings' first lines take a row's place
    px = row_layout(&type, r.h - tt_para_line(px), n, &h, &shown);
    largest_steps(steps, n, shown, rows);
    c = columns_for(p, r, pass->seconds >= 0, rows, shown, px);
    r.y += tt_para_line(px);
    r.h -= tt_para_line(px);
  }
  header(p, &c, r.y, px, pass->seconds >= 0);
  for (int i = 0; i < shown; i++) row(p, &c, &rows[i], pass, r.y + h * (i + 1), h, px);
  if (shown < n) rows_more(p, &c, r.y + h * (shown + 1), shown, n, px);
  free(rows);
}

// The caption in body type, or smaller type where it is wider than r (a zoomed interface);
// wrapped in small type where even that is too wide. Returns the height it takes.
static int caption(tt_paint *p, SDL_Rect r, const tt_cost_pass *pass) {
  const tt_type type = tt_type_for(p->unit);
  char g[32], share[32], line[256];
  tt_fmt_num(pass->flops / 1e9, "%.4f", g, sizeof g);
  tt_fmt_num(100.0 * pass->matmul_flops / pass->flops, "%.1f", share, sizeof share);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_COST_CAPTION_FMT), pass->T, g, share);
  const int sizes[3] = {type.body, type.label, type.small};
  tt_note(p->cv, "cost_caption");
  for (int i = 0; i < 3; i++) {
    if (tt_text_width(p->cv->fonts, line, sizes[i], TT_FONT_BOLD) > r.w) continue;
    tt_draw_text(p->cv, r.x, r.y, line, sizes[i], TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
    return type.line;
  }
  int h = tt_draw_para(p->cv, r.x, r.y, r.w, line, type.small, TT_FONT_BOLD, p->pal->fg);
  return h > type.line ? h : type.line;
}

void tt_paint_cost(tt_paint *p, SDL_Rect r) {
  tt_config cfg;
  tt_error err = {0};
  tt_cost_pass pass = {0};
  if (!tt_trace_config(p->tr, &cfg) || tt_cost_prefill(&cfg, tt_trace_n_tokens(p->tr), &pass, &err) != TT_OK) {
    note(p, r, err.msg[0] ? err.msg : tt_str(p->st->lang, TT_S_COST_NO_TIMES));
    return;
  }
  tt_cost_machine m;
  bool timed =
      tt_cost_times_parse(&pass, &m, tt_trace_meta(p->tr, "cost_seconds"), tt_trace_meta(p->tr, "cost_machine"));
  tt_cost_step *steps = calloc((size_t)pass.n, sizeof *steps);
  if (!steps) {
    tt_cost_pass_free(&pass);
    return;
  }
  int n = tt_cost_steps(&pass, steps);
  const tt_type type = tt_type_for(p->unit);
  tt_note_scope(p->cv, "panel=cost");
  int top = caption(p, r, &pass) + type.line / 2, foot = type.line * 3;
  table(p, (SDL_Rect){r.x, r.y + top, r.w, r.h - top - foot}, &pass, steps, n);
  int y = r.y + r.h - foot;
  if (!timed)
    tt_draw_text(p->cv, r.x, y, tt_str(p->st->lang, TT_S_COST_NO_TIMES), type.small, TT_FONT_SANS, p->pal->dim,
                 TT_ALIGN_LEFT);
  tt_note(p->cv, "fixed");
  tt_draw_para(p->cv, r.x, y + type.line, r.w, tt_str(p->st->lang, TT_S_COST_RULE), type.small, TT_FONT_SANS,
               p->pal->dim);
  tt_note_scope(p->cv, NULL);
  free(steps);
  tt_cost_pass_free(&pass);
}
