// rope: rotary positions of one layer and head. A few pairs of dimensions (the fastest,
// a middle and the slowest frequency) drawn as arrows on circles, one circle per position:
// q's pair before the rotation (hook_q) and after it (hook_rot_q), with each angle t·θᵢ;
// the numbers of the chosen position (st->position, else the last) for q and k; and the
// shift test: the same q and k rotated at other positions give the same raw scores, measured
// against the recorded hook_attn_scores_raw.
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "render_int.h"

#define MAX_PAIRS 3
#define SHIFT_POSITIONS 128  // the shift test covers the first positions (T·T·H·D products)

typedef struct {
  int layer, head, kv, H, G, D, T, offset, pos;
  int first, shown;  // the positions drawn as circles: first .. first + shown − 1 (around pos)
  double theta;
  const tt_tensor *q, *rq, *k, *rk, *raw;
  int pair[MAX_PAIRS], n_pairs;
} rope_view;

// θᵢ = θ^(−2i/D): the angle pair i turns by per position.
static double frequency(const rope_view *c, int i) {
  return pow(c->theta, -2.0 * i / c->D);
}

// The pairs shown: the fastest (0), the view's pair (st->pair; -1: one in the middle), the
// slowest (D/2 − 1), without repeats.
static void choose_pairs(rope_view *c, int chosen) {
  int half = c->D / 2, want[MAX_PAIRS] = {0, chosen >= 0 && chosen < half ? chosen : half / 2, half - 1};
  c->n_pairs = 0;
  for (int k = 0; k < MAX_PAIRS; k++) {
    bool seen = false;
    for (int j = 0; j < c->n_pairs; j++) seen |= c->pair[j] == want[k];
    if (!seen && want[k] >= 0) c->pair[c->n_pairs++] = want[k];
  }
}

// (x[i], x[i + D/2]) of head h, position t of a head-major (heads, T, D) tensor.
static void pair_of(const tt_tensor *t, const rope_view *c, int h, int pos, int i, double *a, double *b) {
  int64_t at = ((int64_t)h * c->T + pos) * c->D;
  *a = tt_tensor_at(t, at + i);
  *b = tt_tensor_at(t, at + i + c->D / 2);
}

// x (D) turned at position p (rotate-half), into out (D), in double.
static void rotate(const rope_view *c, const tt_tensor *t, int h, int pos, int p, double *out) {
  int half = c->D / 2;
  for (int i = 0; i < half; i++) {
    double a, b, ang = (double)p * frequency(c, i);
    pair_of(t, c, h, pos, i, &a, &b);
    out[i] = a * cos(ang) - b * sin(ang);
    out[i + half] = b * cos(ang) + a * sin(ang);
  }
}

// max |S′ − S| over heads and the first n positions, S′ from q and k rotated at positions
// first + t instead of offset + t; *largest is max |S|. false when out of memory.
static bool measure_shift(const rope_view *c, int first, int n, double *diff, double *largest) {
  double *q = malloc(sizeof *q * (size_t)c->H * n * c->D), *k = malloc(sizeof *k * (size_t)c->G * n * c->D);
  bool ok = q && k;
  for (int h = 0; ok && h < c->H; h++)
    for (int t = 0; t < n; t++) rotate(c, c->q, h, t, first + t, q + ((size_t)h * n + t) * c->D);
  for (int g = 0; ok && g < c->G; g++)
    for (int t = 0; t < n; t++) rotate(c, c->k, g, t, first + t, k + ((size_t)g * n + t) * c->D);
  *diff = *largest = 0;
  for (int h = 0; ok && h < c->H; h++)
    for (int t = 0; t < n; t++)
      for (int s = 0; s < n; s++) {
        const double *qv = q + ((size_t)h * n + t) * c->D, *kv = k + ((size_t)(h / (c->H / c->G)) * n + s) * c->D;
        double dot = 0;
        for (int d = 0; d < c->D; d++) dot += qv[d] * kv[d];
        double rec = tt_tensor_at(c->raw, ((int64_t)h * c->T + t) * c->T + s);
        *diff = fmax(*diff, fabs(dot - rec));
        *largest = fmax(*largest, fabs(rec));
      }
  free(q);
  free(k);
  return ok;
}

// A circle of radius rad around (cx, cy), as line segments.
static void circle(tt_canvas *cv, int cx, int cy, int rad, tt_rgba col) {
  const int n = 32;
  for (int s = 0; s < n; s++) {
    double a0 = 2 * M_PI * s / n, a1 = 2 * M_PI * (s + 1) / n;
    cv->line(cv, cx + (int)lround(rad * cos(a0)), cy - (int)lround(rad * sin(a0)), cx + (int)lround(rad * cos(a1)),
             cy - (int)lround(rad * sin(a1)), col);
  }
}

// An arrow from (cx, cy) to the point (a, b) of the plane (b up), thick lines and a head.
// A point that is not finite draws nothing; one far off is cut to 4096 pixels (the pixel
// sums stay in int).
static void arrow(tt_canvas *cv, int cx, int cy, double a, double b, tt_rgba col) {
  if (!isfinite(a) || !isfinite(b)) return;
  a = fmax(-4096, fmin(4096, a)), b = fmax(-4096, fmin(4096, b));
  int x1 = cx + (int)lround(a), y1 = cy - (int)lround(b);
  for (int w = -1; w <= 1; w++) {
    cv->line(cv, cx + w, cy, x1 + w, y1, col);
    cv->line(cv, cx, cy + w, x1, y1 + w, col);
  }
  double len = hypot(a, b), ang = atan2(b, a);
  if (len < 6) return;
  for (int side = -1; side <= 1; side += 2) {
    double h = ang + M_PI + side * 0.45;
    cv->line(cv, x1, y1, x1 + (int)lround(len * 0.3 * cos(h)), y1 - (int)lround(len * 0.3 * sin(h)), col);
  }
}

// The pair's largest length over the positions shown, before and after the rotation (the
// arrows' scale; a rotation keeps the length, a trace that does not still fits).
static double pair_extent(const rope_view *c, int i) {
  double m = 0;
  for (int t = c->first; t < c->first + c->shown; t++) {
    double a, b;
    pair_of(c->q, c, c->head, t, i, &a, &b);
    m = fmax(m, hypot(a, b));
    pair_of(c->rq, c, c->head, t, i, &a, &b);
    m = fmax(m, hypot(a, b));
  }
  return m > 0 ? m : 1;
}

// One pair's row: its label and frequency, then a circle per position with q before
// (dim) and after (accent) the rotation and the angle under it.
static void pair_row(tt_paint *p, const rope_view *c, int k, SDL_Rect row, int step) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  int i = c->pair[k], lw = row.w / 4;
  char line[200], num[48], num2[48];
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_PAIR_FMT), i, i, i + c->D / 2);
  tt_note(cv, "rope_pair i=%d", i);
  tt_draw_text(cv, row.x, row.y, line, type.body, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  double f = frequency(c, i);
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_FREQ_FMT), i, tt_fmt_num(f, "%.4g", num, sizeof num));
  tt_note(cv, "rope_freq i=%d", i);
  tt_draw_text(cv, row.x, row.y + type.line, line, type.label, TT_FONT_SANS, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_TURN_FMT), tt_fmt_num(2 * M_PI / f, "%.4g", num2, sizeof num2));
  tt_note(cv, "rope_turn i=%d", i);
  tt_draw_text(cv, row.x, row.y + 2 * type.line, line, type.label, TT_FONT_SANS, p->pal->dim, TT_ALIGN_LEFT);
  int rad = (row.h - type.line * 3 / 2) / 2;
  if (rad > step * 2 / 5) rad = step * 2 / 5;
  if (rad < 4) return;
  double scale = rad * 0.92 / pair_extent(c, i);
  for (int t = c->first; t < c->first + c->shown; t++) {
    int cx = row.x + lw + step * (t - c->first) + step / 2, cy = row.y + rad + 2;
    circle(cv, cx, cy, rad, t == c->pos ? p->pal->accent : p->pal->dim);
    double a, b;
    pair_of(c->q, c, c->head, t, i, &a, &b);
    arrow(cv, cx, cy, a * scale, b * scale, p->pal->dim);
    pair_of(c->rq, c, c->head, t, i, &a, &b);
    arrow(cv, cx, cy, a * scale, b * scale, p->pal->accent);
    tt_note(cv, "rope_angle i=%d t=%d", i, t);
    tt_draw_text(cv, cx, cy + rad + type.small / 3, tt_fmt_num((double)(c->offset + t) * f, "%.2f", num, sizeof num),
                 type.small, TT_FONT_SANS, p->pal->fg, TT_ALIGN_CENTER);
  }
}

// The positions over the circles: the position number and its token.
static void position_heads(tt_paint *p, const rope_view *c, int x, int y, int step) {
  const tt_type type = tt_type_for(p->unit);
  char num[32], tok[160], fit[160];
  for (int t = c->first; t < c->first + c->shown; t++) {
    int cx = x + step * (t - c->first) + step / 2;
    snprintf(num, sizeof num, "%d", c->offset + t);
    tt_note(p->cv, "rope_pos t=%d", t);
    tt_draw_text(p->cv, cx, y, num, type.small, TT_FONT_BOLD, t == c->pos ? p->pal->accent : p->pal->fg,
                 TT_ALIGN_CENTER);
    tt_token_label(p->tr, t, tok, sizeof tok);
    tt_text_fit(p->cv->fonts, tok, type.small, TT_FONT_MONO, step - 2, fit, sizeof fit);
    tt_note(p->cv, "rope_tok t=%d", t);
    tt_draw_text(p->cv, cx, y + type.line * 4 / 5, fit, type.small, TT_FONT_MONO, p->pal->dim, TT_ALIGN_CENTER);
  }
}

// One number pair "(a, b)" of the table.
static void table_pair(tt_paint *p, int x, int y, double a, double b, const char *note, int i, int t) {
  char na[32], nb[32], text[80];
  snprintf(text, sizeof text, "(%s, %s)", tt_fmt_num(a, "%.3f", na, sizeof na), tt_fmt_num(b, "%.3f", nb, sizeof nb));
  tt_note(p->cv, "rope_num i=%d t=%d v=%s", i, t, note);
  tt_draw_text(p->cv, x, y, text, tt_type_for(p->unit).label, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
}

// The chosen position's numbers: per pair the angle, q and k before and after the rotation.
static int numbers_table(tt_paint *p, const rope_view *c, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  char line[300], tok[160], num[32];
  tt_token_label(p->tr, c->pos, tok, sizeof tok);
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_AT_FMT), c->offset + c->pos, tok);
  tt_note(cv, "rope_at t=%d", c->pos);
  tt_draw_text(cv, r.x, r.y, line, type.body, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  const int heads[6] = {TT_S_ROPE_H_PAIR, TT_S_ROPE_H_ANGLE, TT_S_ROPE_H_Q,
                        TT_S_ROPE_H_RQ,   TT_S_ROPE_H_K,     TT_S_ROPE_H_RK};
  const int col[6] = {0, 8, 24, 44, 64, 84};  // % of the width
  for (int h = 0; h < 6; h++)
    tt_draw_text(cv, r.x + r.w * col[h] / 100, r.y + type.line, tt_str(lang, (tt_str_id)heads[h]), type.label,
                 TT_FONT_BOLD, p->pal->dim, TT_ALIGN_LEFT);
  for (int k = 0; k < c->n_pairs; k++) {
    int i = c->pair[k], y = r.y + type.line * (k + 2);
    snprintf(num, sizeof num, "%d", i);
    tt_note(cv, "rope_num i=%d t=%d v=pair", i, c->pos);
    tt_draw_text(cv, r.x, y, num, type.label, TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
    tt_note(cv, "rope_num i=%d t=%d v=angle", i, c->pos);
    tt_draw_text(cv, r.x + r.w * col[1] / 100, y,
                 tt_fmt_num((double)(c->offset + c->pos) * frequency(c, i), "%.4f", num, sizeof num), type.label,
                 TT_FONT_MONO, p->pal->fg, TT_ALIGN_LEFT);
    const tt_tensor *src[4] = {c->q, c->rq, c->k, c->rk};
    const char *what[4] = {"q", "rq", "k", "rk"};
    for (int s = 0; s < 4; s++) {
      double a, b;
      pair_of(src[s], c, s < 2 ? c->head : c->kv, c->pos, i, &a, &b);
      table_pair(p, r.x + r.w * col[s + 2] / 100, y, a, b, what[s], i, c->pos);
    }
  }
  return type.line * (c->n_pairs + 2);
}

// The shift test's two lines and why it holds.
static void shift_lines(tt_paint *p, const rope_view *c, SDL_Rect r) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  int shift = c->offset ? -c->offset : 4, n = c->T < SHIFT_POSITIONS ? c->T : SHIFT_POSITIONS;
  double diff, largest;
  if (!measure_shift(c, c->offset + shift, n, &diff, &largest)) return;
  char line[400], s1[32], s2[32], s3[32];
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_SHIFT_FMT), c->offset + shift, c->offset + shift + c->T - 1,
           tt_fmt_num(shift, "%+.0f", s1, sizeof s1));
  tt_note(cv, "rope_shift layer=%d", c->layer);
  tt_draw_text(cv, r.x, r.y, line, type.body, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_MEASURE_FMT), tt_fmt_num(diff, "%.2e", s2, sizeof s2), c->H, n, n,
           tt_fmt_num(largest, "%.4g", s3, sizeof s3));
  tt_note(cv, "rope_measure layer=%d shift=%d n=%d", c->layer, shift, n);
  tt_draw_text(cv, r.x, r.y + type.line, line, type.body, TT_FONT_SANS, p->pal->accent, TT_ALIGN_LEFT);
  tt_draw_para(cv, r.x, r.y + type.line * 2, r.w, tt_str(lang, TT_S_ROPE_SHIFT_WHY), type.label, TT_FONT_SANS,
               p->pal->dim);
}

// The tensors and sizes of layer's head; false when the trace has no rotary positions there.
static bool setup(const tt_paint *p, rope_view *c, int layer, int head) {
  tt_config cfg;
  memset(c, 0, sizeof *c);
  if (!tt_trace_config(p->tr, &cfg) || cfg.positions != TT_POS_ROPE || layer < 0 || layer >= cfg.n_layer) return false;
  c->layer = layer, c->H = cfg.n_head, c->G = tt_config_kv_heads(&cfg), c->D = tt_config_head_dim(&cfg);
  c->T = tt_trace_n_tokens(p->tr), c->offset = cfg.rope_offset, c->theta = cfg.rope_theta;
  c->head = head < 0 ? 0 : head >= c->H ? c->H - 1 : head;
  c->kv = c->head / (c->H / c->G);
  c->pos = p->st->position >= 0 && p->st->position < c->T ? p->st->position : c->T - 1;
  c->q = tt_find_hook(p->tr, layer, "attn.hook_q"), c->rq = tt_find_hook(p->tr, layer, "attn.hook_rot_q");
  c->k = tt_find_hook(p->tr, layer, "attn.hook_k"), c->rk = tt_find_hook(p->tr, layer, "attn.hook_rot_k");
  c->raw = tt_find_hook(p->tr, layer, "attn.hook_attn_scores_raw");
  const int64_t want[5][3] = {
      {c->H, c->T, c->D}, {c->H, c->T, c->D}, {c->G, c->T, c->D}, {c->G, c->T, c->D}, {c->H, c->T, c->T}};
  const tt_tensor *have[5] = {c->q, c->rq, c->k, c->rk, c->raw};
  for (int i = 0; i < 5; i++)
    if (!have[i] || have[i]->ndim != 3 || memcmp(have[i]->shape, want[i], sizeof want[i]) != 0) return false;
  choose_pairs(c, p->st->pair);
  return c->T > 0 && c->D >= 2;
}

void tt_paint_rope(tt_paint *p, SDL_Rect r, int layer, int head) {
  tt_canvas *cv = p->cv;
  const tt_type type = tt_type_for(p->unit);
  tt_lang lang = p->st->lang;
  rope_view c;
  if (!setup(p, &c, layer, head)) {
    tt_draw_para(cv, r.x, r.y, r.w, tt_str(lang, TT_S_ROPE_NONE), p->unit, TT_FONT_SANS, p->pal->warn);
    return;
  }
  char line[300], th[32];
  tt_note_scope(cv, "panel=rope layer=%d head=%d", c.layer, c.head);
  snprintf(line, sizeof line, tt_str(lang, TT_S_ROPE_TITLE_FMT), c.layer, c.head, c.kv,
           tt_fmt_num(c.theta, "%.0f", th, sizeof th), c.D, c.offset, c.offset + c.T - 1);
  tt_note(cv, "rope_title");
  tt_draw_text(cv, r.x, r.y, line, type.heading, TT_FONT_BOLD, p->pal->fg, TT_ALIGN_LEFT);
  tt_note(cv, "fixed");
  int y =
      r.y + type.line +
      tt_draw_para(cv, r.x, r.y + type.line, r.w, tt_str(lang, TT_S_ROPE_RULE), type.label, TT_FONT_SANS, p->pal->dim);
  int lw = r.w / 4, n = (r.w - lw) / (p->unit * 3);
  if (n > c.T) n = c.T;
  if (n < 1) n = 1;
  c.shown = n;
  c.first = c.pos - n / 2 < 0 ? 0 : c.pos - n / 2 > c.T - n ? c.T - n : c.pos - n / 2;  // pos in view
  int step = (r.w - lw) / n;
  if (step > p->unit * 8) step = p->unit * 8;
  position_heads(p, &c, r.x + lw, y + type.line / 2, step);
  y += type.line * 2;
  int bottom = type.line * (c.n_pairs + 2) + type.line * 5, rows_h = r.y + r.h - y - bottom;
  int rh = rows_h / c.n_pairs;
  if (rh > step + type.line * 2) rh = step + type.line * 2;
  if (rh < type.line * 3) rh = type.line * 3;
  for (int k = 0; k < c.n_pairs; k++) pair_row(p, &c, k, (SDL_Rect){r.x, y + rh * k, r.w, rh}, step);
  y += rh * c.n_pairs + type.line / 2;
  y += numbers_table(p, &c, (SDL_Rect){r.x, y, r.w, r.h}) + type.line / 2;
  shift_lines(p, &c, (SDL_Rect){r.x, y, r.w, r.y + r.h - y});
  tt_note_scope(cv, NULL);
}
