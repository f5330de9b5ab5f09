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
} columns;

static void header(tt_paint *p, const columns *c, int y, int px, bool timed) {
  tt_lang lang = p->st->lang;
  tt_canvas *cv = p->cv;
  tt_rgba dim = p->pal->dim;
  tt_draw_text(cv, c->x_step, y, tt_str(lang, TT_S_COST_STEP), px, TT_FONT_BOLD, dim, TT_ALIGN_LEFT);
  tt_draw_text(cv, c->x_flops, y, tt_str(lang, TT_S_COST_FLOPS), px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  tt_draw_text(cv, c->x_bytes, y, tt_str(lang, TT_S_COST_BYTES), px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  tt_draw_text(cv, c->x_int, y, tt_str(lang, TT_S_COST_INTENSITY), px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
  if (timed) tt_draw_text(cv, c->x_time, y, tt_str(lang, TT_S_COST_TIME), px, TT_FONT_BOLD, dim, TT_ALIGN_RIGHT);
}

static void row(tt_paint *p, const columns *c, const tt_cost_step *s, const tt_cost_pass *pass, int y, int h, int px) {
  tt_canvas *cv = p->cv;
  char buf[64], line[160];
  double share = pass->flops > 0 ? s->flops / pass->flops : 0;
  tt_rgba col = s->kind == TT_COST_MATMUL ? p->pal->accent : p->pal->dim;
  int w = (int)(share * c->w_bar);
  cv->fill(cv, c->x_bar, y + h / 6, w > 1 ? w : 1, h * 2 / 3, col);
  tt_text_fit(cv->fonts, s->suffix, px, TT_FONT_MONO, c->x_bar - c->x_step - p->unit / 2, buf, sizeof buf);
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

static void table(tt_paint *p, SDL_Rect r, const tt_cost_pass *pass, const tt_cost_step *steps, int n) {
  const tt_type type = tt_type_for(p->unit);
  int u = p->unit, h = (r.h - type.line) / (n + 1);
  if (h > type.line) h = type.line;
  int px = h < type.line ? type.small : type.label;
  bool timed = pass->seconds >= 0;
  columns c = {0};
  // the number columns from the right edge, each as wide as its heading or a number
  tt_lang lang = p->st->lang;
  tt_fonts *f = p->cv->fonts;
  const char *heads[4] = {tt_str(lang, TT_S_COST_TIME), tt_str(lang, TT_S_COST_INTENSITY),
                          tt_str(lang, TT_S_COST_BYTES), tt_str(lang, TT_S_COST_FLOPS)};
  int *rights[4] = {&c.x_time, &c.x_int, &c.x_bytes, &c.x_flops};
  int x = r.x + r.w - u / 2, num_w = tt_text_width(f, "99999.9 \xC2\xB5s", px, TT_FONT_SANS);
  for (int i = timed ? 0 : 1; i < 4; i++) {
    int w = tt_text_width(f, heads[i], px, TT_FONT_BOLD);
    *rights[i] = x;
    x -= (w > num_w ? w : num_w) + u;
  }
  int left = x - r.x;  // the step labels, then the bars
  c.x_step = r.x;
  c.x_bar = r.x + left * 62 / 100;
  c.w_bar = left * 38 / 100 - u;
  header(p, &c, r.y, px, timed);
  for (int i = 0; i < n; i++) row(p, &c, &steps[i], pass, r.y + h * (i + 1), h, px);
}

static void caption(tt_paint *p, SDL_Rect r, const tt_cost_pass *pass) {
  const tt_type type = tt_type_for(p->unit);
  char g[32], share[32], line[256];
  tt_fmt_num(pass->flops / 1e9, "%.4f", g, sizeof g);
  tt_fmt_num(100.0 * pass->matmul_flops / pass->flops, "%.1f", share, sizeof share);
  snprintf(line, sizeof line, tt_str(p->st->lang, TT_S_COST_CAPTION_FMT), pass->T, g, share);
  tt_note(p->cv, "cost_caption");
  tt_draw_text(p->cv, r.x, r.y, line, type.body, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
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
  caption(p, r, &pass);
  int foot = type.line * 3;
  table(p, (SDL_Rect){r.x, r.y + type.line * 3 / 2, r.w, r.h - type.line * 3 / 2 - foot}, &pass, steps, n);
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
